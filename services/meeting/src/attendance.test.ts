import { describe, expect, it } from "vitest";
import { joinedCountOf, noShowsAreDue, peopleOf } from "./attendance.ts";
import type { RoomVisit } from "./visit-store.ts";

const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 10, minute));
let session = 0;
const visit = (participantId: string, displayName: string, joined: number, left: number | null, person: Pick<RoomVisit, "role" | "email"> = {}): RoomVisit => ({
  meetingId: "m",
  sessionId: `s${++session}`,
  participantId,
  displayName,
  joinedAt: at(joined),
  leftAt: left === null ? null : at(left),
  role: person.role ?? "guest",
  email: person.email ?? null,
});

describe("peopleOf", () => {
  const meeting = { hosts: ["Host@Example.com"], attendees: ["ada@example.com", "carol@example.com"] };

  it("tells invited people apart by the address of their link, whatever name they typed, and guests by participant identity", () => {
    const people = peopleOf(
      meeting,
      [
        visit("p1", "Ada", 0, 10, { role: "attendee", email: "ADA@example.com" }),
        visit("g1", "Walk-in", 2, 5),
        visit("p2", "Ada L.", 12, null, { role: "attendee", email: "ada@example.com" }),
        visit("g2", "Walk-in", 6, 8),
        visit("h1", "The host", 1, 20, { role: "host", email: "host@example.com" }),
      ],
      at(15),
    );
    expect(
      people.map(({ email, name, role, invited, present, totalSeconds, visits }) => [email, name, role, invited, present, totalSeconds, visits.length]),
    ).toEqual([
      ["Host@Example.com", "The host", "host", true, false, 19 * 60, 1],
      ["ada@example.com", "Ada L.", "attendee", true, true, 13 * 60, 2],
      ["carol@example.com", "", "attendee", true, false, 0, 0],
      [null, "Walk-in", "guest", false, false, 3 * 60, 1],
      [null, "Walk-in", "guest", false, false, 2 * 60, 1],
    ]);
    expect(joinedCountOf(people)).toBe(4);
  });

  it("counts a link of someone no longer invited as a guest", () => {
    const [, , , stranger] = peopleOf(meeting, [visit("p9", "Former", 0, 1, { role: "attendee", email: "former@example.com" })], at(5));
    expect(stranger).toMatchObject({ email: null, invited: false, role: "attendee", totalSeconds: 60 });
  });
});

describe("noShowsAreDue", () => {
  const settings = { lobby: false, screenShare: "everyone" as const, noShowAfterMinutes: 5, recording: "off" as const, transcription: "off" as const };
  it("once the meeting ended, or its no-show time passed; never for a cancelled meeting or one without a start", () => {
    expect(noShowsAreDue({ status: "ended", start: null, settings }, at(0))).toBe(true);
    expect(noShowsAreDue({ status: "live", start: at(0), settings }, at(4))).toBe(false);
    expect(noShowsAreDue({ status: "live", start: at(0), settings }, at(5))).toBe(true);
    expect(noShowsAreDue({ status: "scheduled", start: null, settings }, at(50))).toBe(false);
    expect(noShowsAreDue({ status: "cancelled", start: at(0), settings }, at(50))).toBe(false);
  });
});
