"""The `patch` step of `STEPS` (install/pipeline.py): each patch gets a probe with exactly one of
five outcomes.

`applied`, `already-present`, `missing-target`, `ambiguous`, `incompatible`. The probe uses
real `git apply --check` in both directions; the file list comes from the patch text. When a
later patch fails, the earlier ones of this run are reverted: a clone is never left
half-patched.
"""

from __future__ import annotations

import re
from pathlib import Path

from rocm_deps.config import DependencyConfig
from rocm_deps.contract.install import (
    ALREADY_PRESENT,
    AMBIGUOUS,
    APPLIED,
    INCOMPATIBLE,
    MISSING_TARGET,
    PLANNED,
    REPLAY_LABEL,
    DependencyReport,
    PatchOutcome,
)
from rocm_deps.install.git import Git, GitError
from rocm_deps.install.job import Context, Job, PatchFile, StepFailed
from rocm_deps.install.record import sha256_of

_HUNK = re.compile(r"@@ -[0-9]+(?:,([0-9]+))? \+[0-9]+(?:,([0-9]+))? @@")


def files_required(patch_text: str) -> list[str]:
    """Paths the patch expects to exist before it applies (modified, deleted, renamed from),
    read from its headers the way git reads them: a hunk's lines are skipped by the counts in
    its `@@` line, so a removed content line such as `-- note` is never taken for a header."""
    required: list[str] = []
    lines = patch_text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        hunk = _HUNK.match(line)
        if hunk:
            old = int(hunk.group(1) or 1)
            new = int(hunk.group(2) or 1)
            while index < len(lines) and (old > 0 or new > 0):
                kind = lines[index][:1]
                old -= kind in (" ", "-", "")
                new -= kind in (" ", "+", "")
                index += 1
            continue
        path = None
        if line.startswith("--- "):
            path = _strip_prefix(line[4:].split("\t")[0].strip())
        elif line.startswith(("rename from ", "copy from ")):
            path = _unquote(line.split(" ", 2)[2].strip())
        if path and path != "/dev/null" and path not in required:
            required.append(path)
    return required


def _strip_prefix(path: str) -> str:
    unquoted = _unquote(path)
    return unquoted[2:] if unquoted.startswith(("a/", "b/")) else unquoted


_ESCAPES = {ord("a"): 7, ord("b"): 8, ord("t"): 9, ord("n"): 10, ord("v"): 11, ord("f"): 12,
            ord("r"): 13, ord('"'): 34, ord("\\"): 92}


def _unquote(path: str) -> str:
    """A path as git writes it in a patch header: C-quoted (octal escapes for the bytes of
    UTF-8 names) when it holds special or non-ASCII characters."""
    if len(path) < 2 or path[0] != '"' or path[-1] != '"':
        return path
    raw, result, index = path[1:-1].encode("utf-8"), bytearray(), 0
    while index < len(raw):
        byte = raw[index]
        if byte != ord("\\") or index + 1 == len(raw):
            result.append(byte)
            index += 1
        elif raw[index + 1:index + 4].isdigit():
            result.append(int(raw[index + 1:index + 4], 8) & 0xFF)
            index += 4
        else:
            result.append(_ESCAPES.get(raw[index + 1], raw[index + 1]))
            index += 2
    return result.decode("utf-8", "surrogateescape")


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


# ---- the `patch` step: every patch of the job, in order, never half-patched


def apply_patches(context: Context, job: Job) -> None:
    git, dependency, report = job.git, job.dependency, job.report
    applied: list[PatchFile] = []
    for patch in job.patches:
        outcome = probe_and_apply(git, patch.path, patch.label,
                                  skip_missing=dependency.on_missing_target == "skip")
        report.patches.append(outcome)  # recorded before a failure, so the report shows it
        tolerated = " (tolerated: on-missing-target = skip)" if outcome.tolerated else ""
        context.runner.info(f"patch {patch.label}: {outcome.state}{tolerated}")
        if outcome.state == APPLIED:
            applied.append(patch)
        if not outcome.ok:
            message = _failure(dependency, outcome, report.commit or "")
            raise StepFailed("patch", message + _take_back(git, applied, report))


def _take_back(git: Git, applied: list[PatchFile], report: DependencyReport) -> str:
    """Revert this run's patches, newest first, and say what state the clone is in."""
    try:
        for patch in reversed(applied):
            git.revert(patch.path)
    except GitError as error:
        report.clone_state = (f"at {report.commit}, half-patched: reverting this run's "
                              f"patches failed ({error.message})")
    else:
        report.clone_state = (f"at {report.commit} without patches"
                              + (f" ({len(applied)} applied by this run, reverted)"
                                 if applied else ""))
    return (f"\nThe clone is {report.clone_state}; pip was not run, and the installed "
            f"package now serves that checkout: this job must not pass.")


def _failure(dependency: DependencyConfig, outcome: PatchOutcome, commit: str) -> str:
    head = f"patch {outcome.patch} (sha256 {outcome.sha256}) at {dependency.name} {commit[:12]}"
    if outcome.patch == REPLAY_LABEL:
        return (f"{head}: the image's tracked edits, replayed because of `local-changes = "
                f"\"reapply\"`, are {outcome.state} at this commit. Set `dependencies."
                f"{dependency.name}.local-changes = \"discard\"` and redo what the image "
                f"did with `prepare` commands that fit this commit.")
    if outcome.state == MISSING_TARGET:
        return (f"{head}: it modifies {', '.join(outcome.missing)}, which does not exist at this "
                f"commit, so the patch is probably obsolete for this ref. Update or drop the "
                f"patch, or set `dependencies.{dependency.name}.on-missing-target = \"skip\"`.")
    if outcome.state == AMBIGUOUS:
        return (f"{head}: it both applies and reverse-applies, so it is impossible to tell "
                f"whether it is already present; give the patch more context lines.")
    return (f"{head}: it neither applies nor is already present (fail-closed). Rejected hunks:\n"
            f"{outcome.rejected}\nFix: rebase the patch onto this ref, or name a ref the patch "
            f"supports.")
