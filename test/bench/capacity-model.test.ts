import { describe, expect, it } from "vitest";
import {
  calComLike,
  cpuQuantityCores,
  mediaMbpsPerPerson,
  plan,
  rates,
  requestsPerSecondWithin,
  saturationOrder,
  sizing,
  type Workload,
} from "./capacity-model.ts";
import { unitsFromBench, type BenchResults, type UnitCosts } from "./capacity-units.ts";
import { formatMediaCostTable, formatRecordingCostTable, formatTranscriptionCostTable } from "./cost-tables.ts";

const units: UnitCosts = {
  source: "test",
  auth: { gateway: 100 },
  meetingWrite: { gateway: 1_000, meeting: 1_000 },
  joinGrant: { gateway: 2_000, meeting: 3_000, "media server": 100, postgres: 900 },
  delivery: { gateway: 1_500, meeting: 2_500, webhook: 2_000, postgres: 1_000, kafka: 1_000, redis: 200 },
  mediaServer: { participants: 5, coresPerParticipant: 0.01, mbpsPerParticipant: 1, rssMiBPerParticipant: 2 },
  recording: { cores: 1, pssMiB: 600 },
  transcription: { cpuSecondsPerAudioSecond: 0.1, peakRssMb: 700, audioMinutes: 60 },
  rssMb: { gateway: 200, identity: 120, meeting: 150, webhook: 160 },
};

/** A workload with round numbers: 1,800 meetings of 30 minutes start 1 per second. */
const workload: Workload = { ...calComLike(1_800), meetingCallsPerMeeting: 2, mediaMbpsPerPerson: 2 };

describe("the capacity model", () => {
  it("turns concurrent meetings into rates by their mean length (Little's law)", () => {
    const rate = rates(workload);
    expect(rate.meetingsPerSecond).toBeCloseTo(1);
    expect(rate.authPerSecond).toBeCloseTo(1);
    expect(rate.meetingCallsPerSecond).toBeCloseTo(2);
    expect(rate.grantsPerSecond).toBeCloseTo(10); // 5 people, 2 grants each
    // started, ended, 5 joined, 5 left; recording.ready for a tenth, transcript.ready for half of those
    expect(rate.deliveriesPerSecond).toBeCloseTo(12 + 0.1 + 0.05);
    expect(rate.concurrentPeople).toBe(9_000);
    expect(rate.concurrentRecordings).toBeCloseTo(180);
    // 0.05 transcribed meetings a second, each 1,800 s of 5 speakers' tracks
    expect(rate.audioSecondsPerSecond).toBeCloseTo(450);
  });

  it("adds each unit's CPU at its rate and rounds replicas up, two at least", () => {
    const needs = Object.fromEntries(plan(units, workload).map((need) => [need.component, need]));
    // 1 × 100 + 2 × 1,000 + 10 × 2,000 + 12.15 × 1,500 µs per second
    expect(needs.gateway!.cores).toBeCloseTo(0.040325);
    expect(needs.gateway!.replicas).toBe(sizing.minReplicas);
    expect(needs.gateway!.memoryMiB).toBe(2 * 200);
    expect(needs.meeting!.cores).toBeCloseTo((2 * 1_000 + 10 * 3_000 + 12.15 * 2_500) / 1e6);
    expect(needs.postgres!.cores).toBeCloseTo((10 * 900 + 12.15 * 1_000) / 1e6);
    expect(needs.postgres!.replicas).toBeUndefined();
    expect(needs.identity!.cores).toBe(0);

    // 9,000 people at 0.01 cores each for 1 Mbit/s, scaled to 2 Mbit/s, plus the grants' share
    expect(needs["media server"]!.cores).toBeCloseTo(180 + 0.001);
    expect(needs["media server"]!.replicas).toBe(Math.ceil(180.001 / sizing.mediaServerCoresPerNode));
    expect(needs["recorder (egress)"]).toMatchObject({ cores: 180, replicas: 180, memoryMiB: 180 * 600, meetingsPerReplica: 10 });
    expect(needs.transcriber).toMatchObject({ replicas: 45, memoryMiB: 45 * 700 });
    expect(needs.transcriber!.cores).toBeCloseTo(45);
  });

  it("plans more replicas of a service once its cores pass two replicas' share", () => {
    const busy = plan({ ...units, auth: { gateway: 5_000_000 } }, workload).find((need) => need.component === "gateway")!;
    expect(busy.replicas).toBe(Math.ceil(busy.cores / sizing.nodeCoresPerReplica));
    expect(busy.replicas).toBeGreaterThan(2);
  });

  it("orders components by the meetings one replica holds, the recorder first here", () => {
    const order = saturationOrder(plan(units, workload)).map((need) => need.component);
    expect(order[0]).toBe("recorder (egress)");
    expect(order).not.toContain("identity"); // no work at all: never saturates
    expect(order.indexOf("meeting")).toBeLessThan(order.indexOf("gateway"));
  });

  it("predicts a CPU limit's throughput from the CPU per request: two 250m gateways at 100 µs serve 5,000/s", () => {
    expect(cpuQuantityCores("250m")).toBe(0.25);
    expect(cpuQuantityCores("1.5")).toBe(1.5);
    expect(requestsPerSecondWithin(2 * cpuQuantityCores("250m"), 100)).toBeCloseTo(5_000);
  });

  it("assumes each person sends one grid-tile video layer and audio and receives everyone else's", () => {
    expect(mediaMbpsPerPerson(5)).toBeCloseTo(5 * (0.45 + 0.048));
  });
});

describe("the units read from a bench run", () => {
  const row = (scenario: string, cpuMicrosPerRequest: Record<string, number>) => ({ scenario, cpuMicrosPerRequest });
  const results: BenchResults = {
    measuredAt: "2026-12-07T22:20:00Z",
    commit: "abc1234",
    machine: { cores: 2, cpu: "test" },
    rows: [
      row("POST /api/v1/auth (API key, cache warm)", { gateway: 90, identity: 0.4 }),
      row("POST /api/v1/meeting (2 attendees)", { gateway: 1_200, meeting: 800 }),
      row("POST /api/v1/meeting/:id/join (50 concurrent)", { gateway: 2_000, "media server": 70, machine: 9_000 }),
      row("webhook pipeline: 1000 meetings ended → delivered", { meeting: 2_500, kafka: 1_100, bench: 300, machine: 12_000 }),
      ...["identity", "meeting", "webhook", "gateway"].map((service) => ({
        scenario: `memory: ${service} RSS MB idle → end of the load → 25 s later`,
        note: service === "gateway" ? "223 → 272 → 167" : "130 → 118 → 140",
      })),
    ],
  };
  const printed = [
    formatRecordingCostTable(20, [
      { layout: "grid", concurrent: 1, accepted: 1, refusals: [], steadyCores: 1.03, startCores: 0.8, pssMiB: 651, pssMiBPerRecording: 603 },
    ]),
    formatTranscriptionCostTable([
      { minutes: 10, workerCpuSecondsPerAudioSecond: 0.09, workerPeakRssMb: 600 },
      { minutes: 60, workerCpuSecondsPerAudioSecond: 0.08, workerPeakRssMb: 650 },
    ]),
    formatMediaCostTable([
      { participants: 2, seconds: 60, mediaServerCores: 0.04, idleCores: 0.01, publishedMbps: 2, forwardedMbps: 2, mediaServerRssMiBAboveIdle: 4 },
      { participants: 5, seconds: 60, mediaServerCores: 0.21, idleCores: 0.01, publishedMbps: 4, forwardedMbps: 16, mediaServerRssMiBAboveIdle: 10 },
      { participants: 8, seconds: 60, mediaServerCores: 0.5, idleCores: 0.01, publishedMbps: 6, forwardedMbps: 42, mediaServerRssMiBAboveIdle: 16 },
    ]),
  ].join("\n");

  it("takes each unit from its row and table, without the load generator, the whole machine and the media server's idle CPU", () => {
    const read = unitsFromBench(results, printed, 5);
    expect(read.auth).toEqual({ gateway: 90, identity: 0.4 });
    expect(read.joinGrant).toEqual({ gateway: 2_000, "media server": 70 });
    expect(read.delivery).toEqual({ meeting: 2_500, kafka: 1_100 });
    expect(read.mediaServer).toMatchObject({ participants: 5, mbpsPerParticipant: 4, rssMiBPerParticipant: 2 });
    expect(read.mediaServer.coresPerParticipant).toBeCloseTo((0.21 - 0.01) / 5);
    expect(read.recording).toEqual({ cores: 1.03, pssMiB: 603 });
    expect(read.transcription).toEqual({ cpuSecondsPerAudioSecond: 0.08, peakRssMb: 650, audioMinutes: 60 });
    expect(read.rssMb).toEqual({ gateway: 272, identity: 140, meeting: 140, webhook: 140 });
    expect(read.source).toContain("abc1234");
  });

  it("names the row a results file lacks", () => {
    const withoutPipeline = { ...results, rows: results.rows.filter((candidate) => !candidate.scenario.startsWith("webhook pipeline")) };
    expect(() => unitsFromBench(withoutPipeline, printed, 5)).toThrow(/no row "webhook pipeline:…"/);
  });

  it("names the table the printed output lacks", () => {
    expect(() => unitsFromBench(results, printed.replace(/Media server cost/, "Something else"), 5)).toThrow(/no media server cost table/);
  });
});
