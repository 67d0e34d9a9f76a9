"""Cutting a long recording into pieces and putting their segments back together.

Whisper's memory grows with the audio it is given (about 1 MB per second here, because the
features of the whole input are computed at once), so a recording is transcribed a piece at a
time: each piece decodes at most `max_seconds` of audio, from `start` to `end`. A piece owns the
segments that *start* before its `keep_until`; the last `lookahead` seconds are decoded only so
that a sentence begun before `keep_until` is heard to its end rather than cut. The next piece
starts where the last owned segment ended, so no speech is transcribed twice and none is lost at
a cut (unless a single segment runs past the lookahead, which Whisper's 30-second windows do not
produce with the default lookahead).

Pure functions: no audio, no model, so the rules are tested alone (tests/test_pieces.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Sequence

# The bound is 10 minutes; 5 keeps the worker's peak memory near 0.25 GB + 0.3 GB
# (docs/transcription.md, "Memory").
DEFAULT_MAX_SECONDS = 300.0
DEFAULT_LOOKAHEAD = 30.0
MAX_PIECE_SECONDS = 600.0


@dataclass(frozen=True)
class Word:
    start: float
    end: float
    text: str
    probability: float

    def shifted(self, seconds: float) -> "Word":
        return replace(self, start=self.start + seconds, end=self.end + seconds)


@dataclass(frozen=True)
class Segment:
    start: float
    end: float
    text: str
    words: tuple[Word, ...] = field(default_factory=tuple)

    def shifted(self, seconds: float) -> "Segment":
        return replace(
            self,
            start=self.start + seconds,
            end=self.end + seconds,
            words=tuple(word.shifted(seconds) for word in self.words),
        )


@dataclass(frozen=True)
class Piece:
    """The audio from `start` to `end` (seconds of the recording) is decoded; segments starting before `keep_until` are kept."""

    start: float
    keep_until: float
    end: float


@dataclass(frozen=True)
class PieceResult:
    piece: Piece
    segments: tuple[Segment, ...]
    """Where the next piece starts; None when the recording has been transcribed to its end."""
    next_start: float | None


def plan_piece(start: float, max_seconds: float = DEFAULT_MAX_SECONDS, lookahead: float = DEFAULT_LOOKAHEAD) -> Piece:
    if not 0 < max_seconds <= MAX_PIECE_SECONDS:
        raise ValueError(f"a piece is at most {MAX_PIECE_SECONDS:.0f} seconds, not {max_seconds}")
    if not 0 <= lookahead < max_seconds / 2:
        raise ValueError(f"the lookahead ({lookahead} s) must be under half a piece ({max_seconds} s)")
    if start < 0:
        raise ValueError(f"a piece cannot start before the recording: {start}")
    return Piece(start=start, keep_until=start + max_seconds - lookahead, end=start + max_seconds)


def merge_piece(piece: Piece, segments: Sequence[Segment], decoded_seconds: float) -> PieceResult:
    """
    `segments` are the model's, with times relative to the piece's start; `decoded_seconds` is
    how much audio the piece really had (less than asked for: the recording ended inside it).
    """
    absolute = sorted((segment.shifted(piece.start) for segment in segments), key=lambda s: (s.start, s.end))
    last = piece.start + decoded_seconds < piece.end - 1e-6
    kept = tuple(absolute if last else (s for s in absolute if s.start < piece.keep_until))
    if last:
        return PieceResult(piece, kept, None)
    # The next piece starts after the last owned segment, and never goes backwards.
    next_start = max([piece.keep_until, *(s.end for s in kept)])
    return PieceResult(piece, kept, min(next_start, piece.end))


TranscribeWindow = Callable[[float, float], tuple[Sequence[Segment], float]]
"""(start, seconds) -> (segments relative to start, seconds of audio that were there)."""


def transcribe_in_pieces(
    transcribe_window: TranscribeWindow,
    start: float = 0.0,
    max_seconds: float = DEFAULT_MAX_SECONDS,
    lookahead: float = DEFAULT_LOOKAHEAD,
) -> Iterator[PieceResult]:
    """Every piece of a recording from `start` to its end, in order (one piece in memory at a time)."""
    next_start: float | None = start
    while next_start is not None:
        piece = plan_piece(next_start, max_seconds, lookahead)
        segments, decoded = transcribe_window(piece.start, piece.end - piece.start)
        result = merge_piece(piece, segments, decoded)
        yield result
        next_start = result.next_start
