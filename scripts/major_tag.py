"""Whether the release workflow moves the major tag (`v1`) to a new version tag.

Only a stable `vX.Y.Z` tag (no `-rc1`), on the default branch, newer than the version the
major tag points at now moves it, and only forward: a pre-release, a backport tagged on a
release branch or an older tag pushed later leaves `v1` where it is.

Usage, in a checkout with the history and the tags (`fetch-depth: 0`):
    python3 scripts/major_tag.py TAG DEFAULT_BRANCH
prints `move vN` or `keep: <why>` on stdout; exits 0 either way, 2 on a usage error.
"""

from __future__ import annotations

import re
import subprocess
import sys

_NUMBER = "0|[1-9][0-9]*"
STABLE = re.compile(rf"v(?P<major>{_NUMBER})\.(?P<minor>{_NUMBER})\.(?P<patch>{_NUMBER})")


def version(tag: str) -> tuple[int, int, int] | None:
    """(major, minor, patch) of a stable version tag; None for anything else."""
    match = STABLE.fullmatch(tag)
    return (int(match["major"]), int(match["minor"]), int(match["patch"])) if match else None


def decide(tag: str, on_default_branch: bool, at_major: list[str]) -> str:
    """`move vN`, or `keep: <why>`. `at_major` are the tags on the major tag's commit now."""
    new = version(tag)
    if new is None:
        return f"keep: {tag} is not a stable vX.Y.Z version (a pre-release moves nothing)"
    if not on_default_branch:
        return f"keep: {tag} is not on the default branch (a backport moves nothing)"
    major = f"v{new[0]}"
    current = max((found for found in map(version, at_major)
                   if found is not None and found[0] == new[0]), default=None)
    if current is not None and new <= current:
        shown = "v" + ".".join(map(str, current))
        return f"keep: {major} points at {shown}, which is not older than {tag}"
    return f"move {major}"


def git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=False)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    tag, default_branch = argv
    commit = git("rev-parse", "--verify", "--quiet", f"refs/tags/{tag}^{{commit}}").stdout.strip()
    if not commit:
        print(f"keep: the tag {tag} is not in this checkout")
        return 0
    on_default = git("merge-base", "--is-ancestor", commit,
                     f"refs/remotes/origin/{default_branch}").returncode == 0
    major = version(tag)
    at_major: list[str] = []
    if major is not None:
        current = git("rev-parse", "--verify", "--quiet", f"refs/tags/v{major[0]}^{{commit}}")
        if current.stdout.strip():
            at_major = git("tag", "--points-at", current.stdout.strip()).stdout.split()
    print(decide(tag, on_default, at_major))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
