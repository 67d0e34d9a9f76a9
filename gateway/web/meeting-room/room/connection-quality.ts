import { ConnectionQuality } from "livekit-client";

/** The media server's measure of someone's connection, in the three words the room shows. */
export type QualityWord = "good" | "poor" | "lost";

export function qualityWord(quality: ConnectionQuality): QualityWord | undefined {
  if (quality === ConnectionQuality.Excellent || quality === ConnectionQuality.Good) return "good";
  if (quality === ConnectionQuality.Poor) return "poor";
  if (quality === ConnectionQuality.Lost) return "lost";
  // Unknown: not measured yet (the first few seconds), nothing to show.
  return undefined;
}

export const qualityLabel: Record<QualityWord, string> = {
  good: "Connection: good",
  poor: "Connection: poor",
  lost: "Connection: lost",
};
