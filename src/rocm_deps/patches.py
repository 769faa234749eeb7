"""The patch probe of DESIGN §6 step 7: exactly one of five outcomes per patch.

`applied`, `already-present`, `missing-target`, `ambiguous`, `incompatible`. The probe uses
real `git apply --check` in both directions; the file list comes from the patch text.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from rocm_deps.git import Git
from rocm_deps.model import (
    ALREADY_PRESENT,
    AMBIGUOUS,
    APPLIED,
    INCOMPATIBLE,
    MISSING_TARGET,
    PLANNED,
    PatchOutcome,
)


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def files_required(patch_text: str) -> list[str]:
    """Paths the patch expects to exist before it applies (modified, deleted, renamed from)."""
    required: list[str] = []
    for line in patch_text.splitlines():
        path = None
        if line.startswith("--- "):
            path = _strip_prefix(line[4:].split("\t")[0].strip())
        elif line.startswith(("rename from ", "copy from ")):
            path = line.split(" ", 2)[2].strip()
        if path and path != "/dev/null" and path not in required:
            required.append(_unquote(path))
    return required


def _strip_prefix(path: str) -> str:
    unquoted = _unquote(path)
    return unquoted[2:] if unquoted.startswith(("a/", "b/")) else unquoted


def _unquote(path: str) -> str:
    if len(path) >= 2 and path[0] == path[-1] == '"':
        return path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    return path


def probe_and_apply(git: Git, patch: Path, label: str, *, skip_missing: bool) -> PatchOutcome:
    """Probe `patch` against the checked-out tree and apply it when that is the outcome."""
    digest = sha256_of(patch)
    if git.dry_run:
        git.plan_apply(patch)
        return PatchOutcome(label, PLANNED, digest)
    forward = git.try_apply_check(patch)
    reverse = git.try_apply_check(patch, reverse=True)
    if forward and reverse:
        return PatchOutcome(label, AMBIGUOUS, digest)
    if forward:
        git.apply(patch)
        return PatchOutcome(label, APPLIED, digest)
    if reverse:
        return PatchOutcome(label, ALREADY_PRESENT, digest)
    text = patch.read_text(encoding="utf-8", errors="replace")
    missing = tuple(name for name in files_required(text) if not (git.path / name).exists())
    if missing:
        return PatchOutcome(label, MISSING_TARGET, digest, missing, tolerated=skip_missing)
    return PatchOutcome(label, INCOMPATIBLE, digest, rejected=git.rejected_hunks(patch))
