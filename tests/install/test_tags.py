"""Tags after an install (architecture §6 step 4): every tag of the remote by default, so the
version SGLang computes from git equals a fresh full clone's, though SGLang tags releases on
release branches that the commit under test does not contain."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from rocm_deps.demo.sandbox import IDENTITY, Sandbox
from tests.conftest import Cli, git
from tests.install.test_image_edits import configure, install

RELEASE = re.compile(r"v(\d+)\.(\d+)\.(\d+)(?:(rc|post)(\d+))?")


def release_order(tag: str) -> tuple[int, ...]:
    """PEP 440 order of vX.Y.Z[rcN|postN]: rc below the release, post above."""
    match = RELEASE.fullmatch(tag)
    if match is None:
        return (0, 0, 0, 0, 0)
    rank = {"rc": 0, None: 1, "post": 2}[match.group(4)]
    return (*map(int, match.group(1, 2, 3)), rank, int(match.group(5) or 0))


def sglang_describe(clone: Path) -> str:
    """What SGLang's python/tools/get_version_tag.py gives setuptools-scm (the test's own
    reading of its documented rule): the exact tag; else the highest v*.*.* tag of the whole
    repository, described from HEAD (through the merge base when it is on another branch)."""
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", "-C", str(clone), *args], capture_output=True, text=True,
                              env=IDENTITY | {"PATH": "/usr/bin:/bin"})

    exact = run("describe", "--tags", "--exact-match", "--match", "v*")
    if exact.returncode == 0:
        return exact.stdout.strip()
    tags = run("tag", "--list", "v*.*.*").stdout.split()
    highest = max(tags, key=release_order)
    described = run("describe", "--tags", "--long", "--match", highest, "HEAD")
    if described.returncode == 0:
        return described.stdout.strip()
    base = run("merge-base", highest, "HEAD").stdout.strip()
    distance = run("rev-list", "--count", f"{base}..HEAD").stdout.strip()
    return f"{highest}-{distance}-g{run('rev-parse', '--short', 'HEAD').stdout.strip()}"


def fresh_clone(box: Sandbox, commit: str, tmp_path: Path) -> Path:
    clone = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(box.origins["sglang"]), str(clone))
    git(clone, "checkout", "-q", "--detach", commit)
    return clone


def test_every_tag_comes_so_sglangs_version_is_a_fresh_clones(cli: Cli, box: Sandbox,
                                                              tmp_path: Path) -> None:
    clone = box.baked["sglang"]
    assert "v0.3.1" not in git(clone, "tag").split()  # tagged after the image, on a branch
    result = install(cli, box)
    assert result.code == 0, result.stderr
    assert set(git(clone, "tag").split()) == set(git(box.origins["sglang"], "tag").split())
    assert git(clone, "rev-parse", "--is-shallow-repository") == "false"
    fresh = fresh_clone(box, box.commits["sglang"]["pr"], tmp_path)
    assert sglang_describe(clone) == sglang_describe(fresh)
    assert sglang_describe(clone).startswith("v0.3.1-")  # the release branch's tag


@pytest.mark.parametrize(("tags", "argument", "has_release"), [
    ("reachable", None, False), ("none", "--no-tags", False)])
def test_fewer_tags_when_configured(cli: Cli, box: Sandbox, tags: str, argument: str | None,
                                    has_release: bool) -> None:
    configure(box, f'tags = "{tags}"')
    result = install(cli, box)
    assert result.code == 0, result.stderr
    [fetch] = [line for line in result.stderr.splitlines()
               if line.startswith("+ git") and " fetch " in line]
    assert fetch.endswith("-- +refs/pull/101/head:refs/rocm-deps/fetched")
    assert (argument in fetch.split()) if argument else ("--no-tags" not in fetch)
    assert ("v0.3.1" in git(box.baked["sglang"], "tag").split()) is has_release


def missing_objects(clone: Path, *revisions: str) -> set[str]:
    """Objects the clone's history names but does not hold (rev-list never fetches them)."""
    listed = git(clone, "rev-list", "--objects", "--missing=print", *revisions).splitlines()
    return {line[1:] for line in listed if line.startswith("?")}


def test_a_partial_fetch_keeps_history_tags_and_version_and_leaves_old_contents_behind(
        cli: Cli, box: Sandbox, tmp_path: Path) -> None:
    origin, clone = box.origins["sglang"], box.baked["sglang"]
    git(origin, "config", "uploadpack.allowFilter", "true")
    configure(box, 'fetch-filter = "blob:none"')
    result = install(cli, box)
    assert result.code == 0, result.stderr
    [fetch, contents] = [line for line in result.stderr.splitlines()
                         if line.startswith("+ git") and " fetch " in line]
    assert "--filter=blob:none" in fetch.split()
    assert contents.endswith(" --filter=blob:none --stdin origin")  # the new commit's, retried
    assert git(clone, "config", "remote.origin.promisor") == "true"
    assert git(clone, "rev-parse", "--is-shallow-repository") == "false"
    head = box.commits["sglang"]["pr"]
    assert git(clone, "rev-parse", "HEAD") == head
    # History complete: every commit the origin has for it, and every tag.
    assert git(clone, "rev-list", "--count", head) == git(origin, "rev-list", "--count", head)
    assert set(git(clone, "tag").split()) == set(git(origin, "tag").split())
    # The commit under test is all there; contents only older commits had were not fetched.
    assert missing_objects(clone, "HEAD^{tree}") == set()
    assert missing_objects(clone, "--all") != set()
    assert sglang_describe(clone) == sglang_describe(fresh_clone(box, head, tmp_path))
    assert "does not serve partial fetches" not in result.stderr


def test_a_server_without_filters_gets_a_full_fetch_and_a_notice(cli: Cli, box: Sandbox) -> None:
    git(box.origins["sglang"], "config", "uploadpack.allowFilter", "false")
    configure(box, 'fetch-filter = "blob:none"')
    result = install(cli, box)
    assert result.code == 0, result.stderr
    assert ("::notice title=rocm-deps%3A partial fetch::the server does not serve partial "
            "fetches (git: filtering not recognized by server): every file of the history was "
            "fetched, not only the commit's") in result.stderr
    assert missing_objects(box.baked["sglang"], "--all") == set()
    assert git(box.baked["sglang"], "rev-parse", "HEAD") == box.commits["sglang"]["pr"]
