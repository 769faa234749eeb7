"""The install record and the image's captured state, in the git directory of tiny real
repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_deps.contract.install import PatchOutcome
from rocm_deps.install.record import (
    ImageState,
    ImageStateFile,
    RecordFile,
    Request,
    sha256_of,
    tree_fingerprint,
)
from tests.install.test_git import wrapper
from tests.repos import make_repo

REQUEST = Request(tool="1.0", ref="refs/pull/1/head", python="/venv\n3.10.13",
                  install_dir=".", pip_args=("--no-build-isolation",),
                  patch_files=(("a.patch", "ab" * 32),), pip_env=(("X", "1"),),
                  prepare=(("mv", "a", "b"),))
PATCHES = (PatchOutcome("a.patch", "applied", "ab" * 32),
           PatchOutcome("b.patch", "missing-target", "cd" * 32, tolerated=True))


def test_a_saved_record_loads_as_written(tmp_path: Path) -> None:
    record = RecordFile(tmp_path)
    record.save(REQUEST, "c" * 40, "f" * 64, PATCHES)
    loaded = record.load()
    assert loaded is not None
    assert (loaded.commit, loaded.fingerprint, loaded.workspace) == ("c" * 40, "f" * 64, None)
    assert loaded.satisfies(REQUEST)
    # Only what the record keeps of an outcome comes back: label, state and digest.
    assert [(o.patch, o.state, o.sha256) for o in loaded.patches] == [
        (o.patch, o.state, o.sha256) for o in PATCHES]
    assert loaded.present_patches == {"a.patch"}


@pytest.mark.parametrize("field", ["tool", "ref", "python", "install_dir", "pip_args",
                                   "patch_files", "pip_env", "prepare"])
def test_any_change_of_the_request_is_a_new_install(tmp_path: Path, field: str) -> None:
    record = RecordFile(tmp_path)
    record.save(REQUEST, "c" * 40, "f" * 64, PATCHES)
    value = getattr(REQUEST, field)
    changed = Request(**{**REQUEST.__dict__, field: (*value, "x") if isinstance(value, tuple)
                         else value + "x"})
    loaded = record.load()
    assert loaded is not None and not loaded.satisfies(changed)


@pytest.mark.parametrize("text", ["", "not json", "[]", '{"commit": "c"}',
                                  '{"tool": 1, "commit": 2}'])
def test_an_unreadable_record_is_no_record(tmp_path: Path, text: str) -> None:
    (tmp_path / "rocm-deps-state.json").write_text(text)
    assert RecordFile(tmp_path).load() is None


def test_forget_and_the_workspace_outcome(tmp_path: Path) -> None:
    record = RecordFile(tmp_path)
    record.forget()  # nothing to forget: no error
    record.save(REQUEST, "c" * 40, "f" * 64, PATCHES)
    record.mark_workspace(tmp_path / "ws", "failed")
    loaded = record.load()
    assert loaded is not None and not loaded.workspace_installed(tmp_path / "ws")
    record.mark_workspace(tmp_path / "ws", "installed")
    loaded = record.load()
    assert loaded is not None and loaded.workspace_installed(tmp_path / "ws")
    assert not loaded.workspace_installed(tmp_path / "other")
    record.forget()
    assert record.load() is None and not record.path.exists()


def test_the_image_state_is_captured_once_with_its_edits(tmp_path: Path) -> None:
    state = ImageStateFile(tmp_path)
    assert state.load() is None
    captured = state.capture("a" * 40, "diff --git a/x b/x\n")
    assert captured == ImageState("a" * 40, tmp_path / "rocm-deps-image-changes.patch")
    assert state.load() == captured
    assert (tmp_path / "rocm-deps-image-changes.patch").read_text() == "diff --git a/x b/x\n"
    assert json.loads((tmp_path / "rocm-deps-image.json").read_text()) == {
        "commit": "a" * 40, "changes": True}


def test_an_image_without_edits_has_no_changes_file(tmp_path: Path) -> None:
    assert ImageStateFile(tmp_path).capture("a" * 40, "") == ImageState("a" * 40, None)
    assert ImageStateFile(tmp_path).load() == ImageState("a" * 40, None)
    assert not (tmp_path / "rocm-deps-image-changes.patch").exists()


def test_the_fingerprint_sees_edits_and_untracked_files(tmp_path: Path) -> None:
    make_repo(tmp_path, {"a.txt": "a\n", "b.txt": "b\n"})
    git = wrapper(tmp_path)[0]
    clean = tree_fingerprint(git)
    (tmp_path / "a.txt").write_text("changed\n")
    edited = tree_fingerprint(git)
    (tmp_path / "a.txt").write_text("a\n")
    assert tree_fingerprint(git) == clean
    (tmp_path / "new.txt").write_text("n\n")
    untracked = tree_fingerprint(git)
    assert len({clean, edited, untracked}) == 3


def test_sha256_of_a_file(tmp_path: Path) -> None:
    (tmp_path / "p").write_bytes(b"abc")
    assert sha256_of(tmp_path / "p") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
