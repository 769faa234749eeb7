"""Print the CHANGELOG.md section of a release: `python3 scripts/release_notes.py v1.2.3`.

The release workflow uses it as the GitHub release's notes. A tag without a section is an
error: a release is never published without saying what changed; so is a tag that is not the
package's version (main carries `X.Y.Z.dev0` until the release commit sets `X.Y.Z`).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

CHANGELOG = Path(__file__).resolve().parent.parent / "CHANGELOG.md"
PACKAGE = CHANGELOG.parent / "src" / "rocm_deps" / "__init__.py"
HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\]")


def section(changelog: str, tag: str) -> str:
    version = tag.removeprefix("v")
    lines, inside = [], False
    for line in changelog.splitlines():
        heading = HEADING.match(line)
        if heading:
            if inside:
                break
            inside = heading.group("version") == version
            continue
        if inside:
            lines.append(line)
    text = "\n".join(lines).strip()
    if not text:
        raise SystemExit(f"CHANGELOG.md has no section `## [{version}]` (tag {tag}); write one "
                         f"before tagging the release")
    return text + "\n"


def check_version(package: str, tag: str) -> None:
    found = re.search(r'^__version__ = "([^"]+)"$', package, re.MULTILINE)
    version = found.group(1) if found else "unknown"
    if version != tag.removeprefix("v"):
        raise SystemExit(f"tag {tag} is not the package's version ({version}): the release "
                         f"commit sets __version__ to the release's")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    check_version(PACKAGE.read_text(encoding="utf-8"), sys.argv[1])
    sys.stdout.write(section(CHANGELOG.read_text(encoding="utf-8"), sys.argv[1]))
