"""The release workflow's notes come from CHANGELOG.md."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from release_notes import section

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
    completed = subprocess.run([sys.executable, str(ROOT / "scripts" / "release_notes.py"),
                                "v0.1.0"], capture_output=True, text=True, check=True)
    assert completed.stdout.startswith("### Added\n- `rocm-deps resolve`")


def test_the_release_a_user_can_pin_is_the_packages_version() -> None:
    from rocm_deps import __version__

    completed = subprocess.run([sys.executable, str(ROOT / "scripts" / "release_notes.py"),
                                f"v{__version__}"], capture_output=True, text=True, check=True)
    # The version --version prints has a dated section of its own, and nothing waits under
    # [Unreleased] that this version already ships.
    assert completed.stdout.startswith("A suite tests exactly what was named on every path")
    assert "### Added\n" in completed.stdout
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert re.search(rf"^## \[{re.escape(__version__)}\] - \d{{4}}-\d{{2}}-\d{{2}}$",
                     changelog, re.MULTILINE)
    with pytest.raises(SystemExit, match="no section"):  # [Unreleased] is empty
        section(changelog, "Unreleased")
