"""The merge guard (docs/architecture.md, *The GitHub API and the merge guard*, `rocm-deps
merge-check`): may this pull request merge, given the dependency changes its description names?

Directives exist to test against an unmerged dependency change. Merged while that change is
still open, the pull request leaves the default branch testing the image's baseline without
it. Settings in, a `MergeCheckReport` out; the command renders it.

The directives are read exactly as `resolve` reads them (the same parser and config). On
`pull_request` events the body comes from the payload; on `merge_group` events the pull
requests of the group are found from the payload (the queue branch names the last one, the
group's commits name the others) and their current bodies are read through the API.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rocm_deps.config import REPOSITORY
from rocm_deps.contract.guard import (
    PullState,
    Waited,
    guard_judgement,
    state_of,
    waited_for,
)
from rocm_deps.contract.status import Head, Judgement, judge, named_now
from rocm_deps.errors import FatalError, UsageError
from rocm_deps.files import read_bounded
from rocm_deps.github.answers import ApiError, CommitStatus, PullInfo, Refused
from rocm_deps.github.event import event_context, read_event
from rocm_deps.grammar.directives import MAX_BODY_BYTES, parse_body
from rocm_deps.grammar.parsed import Directive, Finding, code_findings
from rocm_deps.grammar.refs import FULL_SHA_ANY_CASE
from rocm_deps.guard.document import Check, MergeCheckReport
from rocm_deps.guard.settings import MergeCheckSettings
from rocm_deps.manifest.comment import UNREADABLE, tested_manifest
from rocm_deps.messages import needs_token
from rocm_deps.resolve.queue import UNSEEN_FIX, Group, group_of, read_group, unidentified
from rocm_deps.resolve.stack import Inherited, StackError, read_through_api

if TYPE_CHECKING:
    from rocm_deps.github.api import GitHubApi

@dataclass
class _Judged:
    """One pull request as the guard judged it: what its status says."""

    number: int | None
    head: str | None  # where its guard status goes (None: not read through the API)
    waited: list[Waited] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    suites: list[tuple[str, Judgement]] = field(default_factory=list)


def check(settings: MergeCheckSettings) -> MergeCheckReport:
    report = MergeCheckReport(settings.policy)
    payload = read_event(settings.event_path)
    api = _api(settings) if settings.api.token else None
    if settings.require_tested and api is None:
        raise UsageError(needs_token("merge-check --require-tested reads the manifest comment "
                                     "and the dependency pull requests' heads through the "
                                     "API", "", settings.api.empty_variable))
    found = payload.get("repository")
    repository = found.get("full_name") if isinstance(found, Mapping) else None
    repository = repository if isinstance(repository, str) and REPOSITORY.fullmatch(
        repository) else settings.repository  # checked where it is needed (`_repository`)
    judged: list[_Judged] = []
    read = _reader(api)
    for number, body, head, live in _bodies(settings, payload, api, report):
        if number is not None:
            report.pulls.append(number)
        item = _Judged(number, head)
        judged.append(item)
        where = f"pull request #{number}" if number is not None else "the body file"
        parsed = parse_body(body, settings.config.dependencies, settings.config.values,
                            repository, live.body_html if live is not None else None)
        errors = [*parsed.errors, *(finding for finding in code_findings(
            parsed, {*parsed.directives, *parsed.values}, settings.config.code_directives)
            if finding.level == "error")]
        report.errors += [Finding("error", f"{where}: {e.message}", e.line) for e in errors]
        item.errors += [error.message for error in errors]
        # What the pull requests below it in its stack name counts as its own.
        stacked = _stacked(settings, api, repository, live, where, report, item)
        directives = {**{name: entry.directive for name, entry in stacked.items()},
                      **parsed.directives}
        try:
            item.waited = waited_for(directives, parsed.prerequisites, settings.config,
                                     settings.policy, repository, lambda target, pr: (
                                         _lookup(settings, api, read, target, pr)))
        except ValueError as error:
            raise UsageError(str(error)) from None
        for entry in item.waited:
            inherited = stacked.get(entry.dependency)
            via = inherited.via if inherited is not None and (
                entry.dependency not in parsed.directives) else None
            report.checks.append(Check(number, entry.dependency, entry.raw, entry.line,
                                       entry.state, entry.verdict, entry.reason, via))
        if settings.require_tested and api is not None:
            if number is None:
                raise UsageError("merge-check --require-tested reads the manifest comment of "
                                 "a pull request: give the event (--event-path, "
                                 "--event-name) with --body-file")
            # Also when nothing is named now: a directive dropped after the suite tested it
            # is judged too.
            repository = _repository(payload)
            pulls = {name: read(settings.config.dependency(name).repository, directive.spec.pr)
                     for name, directive in directives.items() if directive.spec.pr is not None}
            item.suites = require_tested(settings, api, repository, number,
                                         head or _pull(api, repository, number).head_sha,
                                         directives, pulls, report)
    if not report.pulls and settings.body_file is None:
        report.notices.append(f"this `{settings.event_name or 'unknown'}` event names no pull "
                              f"request: nothing to check")
    elif not report.checks and not report.errors:
        report.notices.append("no directive names a dependency: nothing to wait for")
    if api is not None and settings.guard_status:
        _write_statuses(settings, api, payload, judged, report)
    return report


def _write_statuses(settings: MergeCheckSettings, api: GitHubApi, payload: Mapping[str, Any],
                    judged: list[_Judged], report: MergeCheckReport) -> None:
    """The guard's verdict as a commit status (`guard-context`): on each pull request's head,
    or on a merge group's commit (where the queue's required checks look) for the whole
    group. The sweep recomputes it with the same function (`contract.guard`)."""
    unseen = [error.message for error in report.errors
              if error.title == "rocm-deps: merge group not identified"]
    if settings.event_name == "merge_group":
        head = group_of(payload).get("head_sha")
        targets = [(head.lower(), [_Judged(None, head, [w for item in judged for w in item.waited],
                                           [*unseen, *(e for item in judged for e in item.errors)],
                                           [s for item in judged for s in item.suites])])] \
            if isinstance(head, str) and FULL_SHA_ANY_CASE.fullmatch(head) else []
    else:
        targets = [(item.head, [item]) for item in judged if item.head is not None]
    repository = _repository(payload) if targets else ""
    for head, items in targets:
        [item] = items
        judgement = guard_judgement(item.waited, item.errors, item.suites)
        status = CommitStatus(settings.guard_context, judgement.state, judgement.description,
                              "")
        try:
            api.create_status(repository, head, status)
        except Refused as error:
            # A token without `statuses: write` (a workflow written for 1.0): the step's own
            # verdict stands, and the missing status keeps a required check waiting, never
            # green; the warning says what to grant.
            report.warnings.append(Finding(
                "warning", f"the verdict is not written as the `{settings.guard_context}` "
                           f"status on {head[:12]}: {error}. Grant the job `statuses: write` "
                           f"(or set `guard-status: false`)",
                title="rocm-deps: merge guard status"))
            return
        except ApiError as error:
            report.errors.append(Finding(
                "error", f"could not write the `{settings.guard_context}` status on "
                         f"{head[:12]}: {error}. Re-run the job (or set `guard-status: false` "
                         f"to fail the step alone)",
                title="rocm-deps: merge guard status"))
            return
        report.statuses.append({"sha": head, "context": status.context, "state": status.state,
                                "description": status.description})


def _stacked(settings: MergeCheckSettings, api: GitHubApi | None, repository: str | None,
             live: PullInfo | None, where: str, report: MergeCheckReport, item: _Judged
             ) -> dict[str, Inherited]:
    """The directives a stacked pull request inherits from the ones below it (read as resolve
    reads them, resolve.stack); none without the API."""
    if api is None or live is None or repository is None:
        return {}
    try:
        found = read_through_api(api, repository, live, settings.config)
    except StackError as error:
        report.errors.append(Finding("error", f"{where}: {error}", title="rocm-deps: stack"))
        item.errors.append(str(error))
        return {}
    for name, entry in found.items():
        report.notices.append(f"{where}: {name}: `{entry.directive.key}: "
                              f"{entry.directive.raw}` inherited from #{entry.via}")
    return found


def _api(settings: MergeCheckSettings) -> GitHubApi:
    from rocm_deps.github.api import GitHubApi

    return GitHubApi(settings.api.url, settings.api.token or "", settings.config.api)


def _bodies(settings: MergeCheckSettings, payload: Mapping[str, Any], api: GitHubApi | None,
            report: MergeCheckReport
            ) -> list[tuple[int | None, str | None, str | None, PullInfo | None]]:
    """Each pull request to check: its number, its description, its head commit and the pull
    request as the API gave it (None when only the API can say, or it was not asked)."""
    context = event_context(settings.event_name, payload)
    if settings.event_name != "merge_group":
        if settings.body_file is not None:  # trying the guard locally: no event needed
            return [(context.pr_number, read_bounded(settings.body_file, MAX_BODY_BYTES + 1,
                                                     "--body-file"), None, None)]
        if context.pr_number is None:
            return []
        # A re-run replays the payload; the live body decides (with a token, by default).
        if settings.body_source == "api" or (settings.body_source == "auto" and api is not None):
            if api is None:
                raise UsageError(needs_token("body-source `api` reads the current description "
                                             "through the API", "pull-requests: read",
                                             settings.api.empty_variable))
            pull = _pull(api, _repository(payload), context.pr_number)
            return [(context.pr_number, pull.body, pull.head_sha, pull)]
        return [(context.pr_number, context.body, None, None)]
    if api is None:
        raise UsageError(needs_token("merge-check on a `merge_group` event reads the group's "
                                     "pull requests through the API", "pull-requests: read",
                                     settings.api.empty_variable))
    repository = _repository(payload)
    group = read_group(api, repository, payload)
    if not group.numbers:
        raise FatalError("the `merge_group` payload names no pull request (its head_ref is not "
                         "a gh-readonly-queue/<base>/pr-<number>-<sha> branch)")
    if group.unseen:
        _cannot_see(settings, report, group)
    pulls = [_pull(api, repository, number) for number in group.numbers]
    return [(pull.number, pull.body, pull.head_sha, pull) for pull in pulls]


def _cannot_see(settings: MergeCheckSettings, report: MergeCheckReport, group: Group) -> None:
    """The group holds pull requests merge-check cannot name: under a policy that blocks,
    fail closed; one of them could name an open dependency pull request."""
    message = unidentified(group)
    if settings.policy == "warn" and not settings.require_tested:
        report.notices.append(message)
        return
    report.errors.append(Finding(
        "error", f"{message}, so merge-check fails closed under `{settings.policy}`"
                 f"{' with --require-tested' if settings.require_tested else ''}: a pull "
                 f"request it cannot see could name a dependency pull request that is still "
                 f"open or untested. {UNSEEN_FIX}"
                 f"{'' if settings.require_tested else ', or `policy: warn` to annotate only'}",
        title="rocm-deps: merge group not identified"))


def _repository(payload: Mapping[str, Any]) -> str:
    repository = payload.get("repository")
    name = repository.get("full_name") if isinstance(repository, Mapping) else None
    if not isinstance(name, str) or not REPOSITORY.fullmatch(name):
        raise FatalError("the event payload has no valid repository.full_name")
    return name


def require_tested(settings: MergeCheckSettings, api: GitHubApi, repository: str, number: int,
                   head: str, directives: Mapping[str, Directive],
                   pulls: Mapping[str, PullInfo], report: MergeCheckReport
                   ) -> list[tuple[str, Judgement]]:
    """Beside the policy (docs/architecture.md, *What was tested*): the one verdict
    (`contract.status.judge`, as the sweep and `comment`'s status give it) of every suite
    checked (those `--suite` names, else every suite the manifest comment holds) on what the
    description names now at `head`. `failure` fails; `pending` (the suite has not reported
    on this head) fails on merge_group and warns on pull_request. Returns each suite's
    verdict, for the guard's status."""
    document = tested_manifest(api, repository, number, settings.bot_login)
    if document == UNREADABLE:
        report.errors.append(Finding("error", (
            f"pull request #{number}: the manifest comment by {settings.bot_login} cannot be "
            f"read (a second data block, or a data block that is not this version's): it "
            f"cannot say what was tested. Re-run the suite's `comment` step to rewrite it"),
            title="rocm-deps: unreadable manifest"))
        return [("manifest", Judgement("failure", "the manifest comment cannot be read"))]

    def expand(dependency_repository: str, abbreviation: str) -> str:
        try:
            return api.commit(dependency_repository, abbreviation)
        except ApiError as error:
            raise ValueError(str(error)) from None

    named, errors = named_now(directives.values(), settings.config, expand)
    if errors:
        raise FatalError(f"pull request #{number}: {errors[0]}")
    suites = settings.suites or (tuple(document.suites) if document is not None else ())
    if not named and (document is None or not document.suites):
        return []  # nothing named and nothing tested: nothing to hold
    missing = [suite for suite in suites if document is None or suite not in document.suites]
    bot = settings.bot_login
    if document is None:
        what, whose = f"has no manifest comment by {bot}", "CI"
    elif not document.suites:  # a comment edited by hand: it says no more than none
        what, whose = f"has a manifest comment by {bot} that holds no suite's section", "CI"
    elif missing:
        what, whose = (f"has no section of suite{'s' if len(missing) > 1 else ''} "
                       f"{', '.join(f'`{suite}`' for suite in missing)} in the manifest "
                       f"comment (it holds "
                       f"{', '.join(f'`{suite}`' for suite in document.suites)})",
                       "that suite")
    else:
        what = whose = ""
    verdicts = [(suite, Judgement("pending", "not reported yet")) for suite in missing] or (
        [("CI", Judgement("pending", "no suite has reported yet"))] if what else [])
    if what:
        _not_yet(settings, report, f"pull request #{number} {what}: nothing says which "
                                   f"dependency commits {whose} tested",
                 "Run the suite (with its `comment` step) on the pull request")
    if document is None:
        return verdicts
    heads = {(settings.config.dependency(name).repository.lower(), pull.number):
             Head(pull.head_sha, pull.merged) for name, pull in pulls.items()}
    for suite in suites:
        manifest = document.suites.get(suite)
        if manifest is None:
            continue
        judgement = judge(named, manifest, heads, (), head)
        verdicts.append((suite, judgement))
        run = f"suite `{suite}`" + (f" ({manifest.run})" if manifest.run else "")
        if judgement.state == "failure":
            report.errors.append(Finding("error", (
                f"pull request #{number}: {run}: {judgement.description}. Re-run the suite so "
                f"that CI tests what the description names now"),
                title="rocm-deps: tested dependency moved" if judgement.moved
                else "rocm-deps: not tested"))
        elif judgement.state == "pending":
            _not_yet(settings, report, f"pull request #{number}: {run}: "
                                       f"{judgement.description}",
                     "Run the suite on the pull request's head")
        for name, pull in pulls.items():
            tested = manifest.tested.get(name)
            if tested is not None and tested.base is not None and pull.base_sha is not None \
                    and tested.base != pull.base_sha and judgement.state == "success":
                # The author named the change; its base moving is shown, never blocking.
                report.notices.append(
                    f"pull request #{number}: {settings.config.dependency(name).repository}"
                    f"#{pull.number}'s base moved since {run} tested its merge (base then "
                    f"{tested.base[:12]}, now {pull.base_sha[:12]}); its head is what was "
                    f"tested")
    return verdicts


def _not_yet(settings: MergeCheckSettings, report: MergeCheckReport, message: str,
             fix: str) -> None:
    """Nothing tested yet: the suite reports after this check on pull_request; on
    merge_group nothing else will."""
    if settings.event_name == "merge_group":
        report.errors.append(Finding("error", f"{message}. {fix}",
                                     title="rocm-deps: not tested"))
    else:
        report.warnings.append(Finding("warning", f"{message} (the suite reports after this "
                                                  f"check on pull_request)",
                                       title="rocm-deps: not tested yet"))


def _pull(api: GitHubApi, repository: str, number: int) -> Any:
    try:
        return api.pull(repository, number)
    except ApiError as error:
        raise FatalError(f"could not read pull request #{number}: {error}") from None


def _reader(api: GitHubApi | None) -> Callable[[str, int], PullInfo]:
    """Each pull request read once per run, however many descriptions name it."""
    cache: dict[tuple[str, int], PullInfo] = {}

    def read(repository: str, number: int) -> PullInfo:
        key = (repository.lower(), number)
        if key not in cache:
            assert api is not None
            cache[key] = _pull(api, repository, number)
        return cache[key]

    return read


def _lookup(settings: MergeCheckSettings, api: GitHubApi | None,
            read: Callable[[str, int], PullInfo], repository: str,
            number: int) -> tuple[PullState, str]:
    """A named pull request's state (merged means into its default branch) and its base."""
    if api is None:
        raise UsageError(needs_token(f"merge-check asks the API whether {repository}#{number} "
                                     f"is merged", "pull-requests: read",
                                     settings.api.empty_variable))
    pull = read(repository, number)
    return state_of(pull.merged, pull.state, pull.base_ref, pull.default_branch), pull.base_ref
