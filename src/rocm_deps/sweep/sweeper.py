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
    NOTHING_NAMED,
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
from rocm_deps.grammar.directives import code_findings, parse_body
from rocm_deps.manifest.comment import UNREADABLE, manifests
from rocm_deps.settings import SweepSettings

if TYPE_CHECKING:
    from rocm_deps.github.api import CommitStatus, GitHubApi, OpenPull

# The run a manifest links: https://github.com/OWNER/REPO/actions/runs/ID[/attempts/N]
READING_SHARE = 0.8
RUN_ID = re.compile(r"https?://[^/]+/[^/]+/[^/]+/actions/runs/(?P<id>[0-9]{1,19})(?:/.*)?")


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
    """What was read of one pull request that names something."""

    open_pull: OpenPull
    named: list[Named]
    errors: list[str]
    document: ManifestDocument | Literal["unreadable"] | None = None
    urls: dict[str, str] = field(default_factory=dict)
    statuses: dict[str, CommitStatus] = field(default_factory=dict)


class _Stop(Exception):
    """The sweep cannot go on (its time is up, or the rate limit): stop cleanly."""


def sweep(settings: SweepSettings, api: GitHubApi,
          clock: Callable[[], float] = time.monotonic,
          now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> SweepReport:
    from rocm_deps.github.api import ApiError, ApiUnreachable, RateLimited

    report = SweepReport(settings.repository)
    started = clock()
    reading = [True]  # reading stops at READING_SHARE of the time: what it read is written

    def ask(what: Callable[[], Any]) -> Any:
        """One question to the API: the sweep stops cleanly when its time or the rate limit
        is spent, and cannot run at all when the API is unreachable or refuses the token."""
        share = READING_SHARE if reading[0] else 1.0
        if clock() - started > settings.max_seconds * share:
            raise _Stop(f"its {settings.max_seconds} s ran out")
        try:
            return what()
        except RateLimited as error:
            raise _Stop(str(error)) from None
        except ApiUnreachable as error:
            raise FatalError(f"the sweep cannot run: {error}") from None

    try:
        listed = ask(partial(api.open_pulls, settings.repository))
    except ApiError as error:
        raise FatalError(f"the sweep cannot run: {error}") from None
    except _Stop as stop:
        raise FatalError(f"the sweep cannot run: {stop}") from None
    report.listed = len(listed)
    seen: list[_Seen] = []
    quiet: list[tuple[OpenPull, dict[str, CommitStatus]]] = []  # recently edited, naming nothing
    heads: dict[tuple[str, int], Head] = {}  # each dependency pull request, read once
    asked: set[tuple[str, int]] = set()
    done = 0
    try:
        for open_pull in listed:
            item = _read_body(settings, api, open_pull, ask, report)
            if item is None:
                if _recent(open_pull, settings, now()):
                    quiet.append((open_pull, _statuses(api, settings, open_pull, ask, report)))
                done += 1
                continue
            report.naming += 1
            number = open_pull.pull.number
            try:
                comments = ask(partial(api.comments, settings.repository, number))
            except ApiError as error:
                report.problems.append(f"#{number}: could not read its comments: {error}")
                done += 1
                continue
            item.document, item.urls = manifests(comments, settings.bot_login)
            item.statuses = _statuses(api, settings, open_pull, ask, report)
            for named in item.named:
                if named.pr is None or (named.repository.lower(), named.pr) in asked:
                    continue
                asked.add((named.repository.lower(), named.pr))
                report.dependency_pulls += 1
                try:
                    pull = ask(partial(api.pull, named.repository, named.pr))
                except ApiError as error:  # judged "could not be read" where it is named
                    report.problems.append(f"#{number}: could not read "
                                           f"{named.repository}#{named.pr}: {error}")
                    continue
                heads[(named.repository.lower(), named.pr)] = Head(pull.head_sha, pull.merged)
            seen.append(item)
            done += 1
    except _Stop as stop:
        report.stopped = (f"stopped at pull request #{listed[done].pull.number}, "
                          f"{done + 1} of {len(listed)} open pull requests ({stop}): it and "
                          f"the {len(listed) - done - 1} after it were not judged")
    reading[0] = False
    suites = settings.suites or _known_suites(seen)
    _write(settings, api, seen, quiet, suites, heads, ask, report)
    return report


def _read_body(settings: SweepSettings, api: GitHubApi, open_pull: OpenPull,
               ask: Callable[[Callable[[], Any]], Any], report: SweepReport) -> _Seen | None:
    """The description read exactly as resolve reads it; None when it names nothing."""
    from rocm_deps.github.api import ApiError

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
                           named_kind(spec.pr, sha, spec.kind), directive.raw, spec.pr, sha))
    if not named and not errors:
        return None
    return _Seen(open_pull, named, errors)


def _recent(open_pull: OpenPull, settings: SweepSettings, now: datetime) -> bool:
    updated = open_pull.updated_at
    return bool(settings.lookback_minutes) and updated is not None and (
        now - updated <= timedelta(minutes=settings.lookback_minutes))


def _statuses(api: GitHubApi, settings: SweepSettings, open_pull: OpenPull,
              ask: Callable[[Callable[[], Any]], Any],
              report: SweepReport) -> dict[str, CommitStatus]:
    from rocm_deps.github.api import ApiError

    try:
        found: dict[str, CommitStatus] = ask(
            partial(api.statuses, settings.repository, open_pull.pull.head_sha))
    except ApiError as error:
        report.problems.append(f"#{open_pull.pull.number}: could not read the statuses of "
                               f"its head: {error}")
        return {}
    return {name: status for name, status in found.items() if suite_of(name) is not None}


def _known_suites(seen: list[_Seen]) -> tuple[str, ...]:
    """Every suite a manifest comment or one of our statuses names, across the sweep: a pull
    request no suite has reported on yet is pending in each of them."""
    names: dict[str, None] = {}
    for item in seen:
        if isinstance(item.document, ManifestDocument):
            names.update(dict.fromkeys(item.document.suites))
        names.update(dict.fromkeys(suite for name in item.statuses
                                   if (suite := suite_of(name))))
    return tuple(sorted(names))


def _write(settings: SweepSettings, api: GitHubApi, seen: list[_Seen],
           quiet: list[tuple[OpenPull, dict[str, CommitStatus]]], suites: tuple[str, ...],
           heads: Mapping[tuple[str, int], Head], ask: Callable[[Callable[[], Any]], Any],
           report: SweepReport) -> None:
    wanted: list[tuple[OpenPull, str, Judgement, str]] = []  # pull, suite, judgement, url
    for item in seen:
        for suite in suites:
            if item.document == UNREADABLE:
                judgement = Judgement("failure", "the manifest comment cannot be read: re-run "
                                                 "the suite's comment step")
            else:
                manifest = (item.document.suites.get(suite)
                            if isinstance(item.document, ManifestDocument) else None)
                judgement = judge(item.named, manifest, heads, item.errors)
            wanted.append((item.open_pull, suite, judgement, item.urls.get(suite, "")))
    for open_pull, statuses in quiet:  # named something once, names nothing now
        wanted += [(open_pull, suite, Judgement("success", NOTHING_NAMED), status.target_url)
                   for name, status in statuses.items()
                   if (suite := suite_of(name) or "") and (not settings.suites
                                                           or suite in settings.suites)]
    current = {item.open_pull.pull.number: item.statuses for item in seen}
    current |= {open_pull.pull.number: statuses for open_pull, statuses in quiet}
    reruns = _reruns(settings, seen, wanted, current)
    try:
        for entry in wanted:
            _write_one(settings, api, entry, current, reruns, ask, report)
    except _Stop as stop:
        report.stopped = "; ".join(filter(None, (
            report.stopped, f"stopped while writing statuses ({stop}): {report.written} "
                            f"written, {len(wanted) - len(report.judged)} left as they were")))


def _write_one(settings: SweepSettings, api: GitHubApi,
               entry: tuple[OpenPull, str, Judgement, str],
               current: Mapping[int, Mapping[str, CommitStatus]],
               reruns: Mapping[tuple[int, str], str], ask: Callable[[Callable[[], Any]], Any],
               report: SweepReport) -> None:
    """One suite's status on one pull request: re-run its run first when asked, then write
    the status if it changed."""
    from rocm_deps.github.api import ApiError, CommitStatus

    open_pull, suite, judgement, url = entry
    number = open_pull.pull.number
    existing = current[number].get(context(suite))
    rerun = reruns.get((number, suite), "")
    if rerun:
        try:
            ask(partial(api.rerun, settings.repository, _run_id(rerun)))
            judgement = with_rerun(judgement)
        except ApiError as error:
            report.problems.append(f"#{number}: suite `{suite}`: could not re-run "
                                   f"{rerun}: {error}")
            rerun = ""
    elif existing is not None and judgement.moved and (
            existing.description == with_rerun(judgement).description):
        judgement = with_rerun(judgement)  # re-run already asked for this move
    status = CommitStatus(context(suite), judgement.state, judgement.description, url)
    write = existing != status
    if write:
        try:
            ask(partial(api.create_status, settings.repository, open_pull.pull.head_sha, status))
        except ApiError as error:
            report.problems.append(f"#{number}: suite `{suite}`: could not write its "
                                   f"status: {error}")
            write = False
    report.judged.append(Judged(number, suite, judgement.state, judgement.description,
                                write, rerun))


def _reruns(settings: SweepSettings, seen: list[_Seen],
            wanted: list[tuple[OpenPull, str, Judgement, str]],
            current: Mapping[int, Mapping[str, CommitStatus]]) -> dict[tuple[int, str], str]:
    """(pull, suite) -> the run to re-run: a named pull request moved since the suite's run
    tested it, and no re-run was asked for that move yet; oldest pull request first."""
    if settings.rerun != "moved" or not settings.max_reruns:
        return {}
    runs = {(item.open_pull.pull.number, suite): manifest.run
            for item in seen if isinstance(item.document, ManifestDocument)
            for suite, manifest in item.document.suites.items()}
    chosen: dict[tuple[int, str], str] = {}
    for open_pull, suite, judgement, _ in sorted(wanted, key=lambda entry: entry[0].pull.number):
        number = open_pull.pull.number
        existing = current[number].get(context(suite))
        run = runs.get((number, suite), "")
        if not judgement.moved or RUN_ID.fullmatch(run) is None or (
                existing is not None
                and existing.description == with_rerun(judgement).description):
            continue
        if len(chosen) == settings.max_reruns:
            break
        chosen[(number, suite)] = run
    return chosen


def _run_id(url: str) -> int:
    found = RUN_ID.fullmatch(url)
    assert found is not None  # _reruns chose it for matching
    return int(found["id"])
