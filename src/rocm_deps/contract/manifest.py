"""The manifest: what each suite's last run tested, kept on the pull request (docs/architecture.md,
*What was tested*). The comment's hidden data block (written by `comment`, read back by `merge-check
--require-tested`) with one section per suite, the install reports of other jobs it is built from
(untrusted files, validated field by field), and the rows the comment shows. Pure, like the rest of
`contract`."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast, get_args

from rocm_deps.contract.install import DependencyState, PatchState
from rocm_deps.contract.overrides import REPORT_VERSION, Override, Source
from rocm_deps.errors import UsageError
from rocm_deps.files import without_lone_surrogates
from rocm_deps.grammar.refs import FULL_SHA

# Each suite's comment opens with its marker line (`<!-- rocm-deps:manifest suite=NAME -->`) and
# ends with its data block (one line `<!-- rocm-deps:data {json} -->`). A comment of release
# 1.0 opened with the marker alone and held several suites' sections: still read, never
# written.
MARKER_PREFIX = "<!-- rocm-deps:manifest"
SHARED_MARKER = f"{MARKER_PREFIX} -->"
MANIFEST_VERSION = 2  # 2: sections by suite
DATA_OPEN, DATA_CLOSE = "<!-- rocm-deps:data ", " -->"
MAX_DATA = 64 * 1024  # a GitHub comment holds at most 65,536 characters
MAX_TESTED = 100
# What an author named (in this description, a dispatch input, the description of a pull
# request below in the stack or of one in the merge group), not a default.
NAMED_SOURCES = ("body", "dispatch", "queue", "stack")
MAX_SUITES = 20
# A suite's name (by default its workflow's): shown in a code span and in an HTML comment,
# so nothing that could end either, start Markdown or reach a shell.
# A run's URL as the comment links it: nothing that could end the link or open Markdown.
RUN_URL = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~%/-]*)?")
SUITE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9 ._()+/-]{0,98}[A-Za-z0-9._()+/-])?")


def marker(suite: str) -> str:
    """The first line of `suite`'s manifest comment (the name is a checked SUITE: it cannot
    end the HTML comment)."""
    return f"{MARKER_PREFIX} suite={suite} -->"


def marked_suite(body: str) -> str | None:
    """The suite a comment's first line names as its marker; "" for the shared comment of
    release 1.0; None when the first line is no marker."""
    first = body.split("\n", 1)[0]
    if first == SHARED_MARKER:
        return ""
    opening = f"{MARKER_PREFIX} suite="
    if first.startswith(opening) and first.endswith(" -->"):
        name = first[len(opening):-len(" -->")]
        return name if SUITE.fullmatch(name) else None
    return None


def checked_suite(name: str, where: str) -> str:
    """`name` as a suite's name, or a usage error that says what `where` must hold."""
    if not SUITE.fullmatch(name):
        raise UsageError(f"{where} {name[:100]!r} cannot name a suite: use letters, digits, "
                         f"spaces and `._()+/-` (at most 100, starting and ending with neither "
                         f"a space nor a mark of those)")
    return name


@dataclass(frozen=True)
class ManifestEntry:
    """One dependency a run tested: the commit, and the pull request that named it."""

    repository: str
    ref: str
    sha: str | None  # None: neither resolve (no token) nor an install report knew it
    pr: int | None
    # A pull request merged onto its base: the head (what the author named, and what the
    # guard compares) and the base the tested merge commit `sha` was made of.
    head: str | None = None
    base: str | None = None
    # Who named it (body, dispatch, default, lock, ...); None in comments written before.
    source: str | None = None

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {"repository": self.repository, "ref": self.ref,
                                    "sha": self.sha, "pr": self.pr}
        if self.head is not None or self.base is not None:
            document |= {"head": self.head, "base": self.base}
        if self.source is not None:
            document["source"] = self.source
        return document

    @property
    def named(self) -> bool:
        """Named by the author (the body or a dispatch input), not a default or a lock file;
        an entry of an older comment counts as named when it names a pull request."""
        return self.source in NAMED_SOURCES if self.source is not None else self.pr is not None


@dataclass(frozen=True)
class Manifest:
    """One suite's section: what its last run tested."""

    run: str  # the run's URL, "" when unknown
    tested: Mapping[str, ManifestEntry]
    head: str | None = None  # the pull request's commit the run tested (None: not recorded)

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "run": self.run,
            "tested": {name: entry.to_json() for name, entry in self.tested.items()}}
        if self.head is not None:
            document["head"] = self.head
        return document


@dataclass(frozen=True)
class ManifestDocument:
    """The data block: each suite's section, by the suite's name."""

    suites: Mapping[str, Manifest]

    def data_block(self) -> str:
        document = {"version": MANIFEST_VERSION,
                    "suites": {name: suite.to_json() for name, suite in self.suites.items()}}
        # `<`, `>` and `&` escaped: nothing inside can close the HTML comment early.
        text = (json.dumps(document, separators=(",", ":"), sort_keys=True)
                .replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
        return f"{DATA_OPEN}{text}{DATA_CLOSE}"


def read_manifest(body: str) -> ManifestDocument | None:
    """The data block of a comment body, None unless the body holds exactly one and it is
    the last line: the writer puts it there, and a second one (a value quoted from a report,
    a hand edit) makes the comment untrustworthy rather than readable. A block of another
    version (version 1 had no suites) is unreadable too: the next `comment` rewrites it."""
    last = body.rstrip("\n").rsplit("\n", 1)[-1]
    if body.count(DATA_OPEN) != 1 or not (last.startswith(DATA_OPEN) and last.endswith(
            DATA_CLOSE)) or len(last) > MAX_DATA:
        return None
    try:
        document = json.loads(last[len(DATA_OPEN):-len(DATA_CLOSE)])
    except (ValueError, RecursionError):
        return None
    if not isinstance(document, dict) or type(document.get("version")) is not int or (
            document["version"] != MANIFEST_VERSION):
        return None
    suites = document.get("suites")
    if not isinstance(suites, dict) or len(suites) > MAX_SUITES:
        return None
    read: dict[str, Manifest] = {}
    for name, section in suites.items():
        suite = _suite(section)
        if suite is None or not SUITE.fullmatch(name):
            return None
        read[name] = suite
    return ManifestDocument(read)


def _suite(section: object) -> Manifest | None:
    if not isinstance(section, dict):
        return None
    run, entries, head = section.get("run"), section.get("tested"), section.get("head")
    if not isinstance(run, str) or (run and not RUN_URL.fullmatch(run)) or not isinstance(
            entries, dict) or len(entries) > MAX_TESTED:
        return None
    if head is not None and (not isinstance(head, str) or not FULL_SHA.fullmatch(head)):
        return None
    tested = {}
    for name, entry in entries.items():
        parsed = _tested(entry)
        if parsed is None:
            return None
        tested[name] = parsed
    return Manifest(run, tested, head)


def _tested(entry: object) -> ManifestEntry | None:
    if not isinstance(entry, dict):
        return None
    repository, ref, sha, pr = (entry.get(key) for key in ("repository", "ref", "sha", "pr"))
    if not (isinstance(repository, str) and isinstance(ref, str) and len(ref) <= 1024):
        return None
    if sha is not None and (not isinstance(sha, str) or not FULL_SHA.fullmatch(sha)):
        return None
    if pr is not None and (isinstance(pr, bool) or not isinstance(pr, int) or pr < 1):
        return None
    head, base, source = entry.get("head"), entry.get("base"), entry.get("source")
    if any(value is not None and (not isinstance(value, str) or not FULL_SHA.fullmatch(value))
           for value in (head, base)):
        return None
    if source is not None and source not in get_args(Source):
        return None
    return ManifestEntry(repository, ref, sha, pr, head, base, source)


@dataclass(frozen=True)
class InstalledDependency:
    """What one install report (a GPU job's, an untrusted file) says of one dependency."""

    state: DependencyState | None
    sha: str | None
    version: str | None
    patches: tuple[tuple[str, PatchState], ...]


MAX_TEXT = 200  # a version or a patch name from a report, as shown


def workspace_commit_of(document: Mapping[str, Any], where: str) -> str | None:
    """The commit an install report says its workspace was checked out at (None: it says
    none)."""
    commit = document.get("workspace_commit")
    if commit is not None and (not isinstance(commit, str) or not FULL_SHA.fullmatch(commit)):
        raise UsageError(f"{where}: `workspace_commit` must be a full lowercase hex SHA or null")
    return commit


def installed_from_json(document: object, names: tuple[str, ...],
                        where: str) -> dict[str, InstalledDependency]:
    """The dependencies of an install report; any field that is not what install writes is a
    usage error naming `where` (the file comes from another job: validated, never trusted)."""
    if not isinstance(document, dict) or document.get("version") != REPORT_VERSION or (
            not isinstance(document.get("dependencies"), dict)):
        raise UsageError(f"{where}: not an install report of version {REPORT_VERSION} (an "
                         f"object with `version` and `dependencies`)")
    found = {}
    for name, entry in document["dependencies"].items():
        if name not in names:
            raise UsageError(f"{where}: `{name}` is not a configured dependency")
        if not isinstance(entry, dict):
            raise UsageError(f"{where}: `{name}` is not an object")
        found[name] = _installed(entry, f"{where}: `{name}`")
    return found


def _installed(entry: Mapping[str, Any], where: str) -> InstalledDependency:
    state, sha, version, patches = (entry.get(key) for key in
                                    ("state", "sha", "version", "patches"))
    if state is not None and state not in get_args(DependencyState):
        raise UsageError(f"{where}: `state` {str(state)[:40]!r} is not one install writes")
    if sha is not None and (not isinstance(sha, str) or not FULL_SHA.fullmatch(sha)):
        raise UsageError(f"{where}: `sha` must be a full lowercase hex SHA or null")
    if version is not None and (not isinstance(version, str) or len(version) > MAX_TEXT):
        raise UsageError(f"{where}: `version` must be a string of at most {MAX_TEXT} "
                         f"characters or null")
    if version is not None:
        version = without_lone_surrogates(version)
    if not isinstance(patches, dict) or len(patches) > MAX_TESTED:
        raise UsageError(f"{where}: `patches` must be an object")
    states: list[tuple[str, PatchState]] = []
    for patch, outcome in patches.items():
        patch_state = outcome.get("state") if isinstance(outcome, dict) else None
        if len(patch) > MAX_TEXT or patch_state not in get_args(PatchState):
            raise UsageError(f"{where}: patch {patch[:40]!r} has no valid `state`")
        states.append((without_lone_surrogates(patch), cast(PatchState, patch_state)))
    return InstalledDependency(state, sha, version, tuple(states))


@dataclass(frozen=True)
class InstallResult:
    """One GPU job's install report, by the name of its file."""

    label: str
    dependencies: Mapping[str, InstalledDependency]
    workspace_commit: str | None = None  # the commit its job checked the workspace out at


@dataclass(frozen=True)
class ManifestRow:
    """One dependency a run tested, as the manifest comment shows it."""

    name: str
    override: Override
    repository: str
    tested: str | None  # the commit tested: the install reports', else resolve's pin
    installs: tuple[tuple[str, InstalledDependency], ...]
    pull_state: str | None = None  # the dependency pull request now: open, merged, closed
    pull_head: str | None = None

    @property
    def entry(self) -> ManifestEntry:
        """What the manifest keeps of the row; a merge's head and base when the commit tested
        is the merge resolve pinned (else they are unknown)."""
        override = self.override
        pinned = override.merge and self.tested is not None and self.tested == override.sha
        return ManifestEntry(self.repository, override.ref, self.tested, override.pr,
                             override.head if pinned else None,
                             override.base if pinned else None, override.source)


@dataclass
class ManifestRun:
    """What `comment` puts on pull request `number` of `repository`: `suite`'s section."""

    repository: str
    number: int
    run_url: str
    suite: str
    rows: list[ManifestRow] = field(default_factory=list)
    resolve_errors: int = 0
    install_labels: tuple[str, ...] = ()
    head: str = ""  # the pull request's commit the run tested, where its status goes
    options: tuple[str, ...] = ()  # what a reproduction needs to read the same configuration

    @property
    def manifest(self) -> Manifest:
        return Manifest(self.run_url, {row.name: row.entry for row in self.rows},
                        self.head or None)
