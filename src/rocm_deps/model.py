"""The data that flows: what resolve hands to install, the reports both write, the settings.

One home for every type that crosses a module or a job boundary, so the writer and the reader
of a format are never two files apart (DESIGN §8). Pure: no I/O, no runner, no git.

The `overrides` document travels from the resolve job to the GPU job through workflow
outputs, where anyone with write access to the workflow could edit it: `Override.from_json`
validates every field again before a ref can reach git's argv.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from rocm_deps.config import Config
from rocm_deps.errors import UsageError

# The version of the resolve and install reports and of the `overrides` document.
REPORT_VERSION = 1

# A full commit SHA (SHA-1 or SHA-256). Canonical form is lowercase; input may be either case.
FULL_SHA_SOURCE = r"[0-9a-f]{40}|[0-9a-f]{64}"
FULL_SHA = re.compile(FULL_SHA_SOURCE)
FULL_SHA_ANY_CASE = re.compile(FULL_SHA_SOURCE, re.IGNORECASE)

Kind = Literal["pr", "commit", "short-commit", "ref"]
Source = Literal["dispatch", "body", "lock", "default", "overrides"]
Level = Literal["error", "warning"]
PatchState = Literal["applied", "already-present", "missing-target", "ambiguous",
                     "incompatible", "planned"]
DependencyState = Literal["installed", "up-to-date", "failed", "planned"]

KINDS: tuple[Kind, ...] = get_args(Kind)
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

PHASES = ("clean", "fetch", "checkout", "patch", "prepare", "pip")
# Findings reported one by one (annotations, summary, report); the rest are counted.
MAX_FINDINGS = 1000
OUTPUT_FORMATS = ("text", "json")
BODY_SOURCES = ("event", "api")
DEFAULT_TRUSTED = ("OWNER", "MEMBER", "COLLABORATOR")


def parse_true_false(value: str) -> bool | None:
    """`true`/`false` in any letter case (surrounding blanks ignored); None for anything else:
    the one definition of a boolean input, for the action's inputs and the command line."""
    return {"true": True, "false": False}.get(value.strip().lower())


# ---- what a ref may be (every ref in the contract passes this) ------------------------------

MAX_REF_BYTES = 255
_REF_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")


def describe_character(character: str) -> str:
    name = unicodedata.name(character, "unnamed character")
    return f"U+{ord(character):04X} {name}"


def check_ref_format(ref: str) -> str | None:
    """The reason `ref` is not a valid ref name, or None. Same rules as
    `git check-ref-format --allow-onelevel`, plus ours (ASCII, length, no leading '-')."""
    if not ref:
        return "it is empty"
    if not ref.isascii():
        bad = next(character for character in ref if not character.isascii())
        return f"it contains the non-ASCII character {describe_character(bad)}"
    if len(ref.encode()) > MAX_REF_BYTES:
        return f"it is longer than {MAX_REF_BYTES} bytes"
    if ref.startswith("-"):
        return "it starts with '-' (git would read it as an option)"
    forbidden = _REF_FORBIDDEN.search(ref)
    if forbidden:
        character = forbidden.group()
        shown = repr(character) if character.isprintable() and character != " " else (
            "a space" if character == " " else f"control character U+{ord(character):04X}")
        return f"it contains {shown}, which git does not allow in a ref name"
    if ref == "@":
        return "'@' alone is not a ref name"
    for sequence, why in (("..", "'..'"), ("@{", "'@{'"), ("//", "'//'")):
        if sequence in ref:
            return f"it contains {why}, which git does not allow in a ref name"
    if ref.startswith("/") or ref.endswith("/"):
        return "it starts or ends with '/'"
    if ref.endswith("."):
        return "it ends with '.'"
    for component in ref.split("/"):
        if component.startswith("."):
            return f"the component {component!r} starts with '.'"
        if component.endswith(".lock"):
            return f"the component {component!r} ends with '.lock'"
    return None


@dataclass(frozen=True)
class Finding:
    """An error or a warning about one line of the body (line 0: not about a line)."""

    level: Level
    message: str
    line: int = 0
    title: str = ""  # the annotation's title; empty: the default for the level

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "line": self.line or None}


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


@dataclass
class ResolveReport:
    overrides: dict[str, Override] = field(default_factory=dict)
    warnings: list[Finding] = field(default_factory=list)
    errors: list[Finding] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    body_origin: str = "none"

    @property
    def named_by(self) -> str:
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
            "skip_dependency_install": self.skip_dependency_install,
            "named_by": self.named_by,
            "overrides": overrides_to_json(self.overrides),
            "warnings": [finding.to_json() for finding in self.warnings[:MAX_FINDINGS]],
            "errors": [finding.to_json() for finding in self.errors[:MAX_FINDINGS]],
            "findings_omitted": max(0, len(self.warnings) - MAX_FINDINGS)
            + max(0, len(self.errors) - MAX_FINDINGS),
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
    source: str
    ref: str
    sha: str | None
    state: DependencyState | None = None
    commit: str | None = None
    failed_step: str | None = None
    error: str | None = None
    patches: list[PatchOutcome] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    fetch_attempts: int = 0
    clone_state: str | None = None  # after a failed patch: what the clone was left as
    version: str | None = None  # what the interpreter reports after the install
    image_commit: str | None = None  # the commit the image left the clone at
    discarded: LocalChanges | None = None  # what this run's reset discarded
    rebuild: tuple[str, ...] = ()  # files under rebuild-paths that differ from the image's

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
            "patches": {outcome.patch: {"state": outcome.state, "sha256": outcome.sha256}
                        for outcome in self.patches},
            "seconds": {phase: round(seconds, 3) for phase, seconds in self.seconds.items()},
        }


@dataclass
class InstallReport:
    dry_run: bool
    python: str
    dependencies: dict[str, DependencyReport] = field(default_factory=dict)
    workspace: str = "not needed"

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


# ---- settings (built once, at the edge, by `settings.py`) -----------------------------------


@dataclass(frozen=True)
class ApiSettings:
    url: str = "https://api.github.com"
    token: str | None = None
    # Where PyGithub is installed on demand when it is not importable ($RUNNER_TEMP).
    packages_dir: Path = Path("/tmp")  # noqa: S108 - replaced by settings.py from the env
    uv: str | None = None  # uv on PATH, used for that install when present


@dataclass(frozen=True)
class ResolveSettings:
    config: Config
    event_name: str = ""
    event_path: Path | None = None
    inputs: Mapping[str, str] = field(default_factory=dict)
    body_file: Path | None = None
    api: ApiSettings = ApiSettings()
    body_source: str = "event"
    trusted_associations: tuple[str, ...] = DEFAULT_TRUSTED
    output_format: str = "text"


MERGE_POLICIES = ("require-merged", "forbid-overrides", "warn")
DEMO_SCENARIOS = ("pull-requests", "missing-target")  # the first is the default
Verdict = Literal["pass", "fail", "warn"]


@dataclass(frozen=True)
class Check:
    """One directive of one pull request, and what the policy says of it."""

    pull: int | None  # the pull request whose description names it
    dependency: str
    raw: str
    line: int
    state: str  # merged, open, closed (unmerged), or what a non-PR value is
    verdict: Verdict
    reason: str


@dataclass
class MergeCheckReport:
    policy: str
    pulls: list[int] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    errors: list[Finding] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.errors) or any(check.verdict == "fail" for check in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {"policy": self.policy, "pulls": self.pulls, "failed": self.failed,
                "checks": [{"pull": c.pull, "dependency": c.dependency, "value": c.raw,
                            "line": c.line, "state": c.state, "verdict": c.verdict,
                            "reason": c.reason} for c in self.checks],
                "errors": [{"message": e.message, "line": e.line} for e in self.errors],
                "notices": self.notices}


@dataclass(frozen=True)
class MergeCheckSettings:
    config: Config
    event_name: str = ""
    event_path: Path | None = None
    api: ApiSettings = ApiSettings()
    policy: str = "require-merged"
    output_format: str = "text"


@dataclass(frozen=True)
class InstallSettings:
    config: Config
    overrides: Mapping[str, Override] | None  # None: resolve from the event (single job)
    resolve: ResolveSettings
    workspace: Path
    python: str
    dry_run: bool = False
    output_format: str = "text"
    # The environment every child process (git, pip) gets; read once from os.environ.
    environ: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class DemoSettings:
    keep: bool
    output_format: str
    scenario: str  # a key of commands.demo.SCENARIOS
    python: str  # the interpreter that runs the tool (and builds the sandbox's venv)
    temporary_directory: Path
    environ: Mapping[str, str] = field(default_factory=dict)
