"""The sweep's second pass (docs/architecture.md, *Living results*): what it read, judged and
written. Each suite's verdict (`contract.status.judge`) and the merge guard's
(`contract.guard.guard_judgement`, the function merge-check writes its status with) per pull
request; then one status per commit and context. **A status belongs to a commit**, and **shared
heads are decided by the trusted**: the status on a head is the worst verdict among the open
pull requests with that head whose head repository is the swept one or whose author
association is trusted; an untrusted pull request's verdict is written only on a head no
trusted pull request shares. A pull request naming nothing never turns a commit green that
another's verdict fails. Re-runs (`--rerun moved`) go to trusted pull requests only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from rocm_deps.contract.guard import PullState, guard_judgement, state_of, waited_for
from rocm_deps.contract.manifest import ManifestDocument
from rocm_deps.contract.status import (
    RERUN_REFUSED,
    RERUN_REQUESTED,
    Head,
    Judgement,
    Named,
    context,
    judge,
    suite_of,
    with_rerun,
    worst,
)
from rocm_deps.github.answers import ApiError, CommitStatus, OpenPull, PullInfo, Refused
from rocm_deps.grammar.parsed import Prerequisite
from rocm_deps.manifest.comment import UNREADABLE
from rocm_deps.resolve.described import Described
from rocm_deps.sweep.settings import SweepSettings

if TYPE_CHECKING:
    from rocm_deps.github.api import GitHubApi

READING_SHARE = 0.8  # reading stops at this share of --max-seconds: the rest is for writing
# The run a manifest links: https://github.com/OWNER/REPO/actions/runs/ID[/attempts/N]
RUN_ID = re.compile(r"https?://[^/]+/(?P<repository>[^/]+/[^/]+)/actions/runs/"
                    r"(?P<id>[0-9]{1,19})(?:/.*)?")
Ask = Callable[[Callable[[], Any]], Any]


class Stop(Exception):
    """The sweep cannot go on (its time is up, the API stopped answering, a rate limit): stop
    cleanly, writing what was judged, unless `limited` (then nothing more is asked)."""

    def __init__(self, message: str, limited: bool = False) -> None:
        super().__init__(message)
        self.limited = limited


@dataclass(frozen=True)
class Judged:
    """One status on one pull request: what it is now, and what the sweep did."""

    pull: int
    suite: str  # the suite, or the merge guard's status context
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
    dependency_pulls: int = 0  # distinct dependency pull requests and prerequisites read
    judged: list[Judged] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # a pull request that could not be judged
    stopped: str = ""  # why the sweep stopped early ("" when it finished)
    skipped_reruns: list[str] = field(default_factory=list)  # each with its reason
    dry_run: bool = False  # nothing was written: `written` and `rerun` say what would be
    limited: bool = False  # a rate limit ended the sweep's requests
    listed_total: int = 0  # open pull requests as GitHub counted them
    not_listed: int = 0  # open pull requests the sweep stopped before listing
    not_reached: list[int] = field(default_factory=list)  # listed, to judge, not judged
    requests: int = 0  # API requests in all (REST and GraphQL)
    points: int = 0  # GraphQL points spent
    budget: dict[str, tuple[int, int]] = field(default_factory=dict)  # resource -> left, limit
    # GitHub refused a status write (a token without `statuses: write`): the first refusal;
    # no other write is tried, and the sweep fails.
    refused: str = ""
    unwritten: int = 0  # statuses that changed but were not written after the refusal
    # Writes GitHub answered with another error (a 422): those commits keep a stale status,
    # so the sweep fails, each named.
    write_failures: list[str] = field(default_factory=list)

    @property
    def written(self) -> int:
        return sum(1 for judged in self.judged if judged.written)

    def stop(self, why: str) -> None:
        self.stopped = "; ".join(filter(None, (self.stopped, why)))

    def to_json(self) -> dict[str, Any]:
        return {"repository": self.repository, "open_pulls": self.listed,
                "naming": self.naming, "dependency_pulls": self.dependency_pulls,
                "statuses_written": self.written, "stopped": self.stopped,
                "not_reached": self.not_reached, "not_listed": self.not_listed,
                "requests": self.requests, "points": self.points,
                "budget": {resource: {"remaining": left, "limit": limit}
                           for resource, (left, limit) in sorted(self.budget.items())},
                "problems": self.problems, "skipped_reruns": self.skipped_reruns,
                "dry_run": self.dry_run, "refused": self.refused, "unwritten": self.unwritten,
                "write_failures": self.write_failures,
                "judged": [{"pull": j.pull, "suite": j.suite, "state": j.state,
                            "description": j.description, "written": j.written,
                            "rerun": j.rerun, "status": j.status} for j in self.judged]}


@dataclass
class Seen:
    """What was read of one pull request: its description as the verdict reads it (None for
    one that names nothing now but carries a status of ours), its manifest comments and its
    head's statuses of ours (None: they could not be read)."""

    open_pull: OpenPull
    now: Described | None
    document: ManifestDocument | Literal["unreadable"] | None = None
    urls: dict[str, str] = field(default_factory=dict)
    statuses: dict[str, CommitStatus] | None = None
    comments_read: bool = False  # its manifest comments were read
    unreadable: bool = False  # its comments could not be read: it is not judged

    def complete(self, read: Read, settings: SweepSettings) -> bool:
        """Whether everything its verdicts need was read: its comments (unless it carries
        only the guard's status) and each pull request it names (and waits for, where the
        guard's status is kept)."""
        if self.unreadable:
            return False
        if not self.comments_read and (self.statuses is None
                                       or set(self.statuses) != {settings.guard_context}):
            return False
        keys = {(named.repository.lower(), named.pr) for named in self.named
                if named.kind == "pr" and named.pr is not None}
        if self.statuses is not None and settings.guard_context in self.statuses:
            keys |= {((prerequisite.repository or settings.repository).lower(),
                      prerequisite.number) for prerequisite in self.prerequisites}
        return keys <= read.done

    @property
    def named(self) -> list[Named]:
        return self.now.named if self.now is not None else []

    @property
    def errors(self) -> list[str]:
        return self.now.errors if self.now is not None else []

    @property
    def prerequisites(self) -> tuple[Prerequisite, ...]:
        return self.now.prerequisites if self.now is not None else ()

    @property
    def names_nothing(self) -> bool:
        """It names no dependency and its description has no error: no suite's verdict on
        it can turn a commit green or red (prerequisites are the guard's alone)."""
        return not self.named and not self.errors


class Read:
    """What the sweep knows of pull requests beyond the one it judges: the list of open ones
    (a stacked pull request's stack, a prerequisite that is open), and each dependency pull
    request or prerequisite it read once."""

    def __init__(self, listed: list[OpenPull], repository: str) -> None:
        self.listed = listed
        self.repository = repository
        self.own_branches = {open_pull.pull.head_ref: open_pull for open_pull in listed
                             if (open_pull.pull.head_repository or "").casefold()
                             == repository.casefold()}
        self.open = {open_pull.pull.number: open_pull.pull for open_pull in listed}
        self.by_number = {open_pull.pull.number: open_pull for open_pull in listed}
        # GitHub's native stacks (public preview), each bottom first; None: it shows none,
        # and a stack is the chain of base branches.
        self.native: list[tuple[int, ...]] | None = None
        self.done: set[tuple[str, int]] = set()  # named pull requests read (or failed)
        self.heads: dict[tuple[str, int], Head] = {}
        self.states: dict[tuple[str, int], tuple[PullState, str]] = {}

    def lower_of(self, upper: PullInfo) -> tuple[bool, OpenPull | None]:
        """Whether `upper` is stacked on another pull request, and that one when it is open
        (None: merged or closed). A native stack says so where GitHub shows one; else its
        base branch is another open pull request's head branch."""
        for stack in self.native or ():
            if upper.number in stack:
                position = stack.index(upper.number)
                if position == 0:
                    return False, None
                return True, self.by_number.get(stack[position - 1])
        if upper.default_branch is None or upper.base_ref == upper.default_branch:
            return False, None
        return True, self.own_branches.get(upper.base_ref)

    def below(self, upper: PullInfo) -> PullInfo | None:
        lower = self.lower_of(upper)[1]
        return lower.pull if lower is not None else None

    def own_pull(self, repository: str, number: int) -> PullInfo | None:
        """An open pull request of the swept repository, from the list (no request)."""
        return self.open.get(number) if repository.casefold() == (
            self.repository.casefold()) else None

    def remember(self, key: tuple[str, int], pull: PullInfo) -> None:
        state = state_of(pull.merged, pull.state, pull.base_ref, pull.default_branch)
        self.heads[key] = Head(pull.head_sha, state == "merged")
        self.states[key] = (state, pull.base_ref)

    def lookup(self, repository: str, number: int) -> tuple[PullState, str]:
        found = self.states.get((repository.lower(), number))
        if found is None:
            raise LookupError(f"{repository}#{number} could not be read")
        return found


@dataclass
class _Wanted:
    """One verdict on one pull request for one status context, and the run chosen to re-run
    for it (suites only)."""

    item: Seen
    context: str
    suite: str | None  # None: the merge guard's status
    judgement: Judgement
    url: str  # the suite's manifest comment ("" for the guard)
    run: str = ""

    @property
    def label(self) -> str:
        return self.suite if self.suite is not None else self.context

    @property
    def speaks(self) -> bool:
        """Whether this verdict counts for its head: the pull request names something or
        carries this suite's manifest (the guard's: waits for something, or names
        something). One naming nothing never turns a commit green."""
        document = self.item.document
        if self.suite is None:
            return not self.item.names_nothing or bool(self.item.prerequisites)
        return not self.item.names_nothing or (isinstance(document, ManifestDocument)
                                               and self.suite in document.suites)


def write(settings: SweepSettings, api: GitHubApi, seen: list[Seen], read: Read, ask: Ask,
          report: SweepReport) -> None:
    suites = settings.suites or _known_suites(seen)
    wanted: list[_Wanted] = []
    for item in seen:
        judged = _suite_verdicts(settings, item, suites, read)
        wanted += judged
        if item.statuses is not None and settings.guard_context in item.statuses:
            guard = _guard_verdict(settings, item, judged, read, report)
            if guard is not None:
                wanted.append(guard)
    _choose_reruns(settings, wanted, report)
    trusted_heads = {open_pull.pull.head_sha for open_pull in read.listed
                     if _trusted(settings, open_pull.pull)}
    groups: dict[tuple[str, str], list[_Wanted]] = {}
    for entry in wanted:
        head = entry.item.open_pull.pull.head_sha
        if head in trusted_heads and not _trusted(settings, entry.item.open_pull.pull):
            # A stranger's fork copy of a trusted pull request's commit decides nothing there.
            report.judged.append(Judged(entry.item.open_pull.pull.number, entry.label,
                                        entry.judgement.state, entry.judgement.description,
                                        False, status="decided by the trusted pull requests "
                                                      "with this head"))
            continue
        groups.setdefault((head, entry.context), []).append(entry)
    outcomes: dict[str, bool] = {}  # run URL -> re-run (True) or refused (False)
    try:
        decided = [_decide(settings, api, group, outcomes, ask, report)
                   for group in groups.values()]
        changed = _look_again(settings, api, [decision for decision in decided
                                              if decision.greens], ask, report)
        for decision in decided:
            _write_one(settings, api, decision, outcomes, changed, ask, report)
    except Stop as stop:
        report.stop(f"stopped while writing statuses ({stop}): {report.written} written, "
                    f"{len(wanted) - len(report.judged)} left as they were")


@dataclass
class _Decision:
    """The status one context gets on one commit, and the verdicts of the pull requests with
    that head it comes from."""

    group: list[_Wanted]
    chosen: _Wanted
    status: CommitStatus
    changes: bool  # it differs from the status the commit has now

    @property
    def greens(self) -> bool:
        """A `success` about to be written: it is read again first."""
        return self.changes and self.status.state == "success"


def _look_again(settings: SweepSettings, api: GitHubApi, decisions: list[_Decision], ask: Ask,
                report: SweepReport) -> dict[int, str]:
    """Pull request -> what changed since the sweep read it, for the pull requests whose head
    is about to turn green: their head, their update time (a description edited, a push) and
    their statuses of ours are read again, 100 a query. A green written over a change the
    sweep has not judged (a new `Depends-On:`, a status merge-check wrote meanwhile) would
    be a green nobody asked for."""
    if settings.dry_run or not decisions:
        return {}
    first = {entry.item.open_pull.pull.number: entry.item
             for decision in decisions for entry in decision.group}
    numbers = sorted(first)
    changed: dict[int, str] = {}
    for start in range(0, len(numbers), 100):
        chunk = numbers[start:start + 100]
        for number, now in zip(chunk, ask(partial(api.reread, settings.repository, chunk)),
                               strict=True):
            item = first[number]
            if isinstance(now, ApiError):
                changed[number] = f"it could not be read again ({now})"
            elif now.pull.head_sha != item.open_pull.pull.head_sha:
                changed[number] = f"its head moved to {now.pull.head_sha[:7]}"
            elif now.updated_at != item.open_pull.updated_at:
                changed[number] = "it was edited (its description, a comment or a push)"
            elif now.statuses is None or any(
                    now.statuses.get(name) != (item.statuses or {}).get(name)
                    for name in {*(now.statuses or {}), *(item.statuses or {})}
                    if name == settings.guard_context or suite_of(name) is not None):
                changed[number] = "a status of ours on its head changed"
    return changed


def _suite_verdicts(settings: SweepSettings, item: Seen, suites: tuple[str, ...],
                    read: Read) -> list[_Wanted]:
    """Each suite's verdict on one pull request; one naming nothing now is judged only for
    the suites whose status of ours it carries."""
    head = item.open_pull.pull.head_sha
    found = []
    for suite in (tuple(suite_of(name) or "" for name in item.statuses or {}
                        if name != settings.guard_context)
                  if item.names_nothing else suites):
        if settings.suites and suite not in settings.suites:
            continue
        if item.document == UNREADABLE:
            judgement = Judgement("failure", "the manifest comment cannot be read: re-run "
                                             "the suite's comment step")
        else:
            manifest = (item.document.suites.get(suite)
                        if isinstance(item.document, ManifestDocument) else None)
            judgement = judge(item.named, manifest, read.heads, item.errors, head)
        found.append(_Wanted(item, context(suite), suite, judgement, item.urls.get(suite, "")))
    return found


def _guard_verdict(settings: SweepSettings, item: Seen, suites: list[_Wanted], read: Read,
                   report: SweepReport) -> _Wanted | None:
    """The merge guard's verdict, recomputed as merge-check gives it, on a head that carries
    its status: it turns green when what the description waits for merges, with no push and
    no re-run. None when something it needs could not be read."""
    now = item.now
    try:
        waited = (waited_for(now.directives, now.prerequisites, settings.config,
                             settings.policy, settings.repository, read.lookup)
                  if now is not None else [])
    except LookupError as error:
        report.problems.append(f"#{item.open_pull.pull.number}: its guard status is left as "
                               f"it is: {error}")
        return None
    verdicts = [(entry.label, entry.judgement) for entry in suites] \
        if settings.require_tested else []
    judgement = guard_judgement(waited, item.errors, verdicts)
    return _Wanted(item, settings.guard_context, None, judgement, "")


def _known_suites(seen: list[Seen]) -> tuple[str, ...]:
    """Every suite the bot's manifest comments name across the sweep: a pull request no
    suite has reported on yet is pending in each of them."""
    names: dict[str, None] = {}
    for item in seen:
        if isinstance(item.document, ManifestDocument):
            names.update(dict.fromkeys(item.document.suites))
    return tuple(sorted(names))


def _decide(settings: SweepSettings, api: GitHubApi, group: list[_Wanted],
            outcomes: dict[str, bool], ask: Ask, report: SweepReport) -> _Decision:
    """One context's status on one commit, which the pull requests of `group` share: re-run
    the chosen runs first (once per run, however many suites recorded it), then the worst
    verdict of the group."""

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
    existing = (first.item.statuses or {}).get(first.context)
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
    status = CommitStatus(chosen.context, chosen_judgement.state, chosen_judgement.description,
                          chosen.url)
    return _Decision(group, chosen, status, existing != status)


def _write_one(settings: SweepSettings, api: GitHubApi, decision: _Decision,
               outcomes: dict[str, bool], changed: dict[int, str], ask: Ask,
               report: SweepReport) -> None:
    """Write a decided status where it changed, unless a pull request with that head changed
    since the sweep read it."""
    group, chosen, status = decision.group, decision.chosen, decision.status
    write = decision.changes
    moved = next(((entry.item.open_pull.pull.number, changed[entry.item.open_pull.pull.number])
                  for entry in group if entry.item.open_pull.pull.number in changed), None)
    if write and moved is not None:
        write = False
        report.problems.append(f"#{moved[0]}: `{chosen.context}` left as it is, not turned "
                               f"`success`: {moved[1]} since the sweep read it; the next sweep "
                               f"judges it again")
    elif write and report.refused:  # the token cannot write statuses: not tried again
        write = False
        report.unwritten += 1
    elif write and not settings.dry_run:
        try:
            ask(partial(api.create_status, settings.repository,
                        chosen.item.open_pull.pull.head_sha, status))
        except Refused as error:
            report.refused = f"{error}"
            report.unwritten += 1
            write = False
        except ApiError as error:
            report.write_failures.append(f"#{chosen.item.open_pull.pull.number}: {error}")
            write = False
    for entry in group:
        shared = "" if entry is chosen else (
            f"{status.state}: {status.description} (its head's, from "
            f"#{chosen.item.open_pull.pull.number})")
        report.judged.append(Judged(
            entry.item.open_pull.pull.number, entry.label, entry.judgement.state,
            entry.judgement.description, write and entry is chosen,
            entry.run if outcomes.get(entry.run) else "", shared))


def _trusted(settings: SweepSettings, pull: PullInfo) -> bool:
    """Whether a pull request is trusted with the runner and with its head's statuses: a
    branch of the swept repository, or an author whose association is trusted."""
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
    candidates = [entry for entry in wanted if entry.judgement.moved and entry.suite is not None]
    for entry in candidates:  # the list's order: oldest first
        item, suite, judgement = entry.item, entry.suite, entry.judgement
        assert suite is not None
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
        if not _trusted(settings, item.open_pull.pull):
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
    assert found is not None  # _choose_reruns chose it for matching
    return int(found["id"])

