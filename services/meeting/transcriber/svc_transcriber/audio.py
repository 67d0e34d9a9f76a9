"""Decoding one piece of a recording: 16 kHz mono float32 samples, as Whisper takes them.

PyAV (a dependency of faster-whisper, with FFmpeg's decoders inside its wheel) reads the
recorder's Opus in OGG and MP4, AAC and WAV. Only the piece's samples are kept: the container is
sought to the piece's start (to the packet before it) and frames before the start are trimmed,
so a piece late in a long recording costs no more memory than the first.
"""

from __future__ import annotations

import av
import numpy as np

SAMPLE_RATE = 16_000


class AudioUnreadable(Exception):
    """The file is missing, or is not audio FFmpeg can decode."""


def read_piece(path: str, start: float, seconds: float) -> np.ndarray:
    """The samples from `start` for `seconds` (fewer when the recording ends first)."""
    try:
        return _read_piece(path, start, seconds)
    except (av.error.FFmpegError, OSError, IndexError) as error:  # IndexError: a container without an audio stream
        raise AudioUnreadable(f"{path}: {error}") from error


def _read_piece(path: str, start: float, seconds: float) -> np.ndarray:
    first = int(round(start * SAMPLE_RATE))
    wanted = int(round(seconds * SAMPLE_RATE))
    chunks: list[np.ndarray] = []
    have = 0
    with av.open(path, metadata_errors="ignore") as container:
        stream = container.streams.audio[0]
        resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
        position: int | None = None  # the next resampled sample's index in the recording
        if start > 0 and stream.time_base is not None:
            # Seeks to the last packet at or before `start`; the exact start is trimmed below.
            container.seek(int(start / stream.time_base), stream=stream, backward=True, any_frame=False)

        def take(frame: av.AudioFrame) -> bool:
            nonlocal position, have
            samples = frame.to_ndarray().reshape(-1)
            begin = position if position is not None else 0
            position = begin + samples.size
            lo = max(first - begin, 0)
            hi = min(first + wanted - begin, samples.size)
            if hi > lo:
                chunks.append(samples[lo:hi])
                have += hi - lo
            return have >= wanted

        done = False
        for frame in container.decode(stream):
            if position is None:
                # The first frame after a seek says where decoding resumed.
                position = int(round(frame.time * SAMPLE_RATE)) if frame.time is not None else 0
                position = max(position, 0)
            for resampled in resampler.resample(frame):
                if take(resampled):
                    done = True
                    break
            if done:
                break
        if not done:
            for resampled in resampler.resample(None):
                if take(resampled):
                    break
    if not chunks:
        return np.zeros(0, dtype=np.float32)
    return np.concatenate(chunks).astype(np.float32) / 32768.0
