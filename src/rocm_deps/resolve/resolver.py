"""Which dependency refs does this run test? The resolve algorithm (docs/architecture.md,
*Directives*, *Trust*, *The GitHub API and the merge guard*).

Settings in, a `ResolveReport` out. Bad input in the body, the inputs or the lock file never
raises: it becomes an error in the report. Both `resolve` and single-job `install` use it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rocm_deps.config import Config, DependencyConfig, ValueConfig
from rocm_deps.contract.overrides import Override, RunRecord, Source
from rocm_deps.contract.resolve import ResolvedValue, ResolveReport
from rocm_deps.errors import FatalError, UsageError
from rocm_deps.files import LOCK_FILE_LIMIT, read_bounded
from rocm_deps.github.answers import ApiError, ApiUnreachable, PullInfo
from rocm_deps.github.event import EventContext, event_context, read_event, read_json_object
from rocm_deps.grammar.directives import MAX_BODY_BYTES, parse_body
from rocm_deps.grammar.parsed import Finding, ParsedBody, ValueDirective, code_findings
from rocm_deps.grammar.values import check_value
from rocm_deps.messages import full_sha_hint, needs_token
from rocm_deps.resolve.merge import merge_of_pull
from rocm_deps.resolve.precedence import WHITESPACE, Named, choose
from rocm_deps.resolve.queue import Queued, read_queued
from rocm_deps.resolve.settings import ResolveSettings
from rocm_deps.resolve.stack import Inherited, StackError, read_through_api, unread_stack

if TYPE_CHECKING:
    from rocm_deps.github.api import GitHubApi

# The dispatch inputs that name a dependency's ref (docs/architecture.md, *Directives*):
# ci_<word>_pr.
DEPENDENCY_INPUT = re.compile(r"ci_\w+_pr", re.IGNORECASE)


def resolve(settings: ResolveSettings) -> ResolveReport:
    """Parse, validate and (with a token) pin every directive."""
    config = settings.config
    payload = read_event(settings.event_path)
    context = event_context(settings.event_name, payload)
    report = ResolveReport(carried={"source": config.source, "text": config.text}
                           if config.text is not None else None)
    api = _api(settings) if settings.api.token else None  # the run's one client
    context, body, pull = _body(settings, api, context, report)
    queued = (_queued(settings, api, context, payload, report)
              if settings.event_name == "merge_group" and settings.body_file is None else None)
    if (body is None and context.pr_number is None and not settings.inputs and queued is None
            and settings.event_name != "workflow_dispatch"):
        report.notices.append(_no_body_hint(settings))
    # The description's repository, which a `Depends-On:` must name: the event's, else (a
    # --body-file lint) --repository or $GITHUB_REPOSITORY, so it is judged as CI judges it.
    parsed = parse_body(body, config.dependencies, config.values,
                        context.repository or settings.repository,
                        pull.body_html if pull is not None else None)
    for finding in parsed.findings:
        report.add(finding)
    trusted = _trusted(settings, context, parsed, report)
    directives = parsed.directives if trusted else {}
    prerequisites = [*parsed.prerequisites, *(queued.prerequisites if queued else ())]
    report.prerequisites = list(dict.fromkeys(
        f"#{item.number}" if item.repository is None else f"{item.repository}#{item.number}"
        for item in prerequisites))
    # What another description names: the pull requests below in the stack, or (on a merge
    # group) the group's pull requests.
    source: Source = "queue" if queued is not None else "stack"
    inherited = (queued.directives if queued is not None else
                 _stacked(settings, api, context, payload, pull, report) if trusted else {})
    dispatch = {**context.dispatch_inputs, **settings.inputs}
    _unread_inputs(dispatch, config, report)
    _choose_values(settings, dispatch, queued.values if queued is not None else
                   parsed.values if trusted else {}, report)
    # What names each dependency or value besides a code line: a body line, a dispatch
    # input, --value. The lock file and defaults do not: they are not the author's words.
    keyed: list[DependencyConfig | ValueConfig] = [*config.dependencies, *config.values]
    named = {*directives, *(parsed.values if trusted else ()), *settings.values, *(
        item.name for item in keyed if dispatch.get(item.dispatch_input, "").strip(WHITESPACE))}
    for finding in code_findings(parsed, named, config.code_directives):
        report.add(finding)
    lock_read = _author_trusted(settings, context) or config.lock_file is None
    lock = _read_lock(config) if lock_read else _no_lock(config, report)
    for dependency in config.dependencies:
        override = choose(dependency, Named(dispatch, directives, inherited, source, lock,
                                            lock_read), report)
        if override is not None:
            report.overrides[dependency.name] = override
    if api is not None and not report.errors:
        _pin_overrides(api, config, report)
    elif not settings.api.token:
        for override in report.overrides.values():
            if override.merge:
                report.notices.append(
                    f"{override.name}: `{override.raw}` is pull request #{override.pr} merged "
                    f"onto its base, which moves with the base: without a token the commit "
                    f"is fixed when install fetches {override.ref} (each job may get another); "
                    f"pass `github-token` to pin it once for every job")
    for override in report.overrides.values():
        if override.kind == "short-commit" and override.sha is None:
            report.errors.append(Finding("error", _short_sha_message(override), override.line or 0,
                                         title=f"rocm-deps: {override.name}"))
    if settings.run.run_id is not None and settings.run.attempt is not None:
        # A later attempt's install checks that these pins are still what is named
        # (install/attempts.py): GitHub hands them to the jobs it re-runs alone.
        report.run = RunRecord(settings.run.run_id, settings.run.attempt, report.digest,
                               settings.api.token is not None)
    return report


def _no_body_hint(settings: ResolveSettings) -> str:
    """Why nothing was read: the commonest surprise when trying resolve by hand."""
    if settings.event_path is None:
        return ("no PR body was found: no event was given (GITHUB_EVENT_PATH is unset). To "
                "check a description, use --body-file FILE; in a workflow, run on "
                "pull_request")
    return (f"no PR body was found in this `{settings.event_name}` event's payload, so no "
            f"directive can name a dependency; pull_request events carry one, "
            f"workflow_run needs `body-source: api`")


def _api(settings: ResolveSettings) -> GitHubApi:
    from rocm_deps.github.api import GitHubApi  # PyGithub is imported only when a token is given

    return GitHubApi(settings.api.url, settings.api.token or "", settings.config.api)


def _body(settings: ResolveSettings, api: GitHubApi | None, context: EventContext,
          report: ResolveReport) -> tuple[EventContext, str | None, PullInfo | None]:
    """The PR body to parse, the context updated with what the API said of the PR, and the
    pull request as the API gave it (None when it was not read)."""
    if settings.body_file is not None:
        report.body_origin = f"file {settings.body_file}"
        # One byte past the parser's limit: a larger body is reported as too large by it.
        return context, read_bounded(settings.body_file, MAX_BODY_BYTES + 1,
                                     "--body-file"), None
    found = None
    if context.run is not None and (context.pr_number is not None
                                    or context.run.of_a_pull_request):
        # Under workflow_run the body is read from the API, or the run fails: a run of a pull
        # request that read no body would test the baseline as if nothing were named.
        context, found = _run_pull_request(settings, api, context)
    # A re-run replays the original event: with a token (`auto`) the description as it is
    # now decides, not the payload's copy of it.
    live = settings.body_source == "api" or (settings.body_source == "auto"
                                             and settings.api.token is not None)
    if context.pr_number is not None and (live or context.run is not None):
        if api is None:
            raise UsageError(needs_token("body-source `api` needs a token", "",
                                         settings.api.empty_variable))
        pull = found or _live_pull(api, context)
        report.body_origin = (f"pull request #{context.pr_number} of {context.repository}, "
                              f"read from the API (the current description)")
        association = pull.author_association or context.author_association
        return dataclasses.replace(context, author_association=association), pull.body, pull
    if context.pr_number is not None:
        report.body_origin = f"pull request #{context.pr_number} (event payload)"
    return context, context.body, None


def _queued(settings: ResolveSettings, api: GitHubApi | None, context: EventContext,
            payload: Mapping[str, Any], report: ResolveReport) -> Queued:
    """On a merge group: what the group's pull requests name (the payload carries no
    description, and a run that names nothing would test the baseline)."""
    if api is None:
        raise FatalError(needs_token(
            "on a `merge_group` event the payload carries no description: the descriptions "
            "of the group's pull requests are read through the API", "pull-requests: read",
            settings.api.empty_variable), title="rocm-deps: merge group")
    if context.repository is None:
        raise FatalError("the `merge_group` payload names no repository (repository.full_name)")
    queued = read_queued(api, context.repository, payload, settings.config)
    for finding in queued.findings:
        report.add(finding)
    report.body_origin = queued.origin
    for name, item in queued.directives.items():
        report.notices.append(f"{name}: `{item.directive.key}: {item.directive.raw}` from "
                              f"#{item.via} (in the merge group)")
    return queued


def _stacked(settings: ResolveSettings, api: GitHubApi | None, context: EventContext,
             payload: Mapping[str, Any], pull: PullInfo | None,
             report: ResolveReport) -> dict[str, Inherited]:
    """What the pull requests below this one in its stack name (one request per level), or
    nothing, said in a notice when the stack cannot be read without a token."""
    if api is None or pull is None or context.repository is None:
        if (notice := unread_stack(payload)) is not None:
            report.notices.append(notice)
        return {}
    repository = context.repository
    trusted = {association.upper() for association in settings.trusted_associations}
    try:
        found = read_through_api(api, repository, pull, settings.config, lambda lower: (
            not context.privileged
            or (lower.author_association or "UNKNOWN").upper() in trusted))
    except StackError as error:
        report.errors.append(Finding("error", str(error), title="rocm-deps: stack"))
        return {}
    for name, item in found.items():
        report.notices.append(f"{name}: `{item.directive.key}: {item.directive.raw}` inherited "
                              f"from #{item.via} (this pull request is stacked on it)")
    return found


def _run_pull_request(settings: ResolveSettings, api: GitHubApi | None,
                      context: EventContext) -> tuple[EventContext, PullInfo | None]:
    """Under workflow_run: the context with the triggering run's pull request (and that pull
    request, when it had to be looked up); an error when it cannot be known (no token, or no
    open pull request with the run's head)."""

    run = context.run
    assert run is not None
    if api is None:
        raise FatalError(needs_token(
            f"under workflow_run the payload carries no PR body (the run is of a "
            f"`{run.event or 'pull request'}` event): it is read through the API",
            "pull-requests: read", settings.api.empty_variable), title="rocm-deps: no PR body")
    if context.pr_number is not None:
        return context, None
    if not (context.repository and run.repository and run.branch and run.sha):
        raise FatalError("this workflow_run payload lists no pull request and no head "
                         "(head_repository, head_branch, head_sha): the PR body cannot be "
                         "read, and a run that names nothing would test the baseline",
                         title="rocm-deps: no PR body")
    try:
        pull = api.pull_of_run(context.repository, run.repository, run.branch, run.sha)
    except ApiError as error:
        raise FatalError(f"could not find the pull request of this workflow_run: {error}",
                         title="rocm-deps: no PR body") from None
    if pull is None:
        raise FatalError(f"no open pull request of {context.repository} has the head "
                         f"{run.repository}:{run.branch} at {run.sha[:12]} (the triggering "
                         f"run's): its body cannot be read, and a run that names nothing "
                         f"would test the baseline", title="rocm-deps: no PR body")
    return dataclasses.replace(context, pr_number=pull.number), pull


def _live_pull(api: GitHubApi, context: EventContext) -> PullInfo:
    """The live PR: a re-run after editing the description sees the edited body."""

    if context.repository is None or context.pr_number is None:
        raise FatalError("body-source `api` needs the event's repository and PR number; this "
                         f"`{context.event_name}` event has none")
    try:
        return api.pull(context.repository, context.pr_number)
    except ApiError as error:
        raise FatalError(f"could not read the PR body from the API: {error}") from None


def _trusted(settings: ResolveSettings, context: EventContext, parsed: ParsedBody,
             report: ResolveReport) -> bool:
    """docs/architecture.md, *Trust*: under privileged events only trusted authors' directives are
    honoured: the refs, and the values the body may set (an image tag chooses code that runs
    too)."""
    body_values = [value for value in settings.config.values
                   if value.name in parsed.values and value.from_body]
    if _author_trusted(settings, context) or not (parsed.directives or parsed.errors
                                                   or body_values):
        return True
    trusted = {association.upper() for association in settings.trusted_associations}
    association = (context.author_association or "UNKNOWN").upper()
    report.errors.append(Finding(
        "error",
        f"the pull request body names dependency refs or values, but under "
        f"`{context.event_name}` "
        f"directives are honoured only for authors whose association is one of "
        f"{', '.join(sorted(trusted))} (input `trusted-associations`); this author is "
        f"{association}. This event runs with the repository's secrets, so an untrusted body "
        f"must not choose the code that runs. A maintainer can start a `workflow_dispatch` run "
        f"with the ci_<name>_pr inputs instead.", title="rocm-deps: untrusted author"))
    return False


def _author_trusted(settings: ResolveSettings, context: EventContext) -> bool:
    """Whether this run's PR author may choose code that runs: always, but under privileged events
    only for the trusted associations (docs/architecture.md, *Trust*)."""
    if not context.privileged:
        return True
    trusted = {association.upper() for association in settings.trusted_associations}
    return (context.author_association or "UNKNOWN").upper() in trusted


def _no_lock(config: Config, report: ResolveReport) -> Mapping[str, Any]:
    """Under a privileged event an untrusted author's checkout may hold the lock file: it is
    not read, and a notice says so."""
    if config.lock_file is not None:
        report.notices.append(f"the lock file {config.lock_file} is not read: this privileged "
                              f"event's pull request author is not trusted "
                              f"(input `trusted-associations`), and the working directory may "
                              f"hold their checkout")
    return {}


def _unread_inputs(dispatch: Mapping[str, str], config: Config, report: ResolveReport) -> None:
    """A non-empty `ci_<word>_pr` input that no configured dependency reads would be dropped:
    the run would test the image's copy while the person who filled it in believes not."""
    known = {dependency.dispatch_input for dependency in config.dependencies} | {
        value.dispatch_input for value in config.values}
    for name, value in dispatch.items():
        if name not in known and DEPENDENCY_INPUT.fullmatch(name) and value.strip(WHITESPACE):
            report.errors.append(Finding(
                "error", f"the dispatch input `{name}` (`{value.strip(WHITESPACE)}`) is read "
                         f"by no configured dependency ({config.source} reads "
                         f"{', '.join(sorted(known))}); configure the dependency it names, or "
                         f"leave the input empty", title="rocm-deps: unknown dispatch input"))


def _choose_values(settings: ResolveSettings, dispatch: Mapping[str, str],
                   body: Mapping[str, ValueDirective], report: ResolveReport) -> None:
    """Precedence, per value: --value (a workflow_call input, the PR's own image) > dispatch
    input > body (when the value allows it) > default."""
    for value in settings.config.values:
        explicit = settings.values.get(value.name, "").strip(WHITESPACE)
        given = dispatch.get(value.dispatch_input, "").strip(WHITESPACE)
        line = body.get(value.name)
        if line is not None and not value.from_body:
            report.notices.append(
                f"line {line.line}: `{line.key}: {line.raw}` is not applied: in the "
                f"`{settings.config.profile}` profile {value.name} comes from the dispatch input "
                f"`{value.dispatch_input}` only (body lines name the CUDA suite's image)")
            line = None
        refused = False
        for raw, source in ((explicit, "--value"), (given, f"the dispatch input "
                                                            f"`{value.dispatch_input}`")):
            problem = check_value(raw, value.kind) if raw else None
            if problem is not None:
                refused = True
                report.errors.append(Finding("error", f"{value.name} from {source}: {problem}",
                                             title="rocm-deps: invalid value"))
        if refused:
            continue  # a refused value is reported as an error, never as the value
        if explicit:
            report.values[value.name] = ResolvedValue(explicit, "explicit")
        elif given:
            report.values[value.name] = ResolvedValue(given, "dispatch")
        elif line is not None:
            report.values[value.name] = ResolvedValue(line.raw, "body", line.line)
        elif value.default is not None:
            report.values[value.name] = ResolvedValue(value.default, "default")


def _read_lock(config: Config) -> Mapping[str, Any]:
    if config.lock_file is None:
        return {}
    if not config.lock_file_required and not Path(config.lock_file).exists():
        return {}  # the CUDA profile's release-lock.json exists on release branches only
    return read_json_object(Path(config.lock_file), f"{config.source}: lock-file",
                            LOCK_FILE_LIMIT, "a JSON object with <name>_commit keys")


def _short_sha_message(override: Override) -> str:
    where = f"line {override.line}: " if override.line else ""
    return (f"{where}`{override.raw}` ({override.name}) is an abbreviated commit SHA; "
            f"{full_sha_hint(override.raw)}, or pass a "
            f"`github-token` so the action can expand it through the GitHub API")


# ---- pinning through the API (policy; github_api only answers) ----------------------------


def _pin_overrides(api: GitHubApi, config: Config, report: ResolveReport) -> None:
    """Give every override a full SHA, one request per directive; problems become errors.
    An API that cannot be reached is one error of its own: it says which directives were
    not checked, and nothing more is asked of it."""

    pending = list(report.overrides.items())
    for position, (name, override) in enumerate(pending):
        repository = config.dependency(name).repository
        try:
            report.overrides[name] = _pinned(api, repository, override, report)
        except ApiUnreachable as error:
            unchecked = [f"line {other.line}" if other.line else f"{other.name} "
                         f"({other.source})" for _, other in pending[position:]]
            report.errors.append(Finding(
                "error", f"{error}; not checked: {', '.join(unchecked)}",
                override.line or 0, title="rocm-deps: GitHub API unreachable"))
            return
        except ApiError as error:
            where = f"line {override.line}: " if override.line else ""
            report.errors.append(Finding(
                "error", f"{where}{name} `{override.raw}` ({override.source}): {error}",
                override.line or 0, title=f"rocm-deps: {name}"))


def _pinned(api: GitHubApi, repository: str, override: Override,
            report: ResolveReport) -> Override:
    if override.merge and override.pr is not None:
        return merge_of_pull(api, repository, override, report)
    if override.kind == "pr" and override.pr is not None:
        pull = api.pull(repository, override.pr)
        summary = (f"{override.name}: #{pull.number} ({pull.head_label} into {pull.base_ref}) "
                   f"is {'merged' if pull.merged else pull.state}; testing its head "
                   f"{pull.head_sha}")
        if pull.merged or pull.state == "closed":
            report.warnings.append(Finding(
                "warning", f"{summary}. The PR is no longer open: its head may be behind what "
                           f"was merged into {pull.base_ref}", override.line or 0))
        else:
            report.notices.append(summary)
        return dataclasses.replace(override, sha=pull.head_sha)
    if override.kind == "commit" and override.pr is not None and override.sha is not None:
        return _commit_of_pull(api, repository, override, report)
    sha = api.commit(repository, override.sha or override.ref)
    if override.kind == "short-commit":
        return dataclasses.replace(override, ref=sha, sha=sha)  # install fetches the full SHA
    return dataclasses.replace(override, sha=sha)


def _commit_of_pull(api: GitHubApi, repository: str, override: Override,
                    report: ResolveReport) -> Override:
    """A pull request's commit URL (`…/pull/N/commits/<sha>`) tests that commit: it must be
    one of the pull request's, or the URL names something else than the author believes."""

    commits = api.pull_commits(repository, override.pr or 0)
    if override.sha not in commits:
        raise ApiError(f"{override.sha} is not one of the {len(commits)} commits of pull "
                       f"request #{override.pr}; name one of its commits, or the pull request "
                       f"itself (`#{override.pr}`) to test its head")
    position = commits.index(override.sha) + 1
    head = " (its head)" if position == len(commits) else f" (its head is {commits[-1][:12]})"
    report.notices.append(f"{override.name}: testing commit {override.sha}, commit {position} "
                          f"of {len(commits)} of #{override.pr}{head}")
    return override

