"""The patch probe: all five outcomes with real `git apply`, on a repository of two files."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from rocm_deps.install.git import Git
from rocm_deps.install.patches import probe_and_apply
from rocm_deps.runner import Runner
from tests.conftest import git
from tests.repos import commit, make_repo

ORIGINAL = "".join(f"line {n}\n" for n in range(1, 10))
PATCHED = ORIGINAL.replace("line 5\n", "line 5 (rocm)\n")


@pytest.fixture
def repo(tmp_path: Path) -> Git:
    make_repo(tmp_path / "repo", {"kernels.py": ORIGINAL, "café dir/caf\u00e9.py": ORIGINAL})
    return Git(tmp_path / "repo", Runner(stream=io.StringIO()), dict(os.environ))


def make_patch(repo: Git, tmp_path: Path, edits: dict[str, str | None], name: str) -> Path:
    """The diff `edits` would make to the repository, as a file; the tree is left clean."""
    for relative, text in edits.items():
        if text is None:
            (repo.path / relative).unlink()
        else:
            (repo.path / relative).write_text(text)
    git(repo.path, "add", "-A")
    diff = git(repo.path, "diff", "--cached", "-M", "HEAD") + "\n"
    git(repo.path, "reset", "-q", "--hard", "HEAD")
    patch = tmp_path / name
    patch.write_text(diff)
    return patch


def test_applied(repo: Git, tmp_path: Path) -> None:
    patch = make_patch(repo, tmp_path, {"kernels.py": PATCHED}, "rocm.patch")
    outcome = probe_and_apply(repo, patch, "rocm.patch", skip_missing=False)
    assert (outcome.state, outcome.ok) == ("applied", True)
    assert (repo.path / "kernels.py").read_text() == PATCHED


def test_already_present(repo: Git, tmp_path: Path) -> None:
    patch = make_patch(repo, tmp_path, {"kernels.py": PATCHED}, "rocm.patch")
    commit(repo.path, {"kernels.py": PATCHED}, "upstream took the patch")
    outcome = probe_and_apply(repo, patch, "rocm.patch", skip_missing=False)
    assert (outcome.state, outcome.ok) == ("already-present", True)
    assert git(repo.path, "status", "--porcelain") == ""


@pytest.mark.parametrize("skip", [False, True], ids=["fail", "skip"])
def test_missing_target(repo: Git, tmp_path: Path, skip: bool) -> None:
    patch = make_patch(repo, tmp_path, {"kernels.py": PATCHED}, "rocm.patch")
    commit(repo.path, {"kernels.py": None}, "upstream deleted the file")
    outcome = probe_and_apply(repo, patch, "rocm.patch", skip_missing=skip)
    assert (outcome.state, outcome.missing, outcome.tolerated, outcome.ok) == (
        "missing-target", ("kernels.py",), skip, skip)


def test_ambiguous(repo: Git, tmp_path: Path) -> None:
    patch = make_patch(repo, tmp_path, {"kernels.py": PATCHED}, "rocm.patch")
    commit(repo.path, {"kernels.py": ORIGINAL + PATCHED}, "both images in one file")
    outcome = probe_and_apply(repo, patch, "rocm.patch", skip_missing=False)
    assert (outcome.state, outcome.ok) == ("ambiguous", False)
    assert (repo.path / "kernels.py").read_text() == ORIGINAL + PATCHED  # nothing applied


def test_incompatible_names_the_rejected_hunk(repo: Git, tmp_path: Path) -> None:
    patch = make_patch(repo, tmp_path, {"kernels.py": PATCHED}, "rocm.patch")
    commit(repo.path, {"kernels.py": ORIGINAL.replace("line 5\n", "line five\n")}, "conflict")
    outcome = probe_and_apply(repo, patch, "rocm.patch", skip_missing=False)
    assert (outcome.state, outcome.ok, outcome.missing) == ("incompatible", False, ())
    assert "error: patch failed: kernels.py:2" in outcome.rejected


def test_quoted_non_ascii_path_is_found_not_reported_missing(repo: Git, tmp_path: Path) -> None:
    patch = make_patch(repo, tmp_path, {"café dir/café.py": PATCHED}, "quoted.patch")
    assert '"a/caf\\303\\251 dir/caf\\303\\251.py"' in patch.read_text()  # git quoted it
    assert repo.patch_paths(patch).required == ("café dir/café.py",)
    commit(repo.path, {"café dir/café.py": ORIGINAL.replace("line 5\n", "5\n")}, "conflict")
    assert probe_and_apply(repo, patch, "quoted.patch", skip_missing=True).state == (
        "incompatible")


def test_renamed_source_is_required(repo: Git, tmp_path: Path) -> None:
    (repo.path / "kernels.py").rename(repo.path / "kernels_rocm.py")
    patch = make_patch(repo, tmp_path, {}, "rename.patch")
    assert "rename from kernels.py" in patch.read_text()
    assert repo.patch_paths(patch).required == ("kernels.py",)
    commit(repo.path, {"kernels.py": None}, "upstream deleted the source")
    outcome = probe_and_apply(repo, patch, "rename.patch", skip_missing=False)
    assert (outcome.state, outcome.missing) == ("missing-target", ("kernels.py",))


def test_dry_run_plans_without_touching_the_tree(repo: Git, tmp_path: Path) -> None:
    patch = make_patch(repo, tmp_path, {"kernels.py": PATCHED}, "rocm.patch")
    dry = Git(repo.path, Runner(stream=io.StringIO()), dict(os.environ), dry_run=True)
    outcome = probe_and_apply(dry, patch, "rocm.patch", skip_missing=False)
    assert (outcome.state, outcome.ok) == ("planned", True)
    assert (repo.path / "kernels.py").read_text() == ORIGINAL


def test_a_removed_line_that_looks_like_a_header_is_content(repo: Git, tmp_path: Path) -> None:
    """`-- legacy note` removed from a file is `--- legacy note` in the patch: content, not a
    file header, so an incompatible patch is not taken for one whose target is missing."""
    notes = "intro\n-- legacy note\n" + ORIGINAL
    commit(repo.path, {"kernels.py": notes}, "a line that starts with two dashes")
    patch = make_patch(repo, tmp_path, {"kernels.py": notes.replace("-- legacy note\n", "")},
                       "drop-note.patch")
    assert "\n--- legacy note\n" in patch.read_text()
    assert repo.patch_paths(patch).required == ("kernels.py",)
    commit(repo.path, {"kernels.py": "rewritten\n" + ORIGINAL}, "the note is gone upstream")
    outcome = probe_and_apply(repo, patch, "drop-note.patch", skip_missing=True)
    assert (outcome.state, outcome.missing, outcome.tolerated) == ("incompatible", (), False)


@pytest.mark.parametrize("prefixes", [("c/", "w/"), ("i/", "w/"), ("old/", "new/")],
                         ids=["mnemonic-commit-worktree", "mnemonic-index-worktree", "diff-ruN"])
def test_what_a_patch_touches_is_read_by_git_whatever_its_prefix(
        repo: Git, tmp_path: Path, prefixes: tuple[str, str]) -> None:
    """git's diff.mnemonicPrefix writes `w/` and `i/`, `diff -ruN old new` its directories and
    timestamps: git reads them all (`-p1`); a header text search for `+++ b/` finds none."""
    old, new = prefixes
    patch = tmp_path / "prefixed.patch"
    patch.write_text(f"--- {old}kernels.py\t2026-01-01 00:00:00.000000000 +0000\n"
                     f"+++ {new}kernels.py\t2026-01-02 00:00:00.000000000 +0000\n"
                     f"@@ -1,2 +1,2 @@\n line 1\n-line 2\n+LINE 2\n"
                     f"--- /dev/null\n+++ {new}added.py\n@@ -0,0 +1 @@\n+new\n")
    paths = repo.patch_paths(patch)
    assert (paths.changed, paths.created, paths.required) == (
        ("kernels.py", "added.py"), ("added.py",), ("kernels.py",))
    assert "+++ b/" not in patch.read_text()


def test_a_rename_inside_a_directory_is_read_in_full(repo: Git, tmp_path: Path) -> None:
    (repo.path / "ops").mkdir()
    commit(repo.path, {"ops/one.py": "one\n"}, "a file in a directory")
    (repo.path / "ops" / "one.py").rename(repo.path / "ops" / "two.py")
    patch = make_patch(repo, tmp_path, {}, "move.patch")
    paths = repo.patch_paths(patch)  # git's summary writes `ops/{one.py => two.py}`
    assert paths.renamed == (("ops/one.py", "ops/two.py"),)
    assert paths.required == ("ops/one.py",)
    assert set(paths.touched) == {"ops/one.py", "ops/two.py"}
