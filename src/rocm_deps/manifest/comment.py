"""What a run tested, kept on the pull request (docs/architecture.md, *What was tested*): the run's
reports in, one manifest comment per suite out, and every suite's manifest read back for
`merge-check --require-tested`.

The reports come from other jobs (under `workflow_run`, from an artifact a fork's workflow
uploaded): each is bounded, validated field by field, and only shown escaped. The comment is
found by its marker (which names the suite) *and* its author: a comment anyone else writes
with the marker is never edited and never believed. Each suite writes only its own comment,
so two suites never overwrite each other's tested commits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rocm_deps.config import REPOSITORY, Config
from rocm_deps.contract.manifest import (
    MARKER_PREFIX,
    RUN_URL,
    InstalledDependency,
    InstallResult,
    Manifest,
    ManifestDocument,
    ManifestRow,
    ManifestRun,
    checked_suite,
    installed_from_json,
    marked_suite,
    marker,
    read_manifest,
    workspace_commit_of,
)
from rocm_deps.contract.overrides import Override, overrides_from_json
from rocm_deps.contract.status import Head, Named, context, judge, named_now
from rocm_deps.errors import FatalError, UsageError
from rocm_deps.files import OVERRIDES_LIMIT, without_lone_surrogates
from rocm_deps.github.answers import ApiError, CommitStatus, IssueComment, PullInfo, Refused
from rocm_deps.github.event import event_context, read_event, read_json_object
from rocm_deps.grammar.refs import FULL_SHA_ANY_CASE
from rocm_deps.manifest.settings import DISPATCH_HEAD, CommentSettings
from rocm_deps.resolve.described import described_through_api
from rocm_deps.resolve.queue import Queued, read_queued

if TYPE_CHECKING:
    from rocm_deps.github.api import GitHubApi

Upsert = Literal["created", "updated", "unchanged", "not needed"]


def collect(settings: CommentSettings, api: GitHubApi) -> tuple[
        ManifestRun, Queued | None, PullInfo | None]:
    """The run's reports and the live state of every dependency pull request they name; on a
    merge group, also what the group's pull requests name (the run is the group's: its
    status goes on the group's commit, and no pull request gets its manifest comment); and
    the pull request as read to check it (workflow_run), so it is not read twice."""
    config = settings.config
    overrides, errors, installs = read_reports(settings.reports, config)
    payload = read_event(settings.event_path)
    repository = event_context(settings.event_name, payload).repository
    if repository is None or not REPOSITORY.fullmatch(repository):
        raise UsageError("the event payload names no repository (repository.full_name): "
                         "comment runs on the event of a workflow run")
    queued = (read_queued(api, repository, payload, config)
              if settings.event_name == "merge_group" else None)
    number, read = ((queued.group.numbers[-1], None) if queued else
                    _pull_request(settings, payload, api, repository))
    head = (settings.head_sha or queued.group.head_sha) if queued else None
    if queued is not None and head is None:
        raise UsageError("the `merge_group` payload gives no merge_group.head_sha: give the "
                         "group's commit as input `head-sha`")
    run_url = settings.run_url or _triggering_run(payload)
    run = ManifestRun(repository, number, run_url, settings.suite or _triggering_suite(payload),
                      resolve_errors=errors,
                      install_labels=tuple(result.label for result in installs),
                      head=head or _tested_head(settings, payload, number),
                      options=config.options)
    if settings.event_name == "workflow_dispatch":
        _checked_out(run.head, installs)
    for name, override in overrides.items():
        dependency = config.dependency(name)
        pull = _pull(api, dependency.repository, override.pr) if override.pr else None
        reported = tuple((result.label, result.dependencies[name]) for result in installs
                         if name in result.dependencies)
        tested = _confirmed(reported)
        run.rows.append(ManifestRow(
            name, override, dependency.repository, tested, reported,
            pull_state=("merged" if pull.merged else pull.state) if pull else None,
            pull_head=pull.head_sha if pull else None))
    return run, queued, read


def _tested_head(settings: CommentSettings, payload: Mapping[str, Any],
                 number: int) -> str:
    """The pull request commit the run tested, where its status goes: `--head-sha`, else the
    triggering run's (workflow_run), the event's head (a pull request event) or a dispatch
    re-test's `head_sha` input. Never the pull request's head now: a push while the suite ran
    must get nothing green for commits it did not test."""
    if settings.head_sha is not None:
        return settings.head_sha
    context = event_context(settings.event_name, payload)
    pull = payload.get("pull_request")
    head = pull.get("head") if isinstance(pull, Mapping) else None
    sha = (context.run.sha if context.run is not None else
           head.get("sha") if isinstance(head, Mapping) and context.pr_number == number
           else context.dispatch_inputs.get(DISPATCH_HEAD))
    if isinstance(sha, str) and FULL_SHA_ANY_CASE.fullmatch(sha):
        return sha.lower()
    raise UsageError(f"this `{settings.event_name or 'unknown'}` event does not say which "
                     f"commit of pull request #{number} the run tested (a workflow_dispatch "
                     f"re-test carries it as the `{DISPATCH_HEAD}` input): give it as input "
                     f"`head-sha` (--head-sha). The pull request's head now may be a commit the "
                     f"run never saw")


def _checked_out(head: str, installs: Sequence[InstallResult]) -> None:
    """A dispatch re-test runs on the default branch and checks the pull request's commit out
    itself: its status may go only on the commit its GPU jobs' install reports say the
    workspace was at. A `head_sha` input that differs, or no report that says, is refused: a
    green on a commit the run never tested is the worst outcome."""
    said = {result.label: result.workspace_commit for result in installs
            if result.workspace_commit is not None}
    if not said:
        raise FatalError(f"a dispatch re-test's status goes only on the commit its jobs checked "
                         f"out, and no install report says which (`workspace_commit`): give "
                         f"the GPU jobs' install reports to `report`; nothing is set on "
                         f"{head[:12]}", title="rocm-deps: comment")
    other = {label: commit for label, commit in said.items() if commit != head}
    if other:
        shown = ", ".join(f"{label} at {commit[:12]}" for label, commit in sorted(other.items()))
        raise FatalError(f"the status would go on {head[:12]} (`head_sha`), but this run "
                         f"checked out another commit ({shown}): refusing to set a status on a "
                         f"commit it did not test; dispatch the re-test with the `head_sha` it "
                         f"checks out", title="rocm-deps: comment")


def _triggering_suite(payload: Mapping[str, Any]) -> str:
    """Under workflow_run, the triggering workflow's name: the suite whose run this is."""
    run = payload.get("workflow_run")
    name = run.get("name") if isinstance(run, Mapping) else None
    if not isinstance(name, str) or not name.strip():
        raise UsageError("the workflow_run payload names no workflow (workflow_run.name): "
                         "give the suite's name (input `suite`)")
    return checked_suite(name.strip(), "the triggering workflow's name (workflow_run.name; "
                                       "give input `suite` instead)")


def _triggering_run(payload: Mapping[str, Any]) -> str:
    """Under workflow_run, the URL of the run that triggered this one, checked like any
    input ("" when absent or not a plain URL)."""
    run = payload.get("workflow_run")
    url = run.get("html_url") if isinstance(run, Mapping) else None
    return url if isinstance(url, str) and RUN_URL.fullmatch(url) else ""


def _confirmed(reported: Sequence[tuple[str, InstalledDependency]]) -> str | None:
    """The commit tested: every install report that names the dependency installed it (or
    found it up to date) at one and the same commit. Resolve's pin alone proves nothing ran."""
    shas = {entry.sha for _, entry in reported}
    if not reported or len(shas) != 1 or not all(
            entry.state in ("installed", "up-to-date") for _, entry in reported):
        return None
    return shas.pop()


def read_reports(paths: Sequence[Path], config: Config) -> tuple[
        dict[str, Override], int, list[InstallResult]]:
    """Exactly one resolve report (it has `overrides`) and any install reports."""
    names = tuple(dependency.name for dependency in config.dependencies)
    resolved: list[tuple[dict[str, Override], int]] = []
    installs: list[InstallResult] = []
    for path in paths:
        where = f"report {path}"
        document = read_json_object(path, "the report", OVERRIDES_LIMIT)
        if "overrides" in document:
            errors = document.get("errors")
            resolved.append((overrides_from_json(document, names, where),
                             len(errors) if isinstance(errors, list) else 0))
        else:
            installs.append(InstallResult(_label(path), installed_from_json(document, names,
                                                                            where),
                                          workspace_commit_of(document, where)))
    if len(resolved) != 1:
        raise UsageError(f"comment needs exactly one resolve report among --report files "
                         f"(one with `overrides`); got {len(resolved)}")
    return resolved[0][0], resolved[0][1], installs


def _label(path: Path) -> str:
    """How an install report is named in the comment: its file, or the directory an artifact
    download put it in when the file has a generic name."""
    stem = path.stem
    label = path.parent.name if stem in ("report", "install", "install-report") and (
        path.parent.name) else stem
    return without_lone_surrogates(label)  # a file name that is not UTF-8


def _pull_request(settings: CommentSettings, payload: Mapping[str, Any], api: GitHubApi,
                  repository: str) -> tuple[int, PullInfo | None]:
    """The pull request to comment on. Under workflow_run the trusted payload's
    `pull_requests` decides; only where GitHub leaves it empty (forks) does the number come
    from the artifact (`--pr`), and it is believed only when that pull request's head is the
    commit the triggering run tested, from the trusted payload."""
    context = event_context(settings.event_name, payload)
    number = context.pr_number
    if context.run is not None:
        head = context.run.sha
        if number is not None and settings.pr is not None and settings.pr != number:
            raise FatalError(f"--pr {settings.pr} (from the run's artifact) is not the "
                             f"triggering run's pull request #{number} (its payload's "
                             f"workflow_run.pull_requests): refusing to comment on it",
                             title="rocm-deps: comment")
        number = number if number is not None else settings.pr
        if number is None or not isinstance(head, str) or not FULL_SHA_ANY_CASE.fullmatch(head):
            raise UsageError("under workflow_run, comment needs --pr (input `pr`) and the "
                             "payload's workflow_run.head_sha")
        pull = _pull(api, repository, number)
        if pull.head_sha != head.lower():
            raise FatalError(f"pull request #{number}'s head is {pull.head_sha[:12]}, the run "
                             f"tested {head.lower()[:12]}: refusing to comment there (the "
                             f"number came from the run's artifact, or the pull request moved "
                             f"since the run)", title="rocm-deps: comment")
        # The same commit on another fork's branch is another pull request's run: a fork that
        # pushes the victim's head commit must not write the victim's manifest.
        run_repository, run_branch = context.run.repository, context.run.branch
        if not (run_repository and run_branch and pull.head_repository
                and run_repository.casefold() == pull.head_repository.casefold()
                and run_branch == pull.head_ref):
            raise FatalError(f"pull request #{number}'s head is {pull.head_repository or '?'}:"
                             f"{pull.head_ref or '?'}, the triggering run's is "
                             f"{run_repository or '?'}:{run_branch or '?'}: refusing to comment "
                             f"there (same commit, another pull request's run)",
                             title="rocm-deps: comment")
        return number, pull
    if number is None:
        number = settings.pr
    elif settings.pr is not None and settings.pr != number:
        raise UsageError(f"--pr {settings.pr} is not the event's pull request #{number}")
    if number is None:
        raise UsageError(f"this `{settings.event_name or 'unknown'}` event names no pull "
                         f"request: give --pr (input `pr`)")
    return number, None


def _pull(api: GitHubApi, repository: str, number: int) -> PullInfo:
    try:
        return api.pull(repository, number)
    except ApiError as error:
        raise FatalError(f"could not read pull request #{number}: {error}") from None


def own_manifest(comments: Sequence[IssueComment], author: str,
                 suite: str) -> IssueComment | None:
    """`suite`'s comment: the oldest that opens with its marker and is written by `author`;
    others are look-alikes. (Every workflow that comments with GITHUB_TOKEN writes as the
    same bot.)"""
    first_line = marker(suite)
    return next((comment for comment in comments if comment.author == author
                 and comment.body.split("\n", 1)[0] == first_line), None)


def look_alikes(comments: Sequence[IssueComment], author: str) -> list[IssueComment]:
    return [comment for comment in comments
            if comment.author != author and comment.body.startswith(MARKER_PREFIX)]


# A comment of the bot's carries a marker but no manifest this version can read.
UNREADABLE: Literal["unreadable"] = "unreadable"


def tested_manifest(api: GitHubApi, repository: str, number: int,
                    author: str) -> ManifestDocument | Literal["unreadable"] | None:
    """What the bot's manifest comments on pull request `number` say each suite tested (a
    suite's own comment over the shared comment of release 1.0); None when there is no such
    comment, UNREADABLE when one cannot be read (a quoted value must not make the guard
    believe nothing was ever tested)."""

    try:
        comments = api.comments(repository, number)
    except ApiError as error:
        raise FatalError(f"could not read the comments of pull request #{number}: "
                         f"{error}") from None
    return manifests(comments, author)[0]


def manifests(comments: Sequence[IssueComment], author: str) -> tuple[
        ManifestDocument | Literal["unreadable"] | None, dict[str, str]]:
    """What `author`'s manifest comments among `comments` say (as `tested_manifest`), and the
    URL of each suite's comment."""
    shared: dict[str, Manifest] = {}
    own: dict[str, Manifest] = {}
    urls: dict[str, str] = {}
    found = unreadable_shared = False
    for comment in comments:
        if comment.author != author or not comment.body.startswith(MARKER_PREFIX):
            continue
        suite = marked_suite(comment.body)
        document = read_manifest(comment.body)
        if suite == "" and document is None:
            unreadable_shared = True  # a shared comment of an older version: see below
            continue
        if suite is None or document is None or (suite and set(document.suites) != {suite}):
            return UNREADABLE, urls
        found = True
        target = own if suite else shared
        for name, manifest in document.suites.items():
            target.setdefault(name, manifest)  # the oldest comment of a suite counts
            urls.setdefault(name, comment.url)
    # A shared comment nobody can read blinds nothing once the suites write their own (it is
    # never written again); before that, it is unreadable.
    if unreadable_shared and not own:
        return UNREADABLE, urls
    return (ManifestDocument({**shared, **own}) if found else None), urls


@dataclass(frozen=True)
class Written:
    action: Upsert
    body: str  # the body this step wrote (or found written)
    ignored: list[int]  # look-alike comments by others, left alone
    url: str = ""  # the comment's own URL ("" when there is none)


def upsert(api: GitHubApi, run: ManifestRun, body: str, author: str) -> Written:
    """Create or update `run`'s suite comment with `body`. Nothing named and no comment yet:
    no comment."""

    try:
        comments = api.comments(run.repository, run.number)
        own = own_manifest(comments, author, run.suite)
        ignored = [comment.id for comment in look_alikes(comments, author)]
        if own is None:
            if not run.rows:
                return Written("not needed", body, ignored)
            created = api.create_comment(run.repository, run.number, body)
            return Written("created", body, ignored, created.url)
        if own.body == body:
            return Written("unchanged", body, ignored, own.url)
        edited = api.edit_comment(run.repository, own.id, body)
        return Written("updated", body, ignored, edited.url or own.url)
    except ApiError as error:
        raise FatalError(f"could not write the manifest comment on pull request "
                         f"#{run.number}: {error}. The token needs `pull-requests: write` "
                         f"(a fork's pull_request token never has it: see the workflow_run "
                         f"example)", title="rocm-deps: comment") from None


def named_now_of(api: GitHubApi, run: ManifestRun, config: Config, queued: Queued | None,
                 read: PullInfo | None = None) -> tuple[list[Named], list[str]]:
    """What is named now, and the errors of its description(s): the pull request's live
    description with its stack (a re-run of failed jobs or a dispatch re-test hands this step
    an earlier report), or what the merge group's pull requests name together."""
    if queued is None:
        now = described_through_api(api, run.repository,
                                    read or _pull(api, run.repository, run.number), config)
        return now.named, now.errors

    def expand(repository: str, abbreviation: str) -> str:
        try:
            return api.commit(repository, abbreviation)
        except ApiError as error:
            raise ValueError(str(error)) from None

    named, unexpanded = named_now((item.directive for item in queued.directives.values()),
                                  config, expand)
    return named, [*(finding.message for finding in queued.findings
                     if finding.level == "error"), *unexpanded]


def set_status(api: GitHubApi, run: ManifestRun, url: str, named: list[Named],
               errors: list[str]) -> tuple[CommitStatus, str | None]:
    """The suite's commit status on the commit the run tested (`run.head`: the pull
    request's, or the merge group's): what the run tested (its manifest) judged against
    what is `named` now, so a fresh run shows at once whether it tested what is named
    (nothing named: `success`)."""

    known = {(row.repository.lower(), row.override.pr): Head(
        row.pull_head, row.pull_state == "merged") for row in run.rows
        if row.override.pr is not None and row.pull_head is not None}
    heads = {key: known.get(key) or _head(api, key) for key in
             {(item.repository.lower(), item.pr) for item in named if item.pr is not None}}
    judgement = judge(named, run.manifest, heads,
                      [*errors, *["see the suite's resolve step"] * run.resolve_errors],
                      run.head)
    status = CommitStatus(context(run.suite), judgement.state, judgement.description, url)
    head = run.head
    try:
        api.create_status(run.repository, head, status)
    except Refused as error:
        # A token without `statuses: write` (a workflow written for 1.0): the manifest
        # comment stands, and the missing status keeps a required check waiting, never green.
        return status, (f"the `{status.context}` commit status is not set on {head[:12]}: "
                        f"{error}. Grant the job `statuses: write`")
    except ApiError as error:
        written = "the manifest comment is written, but not" if url else "could not set"
        # Refused (a permission) is above: this is the API failing, which a re-run may not.
        raise FatalError(f"{written} the `{status.context}` commit status on {head[:12]}: "
                         f"{error}. Re-run the job",
                         title="rocm-deps: comment") from None
    return status, None


def _head(api: GitHubApi, key: tuple[str, int]) -> Head:
    """A dependency pull request the description names now, as it is now."""
    pull = _pull(api, *key)
    return Head(pull.head_sha, pull.merged)
