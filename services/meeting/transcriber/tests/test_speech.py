"""The real model on synthetic speech (espeak-ng), cut into several pieces: the words, their times, their order."""

import json
import re
import shutil
import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest

from svc_transcriber.model import load_model
from svc_transcriber.transcribe import transcribe_file

SPEECH = json.loads((Path(__file__).parent / "speech.json").read_text())["sentences"]
SENTENCES = [sentence["text"] for sentence in SPEECH]
PAUSES = [sentence["pause"] for sentence in SPEECH]


def words(text: str) -> list[str]:
    return re.sub(r"[^a-z' ]", " ", text.lower()).split()


def word_error_rate(reference: list[str], hypothesis: list[str]) -> float:
    distance = list(range(len(hypothesis) + 1))
    for i, ref in enumerate(reference, 1):
        previous, distance[0] = distance[0], i
        for j, hyp in enumerate(hypothesis, 1):
            previous, distance[j] = distance[j], min(distance[j] + 1, distance[j - 1] + 1, previous + (ref != hyp))
    return distance[-1] / len(reference)


@pytest.fixture(scope="module")
def speech(tmp_path_factory):
    """One WAV of every sentence after its pause; returns its path and when each sentence starts and ends."""
    espeak = shutil.which("espeak-ng")
    assert espeak, "espeak-ng is needed to make test speech: scripts/transcriber test installs it (Debian espeak-ng)"
    folder = tmp_path_factory.mktemp("speech")
    parts, spoken, rate, t = [], [], None, 0.0
    for n, (sentence, pause) in enumerate(zip(SENTENCES, PAUSES)):
        said = folder / f"{n}.wav"
        subprocess.run([espeak, "-v", "en-us", "-s", "150", "-w", str(said), sentence], check=True)
        with wave.open(str(said)) as file:
            rate = file.getframerate()
            samples = np.frombuffer(file.readframes(file.getnframes()), dtype="<i2")
        parts += [np.zeros(int(pause * rate), dtype="<i2"), samples]
        t += pause
        spoken.append((t, t + samples.size / rate))
        t += samples.size / rate
    path = folder / "speech.wav"
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(np.concatenate(parts + [np.zeros(rate, dtype="<i2")]).tobytes())
    return path, spoken


@pytest.fixture(scope="module")
def pieces(speech):
    path, _ = speech
    return list(transcribe_file(load_model(), str(path), max_seconds=20, lookahead=5))


def test_the_recording_was_cut_into_several_pieces(pieces):
    assert len(pieces) >= 3


def test_the_words_come_back_with_a_word_error_rate_under_15_percent(pieces):
    heard = words(" ".join(s.text for p in pieces for s in p.segments))
    rate = word_error_rate(words(" ".join(SENTENCES)), heard)
    assert rate <= 0.15, f"WER {rate:.1%}: heard {' '.join(heard)!r}"


def test_segments_and_words_are_in_order_and_each_sentence_is_heard_where_it_was_said(pieces, speech):
    _, spoken = speech
    segments = [s for p in pieces for s in p.segments]
    assert all(a.end <= b.start + 0.05 for a, b in zip(segments, segments[1:]))
    said = [w for s in segments for w in s.words]
    assert [w.start for w in said] == sorted(w.start for w in said)
    # Each sentence's first word is heard within a second of when it was said, and no word is heard in a pause:
    # a piece whose times were not shifted by its start, or shifted twice, fails both.
    for sentence, (start, _end) in zip(SENTENCES, spoken):
        assert any(abs(w.start - start) < 1.0 for w in said), f"{sentence!r} said at {start:.1f} s; no word heard then"
    for w in said:
        assert any(start - 1.0 <= w.start and w.end <= end + 1.0 for start, end in spoken), f"{w.text!r} heard at {w.start:.1f}-{w.end:.1f} s, in a pause"
