"""Step 3 of DESIGN §6: before the reset, capture the image's commit and edits (once per
clone) and say what the reset discards; then remove stale locks, forget the install record
and reset the work tree."""

from __future__ import annotations

from rocm_deps.contract import LocalChanges
from rocm_deps.install.git import Git, GitError
from rocm_deps.install.job import Context, Job, StepFailed, first_names
from rocm_deps.install.record import ImageState

STALE_LOCKS = ("index.lock", "shallow.lock", "HEAD.lock")


def clean(context: Context, job: Job) -> None:
    if job.record is not None:  # without the clone there is nothing to capture or record
        if job.image is None:
            job.image = _capture_image(context, job)
        job.report.image_commit = job.image.commit
        job.report.discarded = _discarded(context, job)
        _remove_stale_locks(context, job)
        if not context.dry_run:
            job.record.forget()  # a half-done install must not look installed
    reset_tree(job.git)


def reset_tree(git: Git) -> None:
    try:
        git.refresh_index()
        git.reset_hard()
        git.clean()
    except GitError as error:
        raise StepFailed("clean", error.message) from None


def _capture_image(context: Context, job: Job) -> ImageState:
    git, image_file = job.git, job.image_file
    assert image_file is not None
    head = git.commit_of("HEAD")
    if head is None:
        raise StepFailed("check", f"{git.path} has no commit checked out")
    if context.dry_run:
        return ImageState(head, None)  # a dry run writes nothing, not even the capture
    try:
        diff = git.diff_against_head()
    except GitError as error:
        raise StepFailed("clean", error.message) from None
    return image_file.capture(head, diff)


def _discarded(context: Context, job: Job) -> LocalChanges:
    dependency = job.dependency
    try:
        changes = job.git.local_changes()
    except GitError as error:
        raise StepFailed("clean", error.message) from None
    if changes:
        after = ("the image's tracked edits are replayed after checkout (local-changes = "
                 "\"reapply\"); untracked files are not"
                 if dependency.local_changes == "reapply" else
                 f"to keep the image's edits, set `dependencies.{dependency.name}."
                 f"local-changes = \"reapply\"` or redo them with `prepare`")
        context.runner.warning(f"{dependency.name}: the reset before checkout discards local "
                               f"changes in {dependency.path}: {changes.counts()} "
                               f"({first_names(changes.names())}); {after}",
                               title=f"rocm-deps: {dependency.name} local changes discarded")
    return changes


def _remove_stale_locks(context: Context, job: Job) -> None:
    """Locks an interrupted git left behind; the clone's own lock says no install is live."""
    assert job.record is not None
    for name in STALE_LOCKS:
        stale = job.record.path.parent / name
        if not stale.exists():
            continue
        if context.dry_run:
            context.runner.info(f"[dry-run] would remove stale {stale}")
        else:
            context.runner.info(f"removing stale {stale} (left by an interrupted git)")
            stale.unlink()
