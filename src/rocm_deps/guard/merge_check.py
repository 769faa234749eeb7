"""The merge guard (DESIGN §5, `rocm-deps merge-check`): may this pull request merge, given
the dependency changes its description names?

Directives exist to test against an unmerged dependency change. Merged while that change is
still open, the pull request leaves the default branch testing the image's baseline without
it. Settings in, a `MergeCheckReport` out; the command renders it.

The directives are read exactly as `resolve` reads them (the same parser and config). On
`pull_request` events the body comes from the payload; on `merge_group` events the pull
requests of the group are found from the payload (the queue branch names the last one, the
group's commits name the others) and their current bodies are read through the API.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rocm_deps.config import REPOSITORY
from rocm_deps.contract import Check, MergeCheckReport, PullState, Verdict
from rocm_deps.errors import FatalError, UsageError
from rocm_deps.github.event import event_context, read_event
from rocm_deps.grammar.directives import Finding, parse_body
from rocm_deps.grammar.refs import FULL_SHA_ANY_CASE
from rocm_deps.options import Policy
from rocm_deps.settings import MergeCheckSettings

if TYPE_CHECKING:
    from rocm_deps.github.api import GitHubApi

# gh-readonly-queue/<base>/pr-<number>-<sha>: the queue branch of the group's last PR.
QUEUE_REF = re.compile(r"(?:refs/heads/)?gh-readonly-queue/.+/pr-(?P<number>[0-9]{1,9})-[0-9a-f]+")
# How merge queues write a PR into a commit message: a merge, or a squash's title suffix.
MERGED_PR = re.compile(r"^Merge pull request #(?P<merge>[0-9]{1,9}) |\(#(?P<squash>[0-9]{1,9})\)$")
MAX_GROUP = 100  # a merge group holds at most 100 pull requests (GitHub's limit)


def check(settings: MergeCheckSettings) -> MergeCheckReport:
    report = MergeCheckReport(settings.policy)
    payload = read_event(settings.event_path)
    api = _api(settings) if settings.api.token else None
    for number, body in _bodies(settings, payload, api, report):
        report.pulls.append(number)
        parsed = parse_body(body, settings.config.dependencies)
        report.errors += [Finding("error", f"pull request #{number}: {e.message}", e.line)
                          for e in parsed.errors]
        for directive in parsed.directives.values():
            dependency = settings.config.dependency(directive.dependency)
            state, merged = _state(api, dependency.repository, directive.spec.pr, settings)
            verdict, reason = judge(settings.policy, directive.key, directive.raw, state,
                                     merged, dependency.repository, directive.spec.pr)
            report.checks.append(Check(number, directive.dependency, directive.raw,
                                       directive.line, state, verdict, reason))
    if not report.pulls:
        report.notices.append(f"this `{settings.event_name or 'unknown'}` event names no pull "
                              f"request: nothing to check")
    elif not report.checks and not report.errors:
        report.notices.append("no directive names a dependency: nothing to wait for")
    return report


def _api(settings: MergeCheckSettings) -> GitHubApi:
    from rocm_deps.github.api import GitHubApi

    return GitHubApi(settings.api.url, settings.api.token or "", settings.config.api)


def _bodies(settings: MergeCheckSettings, payload: Mapping[str, Any], api: GitHubApi | None,
            report: MergeCheckReport) -> list[tuple[int, str | None]]:
    context = event_context(settings.event_name, payload)
    if settings.event_name != "merge_group":
        if context.pr_number is None:
            return []
        return [(context.pr_number, context.body)]
    if api is None:
        raise UsageError("merge-check on a `merge_group` event reads the group's pull requests "
                         "through the API: set the `github-token` input (CLI: "
                         "--github-token-env VAR) with `pull-requests: read`")
    repository = _repository(payload)
    group = payload.get("merge_group")
    group = group if isinstance(group, Mapping) else {}
    numbers = _group_pulls(api, repository, group)
    if not numbers:
        raise FatalError("the `merge_group` payload names no pull request (its head_ref is not "
                         "a gh-readonly-queue/<base>/pr-<number>-<sha> branch)")
    return [(number, _pull(api, repository, number).body) for number in numbers]


def _repository(payload: Mapping[str, Any]) -> str:
    repository = payload.get("repository")
    name = repository.get("full_name") if isinstance(repository, Mapping) else None
    if not isinstance(name, str) or not REPOSITORY.fullmatch(name):
        raise FatalError("the event payload has no valid repository.full_name")
    return name


def _group_pulls(api: GitHubApi, repository: str, group: Mapping[str, Any]) -> list[int]:
    """The group's pull requests, oldest first: those its commits name (merge or squash
    messages, between the group's base and head), then the one its branch names."""
    from rocm_deps.github.api import ApiError

    head_ref = group.get("head_ref")
    match = QUEUE_REF.fullmatch(head_ref) if isinstance(head_ref, str) else None
    if match is None:
        return []
    last = int(match.group("number"))
    base, head = group.get("base_sha"), group.get("head_sha")
    numbers: list[int] = []
    if isinstance(base, str) and isinstance(head, str) and all(
            FULL_SHA_ANY_CASE.fullmatch(sha) for sha in (base, head)):
        try:
            messages = api.commit_messages(repository, base, head)
        except ApiError as error:
            raise FatalError(f"could not list the merge group's commits: {error}") from None
        for message in messages:
            found = MERGED_PR.search(message.split("\n", 1)[0])
            if found is not None:
                number = int(found.group("merge") or found.group("squash"))
                if number not in numbers and number != last:
                    numbers.append(number)
    return [*numbers, last][-MAX_GROUP:]


def _pull(api: GitHubApi, repository: str, number: int) -> Any:
    from rocm_deps.github.api import ApiError

    try:
        return api.pull(repository, number)
    except ApiError as error:
        raise FatalError(f"could not read pull request #{number}: {error}") from None


def _state(api: GitHubApi | None, repository: str, number: int | None,
           settings: MergeCheckSettings) -> tuple[PullState, bool]:
    """(state, merged) of a named dependency PR; a value that names no PR is `not a PR`."""
    if number is None:
        return "not a PR", False
    if settings.policy == "forbid-overrides":
        return "not asked", False  # the policy refuses any directive; no API call needed
    if api is None:
        raise UsageError(f"merge-check asks the API whether {repository}#{number} is merged: "
                         f"set the `github-token` input (CLI: --github-token-env VAR)")
    pull = _pull(api, repository, number)
    if pull.merged:
        return "merged", True
    return ("open" if pull.state == "open" else "closed (unmerged)"), False


def judge(policy: Policy, key: str, raw: str, state: PullState, merged: bool, repository: str,
           number: int | None) -> tuple[Verdict, str]:
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
