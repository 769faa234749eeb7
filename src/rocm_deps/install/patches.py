"""The `patch` step of `STEPS` (install/pipeline.py): each patch gets a probe with exactly one of
five outcomes.

`applied`, `already-present`, `missing-target`, `ambiguous`, `incompatible`. The probe uses
real `git apply --check` in both directions; the files a patch needs come from git's own
reading of it (`Git.patch_paths`), whatever its path prefix. When a
later patch fails, the earlier ones of this run are reverted: a clone is never left
half-patched.
"""

from __future__ import annotations

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
    try:
        required = git.patch_paths(patch).required
    except GitError:
        required = ()  # git cannot read it: incompatible, with git's own words below
    missing = tuple(name for name in required if not (git.path / name).exists())
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
