"""The release workflow moves the major tag only for a stable vX.Y.Z on the default branch,
and only forward (scripts/major_tag.py, which the workflow runs)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, git
from tests.repos import commit, make_repo

sys.path.insert(0, str(ROOT / "scripts"))
from major_tag import decide


@pytest.mark.parametrize(("tag", "on_default", "at_major", "expected"), [
    ("v1.2.3", True, [], "move v1"),
    ("v1.2.3", True, ["v1", "v1.2.2"], "move v1"),
    ("v2.0.0", True, ["v1", "v1.9.0"], "move v2"),  # another major: its own tag
    ("v1.0.0-rc1", True, [], "keep: v1.0.0-rc1 is not a stable vX.Y.Z version (a pre-release "
                             "moves nothing)"),
    ("v1.2", True, [], "keep: v1.2 is not a stable vX.Y.Z version (a pre-release moves nothing)"),
    ("v01.2.3", True, [], "keep: v01.2.3 is not a stable vX.Y.Z version (a pre-release moves "
                          "nothing)"),
    ("v1.0.9", False, ["v1", "v1.0.8"], "keep: v1.0.9 is not on the default branch (a backport "
                                        "moves nothing)"),
    ("v1.1.0", True, ["v1", "v1.2.0"], "keep: v1 points at v1.2.0, which is not older than "
                                       "v1.1.0"),
    ("v1.2.0", True, ["v1", "v1.2.0"], "keep: v1 points at v1.2.0, which is not older than "
                                       "v1.2.0"),
], ids=["first", "forward", "new-major", "pre-release", "two-parts", "leading-zero",
        "backport", "older-pushed-later", "same"])
def test_decide(tag: str, on_default: bool, at_major: list[str], expected: str) -> None:
    assert decide(tag, on_default, at_major) == expected


def run(checkout: Path, tag: str) -> str:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "major_tag.py"), tag, "main"],
                          cwd=checkout, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_the_script_reads_the_checkout_as_the_workflow_has_it(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    make_repo(origin, {"a": "1\n"})
    git(origin, "tag", "v1.0.0")
    git(origin, "checkout", "-q", "-b", "release-1.0")
    commit(origin, {"a": "backport\n"}, "a backport")
    git(origin, "tag", "v1.0.1")
    git(origin, "checkout", "-q", "main")
    commit(origin, {"a": "2\n"}, "new work")
    git(origin, "tag", "v1.1.0-rc1")
    git(origin, "tag", "v1.2.0")
    git(origin, "tag", "v1")  # moved there by the release of v1.2.0
    commit(origin, {"a": "3\n"}, "later work")
    git(origin, "tag", "v1.3.0")
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(origin), str(checkout))  # fetch-depth: 0, every tag
    assert run(checkout, "v1.3.0") == "move v1"
    assert run(checkout, "v1.0.1").startswith("keep: v1.0.1 is not on the default branch")
    assert run(checkout, "v1.1.0-rc1").startswith("keep: v1.1.0-rc1 is not a stable")
    assert run(checkout, "v1.0.0") == "keep: v1 points at v1.2.0, which is not older than v1.0.0"
    assert run(checkout, "v9.9.9") == "keep: the tag v9.9.9 is not in this checkout"
