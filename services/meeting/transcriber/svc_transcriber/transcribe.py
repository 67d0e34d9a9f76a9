"""Transcribing a recording (or one piece of it) with the verified model."""

from __future__ import annotations

from typing import Iterator, Sequence

from .audio import SAMPLE_RATE, read_piece
from .pieces import DEFAULT_LOOKAHEAD, DEFAULT_MAX_SECONDS, Piece, PieceResult, Segment, Word, merge_piece, plan_piece, transcribe_in_pieces

# Measured settings (docs/transcription.md): beam 5 halves the WER of beam 1 for a third more CPU;
# the VAD filter keeps Whisper from inventing text in silence, which a participant's track is mostly.
TRANSCRIBE_OPTIONS = dict(language="en", beam_size=5, vad_filter=True, word_timestamps=True, condition_on_previous_text=False)


def window_transcriber(model, path: str):
    """A `TranscribeWindow` over the file at `path`."""

    def transcribe_window(start: float, seconds: float) -> tuple[Sequence[Segment], float]:
        samples = read_piece(path, start, seconds)
        if samples.size == 0:
            return [], 0.0
        return segments_of(model, samples), samples.size / SAMPLE_RATE

    return transcribe_window


def segments_of(model, audio) -> list[Segment]:
    found, _info = model.transcribe(audio, **TRANSCRIBE_OPTIONS)
    return [
        Segment(
            start=s.start,
            end=s.end,
            text=s.text.strip(),
            words=tuple(Word(w.start, w.end, w.word.strip(), w.probability) for w in (s.words or [])),
        )
        for s in found
        if s.text.strip()
    ]


def transcribe_whole(model, path: str) -> PieceResult:
    """The model alone on the whole file (faster-whisper decodes it all at once): the bench's reference, not for long audio."""
    segments = segments_of(model, path)
    end = segments[-1].end if segments else 0.0
    return PieceResult(Piece(0.0, end, end), tuple(segments), None)


def transcribe_piece(model, path: str, start: float, max_seconds: float = DEFAULT_MAX_SECONDS, lookahead: float = DEFAULT_LOOKAHEAD) -> PieceResult:
    piece = plan_piece(start, max_seconds, lookahead)
    segments, decoded = window_transcriber(model, path)(piece.start, piece.end - piece.start)
    return merge_piece(piece, segments, decoded)


def transcribe_file(model, path: str, max_seconds: float = DEFAULT_MAX_SECONDS, lookahead: float = DEFAULT_LOOKAHEAD) -> Iterator[PieceResult]:
    return transcribe_in_pieces(window_transcriber(model, path), 0.0, max_seconds, lookahead)
