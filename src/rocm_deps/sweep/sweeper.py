"""The sweep (docs/architecture.md, *Living results*): every open pull request re-judged without
a push. A result is true when it is made; the dependency pull requests it names keep moving.
For each pull request whose description names something, each suite's commit status on its
head says whether what that suite tested (its manifest comment) is still what the
description names, with each named pull request's head now.

Requests: the pages of open pull requests (their bodies come with them); for each pull
request naming something its comments and one status read; each distinct dependency pull
request once; a status write only where the status changed; with `--rerun moved`, one
re-run per suite run whose dependency moved, at most `--max-reruns`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from rocm_deps.contract.manifest import ManifestDocument
from rocm_deps.contract.status import (
    Head,
    Judgement,
    Named,
    context,
    judge,
    named_kind,
    suite_of,
    with_rerun,
)
from rocm_deps.errors import FatalError
from rocm_deps.github.answers import ApiError, ApiUnreachable, CommitStatus, OpenPull, RateLimited
from rocm_deps.grammar.directives import code_findings, parse_body
from rocm_deps.grammar.refs import is_merge_ref
from rocm_deps.manifest.comment import UNREADABLE, manifests
from rocm_deps.sweep.settings import SweepSettings

if TYPE_CHECKING:
    from rocm_deps.github.api import GitHubApi

# The run a manifest links: https://github.com/OWNER/REPO/actions/runs/ID[/attempts/N]
READING_SHARE = 0.8
RUN_ID = re.compile(r"https?://[^/]+/(?P<repository>[^/]+/[^/]+)/actions/runs/"
                    r"(?P<id>[0-9]{1,19})(?:/.*)?")


@dataclass(frozen=True)
class Judged:
    """One suite's status on one pull request: what it is now, and what the sweep did."""

    pull: int
    suite: str
    state: str
    description: str
    written: bool
    rerun: str = ""  # the run re-run for it


@dataclass
class SweepReport:
    repository: str
    listed: int = 0  # open pull requests
    naming: int = 0  # of them, those whose description names something (or errs)
    dependency_pulls: int = 0  # distinct dependency pull requests read
    judged: list[Judged] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # a pull request that could not be judged
    stopped: str = ""  # why the sweep stopped early ("" when it finished)

    @property
    def written(self) -> int:
        return sum(1 for judged in self.judged if judged.written)

    def to_json(self) -> dict[str, Any]:
        return {"repository": self.repository, "open_pulls": self.listed,
                "naming": self.naming, "dependency_pulls": self.dependency_pulls,
                "statuses_written": self.written, "stopped": self.stopped,
                "problems": self.problems,
                "judged": [{"pull": j.pull, "suite": j.suite, "state": j.state,
                            "description": j.description, "written": j.written,
                            "rerun": j.rerun} for j in self.judged]}


@dataclass
class _Seen:
    """What was read of one pull request: its description's named dependencies (none for a
    recently edited one that names nothing now but carries a status of ours), its manifest
    comments and its head's statuses of ours (None: they could not be read)."""

    open_pull: OpenPull
    named: list[Named]
    errors: list[str]
    document: ManifestDocument | Literal["unreadable"] | None = None
    urls: dict[str, str] = field(default_factory=dict)
    statuses: dict[str, CommitStatus] | None = None

    @property
    def quiet(self) -> bool:
        return not self.named and not self.errors


class _Stop(Exception):
    """The sweep cannot go on (its time is up, the rate limit, the API stopped answering):
    stop cleanly, writing what was judged."""


Ask = Callable[[Callable[[], Any]], Any]


def sweep(settings: SweepSettings, api: GitHubApi,
          clock: Callable[[], float] = time.monotonic,
          now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> SweepReport:
    from rocm_deps.github.api import OPEN_PULL_PAGES

    report = SweepReport(settings.repository)
    started = clock()
    reading = [True]  # reading stops at READING_SHARE of the time: what it read is written

    def ask(what: Callable[[], Any]) -> Any:
        """One question to the API: the sweep stops cleanly when its time or the rate limit
        is spent, or the API stops answering."""
        share = READING_SHARE if reading[0] else 1.0
        if clock() - started > settings.max_seconds * share:
            raise _Stop(f"its {settings.max_seconds} s ran out")
        try:
            return what()
        except (RateLimited, ApiUnreachable) as error:
            raise _Stop(str(error)) from None

    try:  # without the list nothing can be judged: the sweep cannot run
        listed = api.open_pulls(settings.repository)
    except ApiError as error:
        raise FatalError(f"the sweep cannot run: {error}") from None
    report.listed = len(listed)
    if len(listed) >= OPEN_PULL_PAGES * 100:
        report.problems.append(f"the repository has more than {len(listed)} open pull "
                               f"requests: only the oldest {len(listed)} were judged")
    seen: list[_Seen] = []
    heads: dict[tuple[str, int], Head] = {}  # each dependency pull request, read once
    asked: set[tuple[str, int]] = set()
    done = 0
    try:
        for open_pull in listed:
            item = _read(settings, api, open_pull, ask, report, now())
            if item is not None:
                seen.append(item)
                report.naming += not item.quiet
                for named in item.named:
                    _read_pull(settings, api, named, heads, asked, ask, report,
                               open_pull.pull.number)
            done += 1
    except _Stop as stop:
        report.stopped = (f"stopped at pull request #{listed[done].pull.number}, "
                          f"{done + 1} of {len(listed)} open pull requests ({stop}): it and "
                          f"the {len(listed) - done - 1} after it were not judged")
    reading[0] = False
    suites = settings.suites or _known_suites(seen)
    _write(settings, api, seen, suites, heads, ask, report)
    return report


def _read(settings: SweepSettings, api: GitHubApi, open_pull: OpenPull, ask: Ask,
          report: SweepReport, now: datetime) -> _Seen | None:
    """What the sweep needs of one pull request; None when it names nothing and was not
    edited lately (no request), or carries no status of ours."""

    item = _read_body(settings, api, open_pull, ask)
    number = open_pull.pull.number
    if item is None:
        if not _recent(open_pull, settings, now):
            return None
        item = _Seen(open_pull, [], [])
        item.statuses = _statuses(api, settings, open_pull, ask, report)
        if not item.statuses:
            return None
    try:
        comments = ask(partial(api.comments, settings.repository, number))
    except ApiError as error:
        report.problems.append(f"#{number}: could not read its comments: {error}")
        return None
    item.document, item.urls = manifests(comments, settings.bot_login)
    if item.statuses is None:
        item.statuses = _statuses(api, settings, open_pull, ask, report)
    return item


def _read_pull(settings: SweepSettings, api: GitHubApi, named: Named,
               heads: dict[tuple[str, int], Head], asked: set[tuple[str, int]], ask: Ask,
               report: SweepReport, number: int) -> None:
    """A named dependency pull request's head now, read once per sweep."""

    key = (named.repository.lower(), named.pr or 0)
    if named.kind != "pr" or named.pr is None or key in asked:
        return
    asked.add(key)
    report.dependency_pulls += 1
    try:
        pull = ask(partial(api.pull, named.repository, named.pr))
    except ApiError as error:  # judged "could not be read" where it is named
        report.problems.append(f"#{number}: could not read {named.repository}#{named.pr}: "
                               f"{error}")
        return
    heads[key] = Head(pull.head_sha, pull.merged)


def _read_body(settings: SweepSettings, api: GitHubApi, open_pull: OpenPull,
               ask: Ask) -> _Seen | None:
    """The description read exactly as resolve reads it; None when it names nothing."""

    config = settings.config
    parsed = parse_body(open_pull.pull.body, config.dependencies, config.values)
    errors = [finding.message for finding in (*parsed.errors, *code_findings(
        parsed, {*parsed.directives, *parsed.values}, config.code_directives))
        if finding.level == "error"]
    named: list[Named] = []
    for directive in parsed.directives.values():
        dependency = config.dependency(directive.dependency)
        spec = directive.spec
        sha = spec.sha
        if spec.kind == "short-commit":  # the commit it names now
            try:
                sha = ask(partial(api.commit, dependency.repository, spec.ref))
            except ApiError as error:
                errors.append(f"`{directive.key}: {directive.raw}` could not be expanded: "
                              f"{error}")
                continue
        named.append(Named(directive.dependency, dependency.repository,
                           named_kind(spec.pr, spec.kind), directive.raw, spec.pr, sha,
                           is_merge_ref(spec.ref)))
    if not named and not errors:
        return None
    return _Seen(open_pull, named, errors)


def _recent(open_pull: OpenPull, settings: SweepSettings, now: datetime) -> bool:
    updated = open_pull.updated_at
    return bool(settings.lookback_minutes) and updated is not None and (
        now - updated <= timedelta(minutes=settings.lookback_minutes))


def _statuses(api: GitHubApi, settings: SweepSettings, open_pull: OpenPull, ask: Ask,
              report: SweepReport) -> dict[str, CommitStatus] | None:
    """The head's statuses of ours; None when they could not be read."""

    try:
        found: dict[str, CommitStatus] = ask(
            partial(api.statuses, settings.repository, open_pull.pull.head_sha))
    except ApiError as error:
        report.problems.append(f"#{open_pull.pull.number}: could not read the statuses of "
                               f"its head: {error}")
        return None
    return {name: status for name, status in found.items() if suite_of(name) is not None}


def _known_suites(seen: list[_Seen]) -> tuple[str, ...]:
    """Every suite the bot's manifest comments name across the sweep: a pull request no
    suite has reported on yet is pending in each of them."""
    names: dict[str, None] = {}
    for item in seen:
        if isinstance(item.document, ManifestDocument):
            names.update(dict.fromkeys(item.document.suites))
    return tuple(sorted(names))


Wanted = tuple[_Seen, str, Judgement, str]  # the pull request, suite, judgement, target


def _write(settings: SweepSettings, api: GitHubApi, seen: list[_Seen], suites: tuple[str, ...],
           heads: Mapping[tuple[str, int], Head], ask: Ask, report: SweepReport) -> None:
    wanted: list[Wanted] = []
    for item in seen:
        head = item.open_pull.pull.head_sha
        # A pull request naming nothing now: only the statuses of ours it carries.
        for suite in (tuple(suite_of(name) or "" for name in item.statuses or {})
                      if item.quiet else suites):
            if settings.suites and suite not in settings.suites:
                continue
            if item.document == UNREADABLE:
                judgement = Judgement("failure", "the manifest comment cannot be read: re-run "
                                                 "the suite's comment step")
            else:
                manifest = (item.document.suites.get(suite)
                            if isinstance(item.document, ManifestDocument) else None)
                judgement = judge(item.named, manifest, heads, item.errors, head)
            wanted.append((item, suite, judgement, item.urls.get(suite, "")))
    reruns = _reruns(settings, wanted)
    outcomes: dict[str, bool] = {}  # run URL -> re-run (True) or refused (False)
    try:
        for entry in wanted:
            _write_one(settings, api, entry, reruns, outcomes, ask, report)
    except _Stop as stop:
        report.stopped = "; ".join(filter(None, (
            report.stopped, f"stopped while writing statuses ({stop}): {report.written} "
                            f"written, {len(wanted) - len(report.judged)} left as they were")))


def _write_one(settings: SweepSettings, api: GitHubApi, entry: Wanted,
               reruns: Mapping[str, list[tuple[int, str]]], outcomes: dict[str, bool],
               ask: Ask, report: SweepReport) -> None:
    """One suite's status on one pull request: re-run its run first when chosen (once per
    run, however many suites recorded it), then write the status if it changed."""

    item, suite, judgement, url = entry
    number = item.open_pull.pull.number
    existing = (item.statuses or {}).get(context(suite))
    run = next((run for run, pairs in reruns.items() if (number, suite) in pairs), "")
    if run:
        if run not in outcomes:
            try:
                ask(partial(api.rerun, settings.repository, _run_id(run)))
                outcomes[run] = True
            except ApiError as error:
                report.problems.append(f"#{number}: suite `{suite}`: GitHub refused to "
                                       f"re-run {run}: {error}")
                outcomes[run] = False
        judgement = with_rerun(judgement, refused=not outcomes[run])
    elif existing is not None and judgement.moved:
        # A re-run already asked (or refused) for this move stays said.
        judgement = next((marked for marked in (with_rerun(judgement),
                                                with_rerun(judgement, refused=True))
                          if existing.description == marked.description), judgement)
    status = CommitStatus(context(suite), judgement.state, judgement.description, url)
    write = existing != status
    if write:
        try:
            ask(partial(api.create_status, settings.repository, item.open_pull.pull.head_sha,
                        status))
        except ApiError as error:
            report.problems.append(f"#{number}: suite `{suite}`: could not write its "
                                   f"status: {error}")
            write = False
    report.judged.append(Judged(number, suite, judgement.state, judgement.description,
                                write, run if outcomes.get(run) else ""))


def _reruns(settings: SweepSettings, wanted: list[Wanted]) -> dict[str, list[tuple[int, str]]]:
    """Run URL -> the (pull, suite) pairs it is re-run for: a named pull request moved since
    the suite's run tested it, the run is this repository's, the head's statuses were read
    and none says a re-run was asked or refused for this move; oldest pull request first, at
    most `max_reruns` runs."""
    if settings.rerun != "moved" or not settings.max_reruns:
        return {}
    chosen: dict[str, list[tuple[int, str]]] = {}
    for item, suite, judgement, _ in wanted:  # in the list's order: oldest first
        if not judgement.moved or item.statuses is None or not isinstance(
                item.document, ManifestDocument) or suite not in item.document.suites:
            continue
        run = item.document.suites[suite].run
        found = RUN_ID.fullmatch(run)
        existing = item.statuses.get(context(suite))
        if found is None or found["repository"].lower() != settings.repository.lower() or (
                existing is not None and existing.description in (
                    with_rerun(judgement).description,
                    with_rerun(judgement, refused=True).description)):
            continue
        if run not in chosen and len(chosen) == settings.max_reruns:
            continue
        chosen.setdefault(run, []).append((item.open_pull.pull.number, suite))
    return chosen


def _run_id(url: str) -> int:
    found = RUN_ID.fullmatch(url)
    assert found is not None  # _reruns chose it for matching
    return int(found["id"])
