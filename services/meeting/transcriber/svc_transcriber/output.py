"""The worker's JSON: times in seconds of the recording, to the millisecond."""

from __future__ import annotations

from .pieces import PieceResult, Segment


def seconds(value: float) -> float:
    return round(value, 3)


def segment_json(segment: Segment) -> dict:
    return {
        "start": seconds(segment.start),
        "end": seconds(segment.end),
        "text": segment.text,
        "words": [
            {"start": seconds(w.start), "end": seconds(w.end), "word": w.text, "probability": round(w.probability, 3)}
            for w in segment.words
        ],
    }


def piece_json(result: PieceResult) -> dict:
    return {
        "start": seconds(result.piece.start),
        "end": seconds(result.piece.end),
        "keepUntil": seconds(result.piece.keep_until),
        "nextStart": None if result.next_start is None else seconds(result.next_start),
        "segments": [segment_json(s) for s in result.segments],
    }
