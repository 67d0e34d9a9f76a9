"""Decoding one piece of a recording (svc_transcriber/audio.py): the right samples, from WAV and from the recorder's Opus in OGG."""

import wave

import av
import numpy as np
import pytest

from svc_transcriber.audio import SAMPLE_RATE, AudioUnreadable, read_piece

RATE = 48_000
SECONDS = 20


def tone_of_second(n: int) -> float:
    return 200.0 + 50.0 * n


def tones() -> np.ndarray:
    """Second n of the recording is a sine at tone_of_second(n): a piece's content tells where it came from."""
    t = np.arange(RATE) / RATE
    return np.concatenate([0.5 * np.sin(2 * np.pi * tone_of_second(n) * t) for n in range(SECONDS)])


def write_wav(path, samples):
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes((samples * 32767).astype("<i2").tobytes())


def write_ogg_opus(path, samples):
    with av.open(str(path), "w", format="ogg") as container:
        stream = container.add_stream("libopus", rate=RATE, layout="mono")
        pcm = (samples * 32767).astype(np.int16)
        for offset in range(0, pcm.size, 960):
            frame = av.AudioFrame.from_ndarray(pcm[offset : offset + 960].reshape(1, -1), format="s16", layout="mono")
            frame.sample_rate = RATE
            frame.pts = offset
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)


def dominant_tone(samples: np.ndarray) -> float:
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(samples.size)))
    return float(np.fft.rfftfreq(samples.size, 1 / SAMPLE_RATE)[np.argmax(spectrum)])


def seconds_heard(piece: np.ndarray) -> list[float]:
    """The tone of each whole second of a piece (its middle half, clear of the edges)."""
    return [dominant_tone(piece[k * SAMPLE_RATE + SAMPLE_RATE // 4 : (k + 1) * SAMPLE_RATE - SAMPLE_RATE // 4]) for k in range(piece.size // SAMPLE_RATE)]


@pytest.fixture(params=["wav", "ogg"])
def recording(request, tmp_path):
    path = tmp_path / f"tones.{request.param}"
    (write_wav if request.param == "wav" else write_ogg_opus)(path, tones())
    return path


def test_a_piece_from_the_middle_holds_exactly_its_seconds(recording):
    piece = read_piece(str(recording), 7.0, 5.0)
    assert piece.dtype == np.float32
    assert piece.size == 5 * SAMPLE_RATE
    assert seconds_heard(piece) == pytest.approx([tone_of_second(n) for n in range(7, 12)], abs=2.5)


def test_the_piece_where_the_recording_ends_is_short(recording):
    piece = read_piece(str(recording), 17.0, 10.0)
    assert abs(piece.size - 3 * SAMPLE_RATE) < SAMPLE_RATE // 20
    assert seconds_heard(piece)[:2] == pytest.approx([tone_of_second(17), tone_of_second(18)], abs=2.5)


def test_a_piece_past_the_end_is_empty(recording):
    assert read_piece(str(recording), 25.0, 10.0).size == 0


def test_a_file_that_is_not_audio_or_is_missing_is_unreadable(tmp_path):
    path = tmp_path / "notes.wav"
    path.write_text("not audio")
    with pytest.raises(AudioUnreadable):
        read_piece(str(path), 0.0, 10.0)
    with pytest.raises(AudioUnreadable):
        read_piece(str(tmp_path / "gone.ogg"), 0.0, 10.0)
