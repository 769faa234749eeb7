"""The release workflow's notes come from CHANGELOG.md."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from release_notes import check_version, section

CHANGELOG = """# Changelog

## [Unreleased]
- next

## [1.2.0] - 2026-12-01
### Added
- merge-check

## [1.1.0] - 2026-11-01
- older
"""


def test_a_release_gets_exactly_its_section() -> None:
    assert section(CHANGELOG, "v1.2.0") == "### Added\n- merge-check\n"
    assert section(CHANGELOG, "v1.1.0") == "- older\n"


def test_a_tag_without_a_section_stops_the_release() -> None:
    with pytest.raises(SystemExit, match=r"no section `## \[1.3.0\]` \(tag v1.3.0\)"):
        section(CHANGELOG, "v1.3.0")


def test_the_projects_changelog_has_its_first_release() -> None:
    assert section((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), "v0.1.0").startswith(
        "### Added\n- `rocm-deps resolve`")


def test_a_tag_that_is_not_the_packages_version_stops_the_release() -> None:
    check_version('__version__ = "1.2.0"\n', "v1.2.0")
    with pytest.raises(SystemExit, match=r"tag v1.2.0 is not the package's version "
                                         r"\(1.2.0.dev0\)"):
        check_version('__version__ = "1.2.0.dev0"\n', "v1.2.0")
    completed = subprocess.run([sys.executable, str(ROOT / "scripts" / "release_notes.py"),
                                "v1.1.0"], capture_output=True, text=True)
    assert completed.returncode == 1  # main is not 1.1.0
    assert "is not the package's version" in completed.stderr


RELEASE = re.compile(r"^Release (\d+\.\d+\.\d+)\b")
TAG = re.compile(r"^v(\d+\.\d+\.\d+)$")
BULLET = re.compile(r"^- (?:.*\n)(?:  .*\n)*", re.MULTILINE)


def git_out(*argv: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *argv], capture_output=True, text=True,
                          check=True).stdout


def released() -> dict[str, str]:
    """Each release tag's version -> its commit; a checkout without tags skips (a clone made
    without them cannot be held to them)."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the release tags cannot be read")
    tags = {found.group(1): git_out("rev-list", "-n", "1", tag).strip()
            for tag in git_out("tag", "--list", "v*").split() if (found := TAG.match(tag))}
    if not tags:
        pytest.skip("this checkout has no release tags (a clone made without tags)")
    return tags


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".")[:3])


def test_main_carries_the_next_development_version_after_the_last_release() -> None:
    """After a release, main says `X.Y.Z.dev0` for a version above every release, until the
    release commit sets `X.Y.Z`; every user-visible change since the release is under
    [Unreleased], which only a release commit leaves empty."""
    from rocm_deps import __version__

    tags = released()
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    head = git_out("rev-parse", "HEAD").strip()
    if head in tags.values():  # the release commit itself
        assert tags[__version__] == head
        with pytest.raises(SystemExit, match="no section"):
            section(changelog, "Unreleased")
        return
    found = re.fullmatch(r"(\d+\.\d+\.\d+)\.dev0", __version__)
    assert found, f"{__version__} on main after a release must be X.Y.Z.dev0"
    assert version_tuple(found.group(1)) > max(version_tuple(version) for version in tags)
    assert f"## [{found.group(1)}]" not in changelog  # its section is written at its release
    assert BULLET.search(section(changelog, "Unreleased"))
    # The examples pin the release that will have what they show.
    pins = {pin for path in (*ROOT.glob("examples/**/*.yml"), ROOT / "README.md")
            for pin in re.findall(r"your-org/rocm-deps@[0-9a-f]{40} # (v\S+)",
                                  path.read_text(encoding="utf-8"))}
    assert pins == {f"v{found.group(1)}"}


def test_every_release_commit_is_tagged_and_its_notes_stay_its_own() -> None:
    """Each "Release X.Y.Z" commit has its vX.Y.Z tag, whose package says X.Y.Z and whose
    CHANGELOG has the dated section; today's section of a release lists only entries that
    release's own CHANGELOG had (moved between its sections at most), never a later change."""
    tags = released()
    commits = [line.split(" ", 1) for line in git_out("log", "--format=%H %s").splitlines()]
    release_commits = {found.group(1): sha for sha, subject in commits
                       if (found := RELEASE.match(subject))}
    assert release_commits == {version: tags[version] for version in release_commits}
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    for version, sha in tags.items():
        package = git_out("show", f"{sha}:src/rocm_deps/__init__.py")
        assert f'__version__ = "{version}"' in package
        then = git_out("show", f"{sha}:CHANGELOG.md")
        assert re.search(rf"^## \[{re.escape(version)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", then,
                         re.MULTILINE)
        released_then = then[then.index(f"## [{version}]"):]
        entries = BULLET.findall(section(changelog, f"v{version}"))
        assert entries and [entry for entry in entries if entry not in released_then] == [], (
            version)
