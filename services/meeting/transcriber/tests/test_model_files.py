"""The model files are checked against their pinned SHA-256 before loading (svc_transcriber/model.py)."""

import hashlib

import pytest

from svc_transcriber.model import TINY_EN_FILES, ModelFilesRefused, default_model_folder, verify_model_files


def test_a_model_file_that_is_not_the_pinned_one_is_refused(tmp_path):
    (tmp_path / "model.bin").write_bytes(b"not the model")
    with pytest.raises(ModelFilesRefused, match="not the pinned"):
        verify_model_files(tmp_path, {"model.bin": hashlib.sha256(b"the model").hexdigest()})


def test_a_missing_model_file_is_refused(tmp_path):
    with pytest.raises(ModelFilesRefused, match="missing"):
        verify_model_files(tmp_path, {"model.bin": "0" * 64})


def test_pinned_files_are_accepted(tmp_path):
    (tmp_path / "model.bin").write_bytes(b"the model")
    verify_model_files(tmp_path, {"model.bin": hashlib.sha256(b"the model").hexdigest()})


def test_the_installed_model_is_the_pinned_tiny_en_whose_model_bin_is_upstreams():
    assert TINY_EN_FILES["model.bin"] == "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"
    verify_model_files(default_model_folder())
