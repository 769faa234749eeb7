"""The data that crosses a boundary: the `overrides` document (resolve job -> GPU job) and
the reports of resolve, install and merge-check (DESIGN §8).

One home for every document a job writes and another reads, so the writer and the reader of
a format are never two files apart. Pure: no I/O, no runner, no git. The settings that flow
*into* a command live in `settings`.

The `overrides` document travels from the resolve job to the GPU job through workflow
outputs, where anyone with write access to the workflow could edit it: `Override.from_json`
validates every field again before a ref can reach git's argv.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from rocm_deps.errors import UsageError
from rocm_deps.grammar.directives import Finding
from rocm_deps.grammar.refs import FULL_SHA, KINDS, Kind, check_ref_format
from rocm_deps.options import Policy

# The version of the resolve and install reports and of the `overrides` document.
REPORT_VERSION = 1

Source = Literal["dispatch", "body", "lock", "default", "overrides"]
PatchState = Literal["applied", "already-present", "missing-target", "ambiguous",
                     "incompatible", "planned"]
DependencyState = Literal["installed", "up-to-date", "failed", "planned"]
WorkspaceState = Literal["not needed", "not needed (all dependencies up to date)",
                         "skipped (a dependency failed)", "disabled", "installed", "failed",
                         "planned"]
Verdict = Literal["pass", "fail", "warn"]
# What merge-check found of a named dependency pull request ("not asked": the policy refuses
# every directive, so no API call is made).
PullState = Literal["merged", "open", "closed (unmerged)", "not a PR", "not asked"]
# The steps of the install pipeline (install.pipeline.STEPS), and every step an install can
# fail at: those, the checks before them (the clone, the lock) and the workspace install.
StepName = Literal["clean", "fetch", "checkout", "submodules", "patch", "recipe", "prepare",
                   "pip", "rebuild-check"]
FailedStep = Literal[StepName, "check", "lock", "environment", "verify", "workspace"]
# The timed phases of an install, in pipeline order: the columns of the install summary.
Phase = Literal["clean", "fetch", "checkout", "patch", "prepare", "pip"]
PHASES: tuple[Phase, ...] = get_args(Phase)

SOURCES: tuple[Source, ...] = get_args(Source)
# Precedence of DESIGN §3, highest first; `named_by` is the highest source in use.
PRECEDENCE: tuple[Source, ...] = ("dispatch", "body", "lock", "default")

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

# Findings reported one by one (annotations, summary, report); the rest are counted.
MAX_FINDINGS = 1000


def findings_omitted(*lists: list[Finding]) -> int:
    """How many findings of `lists` are counted rather than reported one by one."""
    return sum(max(0, len(findings) - MAX_FINDINGS) for findings in lists)


# ---- the overrides document (resolve -> install) ------------------------------------------


@dataclass(frozen=True)
class Override:
    """One dependency's ref to test: where it came from and what to fetch."""

    name: str
    kind: Kind
    ref: str
    source: Source
    raw: str
    sha: str | None = None
    line: int | None = None
    pr: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "sha": self.sha, "kind": self.kind, "source": self.source,
                "raw": self.raw, "line": self.line, "pr": self.pr}

    @classmethod
    def from_json(cls, name: str, entry: object, where: str) -> Override:
        """Validate one entry of an `overrides` document; every problem is a usage error."""

        def fail(problem: str) -> UsageError:
            return UsageError(f"{where}: `{name}`: {problem}")

        if not isinstance(entry, Mapping) or not isinstance(entry.get("ref"), str):
            raise fail("needs an object with a string `ref`")
        ref = entry["ref"]
        problem = check_ref_format(ref)
        if problem:
            raise fail(f"ref {ref!r} is not valid: {problem}")
        sha = entry.get("sha")
        if sha is not None and (not isinstance(sha, str) or not FULL_SHA.fullmatch(sha)):
            raise fail("`sha` must be a full lowercase hex SHA (40 or 64 digits) or null")
        # Documents written before `kind` existed: a full SHA is a commit, the rest a ref.
        kind = entry.get("kind", "commit" if FULL_SHA.fullmatch(ref) else "ref")
        if kind not in KINDS:
            raise fail(f"`kind` must be one of {', '.join(KINDS)}, got {kind!r}")
        if kind in ("commit", "short-commit"):
            # A commit is fetched by its SHA; an abbreviation must have been expanded by resolve.
            if not FULL_SHA.fullmatch(ref) or sha not in (None, ref):
                raise fail(f"a `{kind}` override fetches a full SHA: `ref` must be the full SHA "
                           f"and `sha` null or equal to it")
            sha = ref
        source = entry.get("source", "overrides")
        if source not in SOURCES:
            raise fail(f"`source` must be one of {', '.join(SOURCES)}, got {source!r}")
        raw = entry.get("raw", ref)
        if not isinstance(raw, str):
            raise fail("`raw` must be a string")
        return cls(name=name, kind=kind, ref=ref, source=source, raw=raw, sha=sha,
                   line=_optional_int(entry.get("line"), "line", fail),
                   pr=_optional_int(entry.get("pr"), "pr", fail))


def _optional_int(value: object, key: str, fail: Callable[[str], UsageError]) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise fail(f"`{key}` must be a positive integer or null")
    return value


def overrides_to_json(overrides: Mapping[str, Override]) -> dict[str, Any]:
    return {name: override.to_json() for name, override in overrides.items()}


def overrides_from_json(document: object, names: tuple[str, ...],
                        where: str) -> dict[str, Override]:
    """An `overrides` document, or a whole resolve report (its `overrides` member is used)."""
    if isinstance(document, dict) and "version" in document and "overrides" in document:
        if document["version"] != REPORT_VERSION:
            raise UsageError(f"{where}: report version {document['version']!r} is not "
                             f"supported (this rocm-deps reads version {REPORT_VERSION})")
        document = document["overrides"]
    if not isinstance(document, dict):
        raise UsageError(f"{where}: expected a JSON object mapping dependency names to overrides")
    overrides = {}
    for name, entry in document.items():
        if name not in names:
            raise UsageError(f"{where}: `{name}` is not a configured dependency "
                             f"(configured: {', '.join(names)})")
        overrides[name] = Override.from_json(name, entry, where)
    return overrides


# ---- resolve ------------------------------------------------------------------------------


ValueSource = Literal["explicit", "dispatch", "body", "default"]


@dataclass(frozen=True)
class ResolvedValue:
    """A value directive's outcome (`ci-image-tag`): the value, where it came from, the line."""

    value: str
    source: ValueSource
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source, "line": self.line}


@dataclass
class ResolveReport:
    overrides: dict[str, Override] = field(default_factory=dict)
    values: dict[str, ResolvedValue] = field(default_factory=dict)
    warnings: list[Finding] = field(default_factory=list)
    errors: list[Finding] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    body_origin: str = "none"

    @property
    def named_by(self) -> Source | Literal[""]:
        sources = {override.source for override in self.overrides.values()}
        return next((source for source in PRECEDENCE if source in sources), "")

    @property
    def skip_dependency_install(self) -> bool:
        return not self.overrides

    def add(self, finding: Finding) -> None:
        (self.errors if finding.level == "error" else self.warnings).append(finding)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            # null after an error: a reader of the report cannot take a failure for
            # "nothing named", as a reader of the outputs cannot (they lack the flag).
            "skip_dependency_install": None if self.errors else self.skip_dependency_install,
            "named_by": self.named_by,
            "overrides": overrides_to_json(self.overrides),
            "values": {name: value.to_json() for name, value in self.values.items()},
            "warnings": [finding.to_json() for finding in self.warnings[:MAX_FINDINGS]],
            "errors": [finding.to_json() for finding in self.errors[:MAX_FINDINGS]],
            "findings_omitted": findings_omitted(self.warnings, self.errors),
        }


# ---- install ------------------------------------------------------------------------------


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
    """What `git reset --hard` + `git clean -fd` discard from a clone (DESIGN §6 step 3)."""

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
    version: str | None = None  # what the interpreter reports after the install
    image_commit: str | None = None  # the commit the image left the clone at
    discarded: LocalChanges | None = None  # what this run's reset discarded
    rebuild: tuple[str, ...] = ()  # files under rebuild-paths that differ from the image's
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
                              is not None else None, "replayed": self.replayed},
            "rebuild": {"count": len(self.rebuild), "files": list(self.rebuild[:NAMES_SHOWN])},
            "state": self.state, "failed_step": self.failed_step, "error": self.error,
            "clone_state": self.clone_state, "version": self.version,
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

    @property
    def failed(self) -> bool:
        return any(dep.state == FAILED for dep in self.dependencies.values()) or (
            self.workspace == FAILED)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION, "dry_run": self.dry_run, "python": self.python,
            "dependencies": {name: dep.to_json() for name, dep in self.dependencies.items()},
            "workspace": self.workspace, "failed": self.failed,
        }


@dataclass(frozen=True)
class Check:
    """One directive of one pull request, and what the policy says of it."""

    pull: int | None  # the pull request whose description names it
    dependency: str
    raw: str
    line: int
    state: PullState
    verdict: Verdict
    reason: str


@dataclass
class MergeCheckReport:
    policy: Policy
    pulls: list[int] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    errors: list[Finding] = field(default_factory=list)
    warnings: list[Finding] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.errors) or any(check.verdict == "fail" for check in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {"policy": self.policy, "pulls": self.pulls, "failed": self.failed,
                "checks": [{"pull": c.pull, "dependency": c.dependency, "value": c.raw,
                            "line": c.line, "state": c.state, "verdict": c.verdict,
                            "reason": c.reason} for c in self.checks],
                "errors": [error.to_json() for error in self.errors[:MAX_FINDINGS]],
                "warnings": [warning.to_json() for warning in self.warnings[:MAX_FINDINGS]],
                "notices": self.notices}
