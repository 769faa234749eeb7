"""The git wrapper against tiny real repositories."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rocm_deps.install.git import Git, GitError, is_permanent_fetch_failure
from rocm_deps.runner import Runner
from tests.conftest import git
from tests.repos import commit, make_repo


def wrapper(path: Path, *, dry_run: bool = False) -> tuple[Git, io.StringIO]:
    log = io.StringIO()
    import os

    return Git(path, Runner(stream=log), dict(os.environ), dry_run=dry_run), log


def test_layout_inside_and_outside_a_work_tree(tmp_path: Path) -> None:
    make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    (tmp_path / "repo" / "sub").mkdir()
    layout = wrapper(tmp_path / "repo" / "sub")[0].layout()
    assert layout is not None
    assert (layout.top, layout.git_dir) == ((tmp_path / "repo").resolve(),
                                            (tmp_path / "repo" / ".git").resolve())
    (tmp_path / "plain").mkdir()
    assert wrapper(tmp_path / "plain")[0].layout() is None


def test_commit_of_never_reads_a_revision_as_an_option(tmp_path: Path) -> None:
    head = make_repo(tmp_path, {"a.txt": "a\n"})
    repo = wrapper(tmp_path)[0]
    assert repo.commit_of("HEAD") == head
    assert repo.commit_of("no-such-branch") is None
    assert repo.commit_of("--git-dir") is None  # after --end-of-options: a name, not an option


def test_remote_commit_matches_the_exact_name_only(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    old = make_repo(origin, {"a.txt": "1\n"})
    git(origin, "branch", "archive/main")
    git(origin, "tag", "-a", "-m", "release", "v1.0")
    new = commit(origin, {"a.txt": "2\n"}, "main moves on")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    repo = wrapper(clone)[0]
    assert repo.remote_commit("origin", "main") == new  # not archive/main's older commit
    assert repo.remote_commit("origin", "refs/heads/archive/main") == old
    assert repo.remote_commit("origin", "v1.0") == old  # the tag's commit, not the tag object
    assert repo.remote_commit("origin", "chive/main") is None
    assert repo.remote_commit("no-such-remote", "main") is None


def test_named_verbs_change_the_tree(tmp_path: Path) -> None:
    first = make_repo(tmp_path, {"a.txt": "a\n"})
    second = commit(tmp_path, {"a.txt": "b\n"}, "second")
    repo, log = wrapper(tmp_path)
    (tmp_path / "a.txt").write_text("edited\n")
    (tmp_path / "untracked.txt").write_text("x\n")
    assert repo.diff_against_head().startswith("diff --git a/a.txt b/a.txt")
    assert repo.untracked_files() == "untracked.txt\0"
    repo.reset_hard()
    repo.clean()
    assert (tmp_path / "a.txt").read_text() == "b\n" and not (tmp_path / "untracked.txt").exists()
    repo.checkout_detached(first)
    assert repo.commit_of("HEAD") == first and repo.describe_head().endswith(" initial")
    assert f"+ git --no-optional-locks -c safe.directory={tmp_path} -C {tmp_path} checkout -f " \
           f"--detach {first}" in log.getvalue()
    assert second != first


def test_dry_run_only_shows_changes(tmp_path: Path) -> None:
    head = make_repo(tmp_path, {"a.txt": "a\n"})
    (tmp_path / "a.txt").write_text("edited\n")
    repo, log = wrapper(tmp_path, dry_run=True)
    repo.reset_hard()
    repo.checkout_detached("0" * 40)
    assert (tmp_path / "a.txt").read_text() == "edited\n"
    assert repo.commit_of("HEAD") == head
    assert log.getvalue().splitlines()[0].startswith("[dry-run] + git ")
    assert log.getvalue().splitlines()[0].endswith(" reset --hard HEAD")


def test_failed_action_raises_with_git_message(tmp_path: Path) -> None:
    make_repo(tmp_path, {"a.txt": "a\n"})
    repo = wrapper(tmp_path)[0]
    try:
        repo.checkout_detached("0" * 40)
    except GitError as error:
        assert "checkout -f --detach" in error.message
        assert error.result is not None and error.result.returncode == 128
    else:
        raise AssertionError("checking out a missing commit must fail")



@pytest.mark.parametrize(("stderr", "permanent"), [
    ("fatal: couldn't find remote ref refs/pull/9/head", True),
    ("fatal: repository '/srv/gone' does not exist", True),
    ("fatal: transport 'file' not allowed", True),
    ("error: unable to write file: No space left on device", True),
    ("fatal: could not write to .git/objects: Read-only file system", True),
    ("error: Disk quota exceeded", True),
    ("fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com", False),
    ("fatal: early EOF\nfatal: index-pack failed", False),
    ("error: RPC failed; HTTP 502 curl 22 The requested URL returned error: 502", False),
    ("fatal: unable to access '...': Operation timed out after 300000 milliseconds", False),
    ("fatal: transport 'ext' not allowed\nfatal: clone of 'ext::sh -c x' into submodule path "
     "'/w/lib' failed", True),
    ("fatal: invalid value for 'submodule.lib.update'", True),
    ("error: something git has never said before", True),
    ("fatal: read error: Connection reset by peer", False),
], ids=["missing-ref", "missing-repository", "file-transport", "disk-full", "read-only",
        "quota", "dns", "early-eof", "http-502", "timeout", "ext-transport",
        "invalid-submodule-update", "unknown", "connection-reset"])
def test_failure_classification(stderr: str, permanent: bool) -> None:
    assert is_permanent_fetch_failure(stderr) is permanent
