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

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rocm_deps.config import REPOSITORY
from rocm_deps.contract.status import Head, judge, named_now
from rocm_deps.errors import FatalError, UsageError
from rocm_deps.files import read_bounded
from rocm_deps.github.answers import ApiError, PullInfo
from rocm_deps.github.event import event_context, read_event
from rocm_deps.grammar.directives import MAX_BODY_BYTES, parse_body
from rocm_deps.grammar.parsed import Directive, Finding, Prerequisite, code_findings
from rocm_deps.guard.document import Check, MergeCheckReport, PullState, Verdict
from rocm_deps.guard.settings import MergeCheckSettings, Policy
from rocm_deps.manifest.comment import UNREADABLE, tested_manifest
from rocm_deps.messages import needs_token
from rocm_deps.resolve.queue import UNSEEN_FIX, Group, read_group, unidentified
from rocm_deps.resolve.stack import StackError, read_through_api

if TYPE_CHECKING:
    from rocm_deps.github.api import GitHubApi

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
        repository) else None  # checked where it is needed (`_repository`)
    for number, body, head, live in _bodies(settings, payload, api, report):
        if number is not None:
            report.pulls.append(number)
        where = f"pull request #{number}" if number is not None else "the body file"
        parsed = parse_body(body, settings.config.dependencies, settings.config.values,
                            repository)
        errors = [*parsed.errors, *(finding for finding in code_findings(
            parsed, {*parsed.directives, *parsed.values}, settings.config.code_directives)
            if finding.level == "error")]
        report.errors += [Finding("error", f"{where}: {e.message}", e.line) for e in errors]
        pulls: dict[str, PullInfo] = {}
        # What the pull requests below it in its stack name counts as its own.
        directives = {**_stacked(settings, api, repository, live, where, report),
                      **parsed.directives}
        for prerequisite in parsed.prerequisites:
            _prerequisite(settings, api, repository, number, prerequisite, report)
        for directive in directives.values():
            dependency = settings.config.dependency(directive.dependency)
            pull = (_pull(api, dependency.repository, directive.spec.pr)
                    if api is not None and directive.spec.pr is not None and (
                        settings.require_tested or settings.policy != "forbid-overrides")
                    else None)
            if pull is not None:
                pulls[directive.dependency] = pull
            state, merged = _state(pull, dependency.repository, directive.spec.pr, settings)
            verdict, reason = policy_verdict(settings.policy, directive.key, directive.raw,
                                             state, merged, dependency.repository,
                                             directive.spec.pr)
            report.checks.append(Check(number, directive.dependency, directive.raw,
                                       directive.line, state, verdict, reason))
        if settings.require_tested and api is not None:
            if number is None:
                raise UsageError("merge-check --require-tested reads the manifest comment of "
                                 "a pull request: give the event (--event-path, "
                                 "--event-name) with --body-file")
            # Also when nothing is named now: a directive dropped after the suite tested it
            # is judged too.
            repository = _repository(payload)
            require_tested(settings, api, repository, number,
                           head or _pull(api, repository, number).head_sha,
                           directives, pulls, report)
    if not report.pulls and settings.body_file is None:
        report.notices.append(f"this `{settings.event_name or 'unknown'}` event names no pull "
                              f"request: nothing to check")
    elif not report.checks and not report.errors:
        report.notices.append("no directive names a dependency: nothing to wait for")
    return report


def _stacked(settings: MergeCheckSettings, api: GitHubApi | None, repository: str | None,
             live: PullInfo | None, where: str, report: MergeCheckReport
             ) -> dict[str, Directive]:
    """The directives a stacked pull request inherits from the ones below it (read as resolve
    reads them, resolve.stack); none without the API."""
    if api is None or live is None or repository is None:
        return {}
    try:
        found = read_through_api(api, repository, live, settings.config)
    except StackError as error:
        report.errors.append(Finding("error", f"{where}: {error}", title="rocm-deps: stack"))
        return {}
    for name, item in found.items():
        report.notices.append(f"{where}: {name}: `{item.directive.key}: {item.directive.raw}` "
                              f"inherited from #{item.via}")
    return {name: item.directive for name, item in found.items()}


def _prerequisite(settings: MergeCheckSettings, api: GitHubApi | None, repository: str | None,
                  number: int | None, prerequisite: Prerequisite,
                  report: MergeCheckReport) -> None:
    """`Depends-On: #N`: this pull request merges after #N; the policy judges it as it judges
    a dependency pull request (`forbid-overrides` as `require-merged`: it names no
    dependency)."""
    target = prerequisite.repository or repository
    if api is None or target is None:
        raise UsageError(needs_token(f"merge-check asks the API whether prerequisite "
                                     f"#{prerequisite.number} is merged", "pull-requests: read",
                                     settings.api.empty_variable))
    pull = _pull(api, target, prerequisite.number)
    state: PullState = ("merged" if pull.merged else "open" if pull.state == "open"
                        else "closed (unmerged)")
    policy: Policy = "warn" if settings.policy == "warn" else "require-merged"
    verdict, reason = policy_verdict(policy, "Depends-On", prerequisite.raw, state, pull.merged,
                                     target, prerequisite.number)
    report.checks.append(Check(number, "(prerequisite)", prerequisite.raw, prerequisite.line,
                               state, verdict, reason))


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
                   pulls: Mapping[str, PullInfo], report: MergeCheckReport) -> None:
    """Beside the policy (docs/architecture.md, *What was tested*): the one verdict
    (`contract.status.judge`, as the sweep and `comment`'s status give it) of every suite
    checked (those `--suite` names, else every suite the manifest comment holds) on what the
    description names now at `head`. `failure` fails; `pending` (the suite has not reported
    on this head) fails on merge_group and warns on pull_request."""
    document = tested_manifest(api, repository, number, settings.bot_login)
    if document == UNREADABLE:
        report.errors.append(Finding("error", (
            f"pull request #{number}: the manifest comment by {settings.bot_login} cannot be "
            f"read (a second data block, or a data block that is not this version's): it "
            f"cannot say what was tested. Re-run the suite's `comment` step to rewrite it"),
            title="rocm-deps: unreadable manifest"))
        return

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
        return  # nothing named and nothing tested: nothing to hold
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
    if what:
        _not_yet(settings, report, f"pull request #{number} {what}: nothing says which "
                                   f"dependency commits {whose} tested",
                 "Run the suite (with its `comment` step) on the pull request")
    if document is None:
        return
    heads = {(settings.config.dependency(name).repository.lower(), pull.number):
             Head(pull.head_sha, pull.merged) for name, pull in pulls.items()}
    for suite in suites:
        manifest = document.suites.get(suite)
        if manifest is None:
            continue
        judgement = judge(named, manifest, heads, (), head)
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


def _state(pull: PullInfo | None, repository: str, number: int | None,
           settings: MergeCheckSettings) -> tuple[PullState, bool]:
    """(state, merged) of a named dependency PR; a value that names no PR is `not a PR`."""
    if number is None:
        return "not a PR", False
    if settings.policy == "forbid-overrides":
        return "not asked", False  # the policy refuses any directive; no API call needed
    if pull is None:
        raise UsageError(needs_token(f"merge-check asks the API whether {repository}#{number} "
                                     f"is merged", "", settings.api.empty_variable))
    if pull.merged:
        return "merged", True
    return ("open" if pull.state == "open" else "closed (unmerged)"), False


def policy_verdict(policy: Policy, key: str, raw: str, state: PullState, merged: bool,
                   repository: str, number: int | None) -> tuple[Verdict, str]:
    named = f"`{key}: {raw}`"
    if policy == "forbid-overrides":
        return "fail", (f"{named} is still in the description; the forbid-overrides policy "
                        f"merges only pull requests that test the image's baseline: delete "
                        f"the line")
    if number is None:
        return "pass", f"{named} names no pull request ({state}); nothing to wait for"
    target = f"{repository}#{number}"
    if merged:
        return "pass", f"{named}: {target} is merged"
    if state == "open":
        reason = (f"{named}: {target} is still open. Merged now, this change would leave the "
                  f"default branch testing the image's baseline without it: merge {target} "
                  f"first (then delete the line), or drop the directive")
    else:
        reason = (f"{named}: {target} was closed without being merged; the change this pull "
                  f"request was tested against will not land. Delete the line, or name its "
                  f"replacement")
    return ("warn" if policy == "warn" else "fail"), reason
