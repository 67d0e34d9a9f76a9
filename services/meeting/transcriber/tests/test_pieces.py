"""Cutting a recording into pieces and merging their segments (svc_transcriber/pieces.py), without a model."""

import pytest

from svc_transcriber.pieces import MAX_PIECE_SECONDS, Segment, Word, merge_piece, plan_piece, transcribe_in_pieces


def test_a_piece_never_decodes_more_than_ten_minutes():
    with pytest.raises(ValueError, match="at most 600"):
        plan_piece(0, max_seconds=MAX_PIECE_SECONDS + 1)
    piece = plan_piece(1234.5, max_seconds=600, lookahead=30)
    assert (piece.start, piece.keep_until, piece.end) == (1234.5, 1804.5, 1834.5)


def test_a_lookahead_of_half_a_piece_or_more_is_refused_because_pieces_would_not_advance():
    with pytest.raises(ValueError, match="lookahead"):
        plan_piece(0, max_seconds=60, lookahead=30)


def test_segments_and_their_words_are_shifted_to_the_recordings_time():
    piece = plan_piece(100, max_seconds=60, lookahead=10)
    result = merge_piece(piece, [Segment(1.0, 2.5, "hello there", (Word(1.0, 1.4, "hello", 0.9), Word(1.5, 2.5, "there", 0.8)))], 60)
    [segment] = result.segments
    assert (segment.start, segment.end) == (101.0, 102.5)
    assert [(w.start, w.end) for w in segment.words] == [(101.0, 101.4), (101.5, 102.5)]


def test_a_segment_that_starts_in_the_lookahead_belongs_to_the_next_piece():
    piece = plan_piece(0, max_seconds=60, lookahead=10)
    result = merge_piece(piece, [Segment(10, 20, "mine"), Segment(51, 58, "next piece's")], 60)
    assert [s.text for s in result.segments] == ["mine"]
    assert result.next_start == 50


def test_a_segment_that_crosses_the_cut_is_kept_whole_and_the_next_piece_starts_after_it():
    piece = plan_piece(0, max_seconds=60, lookahead=10)
    result = merge_piece(piece, [Segment(45, 56.2, "across the cut")], 60)
    assert [s.text for s in result.segments] == ["across the cut"]
    assert result.next_start == 56.2


def test_the_piece_where_the_audio_ends_keeps_everything_and_is_the_last():
    piece = plan_piece(50, max_seconds=60, lookahead=10)
    result = merge_piece(piece, [Segment(5, 8, "a"), Segment(55, 57, "in what would be the lookahead")], 58)
    assert [s.text for s in result.segments] == ["a", "in what would be the lookahead"]
    assert result.next_start is None


def test_audio_that_ends_exactly_at_a_pieces_end_takes_one_more_empty_piece():
    pieces = list(transcribe_in_pieces(lambda start, seconds: ([], max(0.0, min(seconds, 60 - start))), max_seconds=60, lookahead=10))
    assert [(p.piece.start, p.next_start) for p in pieces] == [(0, 50), (50, None)]


class Speech:
    """A fake model over known utterances: what Whisper does with a window, cutting what runs past its end."""

    def __init__(self, utterances, duration):
        self.utterances = utterances
        self.duration = duration
        self.windows = []

    def __call__(self, start, seconds):
        self.windows.append((start, seconds))
        end = min(start + seconds, self.duration)
        heard = []
        for u_start, u_end, text in self.utterances:
            if u_end <= start or u_start >= end:
                continue
            # An utterance begun before the window (the previous piece owns it) is heard as a fragment.
            words = text.split()
            clipped_start, clipped_end = max(u_start, start), min(u_end, end)
            fraction = (clipped_end - clipped_start) / (u_end - u_start)
            part = words[:max(1, int(len(words) * fraction))] if u_start >= start else words[-max(1, int(len(words) * fraction)):]
            heard.append(Segment(clipped_start - start, clipped_end - start, " ".join(part)))
        return heard, max(0.0, end - start)


def test_a_long_recording_comes_back_whole_in_order_each_utterance_once_and_no_piece_over_its_bound():
    utterances = []
    t = 3.0
    for n in range(400):  # about 53 minutes of speech with pauses, utterances falling across every cut
        length = 4 + (n * 7) % 9
        utterances.append((t, t + length, f"utterance {n} " + "word " * length))
        t += length + 1 + (n % 3)
    speech = Speech(utterances, duration=t + 20)

    results = list(transcribe_in_pieces(speech, max_seconds=300, lookahead=30))

    merged = [s for r in results for s in r.segments]
    assert [(s.start, s.end, s.text) for s in merged] == [(a, b, text.strip()) for a, b, text in utterances]
    assert all(seconds <= 300 for _, seconds in speech.windows)
    assert len(results) == len(speech.windows) > 10
    assert results[-1].next_start is None
