"""The `overrides` document: which ref each named dependency tests, from the resolve job to the GPU
job (docs/architecture.md, *Command line and the documents*).

It travels through workflow outputs, where anyone with write access to the workflow could
edit it: `Override.from_json` validates every field again before a ref can reach git's argv.
Pure: no I/O, no runner, no git.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from rocm_deps.defaults import CONFIG_FILE
from rocm_deps.errors import UsageError
from rocm_deps.files import without_lone_surrogates
from rocm_deps.grammar.refs import FULL_SHA, KINDS, Kind, check_output_ref, is_merge_ref

# The version of the resolve and install reports and of the `overrides` document.
REPORT_VERSION = 1
_PULL_REF = re.compile(r"refs/pull/([0-9]{1,9})/(?:head|merge)")

# "image": nothing named the dependency, and install keeps (or returns) it at the image's copy;
# never in an overrides document.
# "stack": the description of a pull request below this one in its stack named it.
# "queue": on a merge group, the description of one of the group's pull requests named it.
Source = Literal["dispatch", "body", "queue", "stack", "lock", "default", "overrides", "image"]
SOURCES: tuple[Source, ...] = tuple(source for source in get_args(Source) if source != "image")
# Precedence of docs/architecture.md, *Directives*, highest first; `named_by` is the highest source
# in use. ("queue" is the body of a merge group: its only source besides the lock and defaults.)
PRECEDENCE: tuple[Source, ...] = ("dispatch", "body", "queue", "stack", "lock", "default")
# The sources that say "another pull request's description named it": they carry `via`.
VIA_SOURCES: tuple[Source, ...] = ("queue", "stack")
# The member of an `overrides` document that records the run and attempt that pinned it
# (`RunRecord`); no dependency can have the name (dependency names start with a letter).
RUN_KEY = "_run"
# The configuration resolve read (its file's `source` and `text`), for install in the GPU job
# (convention.py reads it there).
CONFIG_KEY = "_config"
DIGEST = re.compile(r"[0-9a-f]{64}")


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
    # A pull request merged onto its base (`refs/pull/N/merge`), pinned: the head and the
    # base commit GitHub's merge commit (`sha`) was made of.
    head: str | None = None
    base: str | None = None
    # source "stack" or "queue": the pull request whose description named it
    via: int | None = None

    @property
    def merge(self) -> bool:
        """Whether this tests pull request `pr` merged onto its base."""
        return self.kind == "pr" and is_merge_ref(self.ref)

    def to_json(self) -> dict[str, Any]:
        document = {"ref": self.ref, "sha": self.sha, "kind": self.kind, "source": self.source,
                    "raw": self.raw, "line": self.line, "pr": self.pr}
        if self.merge:
            document |= {"head": self.head, "base": self.base}
        if self.via is not None:
            document |= {"via": self.via}
        return document

    @classmethod
    def from_json(cls, name: str, entry: object, where: str) -> Override:
        """Validate one entry of an `overrides` document; every problem is a usage error."""

        def fail(problem: str) -> UsageError:
            return UsageError(f"{where}: `{name}`: {problem}")

        if not isinstance(entry, Mapping) or not isinstance(entry.get("ref"), str):
            raise fail("needs an object with a string `ref`")
        ref = entry["ref"]
        problem = check_output_ref(ref)
        if problem:
            raise fail(f"ref {ref!r} is not valid: {problem}")
        sha = entry.get("sha")
        if sha is not None and (not isinstance(sha, str) or not FULL_SHA.fullmatch(sha)):
            raise fail("`sha` must be a full lowercase hex SHA (40 or 64 digits) or null")
        # Documents written before `kind` existed: a full SHA is a commit, a pull request's
        # ref names that pull request, the rest is a ref.
        pull = _PULL_REF.fullmatch(ref)
        kind = entry.get("kind", "commit" if FULL_SHA.fullmatch(ref) else
                         "pr" if pull is not None else "ref")
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
        raw = without_lone_surrogates(raw)  # JSON can hold one; no UTF-8 channel can
        pr = _optional_int(entry.get("pr"), "pr", fail)
        if pr is None and pull is not None and "kind" not in entry:
            pr = int(pull.group(1))
        # The kind, the ref and the pull request say one thing: a document that says two
        # (`kind: pr, pr: 5, ref: main`) would test one and guard the other.
        if kind == "pr" and (pr is None or ref not in (f"refs/pull/{pr}/head",
                                                       f"refs/pull/{pr}/merge")):
            raise fail(f"a `pr` override fetches `refs/pull/<pr>/head` (or `/merge`) of its "
                       f"`pr`; got ref {ref!r} and pr {pr!r}")
        merge = {key: entry.get(key) for key in ("head", "base")}
        for key, value in merge.items():
            if value is not None and (not isinstance(value, str) or not FULL_SHA.fullmatch(
                    value) or not is_merge_ref(ref)):
                raise fail(f"`{key}` must be a full lowercase hex SHA or null, and only a "
                           f"merge (`refs/pull/<pr>/merge`) has one")
        if kind == "ref" and (pr is not None or ref.startswith(("refs/pull/", "pull/"))):
            raise fail(f"a `ref` override names a branch or tag, never a pull request; got ref "
                       f"{ref!r} and pr {pr!r}")
        via = _optional_int(entry.get("via"), "via", fail)
        if (via is None) != (source not in VIA_SOURCES):
            raise fail("`via` (the pull request whose description named it) goes with "
                       "`source: stack` or `source: queue`, and only with them")
        return cls(name=name, kind=kind, ref=ref, source=source, raw=raw, sha=sha,
                   line=_optional_int(entry.get("line"), "line", fail), pr=pr,
                   head=merge["head"], base=merge["base"], via=via)


def _optional_int(value: object, key: str, fail: Callable[[str], UsageError]) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise fail(f"`{key}` must be a positive integer or null")
    return value


@dataclass(frozen=True)
class RunRecord:
    """Which run and attempt made an `overrides` document, and a digest of what it decided.
    GitHub keeps the outputs of jobs a "re-run failed jobs" does not re-run: the GPU job of
    attempt 2 then receives attempt 1's pins, and install must know (install/attempts.py)."""

    run_id: int
    attempt: int
    digest: str  # `pins_digest` of what resolve decided: every ref and commit it pinned
    api: bool  # resolve read the description, or pinned refs, through the API

    def to_json(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "attempt": self.attempt, "digest": self.digest,
                "api": self.api}

    @classmethod
    def from_json(cls, entry: object, where: str) -> RunRecord:
        run_id = entry.get("run_id") if isinstance(entry, Mapping) else None
        attempt = entry.get("attempt") if isinstance(entry, Mapping) else None
        digest = entry.get("digest") if isinstance(entry, Mapping) else None
        api = entry.get("api") if isinstance(entry, Mapping) else None
        if not (isinstance(entry, Mapping) and _positive(run_id) and _positive(attempt)
                and isinstance(digest, str) and DIGEST.fullmatch(digest)
                and isinstance(api, bool)):
            raise UsageError(f"{where}: `{RUN_KEY}` must be an object with a positive `run_id` "
                             f"and `attempt`, a 64-digit hex `digest` and a boolean `api`")
        assert isinstance(run_id, int) and isinstance(attempt, int)
        return cls(run_id, attempt, digest, api)


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63


def overrides_to_json(overrides: Mapping[str, Override], run: RunRecord | None = None,
                      carried: Mapping[str, Any] | None = None) -> dict[str, Any]:
    document = {name: override.to_json() for name, override in overrides.items()}
    if run is not None:
        document[RUN_KEY] = run.to_json()
    if carried is not None:
        document[CONFIG_KEY] = dict(carried)
    return document


def overrides_from_json(document: object, names: tuple[str, ...],
                        where: str) -> dict[str, Override]:
    """An `overrides` document, or a whole resolve report (its `overrides` member is used)."""
    return pins_from_json(document, names, where)[0]


def pins_from_json(document: object, names: tuple[str, ...],
                   where: str) -> tuple[dict[str, Override], RunRecord | None]:
    """An `overrides` document (or a whole resolve report): the overrides, and the record of
    the run and attempt that wrote it (None in a document written outside a run)."""
    if isinstance(document, dict) and "version" in document and "overrides" in document:
        if document["version"] != REPORT_VERSION:
            raise UsageError(f"{where}: report version {document['version']!r} is not "
                             f"supported (this rocm-deps reads version {REPORT_VERSION})")
        document = document["overrides"]
    if not isinstance(document, dict):
        raise UsageError(f"{where}: expected a JSON object mapping dependency names to overrides")
    overrides = {}
    run = RunRecord.from_json(document[RUN_KEY], where) if RUN_KEY in document else None
    for name, entry in document.items():
        if name in (RUN_KEY, CONFIG_KEY):  # the configuration: convention.py reads it
            continue
        if name not in names:
            raise UsageError(f"{where}: `{name}` is not a configured dependency "
                             f"(configured: {', '.join(names)}); read the overrides with the "
                             f"configuration that wrote them: its file with `--config` (or "
                             f"{CONFIG_FILE} in the repository's checkout), its `--profile`")
        overrides[name] = Override.from_json(name, entry, where)
    return overrides, run


def pins_digest(overrides: Mapping[str, Override]) -> str:
    """What a resolve decided, as one digest: each dependency's ref and the commit it pinned
    (a pull request's head, a merge's head and base). Two resolves that would have a job
    test the same commits have the same digest; a description edited only in its prose
    keeps it. (Values such as the image tag are not in it: install cannot see the image a
    job runs in, and `--value` is the resolve step's alone.)"""
    decided = {name: [override.kind, override.ref, override.sha, override.pr, override.head,
                      override.base] for name, override in sorted(overrides.items())}
    text = json.dumps(decided, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
