// The participant cap holds only if LiveKit never creates a room on its own (docs/meeting-room.md,
// "Room security"): the meeting service opens every room, with its cap, on every join grant. The
// chart does not deploy LiveKit, so every place that tells a platform team how to configure it
// must say `room.auto_create: false`, as the embedded media server's and the local cluster's configurations do.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { mediaServerConfig } from "../../scripts/media-server.ts";
import { chartDir, root } from "./chart.ts";

/** The indented YAML block that follows `marker` in `text` (the LiveKit snippet of NOTES.txt). */
function blockAfter(text: string, marker: string): string {
  const lines = text
    .slice(text.indexOf(marker) + marker.length)
    .split("\n")
    .slice(1);
  const block: string[] = [];
  for (const line of lines) {
    if (line.trim() === "" && block.length === 0) continue;
    if (!/^ {5}/.test(line)) break;
    block.push(line);
  }
  return block.join("\n");
}

describe("LiveKit never creates rooms on its own", () => {
  it("the embedded media server (npm start, the tests) is configured with room.auto_create false", () => {
    const config = mediaServerConfig({
      port: 7880,
      rtcTcpPort: 7881,
      rtcUdpPort: 7882,
      apiKey: "key",
      apiSecret: "s".repeat(32),
      webhookUrl: "http://127.0.0.1/x",
    });
    expect(config.room.auto_create).toBe(false);
  });

  it("the local cluster's LiveKit (scripts/cluster, npm run test:cluster) is configured with room.auto_create false", () => {
    const config = parse(readFileSync(path.join(root, "scripts/cluster/manifests/livekit-config.yaml"), "utf8")) as { room?: { auto_create?: unknown } };
    expect(config.room?.auto_create).toBe(false);
  });

  it("the chart's NOTES give a LiveKit configuration with room.auto_create false and the webhook", () => {
    const notes = readFileSync(path.join(chartDir, "templates/NOTES.txt"), "utf8");
    const snippet = blockAfter(notes, "a room LiveKit created on a connection would have none):").replace(/\{\{[^}]*\}\}/g, "x");
    const config = parse(snippet) as { room?: { auto_create?: unknown }; webhook?: { urls?: string[] } };
    expect(config.room?.auto_create).toBe(false);
    expect(config.webhook?.urls?.[0]).toMatch(/\/livekit\/webhook$/);
  });

  it("values.yaml and docs/deploying.md say it where they say how to configure LiveKit", () => {
    const values = readFileSync(path.join(chartDir, "values.yaml"), "utf8");
    const mediaComment = values.slice(values.indexOf("The media server (LiveKit)"), values.indexOf("\nmedia:"));
    expect(parse(mediaComment.match(/^#\s+(room: .*)$/m)?.[1] ?? "")).toEqual({ room: { auto_create: false } });
    const deploying = readFileSync(path.join(root, "docs/deploying.md"), "utf8");
    expect(deploying).toContain("`room: {auto_create: false}`");
  });
});
