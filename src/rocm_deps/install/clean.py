"""The `clean` step of `STEPS` (install/pipeline.py): before the reset, capture the image's commit
and edits (once per clone) and say what the reset discards; then remove stale locks, forget the
install record and reset the work tree."""

from __future__ import annotations

from rocm_deps.contract.install import LocalChanges
from rocm_deps.install import compiled
from rocm_deps.install.git import Git, GitError
from rocm_deps.install.job import Context, Job, StepFailed, first_names
from rocm_deps.install.recipe import rewritten
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
        diff = git.diff_against_head(exclude=rewritten(job.dependency.recipe))
        # The image compiled its extensions from the tree it left: that build is trusted.
        compiled.capture_image_build(context, job, head)
    except GitError as error:
        raise StepFailed("clean", error.message) from None
    return image_file.capture(head, diff)


def _discarded(context: Context, job: Job) -> LocalChanges:
    """The user's changes the reset discards: not what the last install left as it left it
    (its patches, the recipe's files, its build's output), nor the image's build leftovers
    (`*.egg-info`, `build/`), which the report counts apart."""
    dependency = job.dependency
    try:
        every = job.git.local_changes()
    except GitError as error:
        raise StepFailed("clean", error.message) from None
    assert job.record is not None
    record = job.record.load()
    own = record.own(job.git, every.names()) if record is not None else set()
    ours = {name for name in every.names() if name in own or (
        name in every.untracked and is_build_leftover(name, dependency.install_dir))}
    changes = LocalChanges(*(tuple(name for name in names if name not in ours)
                             for _, names in every.by_kind()))
    job.report.undone = tuple(sorted(ours))
    if ours:
        context.runner.info(f"{dependency.name}: the reset undoes {len(ours)} file(s) of the "
                            f"last install and the image's build ({first_names(sorted(ours))}): "
                            f"not local changes")
    if changes:
        reapply = dependency.local_changes == "reapply"
        context.runner.warning(
            f"{dependency.name}: the reset before checkout "
            f"{'sets aside' if reapply else 'discards'} local changes in {dependency.path}: "
            f"{changes.counts()} ({first_names(changes.names())}){_what_next(job, changes)}",
            title=f"rocm-deps: {dependency.name} local changes "
                  f"{'reapplied' if reapply else 'discarded'}")
    return changes


# What a `pip install -e` or `setup.py develop` writes beside the sources: its metadata and
# build directories, which the image's own install leaves untracked in the clone.
_BUILD_DIRECTORIES = ("build", "dist", ".eggs")


def is_build_leftover(name: str, install_dir: str) -> bool:
    """An untracked path a build writes: inside a `*.egg-info` directory, or under `build/`,
    `dist/` or `.eggs/` at the top of the clone or of the install directory."""
    parts = name.split("/")
    if any(part.endswith(".egg-info") for part in parts[:-1]):
        return True
    below = parts[len(install_dir.strip("/").split("/")):] if install_dir.strip("/.") and (
        name.startswith(install_dir.strip("/") + "/")) else []
    return any(len(path) > 1 and path[0] in _BUILD_DIRECTORIES for path in (parts, below))


def _what_next(job: Job, changes: LocalChanges) -> str:
    """What becomes of each kind of change, suggesting only what works at the new commit:
    the recipe redoes the files it rewrites, reapply keeps the other tracked edits, nothing
    keeps untracked files."""
    dependency, covered = job.dependency, set(rewritten(job.dependency.recipe))
    tracked = [*changes.modified, *changes.deleted]
    redone = [name for name in tracked if name in covered]
    rest = [name for name in tracked if name not in covered]
    parts = []
    if redone:
        parts.append(f"the recipe {dependency.recipe} redoes {first_names(redone)}")
    if rest and dependency.local_changes == "reapply":
        parts.append("the other tracked edits are reapplied after checkout")
    elif rest:
        parts.append(f"to keep {first_names(rest)}, set `dependencies.{dependency.name}."
                     f"local-changes = \"reapply\"`")
    if changes.untracked:
        parts.append(f"untracked files ({len(changes.untracked)}) cannot be kept: redo them "
                     f"with `prepare` if the tests need them")
    return "; " + "; ".join(parts) if parts else ""


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
