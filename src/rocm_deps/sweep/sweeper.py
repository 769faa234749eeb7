"""The sweep (docs/architecture.md, *Living results*): every open pull request re-judged without
a push. A result is true when it is made; the dependency pull requests it names keep moving.
This module reads (the writing is `sweep/writer.py`): for each pull request whose description
names something (its own, or what it inherits from the pull requests below it in its stack)
or waits for a prerequisite, its manifest comments, its head's statuses of ours and each named
pull request's state now. A stacked pull request that names nothing is read again whenever a
pull request below it changed, merged or closed: what it inherits may have gone. A pull
request the sweep stopped inside is not judged, and no status is written on its head.

Requests: the pages of open pull requests (their bodies come with them); for each pull
request naming something its comments and one status read; each distinct dependency pull
request once, and each prerequisite not in the list once (where a guard status is kept); a
status write only where the status changed; with `--rerun moved`, one re-run per suite run
whose dependency moved, at most `--max-reruns`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from functools import partial
from typing import TYPE_CHECKING, Any

from rocm_deps.contract.status import suite_of
from rocm_deps.errors import FatalError
from rocm_deps.github.answers import (
    ApiError,
    ApiUnreachable,
    CommitStatus,
    OpenPull,
    RateLimited,
)
from rocm_deps.manifest.comment import manifests
from rocm_deps.resolve.described import described
from rocm_deps.resolve.stack import MAX_DEPTH
from rocm_deps.sweep.settings import SweepSettings
from rocm_deps.sweep.writer import READING_SHARE, Ask, Read, Seen, Stop, SweepReport, write

if TYPE_CHECKING:
    from rocm_deps.github.api import GitHubApi


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
            raise Stop(f"its {settings.max_seconds} s ran out")
        try:
            return what()
        except (RateLimited, ApiUnreachable) as error:
            raise Stop(str(error)) from None

    try:  # without the list nothing can be judged: the sweep cannot run
        listed = api.open_pulls(settings.repository)
    except ApiError as error:
        raise FatalError(f"the sweep cannot run: {error}") from None
    report.listed = len(listed)
    if len(listed) >= OPEN_PULL_PAGES * 100:
        report.problems.append(f"the repository has more than {len(listed)} open pull "
                               f"requests: only the oldest {len(listed)} were judged")
    read = Read(listed, settings.repository)
    seen: list[Seen] = []
    done = 0
    try:
        for open_pull in listed:
            item = _read(settings, api, open_pull, ask, report, now(), read)
            if item is not None:
                # Judged only when everything it needs was read: a stop inside it writes
                # nothing for it.
                seen.append(item)
                report.naming += not item.names_nothing
            done += 1
    except Stop as stop:
        report.stopped = (f"stopped at pull request #{listed[done].pull.number}, "
                          f"{done + 1} of {len(listed)} open pull requests ({stop}): it and "
                          f"the {len(listed) - done - 1} after it were not judged")
    reading[0] = False
    # A head that a pull request not judged shares gets no status: its verdict is unknown.
    unjudged = {open_pull.pull.head_sha for open_pull in listed[done:]}
    write(settings, api, [item for item in seen if item.open_pull.pull.head_sha not in unjudged],
          read, ask, report)
    return report


def _read(settings: SweepSettings, api: GitHubApi, open_pull: OpenPull, ask: Ask,
          report: SweepReport, now: datetime, read: Read) -> Seen | None:
    """What the sweep needs of one pull request; None when it names nothing and was not
    edited lately (no request), or carries no status of ours."""

    item = _read_body(settings, api, open_pull, ask, read)
    number = open_pull.pull.number
    if item is None and not (_recent(open_pull, settings, now)
                             or _below_changed(open_pull, read, settings, now)):
        return None
    if item is None or item.names_nothing:
        # Naming no dependency (waiting for a prerequisite, or a recent edit): only a status
        # of ours on its head makes it worth more requests.
        statuses = _statuses(api, settings, open_pull, ask, report)
        if not statuses:
            return None
        item = item or Seen(open_pull, None)
        item.statuses = statuses
    if item.statuses is None or set(item.statuses) != {settings.guard_context}:
        try:
            comments = ask(partial(api.comments, settings.repository, number))
        except ApiError as error:
            report.problems.append(f"#{number}: could not read its comments: {error}")
            return None
        item.document, item.urls = manifests(comments, settings.bot_login)
    if item.statuses is None:
        item.statuses = _statuses(api, settings, open_pull, ask, report)
    for named in item.named:
        if named.kind == "pr" and named.pr is not None:
            _read_pull(api, named.repository, named.pr, read, ask, report, number)
    if item.statuses is not None and settings.guard_context in item.statuses:
        # The guard's status is kept here: what it waits for is read too.
        for prerequisite in item.prerequisites:
            _read_pull(api, prerequisite.repository or settings.repository, prerequisite.number,
                       read, ask, report, number)
    return item


def _read_pull(api: GitHubApi, repository: str, number: int, read: Read, ask: Ask,
               report: SweepReport, by: int) -> None:
    """A named dependency pull request or a prerequisite as it is now, read once per sweep
    (an open pull request of the swept repository is in the list already)."""

    key = (repository.lower(), number)
    if key in read.asked:
        return
    read.asked.add(key)
    listed = read.own_pull(repository, number)
    if listed is not None:
        read.remember(key, listed)
        return
    report.dependency_pulls += 1
    try:
        pull = ask(partial(api.pull, repository, number))
    except ApiError as error:  # judged "could not be read" where it is named
        report.problems.append(f"#{by}: could not read {repository}#{number}: {error}")
        return
    read.remember(key, pull)


def _read_body(settings: SweepSettings, api: GitHubApi, open_pull: OpenPull, ask: Ask,
               read: Read) -> Seen | None:
    """The description read exactly as resolve reads it (with its stack, from the list);
    None when it names nothing, waits for nothing and has no error."""

    def expand(repository: str, abbreviation: str) -> str:
        try:
            found: str = ask(partial(api.commit, repository, abbreviation))
        except ApiError as error:
            raise ValueError(str(error)) from None
        return found

    now = described(open_pull.pull, settings.config, settings.repository, read.below, expand)
    return None if now.quiet else Seen(open_pull, now)


def _recent(open_pull: OpenPull, settings: SweepSettings, now: datetime) -> bool:
    updated = open_pull.updated_at
    return bool(settings.lookback_minutes) and updated is not None and (
        now - updated <= timedelta(minutes=settings.lookback_minutes))


def _below_changed(open_pull: OpenPull, read: Read, settings: SweepSettings,
                   now: datetime) -> bool:
    """Whether a stacked pull request's inheritance may have changed: a pull request below it
    was updated lately, or the branch it is based on is no open pull request's head any more
    (the one below merged or closed, its branch kept)."""
    current = open_pull.pull
    for _ in range(MAX_DEPTH):
        if current.default_branch is None or current.base_ref == current.default_branch:
            return False
        lower = read.own_branches.get(current.base_ref)
        if lower is None:
            return True
        if _recent(lower, settings, now):
            return True
        current = lower.pull
    return False


def _statuses(api: GitHubApi, settings: SweepSettings, open_pull: OpenPull, ask: Ask,
              report: SweepReport) -> dict[str, CommitStatus] | None:
    """The head's statuses of ours (each suite's and the guard's); None when they could not
    be read."""

    try:
        found: dict[str, CommitStatus] = ask(
            partial(api.statuses, settings.repository, open_pull.pull.head_sha))
    except ApiError as error:
        report.problems.append(f"#{open_pull.pull.number}: could not read the statuses of "
                               f"its head: {error}")
        return None
    return {name: status for name, status in found.items()
            if name == settings.guard_context or suite_of(name) is not None}
