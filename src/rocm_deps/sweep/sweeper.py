"""The sweep (docs/architecture.md, *Living results*): every open pull request re-judged without
a push. A result is true when it is made; the dependency pull requests it names keep moving.
This module reads (the writing is `sweep/writer.py`), with GitHub's GraphQL API, in batches:

1. the open pull requests, 100 a query, each with its description (as written and as GitHub
   shows it), its refs and its head commit's statuses;
2. the native stacks (one REST request; GitHub's public preview: where it is not enabled,
   none, and a stack is the chain of base branches);
3. for the pull requests whose description names something (its own, or what it inherits
   from the pull requests below it in its stack) or that carry a status of ours: who wrote
   their comments, 100 pull requests a query, then the bodies of the bot's comments alone;
4. each distinct dependency pull request and each prerequisite not in the list, 100 a query.

Nothing is asked per pull request. A pull request is judged only when everything it needs was
read; one the sweep did not reach is listed in the report. The first rate limit GitHub will
not lift within the deadline ends every request: nothing more is read, nothing is written.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from functools import partial
from typing import TYPE_CHECKING, Any

from rocm_deps.contract.status import suite_of
from rocm_deps.errors import FatalError
from rocm_deps.github.answers import ApiError, ApiUnreachable, CommitStatus, OpenPull, RateLimited
from rocm_deps.grammar.directives import parse_body
from rocm_deps.grammar.parsed import ParsedBody
from rocm_deps.manifest.comment import manifests
from rocm_deps.resolve.described import described
from rocm_deps.resolve.stack import MAX_DEPTH
from rocm_deps.sweep.settings import SweepSettings
from rocm_deps.sweep.writer import READING_SHARE, Ask, Read, Seen, Stop, SweepReport, write

if TYPE_CHECKING:
    from rocm_deps.github.api import GitHubApi

BATCH = 100  # pull requests, comments or named pull requests asked in one query
MAX_OPEN = 5000  # open pull requests listed at most (50 queries)
COMMENT_PAGES = 30  # pages of 100 comments read of one pull request at most


def sweep(settings: SweepSettings, api: GitHubApi,
          clock: Callable[[], float] = time.monotonic,
          now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> SweepReport:
    report = SweepReport(settings.repository, dry_run=settings.dry_run)
    started = clock()
    reading = [True]  # reading stops at READING_SHARE of the time: what it read is written

    def ask(what: Callable[[], Any]) -> Any:
        """One question to the API: the sweep stops cleanly when its time is spent or the API
        stops answering, and asks nothing more once rate limited."""
        if report.limited:
            raise Stop("rate limited", limited=True)
        share = READING_SHARE if reading[0] else 1.0
        if clock() - started > settings.max_seconds * share:
            raise Stop(f"its {settings.max_seconds} s ran out")
        try:
            return what()
        except RateLimited as error:
            report.limited = True
            raise Stop(str(error), limited=True) from None
        except ApiUnreachable as error:
            raise Stop(str(error)) from None

    parsed: dict[int, ParsedBody] = {}
    listed, statuses = _list(settings, api, ask, report, parsed)
    read = Read(listed, settings.repository)
    seen: list[Seen] = []
    try:
        read.native = _stacks(settings, api, ask, report)
        for open_pull in listed:
            item = _described(settings, api, open_pull, statuses.get(open_pull.pull.number),
                              ask, now(), read, parsed)
            if item is not None:
                seen.append(item)
                report.naming += not item.names_nothing
        _read_manifests(settings, api, [item for item in seen if item.statuses is None or set(
            item.statuses) != {settings.guard_context}], ask, report)
        _read_named(api, _named_keys(settings, seen, read), read, ask, report)
    except Stop as stop:
        report.stop(f"stopped while reading ({stop})")
    reading[0] = False
    complete = [item for item in seen if item.complete(read, settings)]
    judged = {item.open_pull.pull.number for item in complete}
    report.not_reached = [item.open_pull.pull.number for item in seen
                          if item.open_pull.pull.number not in judged and not item.unreadable]
    # A head that a pull request not judged shares gets no status: its verdict is unknown.
    unjudged = {item.open_pull.pull.head_sha for item in seen
                if item.open_pull.pull.number not in judged}
    if report.limited:
        report.stop("nothing was written: GitHub asks for no more requests until then")
    else:
        write(settings, api, [item for item in complete
                              if item.open_pull.pull.head_sha not in unjudged], read, ask, report)
    report.requests, report.points = api.spent.requests, api.spent.points
    report.budget = api.spent.budget()
    return report


def _list(settings: SweepSettings, api: GitHubApi, ask: Ask, report: SweepReport,
          parsed: dict[int, ParsedBody]
          ) -> tuple[list[OpenPull], dict[int, dict[str, CommitStatus] | None]]:
    """Every open pull request, oldest first, with its head's statuses, its description read
    into `parsed` as its page comes in (the text is not kept: a thousand descriptions at
    GitHub's cap, with their HTML, would hold hundreds of MB). Without the first page nothing
    can be judged: the sweep cannot run."""
    config = settings.config
    listed: dict[int, OpenPull] = {}
    statuses: dict[int, dict[str, CommitStatus] | None] = {}
    after: str | None = None
    while True:
        try:
            page = ask(partial(api.open_pulls_page, settings.repository, after))
        except (Stop, ApiError) as error:
            if not listed:
                raise FatalError(f"the sweep cannot run: {error}") from None
            report.not_listed = max(0, report.listed_total - len(listed))
            report.stop(f"stopped while listing the open pull requests ({error}): "
                        f"{report.not_listed} of them were not listed")
            break
        report.listed_total = page.total
        for open_pull in page.pulls:
            pull = open_pull.pull
            if pull.number in listed:
                continue
            parsed[pull.number] = parse_body(pull.body, config.dependencies, config.values,
                                             settings.repository, pull.body_html)
            listed[pull.number] = OpenPull(dataclasses.replace(pull, body=None, body_html=None),
                                           open_pull.updated_at)
            statuses[pull.number] = page.statuses[pull.number]
        after = page.after
        if after is None:
            break
        if len(listed) >= MAX_OPEN:
            report.problems.append(f"the repository has more than {MAX_OPEN} open pull "
                                   f"requests: only the oldest {len(listed)} were judged")
            break
    report.listed = len(listed)
    return sorted(listed.values(), key=lambda open_pull: open_pull.pull.number), statuses


def _stacks(settings: SweepSettings, api: GitHubApi, ask: Ask,
            report: SweepReport) -> list[tuple[int, ...]] | None:
    """The native stacks GitHub shows (None: none, the base branches are chained)."""
    try:
        stacks: list[tuple[int, ...]] | None = ask(partial(api.stacks, settings.repository))
    except ApiError as error:
        report.problems.append(f"the native stacks could not be read ({error}): stacks are "
                               f"read from the pull requests' base branches")
        return None
    return stacks


def _described(settings: SweepSettings, api: GitHubApi, open_pull: OpenPull,
               statuses: dict[str, CommitStatus] | None, ask: Ask, now: datetime,
               read: Read, parsed: dict[int, ParsedBody]) -> Seen | None:
    """What the sweep judges of one pull request: its description read exactly as resolve
    reads it (with its stack, from the list), and its head's statuses of ours. None when it
    names nothing, waits for nothing and has no error, and either was not edited lately or
    carries no status of ours."""

    def expand(repository: str, abbreviation: str) -> str:
        try:
            found: str = ask(partial(api.commit, repository, abbreviation))
        except ApiError as error:
            raise ValueError(str(error)) from None
        return found

    described_now = described(open_pull.pull, settings.config, settings.repository,
                              read.below, expand, parse=lambda pull: parsed[pull.number])
    ours = None if statuses is None else {
        name: status for name, status in statuses.items()
        if name == settings.guard_context or suite_of(name) is not None}
    if described_now.quiet:
        if not (_recent(open_pull, settings, now)
                or _below_changed(open_pull, read, settings, now)) or not ours:
            return None
        # Naming nothing now, it carries a status of ours from when it did.
        return Seen(open_pull, None, statuses=ours)
    return Seen(open_pull, described_now, statuses=ours)


def _read_manifests(settings: SweepSettings, api: GitHubApi, items: list[Seen], ask: Ask,
                    report: SweepReport) -> None:
    """Each item's manifest comments: who wrote every comment (a page of 100 a pull request,
    100 pull requests a query), then the bot's comments' bodies alone (100 a query)."""
    by_number = {item.open_pull.pull.number: item for item in items}
    pending = dict(by_number)
    authored: dict[int, list[str]] = {number: [] for number in pending}
    after: dict[int, str] = {}
    pages: dict[int, int] = dict.fromkeys(pending, 0)
    while pending:
        numbers = list(pending)[:BATCH]
        answers = ask(partial(api.comment_authors, settings.repository, numbers,
                              {number: after[number] for number in numbers if number in after}))
        for number, answer in zip(numbers, answers, strict=True):
            item = pending.pop(number)
            if isinstance(answer, ApiError):
                report.problems.append(f"#{number}: could not read its comments: {answer}")
                item.unreadable = True
                continue
            pages[number] += 1
            authored[number] += [identifier for identifier, login in answer.authors
                                 if login == settings.bot_login]
            if answer.after is not None and pages[number] < COMMENT_PAGES:
                after[number] = answer.after
                pending[number] = item
    wanted = [(number, identifier) for number, identifiers in authored.items()
              for identifier in identifiers]
    bodies: dict[int, list[Any]] = {number: [] for number in authored}
    for start in range(0, len(wanted), BATCH):
        chunk = wanted[start:start + BATCH]
        answers = ask(partial(api.comment_bodies, [identifier for _, identifier in chunk]))
        for (number, _), answer in zip(chunk, answers, strict=True):
            if isinstance(answer, ApiError):
                report.problems.append(f"#{number}: could not read its comments: {answer}")
                by_number[number].unreadable = True
            else:
                bodies[number].append(answer)
    for number, comments in bodies.items():
        item = by_number[number]
        if not item.unreadable:
            item.document, item.urls = manifests(sorted(comments, key=lambda c: c.id),
                                                 settings.bot_login)
            item.comments_read = True


def _named_keys(settings: SweepSettings, seen: list[Seen], read: Read) -> list[tuple[str, int]]:
    """The pull requests the items name (dependencies, and the prerequisites of those whose
    guard status is kept), each once; an open pull request of the swept repository is in the
    list already."""
    keys: dict[tuple[str, int], None] = {}
    for item in seen:
        for named in item.named:
            if named.kind == "pr" and named.pr is not None:
                keys[(named.repository.lower(), named.pr)] = None
        if item.statuses is not None and settings.guard_context in item.statuses:
            for prerequisite in item.prerequisites:
                keys[((prerequisite.repository or settings.repository).lower(),
                      prerequisite.number)] = None
    found = []
    for key in keys:
        listed = read.own_pull(*key)
        if listed is not None:
            read.remember(key, listed)
            read.done.add(key)
        elif key not in read.done:
            found.append(key)
    return found


def _read_named(api: GitHubApi, keys: list[tuple[str, int]], read: Read, ask: Ask,
                report: SweepReport) -> None:
    """Each named pull request as it is now, 100 a query."""
    for start in range(0, len(keys), BATCH):
        chunk = keys[start:start + BATCH]
        answers = ask(partial(api.named_pulls, chunk))
        report.dependency_pulls += len(chunk)
        for key, answer in zip(chunk, answers, strict=True):
            read.done.add(key)
            if isinstance(answer, ApiError):  # judged "could not be read" where it is named
                report.problems.append(f"could not read {key[0]}#{key[1]}: {answer}")
            else:
                read.remember(key, answer)


def _recent(open_pull: OpenPull, settings: SweepSettings, now: datetime) -> bool:
    updated = open_pull.updated_at
    return bool(settings.lookback_minutes) and updated is not None and (
        now - updated <= timedelta(minutes=settings.lookback_minutes))


def _below_changed(open_pull: OpenPull, read: Read, settings: SweepSettings,
                   now: datetime) -> bool:
    """Whether a stacked pull request's inheritance may have changed: a pull request below it
    was updated lately, or the one it is based on is no open pull request any more (merged or
    closed, its branch kept)."""
    current = open_pull.pull
    for _ in range(MAX_DEPTH):
        stacked, lower = read.lower_of(current)
        if not stacked:
            return False
        if lower is None:
            return True
        if _recent(lower, settings, now):
            return True
        current = lower.pull
    return False
