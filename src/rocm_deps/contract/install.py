"""The install report: per dependency, what was fetched, patched, built and verified, and the states
every step can end in (docs/architecture.md, *The install pipeline*, *Command line and the
documents*)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from rocm_deps.contract.overrides import REPORT_VERSION, Source

PatchState = Literal["applied", "already-present", "missing-target", "ambiguous",
                     "incompatible", "planned"]
BuildIsolationState = Literal["isolated", "not isolated"]
# "image": not named, and at the image's copy (never moved by this tool, or returned to it by
# an earlier run and unchanged since); "restored": not named, and returned to the image's copy
# now (an earlier run had installed something else); "absent": not named, no clone at its path.
DependencyState = Literal["installed", "up-to-date", "failed", "planned", "image", "restored",
                          "absent"]
WorkspaceState = Literal["not needed", "not needed (all dependencies up to date)",
                         "skipped (a dependency failed)", "disabled", "installed", "failed",
                         "planned"]
# The steps of the install pipeline (install.pipeline.STEPS, a test holds them equal), and
# every step an install can fail at: those, the checks before them (the clone, the lock) and
# the workspace install.
StepName = Literal["clean", "fetch", "checkout", "submodules", "patch", "recipe", "prepare",
                   "pip", "rebuild-check"]
FailedStep = Literal[StepName, "check", "lock", "environment", "verify", "workspace"]
# The timed phases of an install, in pipeline order: the columns of the install summary.
Phase = Literal["clean", "fetch", "checkout", "patch", "prepare", "pip"]
PHASES: tuple[Phase, ...] = get_args(Phase)

APPLIED: PatchState = "applied"
ALREADY_PRESENT: PatchState = "already-present"
MISSING_TARGET: PatchState = "missing-target"
AMBIGUOUS: PatchState = "ambiguous"
INCOMPATIBLE: PatchState = "incompatible"
PLANNED: PatchState = "planned"

INSTALLED: DependencyState = "installed"
UP_TO_DATE: DependencyState = "up-to-date"
FAILED: DependencyState = "failed"
PLANNED_INSTALL: DependencyState = "planned"
IMAGE: DependencyState = "image"
RESTORED: DependencyState = "restored"
ABSENT: DependencyState = "absent"
# What the workspace install does not need to follow: nothing changed in the interpreter.
UNCHANGED: tuple[DependencyState, ...] = (IMAGE, ABSENT)

WORKSPACE_FAILED: WorkspaceState = "failed"


@dataclass(frozen=True)
class PatchOutcome:
    patch: str
    state: PatchState
    sha256: str
    missing: tuple[str, ...] = ()
    rejected: str = ""
    tolerated: bool = False  # missing-target with on-missing-target = "skip"

    @property
    def ok(self) -> bool:
        return self.state in (APPLIED, ALREADY_PRESENT, PLANNED) or self.tolerated


NAMES_SHOWN = 20  # file names listed per kind in reports; all are counted
# The label under which the image's captured edits are replayed as a patch.
REPLAY_LABEL = "the image's local changes"


@dataclass(frozen=True)
class LocalChanges:
    """What `git reset --hard` + `git clean -fd` discard from a clone (the `clean` step)."""

    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    untracked: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.modified or self.deleted or self.untracked)

    def by_kind(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        return (("modified", self.modified), ("deleted", self.deleted),
                ("untracked", self.untracked))

    def names(self) -> list[str]:
        return [name for _, names in self.by_kind() for name in names]

    def counts(self) -> str:
        parts = [f"{len(names)} {kind}" for kind, names in self.by_kind() if names]
        return ", ".join(parts) or "none"

    def to_json(self) -> dict[str, Any]:
        return {kind: {"count": len(names), "names": list(names[:NAMES_SHOWN])}
                for kind, names in self.by_kind()}


@dataclass
class DependencyReport:
    name: str
    source: Source
    ref: str
    sha: str | None
    state: DependencyState | None = None
    commit: str | None = None
    failed_step: FailedStep | None = None
    error: str | None = None
    patches: list[PatchOutcome] = field(default_factory=list)
    seconds: dict[Phase, float] = field(default_factory=dict)
    fetch_attempts: int = 0
    clone_state: str | None = None  # after a failed patch: what the clone was left as
    # A dry run's plan for a clone this machine does not have: install would fail here.
    clone_missing: bool = False
    version: str | None = None  # what the interpreter reports after the install
    image_commit: str | None = None  # the commit the image left the clone at
    discarded: LocalChanges | None = None  # the user's changes this run's reset discarded
    # What the reset undid that was not the user's: the last install's own files as it left
    # them, and the image's build leftovers (*.egg-info, build/).
    undone: tuple[str, ...] = ()
    rebuild: tuple[str, ...] = ()  # files under rebuild-paths that differ from the image's
    build_isolation: BuildIsolationState | None = None  # how pip built it; None: not built
    # The compiled extension: "reused (inputs unchanged since <commit>)" or "built (...)";
    # None when the dependency has no `compile-inputs` or pip did not run.
    compiled: str | None = None
    steps: list[StepName] = field(default_factory=list)  # the pipeline's steps this install walked

    @property
    def replayed(self) -> str | None:
        """The probe's state for the image's replayed edits, None when none were replayed."""
        return next((outcome.state for outcome in self.patches
                     if outcome.patch == REPLAY_LABEL), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source, "ref": self.ref, "sha": self.commit or self.sha,
            "image_commit": self.image_commit,
            "local_changes": {"discarded": self.discarded.to_json() if self.discarded
                              is not None else None, "replayed": self.replayed,
                              "undone": {"count": len(self.undone),
                                         "names": list(self.undone[:NAMES_SHOWN])}},
            "rebuild": {"count": len(self.rebuild), "files": list(self.rebuild[:NAMES_SHOWN])},
            "state": self.state, "failed_step": self.failed_step, "error": self.error,
            "clone_state": self.clone_state, "version": self.version,
            "build_isolation": self.build_isolation, "compiled": self.compiled,
            "fetch_attempts": self.fetch_attempts,
            "steps": self.steps,
            "patches": {outcome.patch: {"state": outcome.state, "sha256": outcome.sha256}
                        for outcome in self.patches},
            "seconds": {phase: round(seconds, 3) for phase, seconds in self.seconds.items()},
        }


@dataclass
class InstallReport:
    dry_run: bool
    python: str
    dependencies: dict[str, DependencyReport] = field(default_factory=dict)
    workspace: WorkspaceState = "not needed"
    # The commit the workspace (the framework under test) was checked out at, as git says:
    # where a dispatch re-test's status may go (None: not a git checkout).
    workspace_commit: str | None = None

    @property
    def failed(self) -> bool:
        return any(dep.state == FAILED or dep.clone_missing
                   for dep in self.dependencies.values()) or self.workspace == WORKSPACE_FAILED

    def to_json(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION, "dry_run": self.dry_run, "python": self.python,
            "dependencies": {name: dep.to_json() for name, dep in self.dependencies.items()},
            "workspace": self.workspace, "workspace_commit": self.workspace_commit,
            "failed": self.failed,
        }
