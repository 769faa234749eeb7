"""The sweep (docs/architecture.md, *Living results*): every open pull request re-judged without
a push. A result is true when it is made; the dependency pull requests it names keep moving.
For each pull request whose description names something, each suite's verdict
(`contract.status.judge`) says whether what that suite tested (its manifest comment) is still
what the description names, with each named pull request's head now. A status belongs to a
commit, not to a pull request: the status on a head is the worst verdict of the open pull
requests with that head that name something or carry a manifest. A pull request the sweep
stopped inside is not judged, and no status is written on its head.

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
    RERUN_REFUSED,
    RERUN_REQUESTED,
    Head,
    Judgement,
    Named,
    context,
    judge,
    named_now,
    suite_of,
    with_rerun,
    worst,
)
from rocm_deps.errors import FatalError
from rocm_deps.github.answers import (
    ApiError,
    ApiUnreachable,
    CommitStatus,
    OpenPull,
    PullInfo,
    RateLimited,
)
from rocm_deps.grammar.directives import parse_body
from rocm_deps.grammar.parsed import code_findings
from rocm_deps.manifest.comment import UNREADABLE, manifests
from rocm_deps.resolve.stack import StackError, inherited
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
    written: bool  # its head's status was written (in a dry run: would be) for this verdict
    rerun: str = ""  # the run re-run for it (in a dry run: that would be)
    status: str = ""  # the status its head gets, when another pull request's verdict decides it


@dataclass
class SweepReport:
    repository: str
    listed: int = 0  # open pull requests
    naming: int = 0  # of them, those whose description names something (or errs)
    dependency_pulls: int = 0  # distinct dependency pull requests read
    judged: list[Judged] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # a pull request that could not be judged
    stopped: str = ""  # why the sweep stopped early ("" when it finished)
    skipped_reruns: list[str] = field(default_factory=list)  # each with its reason
    dry_run: bool = False  # nothing was written: `written` and `rerun` say what would be

    @property
    def written(self) -> int:
        return sum(1 for judged in self.judged if judged.written)

    def to_json(self) -> dict[str, Any]:
        return {"repository": self.repository, "open_pulls": self.listed,
                "naming": self.naming, "dependency_pulls": self.dependency_pulls,
                "statuses_written": self.written, "stopped": self.stopped,
                "problems": self.problems, "skipped_reruns": self.skipped_reruns,
                "dry_run": self.dry_run,
                "judged": [{"pull": j.pull, "suite": j.suite, "state": j.state,
                            "description": j.description, "written": j.written,
                            "rerun": j.rerun, "status": j.status} for j in self.judged]}


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

    report = SweepReport(settings.repository, dry_run=settings.dry_run)
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
    # A stacked pull request's stack, read from the list itself (resolve.stack).
    own_branches = {open_pull.pull.head_ref: open_pull.pull for open_pull in listed
                    if (open_pull.pull.head_repository or "").casefold()
                    == settings.repository.casefold()}

    def below(upper: PullInfo) -> PullInfo | None:
        return own_branches.get(upper.base_ref)

    asked: set[tuple[str, int]] = set()
    done = 0
    try:
        for open_pull in listed:
            item = _read(settings, api, open_pull, ask, report, now(), below)
            if item is not None:
                for named in item.named:
                    _read_pull(settings, api, named, heads, asked, ask, report,
                               open_pull.pull.number)
                # Judged only when everything it needs was read: a stop inside it writes
                # nothing for it.
                seen.append(item)
                report.naming += not item.quiet
            done += 1
    except _Stop as stop:
        report.stopped = (f"stopped at pull request #{listed[done].pull.number}, "
                          f"{done + 1} of {len(listed)} open pull requests ({stop}): it and "
                          f"the {len(listed) - done - 1} after it were not judged")
    reading[0] = False
    # A head that a pull request not judged shares gets no status: its verdict is unknown.
    unjudged = {open_pull.pull.head_sha for open_pull in listed[done:]}
    suites = settings.suites or _known_suites(seen)
    _write(settings, api, [item for item in seen
                           if item.open_pull.pull.head_sha not in unjudged],
           suites, heads, ask, report)
    return report


def _read(settings: SweepSettings, api: GitHubApi, open_pull: OpenPull, ask: Ask,
          report: SweepReport, now: datetime,
          below: Callable[[PullInfo], PullInfo | None]) -> _Seen | None:
    """What the sweep needs of one pull request; None when it names nothing and was not
    edited lately (no request), or carries no status of ours."""

    item = _read_body(settings, api, open_pull, ask, below)
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


def _read_body(settings: SweepSettings, api: GitHubApi, open_pull: OpenPull, ask: Ask,
               below: Callable[[PullInfo], PullInfo | None]) -> _Seen | None:
    """The description read exactly as resolve reads it; None when it names nothing."""

    config = settings.config
    parsed = parse_body(open_pull.pull.body, config.dependencies, config.values,
                        settings.repository)
    errors = [finding.message for finding in (*parsed.errors, *code_findings(
        parsed, {*parsed.directives, *parsed.values}, config.code_directives))
        if finding.level == "error"]

    def expand(repository: str, abbreviation: str) -> str:
        try:
            found: str = ask(partial(api.commit, repository, abbreviation))
        except ApiError as error:
            raise ValueError(str(error)) from None
        return found

    try:  # what the pull requests below it in its stack name counts as its own
        stacked = {name: item.directive for name, item in inherited(
            open_pull.pull, below, lambda lower: parse_body(
                lower.body, config.dependencies, config.values, settings.repository)).items()}
    except StackError as error:
        stacked, errors = {}, [*errors, str(error)]
    named, unexpanded = named_now({**stacked, **parsed.directives}.values(), config, expand)
    errors += unexpanded
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


@dataclass
class _Wanted:
    """One suite's verdict on one pull request, and the run chosen to re-run for it."""

    item: _Seen
    suite: str
    judgement: Judgement
    url: str  # the suite's manifest comment
    run: str = ""

    @property
    def speaks(self) -> bool:
        """Whether this verdict counts for its head: the pull request names something or
        carries this suite's manifest. One naming nothing never turns a commit green."""
        document = self.item.document
        return not self.item.quiet or (isinstance(document, ManifestDocument)
                                       and self.suite in document.suites)


def _write(settings: SweepSettings, api: GitHubApi, seen: list[_Seen], suites: tuple[str, ...],
           heads: Mapping[tuple[str, int], Head], ask: Ask, report: SweepReport) -> None:
    wanted: list[_Wanted] = []
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
            wanted.append(_Wanted(item, suite, judgement, item.urls.get(suite, "")))
    _choose_reruns(settings, wanted, report)
    groups: dict[tuple[str, str], list[_Wanted]] = {}
    for entry in wanted:
        groups.setdefault((entry.item.open_pull.pull.head_sha, entry.suite), []).append(entry)
    outcomes: dict[str, bool] = {}  # run URL -> re-run (True) or refused (False)
    try:
        for group in groups.values():
            _write_one(settings, api, group, outcomes, ask, report)
    except _Stop as stop:
        report.stopped = "; ".join(filter(None, (
            report.stopped, f"stopped while writing statuses ({stop}): {report.written} "
                            f"written, {len(wanted) - len(report.judged)} left as they were")))


def _write_one(settings: SweepSettings, api: GitHubApi, group: list[_Wanted],
               outcomes: dict[str, bool], ask: Ask, report: SweepReport) -> None:
    """One suite's status on one commit, which the pull requests of `group` share: re-run
    the chosen runs first (once per run, however many suites recorded it), then write the
    worst verdict of the group if it changed."""

    for entry in group:
        if not entry.run:
            continue
        if entry.run not in outcomes:
            if settings.dry_run:
                outcomes[entry.run] = True
            else:
                try:
                    ask(partial(api.rerun, settings.repository, _run_id(entry.run)))
                    outcomes[entry.run] = True
                except ApiError as error:
                    report.problems.append(f"#{entry.item.open_pull.pull.number}: suite "
                                           f"`{entry.suite}`: GitHub refused to re-run "
                                           f"{entry.run}: {error}")
                    outcomes[entry.run] = False
        entry.judgement = with_rerun(entry.judgement, refused=not outcomes[entry.run])
    first = group[0]
    existing = (first.item.statuses or {}).get(context(first.suite))
    for entry in group:
        if not entry.run and existing is not None and entry.judgement.moved:
            # A re-run already asked (or refused) for this move stays said.
            entry.judgement = next(
                (marked for marked in (with_rerun(entry.judgement),
                                       with_rerun(entry.judgement, refused=True))
                 if existing.description == marked.description), entry.judgement)
    speaking = [entry for entry in group if entry.speaks] or group
    # The first of the worst verdicts; one that says its re-run first, so the mark stays.
    chosen_judgement = worst(sorted((entry.judgement for entry in speaking),
                                    key=lambda judgement: not judgement.description.endswith(
                                        (RERUN_REQUESTED, RERUN_REFUSED))))
    chosen = next(entry for entry in speaking if entry.judgement is chosen_judgement)
    status = CommitStatus(context(chosen.suite), chosen_judgement.state,
                          chosen_judgement.description, chosen.url)
    write = existing != status
    if write and not settings.dry_run:
        try:
            ask(partial(api.create_status, settings.repository,
                        chosen.item.open_pull.pull.head_sha, status))
        except ApiError as error:
            report.problems.append(f"#{chosen.item.open_pull.pull.number}: suite "
                                   f"`{chosen.suite}`: could not write its status: {error}")
            write = False
    for entry in group:
        shared = "" if entry is chosen else (
            f"{status.state}: {status.description} (its head's, from "
            f"#{chosen.item.open_pull.pull.number})")
        report.judged.append(Judged(
            entry.item.open_pull.pull.number, entry.suite, entry.judgement.state,
            entry.judgement.description, write and entry is chosen,
            entry.run if outcomes.get(entry.run) else "", shared))


def _trusted(settings: SweepSettings, item: _Seen) -> bool:
    """Whether the pull request's run may be re-run by the sweep's token: it runs on the
    GPU runner the dependency's new code, so only for a branch of this repository or an
    author whose association is trusted."""
    pull = item.open_pull.pull
    return (pull.head_repository or "").lower() == settings.repository.lower() or (
        pull.author_association or "") in settings.trusted_associations


def _choose_reruns(settings: SweepSettings, wanted: list[_Wanted],
                   report: SweepReport) -> None:
    """Which runs to re-run: a named pull request moved since the suite's run tested it, the
    run is this repository's, the head's statuses were read and none says a re-run was asked
    or refused for this move, and the pull request is trusted with the runner; trusted pull
    requests of this repository's branches and trusted authors, oldest first, at most
    `max_reruns` runs. Each one skipped is listed with its reason."""
    if settings.rerun != "moved":
        return
    chosen: set[str] = set()
    candidates = [entry for entry in wanted if entry.judgement.moved]
    for entry in candidates:  # the list's order: oldest first
        item, suite, judgement = entry.item, entry.suite, entry.judgement
        number = item.open_pull.pull.number
        if item.statuses is None or not isinstance(
                item.document, ManifestDocument) or suite not in item.document.suites:
            continue
        run = item.document.suites[suite].run
        found = RUN_ID.fullmatch(run)
        existing = item.statuses.get(context(suite))
        if found is None or found["repository"].lower() != settings.repository.lower():
            report.skipped_reruns.append(f"#{number} `{suite}`: its run {run or '(none)'} is "
                                         f"not a run of {settings.repository}")
            continue
        if existing is not None and existing.description in (
                with_rerun(judgement).description,
                with_rerun(judgement, refused=True).description):
            continue  # asked (or refused) for this move already
        if not _trusted(settings, item):
            pull = item.open_pull.pull
            report.skipped_reruns.append(
                f"#{number} `{suite}`: from {pull.head_repository or 'an unknown repository'} "
                f"by a {pull.author_association or 'NONE'} author, not trusted with the runner "
                f"(trusted-associations)")
            continue
        if run not in chosen and len(chosen) >= settings.max_reruns:
            report.skipped_reruns.append(f"#{number} `{suite}`: max-reruns "
                                         f"({settings.max_reruns}) reached")
            continue
        chosen.add(run)
        entry.run = run


def _run_id(url: str) -> int:
    found = RUN_ID.fullmatch(url)
    assert found is not None  # _reruns chose it for matching
    return int(found["id"])
