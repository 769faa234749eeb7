"""`rocm-deps comment` and `merge-check --require-tested` (architecture §10) against the local API
stand-in: exact request lists, one comment across runs, look-alikes ignored, hostile
report files refused or escaped."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest

from rocm_deps.contract.install import DependencyReport, InstallReport, PatchOutcome
from rocm_deps.contract.manifest import (
    SHARED_MARKER,
    Manifest,
    ManifestDocument,
    ManifestEntry,
    marker,
    read_manifest,
)
from rocm_deps.contract.overrides import CONFIG_KEY, RUN_KEY
from tests.conftest import Cli, CliResult, EventWriter
from tests.fake_github import FakeGitHub
from tests.markdown_oracle import render

TOKEN = "ghp_rocmdepsCOMMENTtoken0123456789abcdef"
HEAD_102 = "2" * 40
MOVED = "7" * 40
MILES_HEAD = "5" * 40
RUN = "https://github.com/radixark/miles/actions/runs/42"
COMMENTS = "/repos/radixark/miles/issues/7/comments"
LIST = f"GET {COMMENTS}?page=1&per_page=100"
SUITE = "ROCm CI"
STATUS = f"POST /repos/radixark/miles/statuses/{MILES_HEAD}"  # the suite's status on the head
READ = "GET /repos/radixark/miles/pulls/7"  # the description now, which the status judges


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.repository("sgl-project/sglang").add_pull(102, HEAD_102)  # open
        fake.repository("sgl-project/sglang").add_pull(101, "1" * 40, state="closed",
                                                       merged=True)
        fake.repository("radixark/miles").add_pull(7, MILES_HEAD, body="ci-sglang-pr: #102")
        yield fake


class Run(Protocol):
    def __call__(self, body: str, *extra: str, installs: tuple[Path, ...] | None = None,
                 event: str = "pull_request", payload: dict[str, Any] | None = None,
                 live: str | None = None) -> CliResult: ...


@pytest.fixture
def comment(cli: Cli, tmp_path: Path, write_event: EventWriter, github: FakeGitHub,
            config: Path) -> Run:
    """Resolve `body` (with the token: SHAs pinned), then run `comment` on its report and
    `installs` (default: one GPU job's report that installed every pinned commit); the API
    log holds only the comment's requests. `live`: the description when comment runs, when
    it was edited after resolve read `body` (a re-run of failed jobs)."""
    env = {"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": TOKEN,
           "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "radixark/miles",
           "GITHUB_RUN_ID": "42", "GITHUB_WORKFLOW": SUITE}

    def invoke(body: str, *extra: str, installs: tuple[Path, ...] | None = None,
               event: str = "pull_request", payload: dict[str, Any] | None = None,
               live: str | None = None) -> CliResult:
        path = write_event(body, number=7, repository="radixark/miles", head=MILES_HEAD)
        github.repository("radixark/miles").pulls[7]["body"] = body  # the live description
        report, resolved = resolve_report(cli, path, config, env, tmp_path)
        if live is not None:
            github.repository("radixark/miles").pulls[7]["body"] = live
        if installs is None:
            installs = (installed_everything(resolved, tmp_path),)
        if payload is not None:
            path = write_event(payload=payload, repository="radixark/miles")
        github.log.clear()
        github.requests.clear()  # `fail_first` counts the comment's requests
        return cli("comment", "--event-name", event, "--event-path", path, "--config",
                   str(config), "--report", str(report),
                   *(item for install in installs for item in ("--report", str(install))),
                   "--github-token-env", "TEST_GITHUB_TOKEN", "--format", "json", *extra,
                   env=env)

    return invoke


def resolve_report(cli: Cli, event: str, config: Path, env: dict[str, str],
                   tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """resolve on the pull_request event `event`, with the token: its report's file, and
    the report."""
    resolved = cli("resolve", "--event-name", "pull_request", "--event-path", event,
                   "--config", str(config), "--format", "json",
                   "--github-token-env", "TEST_GITHUB_TOKEN", env=env)
    assert resolved.code == 0, resolved.stderr
    report = tmp_path / f"resolve-{len(list(tmp_path.glob('resolve-*')))}.json"
    report.write_text(resolved.stdout)
    return report, json.loads(resolved.stdout)


def data(run: str, tested: dict[str, ManifestEntry], suite: str = SUITE) -> str:
    """The data block of a manifest with one suite's section."""
    return ManifestDocument({suite: Manifest(run, tested)}).data_block()


def section_of(body: str, suite: str = SUITE) -> Manifest:
    """`suite`'s section of a comment body's data block."""
    document = read_manifest(body)
    assert document is not None, body
    return document.suites[suite]


def thread(github: FakeGitHub) -> list[dict[str, Any]]:
    return github.repository("radixark/miles").comments.get(7, [])


def installed_everything(resolved: dict[str, Any], tmp_path: Path,
                         workspace_commit: str | None = None) -> Path:
    """The install report of a GPU job that installed every commit resolve pinned (into a
    workspace checked out at `workspace_commit`)."""
    dependencies = {}
    for name, override in resolved["overrides"].items():
        if name in (RUN_KEY, CONFIG_KEY):  # the run that resolved and its configuration
            continue
        dependencies[name] = DependencyReport(name, override["source"], override["ref"],
                                              override["sha"], commit=override["sha"],
                                              state="installed")
    path = tmp_path / f"gpu-{len(list(tmp_path.glob('gpu-*')))}" / "install-mi350.json"
    path.parent.mkdir()
    path.write_text(json.dumps(InstallReport(False, "python3", dependencies,
                                             workspace_commit=workspace_commit).to_json()))
    return path


def install_report(tmp_path: Path, name: str, *, sha: str = HEAD_102,
                   version: str = "0.5.16.dev201+g2222222", state: str = "installed",
                   patch: str = "sglang.patch") -> Path:
    dependency = DependencyReport("sglang", "body", "refs/pull/102/head", sha, commit=sha)
    dependency.state = state  # type: ignore[assignment]
    dependency.version = version
    dependency.patches.append(PatchOutcome(patch, "applied", "0" * 64))
    report = InstallReport(dry_run=False, python="/usr/bin/python3",
                           dependencies={"sglang": dependency})
    path = tmp_path / name
    path.write_text(json.dumps(report.to_json()))
    return path


def test_the_first_run_creates_one_comment_with_what_was_tested(
        comment: Run, github: FakeGitHub, tmp_path: Path) -> None:
    gpu = install_report(tmp_path, "mi350-1.json")
    result = comment("Testing the fix.\n\nci-sglang-pr: #102\n", installs=(gpu,))
    assert result.code == 0, result.stderr
    # Written once: no read-back, no second write (each suite has a comment of its own).
    assert github.log == ["GET /repos/sgl-project/sglang/pulls/102", LIST, f"POST {COMMENTS}",
                          READ, STATUS]
    [posted] = thread(github)
    assert posted["user"]["login"] == "github-actions[bot]"
    body = posted["body"]
    assert body.startswith(f"<!-- rocm-deps:manifest suite={SUITE} -->\n")
    assert f"\n#### Suite `{SUITE}`\n" in body
    assert ("| `sglang` | `body, line 3: #102` | [sgl-project/sglang#102](https://github.com/"
            "sgl-project/sglang/pull/102) open | `222222222222` | `sglang.patch: applied` | "
            "`mi350-1: installed, 0.5.16.dev201+g2222222` |") in body
    assert f"Run: {RUN}" in body
    # The reproduction reads the configuration the run read (here the step's `config`).
    assert (f"rocm-deps install --config {tmp_path / 'api.toml'} --overrides "
            "'{\"sglang\":{\"ref\":\"refs/pull/102/head\","
            f"\"sha\":\"{HEAD_102}\"}}}}'") in body
    assert read_manifest(body) == ManifestDocument({SUITE: Manifest(RUN, {"sglang": ManifestEntry(
        "sgl-project/sglang", "refs/pull/102/head", HEAD_102, 102, source="body")},
        head=MILES_HEAD)})
    assert json.loads(result.stdout)["action"] == "created"
    assert result.outputs["comment"] == "created"
    # What GitHub shows: the table renders, the marker and the data block stay hidden.
    shown = render(body)
    assert "<table>" in shown and "rocm-deps:data" in shown
    assert "rocm-deps:data" not in shown.replace("<!-- rocm-deps:data", "")


def test_a_second_run_updates_the_comment_in_place(comment: Run, github: FakeGitHub) -> None:
    assert comment("ci-sglang-pr: #102").code == 0
    [first] = thread(github)
    github.repository("sgl-project/sglang").pulls[102]["head"]["sha"] = MOVED
    result = comment("ci-sglang-pr: #102")
    assert result.code == 0, result.stderr
    assert github.log == ["GET /repos/sgl-project/sglang/pulls/102", LIST,
                          f"PATCH /repos/radixark/miles/issues/comments/{first['id']}", READ, STATUS]
    [updated] = thread(github)
    assert updated["id"] == first["id"]
    assert section_of(updated["body"]).tested["sglang"].sha == MOVED


def statuses(github: FakeGitHub) -> list[dict[str, Any]]:
    """The statuses on the Miles pull request's head, newest first."""
    return github.repository("radixark/miles").statuses.get(MILES_HEAD, [])


def test_the_comment_sets_the_suites_status_on_the_tested_head(
        comment: Run, github: FakeGitHub) -> None:
    assert comment("ci-sglang-pr: #102").code == 0
    [posted] = thread(github)
    [status] = statuses(github)
    assert (status["context"], status["state"], status["description"], status["target_url"]) == (
        f"rocm-deps: {SUITE}", "success", "tested sglang#102 at 2222222",
        f"https://github.com/radixark/miles/pull/7#issuecomment-{posted['id']}")


def test_a_dependency_that_moved_during_the_run_is_a_failure_at_once(
        comment: Run, github: FakeGitHub, tmp_path: Path) -> None:
    """The GPU job installed #102's old head; the pull request has moved since."""
    github.repository("sgl-project/sglang").pulls[102]["head"]["sha"] = MOVED
    result = comment("ci-sglang-pr: #102", installs=(install_report(tmp_path, "mi350.json"),))
    assert result.code == 0, result.stderr
    assert [(s["state"], s["description"]) for s in statuses(github)] == [
        ("failure", "sglang#102 moved 2222222→7777777 since tested")]


def test_a_token_that_cannot_write_statuses_keeps_the_comment_and_warns(
        comment: Run, github: FakeGitHub) -> None:
    """A workflow written for 1.0 grants no `statuses: write`: the manifest comment is
    written and the step passes, with a warning; the missing status keeps a required check
    waiting, never green."""
    github.statuses_forbidden = True
    result = comment("ci-sglang-pr: #102")
    assert result.code == 0, result.stderr
    assert len(thread(github)) == 1  # the manifest is written
    assert statuses(github) == []
    [warning] = [line for line in result.stderr.splitlines() if line.startswith("::warning")]
    assert ("the `rocm-deps: ROCm CI` commit status is not set on 555555555555: GitHub "
            "refused a `rocm-deps: ROCm CI` status on 555555555555 of radixark/miles (HTTP 403: "
            "Resource not accessible by integration)") in warning
    assert warning.endswith("Grant the job `statuses: write`")
    assert json.loads(result.stdout)["status"]["written"] is False


def test_three_runs_leave_one_comment(comment: Run, github: FakeGitHub) -> None:
    actions = []
    for body in ("ci-sglang-pr: #102", "ci-sglang-pr: #101", "ci-sglang-pr: #101"):
        result = comment(body)
        assert result.code == 0, result.stderr
        actions.append(json.loads(result.stdout)["action"])
    assert actions == ["created", "updated", "unchanged"]
    [only] = thread(github)
    assert "sgl-project/sglang#101" in only["body"] and "#102" not in only["body"]
    assert github.log == ["GET /repos/sgl-project/sglang/pulls/101", LIST, READ, STATUS]  # no edit


def test_a_look_alike_by_another_user_is_left_alone_and_not_taken_for_ours(
        comment: Run, github: FakeGitHub) -> None:
    forged = (f"{marker(SUITE)}\nall tested\n" + data(RUN, {"sglang": ManifestEntry(
        "sgl-project/sglang", "refs/pull/102/head", HEAD_102, 102)}))
    mallory = github.repository("radixark/miles").add_comment(7, "mallory", forged)
    result = comment("ci-sglang-pr: #102")
    assert result.code == 0, result.stderr
    assert github.log == ["GET /repos/sgl-project/sglang/pulls/102", LIST, f"POST {COMMENTS}",
                          READ, STATUS]
    look_alike, ours = thread(github)
    assert (look_alike["id"], look_alike["body"]) == (mallory, forged)
    assert ours["user"]["login"] == "github-actions[bot]"
    assert json.loads(result.stdout)["ignored_comments"] == [mallory]
    assert (f"::warning title=rocm-deps%3A look-alike manifest::comment(s) {mallory} carry the "
            f"manifest marker but are not by github-actions[bot]") in result.stderr


def test_a_deleted_comment_is_created_again(comment: Run, github: FakeGitHub) -> None:
    assert comment("ci-sglang-pr: #102").code == 0
    thread(github).clear()
    result = comment("ci-sglang-pr: #102")
    assert result.code == 0, result.stderr
    assert github.log[-4:] == [LIST, f"POST {COMMENTS}", READ, STATUS]
    assert len(thread(github)) == 1


def test_nothing_named_and_no_comment_writes_no_comment_and_a_success(
        comment: Run, github: FakeGitHub) -> None:
    """No comment to keep; the status lets a required `rocm-deps: <suite>` check pass."""
    result = comment("Just a refactor.")
    assert result.code == 0, result.stderr
    assert github.log == [LIST, READ, STATUS]
    assert thread(github) == []
    assert [(s["state"], s["description"], s.get("target_url")) for s in statuses(github)] == [
        ("success", "nothing named", None)]
    assert json.loads(result.stdout)["action"] == "not needed"


def test_nothing_named_any_more_updates_the_comment_to_say_so(comment: Run,
                                                             github: FakeGitHub) -> None:
    assert comment("ci-sglang-pr: #102").code == 0
    result = comment("The fix landed; back to the image's SGLang.")
    assert result.code == 0, result.stderr
    [only] = thread(github)
    assert "Nothing is named now" in only["body"]
    assert read_manifest(only["body"]) == ManifestDocument({SUITE: Manifest(RUN, {},
                                                                            MILES_HEAD)})


def test_a_rate_limited_answer_is_retried(comment: Run, github: FakeGitHub) -> None:
    github.fail_first, github.fail_status = 1, 403
    github.fail_headers = {"Retry-After": "1"}
    result = comment("ci-sglang-pr: #102")
    assert result.code == 0, result.stderr
    assert github.log == ["GET /repos/sgl-project/sglang/pulls/102"] * 2 + [
        LIST, f"POST {COMMENTS}", READ, STATUS]


HOSTILE = "<img src=x onerror=alert(1)> [click](https://evil.example) **bold** | `x`"


def test_markdown_and_html_in_report_fields_are_escaped(comment: Run, github: FakeGitHub,
                                                        tmp_path: Path) -> None:
    gpu = install_report(tmp_path, "[a](https:evil.example) <b>.json", version=HOSTILE,
                         patch=HOSTILE)
    result = comment("ci-sglang-pr: #102", installs=(gpu,))
    assert result.code == 0, result.stderr
    [posted] = thread(github)
    shown = render(posted["body"])
    assert "<img" not in shown and "evil.example\"" not in shown and "<strong>" not in shown
    # The links are the dependency pull request's and the run's (autolinked), nothing else.
    assert re.findall(r'<a href="([^"]*)"', shown) == [
        "https://github.com/sgl-project/sglang/pull/102", RUN]
    assert shown.count("<tr>") == 2  # the header and one row: no `|` split the table


@pytest.mark.parametrize(("document", "problem"), [
    ({"version": 1, "dependencies": {"sglang": {"sha": 123, "patches": {}}}},
     "`sha` must be a full lowercase hex SHA or null"),
    ({"version": 1, "dependencies": {"sglang": {"state": "pwned", "patches": {}}}},
     "`state` 'pwned' is not one install writes"),
    ({"version": 1, "dependencies": {"vllm": {"patches": {}}}},
     "`vllm` is not a configured dependency"),
    ({"version": 1, "dependencies": {"sglang": {"version": "x" * 201, "patches": {}}}},
     "`version` must be a string of at most 200 characters"),
    ({"version": 1, "dependencies": {"sglang": {"patches": {"p": {"state": "done"}}}}},
     "patch 'p' has no valid `state`"),
    ({"version": 2, "dependencies": {}}, "not an install report of version 1"),
    ([1, 2], "expected a JSON object"),
])
def test_a_report_with_wrong_types_is_refused_before_anything_is_written(
        comment: Run, github: FakeGitHub, tmp_path: Path, document: object,
        problem: str) -> None:
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps(document))
    result = comment("ci-sglang-pr: #102", installs=(path,))
    assert result.code == 2
    assert problem in result.stderr
    assert github.log == [] and thread(github) == []


def test_an_oversized_report_is_refused_unread(comment: Run, github: FakeGitHub,
                                               tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    path.write_text('{"version": 1, "dependencies": {}, "pad": "' + "x" * (1024 * 1024) + '"}')
    result = comment("ci-sglang-pr: #102", installs=(path,))
    assert result.code == 2
    assert f"the report {path} is larger than 1,024 KiB; refusing to read it" in result.stderr
    assert github.log == []


def workflow_run(head: str, repository: str = "radixark/miles",
                 branch: str = "feature-7") -> dict[str, Any]:
    return {"workflow_run": {"name": SUITE, "head_sha": head, "pull_requests": [],
                             "event": "pull_request", "head_branch": branch,
                             "head_repository": {"full_name": repository},
                             "html_url": "https://github.com/radixark/miles/actions/runs/77"}}


def test_under_workflow_run_the_artifacts_pr_number_must_match_the_runs_head(
        comment: Run, github: FakeGitHub) -> None:
    result = comment("ci-sglang-pr: #102", "--pr", "7", event="workflow_run",
                     payload=workflow_run(MILES_HEAD))
    assert result.code == 0, result.stderr
    [posted] = thread(github)
    assert "Run: https://github.com/radixark/miles/actions/runs/77" in posted["body"]
    assert github.log[0] == "GET /repos/radixark/miles/pulls/7"


def test_under_workflow_run_a_pr_number_that_does_not_match_is_refused(
        comment: Run, github: FakeGitHub) -> None:
    result = comment("ci-sglang-pr: #102", "--pr", "7", event="workflow_run",
                     payload=workflow_run("9" * 40))
    assert result.code == 1
    assert ("pull request #7's head is 555555555555, the run tested 999999999999: refusing to "
            "comment there") in result.stderr
    assert github.log == ["GET /repos/radixark/miles/pulls/7"]
    assert thread(github) == []


@pytest.mark.parametrize(("repository", "branch"), [("mallory/miles", "feature-7"),
                                                   ("radixark/miles", "mallorys-branch")],
                         ids=["a-fork", "another-branch"])
def test_a_run_of_the_same_commit_on_another_branch_cannot_write_the_manifest(
        comment: Run, github: FakeGitHub, repository: str, branch: str) -> None:
    """A fork pushes the victim's head commit to its own branch and opens a pull request:
    its run's artifact names the victim's number, with the same head_sha."""
    result = comment("ci-sglang-pr: #102", "--pr", "7", event="workflow_run",
                     payload=workflow_run(MILES_HEAD, repository, branch))
    assert result.code == 1
    assert (f"pull request #7's head is radixark/miles:feature-7, the triggering run's is "
            f"{repository}:{branch}: refusing to comment there") in result.stderr
    assert thread(github) == []


# ---- merge-check --require-tested ---------------------------------------------------------


class Guard(Protocol):
    def __call__(self, body: str, *extra: str, event: str = "pull_request") -> CliResult: ...


@pytest.fixture
def guard(cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> Guard:
    def invoke(body: str, *extra: str, event: str = "pull_request") -> CliResult:
        if event == "merge_group":
            github.repository("radixark/miles").pulls[7]["body"] = body
            github.repository("radixark/miles").comparisons[f"{'b' * 40}...{'c' * 40}"] = [
                "Testing the fix (#7)"]
            path = write_event(payload={"merge_group": {
                "head_ref": f"refs/heads/gh-readonly-queue/main/pr-7-{'c' * 40}",
                "base_sha": "b" * 40, "head_sha": "c" * 40}}, repository="radixark/miles")
        else:
            path = write_event(body, number=7, repository="radixark/miles", head=MILES_HEAD)
            github.repository("radixark/miles").pulls[7]["body"] = body  # the live body
        return cli("merge-check", "--event-name", event, "--event-path", path, "--config",
                   str(config), "--require-tested", "--policy", "warn", "--format", "json",
                   "--github-token-env", "TEST_GITHUB_TOKEN", *extra,
                   env={"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": TOKEN})

    return invoke


def test_require_tested_passes_while_the_tested_head_is_current(
        comment: Run, guard: Guard, github: FakeGitHub) -> None:
    assert comment("ci-sglang-pr: #102").code == 0
    github.log.clear()
    result = guard("ci-sglang-pr: #102")
    assert result.code == 0, result.stderr
    assert github.log == ["GET /repos/radixark/miles/pulls/7",  # the live body
                          "GET /repos/sgl-project/sglang/pulls/102", LIST,
                          STATUS]  # the guard's verdict, as a status
    assert json.loads(result.stdout)["errors"] == []


def test_require_tested_fails_once_the_dependency_moves(comment: Run, guard: Guard,
                                                        github: FakeGitHub) -> None:
    assert comment("ci-sglang-pr: #102").code == 0
    github.repository("sgl-project/sglang").pulls[102]["head"]["sha"] = MOVED
    result = guard("ci-sglang-pr: #102")
    assert result.code == 1
    [error] = json.loads(result.stdout)["errors"]
    assert error["message"] == (
        f"pull request #7: suite `{SUITE}` ({RUN}): sglang#102 moved 2222222→7777777 since "
        f"tested. Re-run the suite so that CI tests what the description names now")
    assert "::error title=rocm-deps%3A tested dependency moved::" in result.stderr


def test_require_tested_fails_when_the_named_pr_is_not_the_tested_one(
        comment: Run, guard: Guard) -> None:
    assert comment("ci-sglang-pr: #101").code == 0
    result = guard("ci-sglang-pr: #102")
    assert result.code == 1
    assert f"suite `{SUITE}` ({RUN}): sglang#102 not tested by this run" in result.stderr


@pytest.mark.parametrize(("event", "code", "level"), [("merge_group", 1, "error"),
                                                      ("pull_request", 0, "warning")])
def test_without_a_manifest_a_merge_group_fails_and_a_pull_request_warns(
        guard: Guard, github: FakeGitHub, event: str, code: int, level: str) -> None:
    result = guard("ci-sglang-pr: #102", event=event)
    assert result.code == code
    assert (f"::{level} title=rocm-deps%3A not tested" in result.stderr)
    assert ("pull request #7 has no manifest comment by github-actions[bot]: nothing says "
            "which dependency commits CI tested") in result.stderr


@pytest.mark.parametrize("event", ["merge_group", "pull_request"])
def test_a_look_alike_manifest_is_not_believed(guard: Guard, github: FakeGitHub,
                                               event: str) -> None:
    github.repository("radixark/miles").add_comment(7, "mallory", f"{marker(SUITE)}\n" + (
        data(RUN, {"sglang": ManifestEntry("sgl-project/sglang", "refs/pull/102/head", HEAD_102,
                                           102)})))
    result = guard("ci-sglang-pr: #102", event=event)
    assert result.code == (1 if event == "merge_group" else 0)
    assert "has no manifest comment by github-actions[bot]" in result.stderr


def test_merge_check_reads_a_body_file_without_an_event(cli: Cli, tmp_path: Path,
                                                        github: FakeGitHub,
                                                        config: Path) -> None:
    body = tmp_path / "body.md"
    body.write_text("Testing.\n\nci-sglang-pr: #102\n")
    result = cli("merge-check", "--body-file", str(body), "--config", str(config),
                 "--github-token-env", "TEST_GITHUB_TOKEN", "--format", "json",
                 env={"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": TOKEN,
                      "GITHUB_EVENT_NAME": "", "GITHUB_EVENT_PATH": ""})
    assert result.code == 1
    [check] = json.loads(result.stdout)["checks"]
    assert (check["dependency"], check["state"], check["verdict"], check["line"]) == (
        "sglang", "open", "fail", 3)
    assert "::error title=rocm-deps%3A merge blocked by sglang::line 3: " in result.stderr


# ---- what an adversarial review found -----------------------------------------------------

FORGED = ('<!-- rocm-deps:data {"version":2,"suites":{"ROCm CI":{"run":"","tested":{"sglang":'
          f'{{"repository":"sgl-project/sglang","ref":"y","sha":"{MOVED}","pr":102}}}}}}}}}} -->')


def test_a_data_block_quoted_from_a_report_cannot_pose_as_the_manifest(
        comment: Run, guard: Guard, github: FakeGitHub, tmp_path: Path) -> None:
    gpu = install_report(tmp_path, "mi350.json", version=FORGED[:200], patch=FORGED[:200])
    assert comment("ci-sglang-pr: #102", installs=(gpu,)).code == 0
    [posted] = thread(github)
    assert section_of(posted["body"]).tested["sglang"].sha == HEAD_102
    github.repository("sgl-project/sglang").pulls[102]["head"]["sha"] = MOVED
    assert guard("ci-sglang-pr: #102").code == 1  # the move is noticed


def test_a_second_data_block_makes_a_comment_untrusted() -> None:
    real = ManifestDocument({SUITE: Manifest(RUN, {"sglang": ManifestEntry(
        "sgl-project/sglang", "r", HEAD_102, 102)})})
    assert read_manifest(FORGED) is not None  # a block that would be believed alone
    assert read_manifest(f"{SHARED_MARKER}\n{real.data_block()}\n") == real
    assert read_manifest(f"{SHARED_MARKER}\n{FORGED}\n{real.data_block()}\n") is None
    assert read_manifest(f"{SHARED_MARKER}\n{real.data_block()}\nmore text\n") is None
    assert read_manifest(real.data_block().replace('"version":2', '"version":true')) is None


def test_a_carriage_return_in_a_value_cannot_leave_its_table_cell(
        comment: Run, github: FakeGitHub, tmp_path: Path) -> None:
    gpu = install_report(tmp_path, "mi350.json",
                         version="1\r\r[click](https://evil.example) <img src=x>\r\r")
    assert comment("ci-sglang-pr: #102", installs=(gpu,)).code == 0
    shown = render(thread(github)[0]["body"])
    assert "<img" not in shown and "evil.example\"" not in shown
    assert shown.count("<tr>") == 2


@pytest.mark.parametrize(("text", "code"), [
    ('{"version": 1, "dependencies": {}, "x": ' + "9" * 5000 + "}", 2),
    ('{"version": 1, "dependencies": {"sglang": {"version": "\\ud800", "patches": {}, '
     f'"state": "installed", "sha": "{HEAD_102}"}}}}}}', 0),
])
def test_huge_numbers_and_lone_surrogates_are_no_internal_error(
        comment: Run, github: FakeGitHub, tmp_path: Path, text: str, code: int) -> None:
    path = tmp_path / "gpu.json"
    path.write_text(text)
    result = comment("ci-sglang-pr: #102", installs=(path,))
    assert result.code == code, result.stderr
    assert len(thread(github)) == (1 if code == 0 else 0)


@pytest.mark.parametrize("reports", ["disagree", "failed", "none", "not-named"])
def test_only_a_commit_every_install_report_installed_counts_as_tested(
        comment: Run, github: FakeGitHub, tmp_path: Path, reports: str) -> None:
    installs = {
        "disagree": (install_report(tmp_path, "a.json", sha=MOVED),
                     install_report(tmp_path, "b.json", sha="3" * 40)),
        "failed": (install_report(tmp_path, "a.json", state="failed"),),
        "none": (),
        "not-named": (tmp_path / "empty.json",),
    }[reports]
    (tmp_path / "empty.json").write_text('{"version": 1, "dependencies": {}}')
    assert comment("ci-sglang-pr: #102", installs=installs).code == 0
    body = thread(github)[0]["body"]
    assert section_of(body).tested["sglang"].sha is None
    assert ("not confirmed: resolve pinned `222222222222`, no install report says it was "
            "installed") in body


def test_long_lists_are_folded(comment: Run, github: FakeGitHub, tmp_path: Path) -> None:
    installs = tuple(install_report(tmp_path, f"job-{index:02}.json") for index in range(14))
    assert comment("ci-sglang-pr: #102", installs=installs).code == 0
    body = thread(github)[0]["body"]
    assert "`job-09: installed, 0.5.16.dev201+g2222222`<br>… and 4 more" in body
    assert "job-10" not in body


def test_a_manifest_for_another_repository_does_not_count(guard: Guard,
                                                         github: FakeGitHub) -> None:
    github.repository("radixark/miles").add_comment(7, "github-actions[bot]", (
        f"{marker(SUITE)}\n" + data(RUN, {"sglang": ManifestEntry(
            "someone/sglang-fork", "refs/pull/102/head", HEAD_102, 102)})))
    result = guard("ci-sglang-pr: #102")
    assert result.code == 1
    assert f"suite `{SUITE}` ({RUN}): sglang#102 not tested by this run" in result.stderr


SHA_A, SHA_B = "a" * 40, "b" * 40


def test_a_branch_fails_require_tested_once_a_manifest_exists(
        comment: Run, guard: Guard, github: FakeGitHub) -> None:
    github.repository("sgl-project/sglang").branches["feature-x"] = "4" * 40
    assert comment("ci-sglang-pr: feature-x").code == 0
    result = guard("ci-sglang-pr: feature-x")
    assert result.code == 1
    [error] = json.loads(result.stdout)["errors"]
    assert error["message"] == (
        f"pull request #7: suite `{SUITE}` ({RUN}): sglang feature-x names a branch or tag, "
        f"which moves without a trace: name the pull request or the commit. Re-run the suite "
        f"so that CI tests what the description names now")


def test_a_sha_edited_after_the_run_fails_require_tested(
        comment: Run, guard: Guard, github: FakeGitHub) -> None:
    """The manifest says SHA A was tested; the description now names SHA B."""
    github.repository("sgl-project/sglang").commits += [SHA_A, SHA_B]
    assert comment(f"ci-sglang-pr: {SHA_A}").code == 0
    assert guard(f"ci-sglang-pr: {SHA_A}").code == 0  # still what was tested
    result = guard(f"ci-sglang-pr: {SHA_B}")
    assert result.code == 1
    [error] = json.loads(result.stdout)["errors"]
    assert error["message"] == (
        f"pull request #7: suite `{SUITE}` ({RUN}): sglang {SHA_B[:7]} not tested (tested "
        f"{SHA_A[:7]}). Re-run the suite so that CI tests what the description names now")


def test_a_sha_never_tested_fails_a_merge_group_without_a_manifest(guard: Guard) -> None:
    result = guard(f"ci-sglang-pr: {SHA_A}", event="merge_group")
    assert result.code == 1
    assert "::error title=rocm-deps%3A not tested::pull request #7 has no manifest comment" \
        in result.stderr


@pytest.mark.parametrize("event", ["merge_group", "pull_request"])
def test_an_unreadable_bot_manifest_is_an_error_on_every_event(
        guard: Guard, github: FakeGitHub, event: str) -> None:
    """A second data block (a quoted value) must not read as "no manifest, warn"."""
    block = data(RUN, {"sglang": ManifestEntry("sgl-project/sglang", "refs/pull/102/head",
                                               HEAD_102, 102)})
    github.repository("radixark/miles").add_comment(
        7, "github-actions[bot]", f"{marker(SUITE)}\n{block}\n{block}")
    result = guard("ci-sglang-pr: #102", event=event)
    assert result.code == 1
    assert "::error title=rocm-deps%3A unreadable manifest::pull request #7: the manifest " \
           "comment by github-actions[bot] cannot be read" in result.stderr


def test_require_tested_fails_closed_on_a_group_it_cannot_identify_even_under_warn(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    miles = github.repository("radixark/miles")
    miles.comparisons[f"{'b' * 40}...{'c' * 40}"] = ["A rebase-merged commit",
                                                     "Testing the fix (#7)"]
    path = write_event(payload={"merge_group": {
        "head_ref": f"refs/heads/gh-readonly-queue/main/pr-7-{'c' * 40}",
        "base_sha": "b" * 40, "head_sha": "c" * 40}}, repository="radixark/miles")
    result = cli("merge-check", "--event-name", "merge_group", "--event-path", path,
                 "--config", str(config), "--require-tested", "--policy", "warn",
                 "--github-token-env", "TEST_GITHUB_TOKEN",
                 env={"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": TOKEN})
    assert result.code == 1
    assert "fails closed under `warn` with --require-tested" in result.stderr


@pytest.mark.parametrize(("extra", "message"), [
    ((), "--report: give the run's resolve report"),
    (("--report", "r.json", "--pr", "7x"), "--pr has invalid value '7x'. Expected a pull "
                                            "request number."),
    (("--report", "r.json", "--run-url", "javascript:alert(1)"),
     "--run-url has invalid value 'javascript:alert(1)'. Expected an http(s) URL"),
    (("--report", "r.json", "--bot-login", "evil login"),
     "--bot-login has invalid value 'evil login'. Expected a GitHub login"),
    (("--report", "r.json", "--suite", "ROCm"), "comment writes on the pull request: set the "
                                                "`github-token` input"),
    (("--report", "r.json"), "--suite: give this suite's name (outside a workflow run there "
                             "is no $GITHUB_WORKFLOW to take it from)"),
    (("--report", "r.json", "--suite", "ROCm", "--suite", "CUDA"),
     "--suite: comment writes one suite's comment; got 2 names"),
    (("--report", "r.json", "--suite", "ROCm `x`"), "--suite 'ROCm `x`' cannot name a suite: "
                                                    "use letters, digits, spaces and"),
])
def test_comment_usage_errors(cli: Cli, tmp_path: Path, extra: tuple[str, ...],
                              message: str) -> None:
    (tmp_path / "r.json").write_text("{}")
    result = cli("comment", *(item.replace("r.json", str(tmp_path / "r.json"))
                              for item in extra))
    assert result.code == 2
    assert message in result.stderr


def test_comment_needs_exactly_one_resolve_report(comment: Run, github: FakeGitHub,
                                                  tmp_path: Path) -> None:
    result = comment("ci-sglang-pr: #102", installs=(tmp_path / "resolve-0.json",))
    assert result.code == 2
    assert "comment needs exactly one resolve report among --report files" in result.stderr
    assert github.log == []


@pytest.mark.parametrize("raw", [FORGED, "#102 \ud800 lone", f"#102 {FORGED} \udfff"],
                         ids=["forged-data-block", "lone-surrogate", "both"])
def test_a_hostile_raw_value_in_the_resolve_report_cannot_blind_the_guard(
        comment: Run, guard: Guard, cli: Cli, github: FakeGitHub, tmp_path: Path,
        config: Path, write_event: EventWriter, raw: str) -> None:
    """The `raw` a fork's artifact carries is quoted in the "named by" cell: it makes no
    second data block and no crash, and the guard still sees the dependency move."""
    assert comment("ci-sglang-pr: #102").code == 0
    report = tmp_path / "resolve-0.json"
    document = json.loads(report.read_text())
    document["overrides"]["sglang"]["raw"] = raw
    report.write_text(json.dumps(document))  # \ud800 is written as the escape it is in JSON
    event = write_event("ci-sglang-pr: #102", number=7, repository="radixark/miles",
                        head=MILES_HEAD)
    result = cli("comment", "--event-name", "pull_request", "--event-path", event,
                 "--config", str(config), "--report", str(report),
                 "--report", str(installed_everything(document, tmp_path)),
                 "--github-token-env", "TEST_GITHUB_TOKEN", "--format", "json",
                 env={"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": TOKEN,
                      "GITHUB_WORKFLOW": SUITE})
    assert result.code == 0, result.stderr
    [posted] = thread(github)
    assert posted["body"].count("<!-- rocm-deps:data") == 1
    assert read_manifest(posted["body"]) is not None
    github.repository("sgl-project/sglang").pulls[102]["head"]["sha"] = MOVED
    moved = guard("ci-sglang-pr: #102", event="pull_request")
    assert moved.code == 1
    assert f"suite `{SUITE}`: sglang#102 moved 2222222→7777777 since tested" in moved.stderr


def test_under_workflow_run_the_payloads_pull_request_wins_over_the_artifact(
        comment: Run, github: FakeGitHub) -> None:
    """A fork's artifact says #8; the trusted payload says the run was #7's."""
    github.repository("radixark/miles").add_pull(8, MILES_HEAD)  # same head: the check passes
    payload = workflow_run(MILES_HEAD)
    payload["workflow_run"]["pull_requests"] = [{"number": 7}]
    result = comment("ci-sglang-pr: #102", "--pr", "8", event="workflow_run", payload=payload)
    assert result.code == 1
    assert ("--pr 8 (from the run's artifact) is not the triggering run's pull request #7"
            in result.stderr)
    assert thread(github) == [] and github.repository("radixark/miles").comments.get(8) is None
    agreeing = comment("ci-sglang-pr: #102", "--pr", "7", event="workflow_run", payload=payload)
    assert agreeing.code == 0, agreeing.stderr
    assert len(thread(github)) == 1


# ---- one comment per suite ------------------------------------------------------------------

CUDA = "CUDA CI"


def test_two_suites_leave_two_comments_each_with_its_own_tested_commits(
        comment: Run, github: FakeGitHub) -> None:
    assert comment("ci-sglang-pr: #102").code == 0
    [first] = thread(github)
    github.repository("sgl-project/sglang").pulls[102]["head"]["sha"] = MOVED
    result = comment("ci-sglang-pr: #102", "--suite", CUDA)
    assert result.code == 0, result.stderr
    rocm, cuda = thread(github)
    assert rocm == first  # the ROCm suite's comment is not touched by the CUDA suite
    assert cuda["body"].startswith(f"<!-- rocm-deps:manifest suite={CUDA} -->\n")
    assert cuda["user"]["login"] == "github-actions[bot]"
    assert section_of(rocm["body"], SUITE).tested["sglang"].sha == HEAD_102
    assert section_of(cuda["body"], CUDA).tested["sglang"].sha == MOVED
    assert list(read_manifest(cuda["body"]).suites) == [CUDA]  # type: ignore[union-attr]
    assert json.loads(result.stdout)["suite"] == CUDA


def test_a_suite_rerun_updates_only_its_own_comment(comment: Run, github: FakeGitHub) -> None:
    assert comment("ci-sglang-pr: #102").code == 0
    assert comment("ci-sglang-pr: #102", "--suite", CUDA).code == 0
    cuda_before = thread(github)[1]
    github.repository("sgl-project/sglang").pulls[102]["head"]["sha"] = MOVED
    github.log.clear()
    assert comment("ci-sglang-pr: #102").code == 0
    rocm, cuda = thread(github)
    assert github.log == ["GET /repos/sgl-project/sglang/pulls/102", LIST,
                          f"PATCH /repos/radixark/miles/issues/comments/{rocm['id']}", READ, STATUS]
    assert section_of(rocm["body"], SUITE).tested["sglang"].sha == MOVED
    assert cuda == cuda_before


def test_a_shared_comment_of_release_1_0_is_still_read_and_a_suites_own_comment_wins(
        comment: Run, guard: Guard, github: FakeGitHub) -> None:
    shared = (f"{SHARED_MARKER}\nold\n" + ManifestDocument({
        SUITE: Manifest(RUN, {"sglang": ManifestEntry("sgl-project/sglang", "refs/pull/102/head",
                                                      "9" * 40, 102)}),
        CUDA: Manifest(RUN, {"sglang": ManifestEntry("sgl-project/sglang", "refs/pull/102/head",
                                                     HEAD_102, 102)})}).data_block() + "\n")
    github.repository("radixark/miles").add_comment(7, "github-actions[bot]", shared)
    assert guard("ci-sglang-pr: #102").code == 1  # the shared comment's ROCm section: 999…
    assert comment("ci-sglang-pr: #102").code == 0  # ROCm's own comment, at HEAD_102
    assert thread(github)[0]["body"] == shared  # left as it was
    result = guard("ci-sglang-pr: #102")
    assert result.code == 0, result.stderr


def test_a_bot_comment_whose_marker_and_data_name_other_suites_is_unreadable(
        guard: Guard, github: FakeGitHub) -> None:
    block = data(RUN, {"sglang": ManifestEntry("sgl-project/sglang", "refs/pull/102/head",
                                               HEAD_102, 102)}, suite=CUDA)
    github.repository("radixark/miles").add_comment(7, "github-actions[bot]",
                                                    f"{marker(SUITE)}\n{block}\n")
    result = guard("ci-sglang-pr: #102")
    assert result.code == 1
    assert "cannot be read" in result.stderr


def test_an_unreadable_shared_comment_of_an_older_version_is_superseded_by_suite_comments(
        comment: Run, guard: Guard, github: FakeGitHub) -> None:
    version_1 = (f"{SHARED_MARKER}\nold\n" '<!-- rocm-deps:data {"version":1,"run":"",'
                 '"tested":{}} -->')
    github.repository("radixark/miles").add_comment(7, "github-actions[bot]", version_1)
    unreadable = guard("ci-sglang-pr: #102")
    assert unreadable.code == 1
    assert "cannot be read" in unreadable.stderr  # alone, it blinds nothing: an error
    assert comment("ci-sglang-pr: #102").code == 0
    assert thread(github)[0]["body"] == version_1  # never written again
    result = guard("ci-sglang-pr: #102")
    assert result.code == 0, result.stderr  # the suite's own comment is what counts now


@pytest.mark.parametrize("name", ["ROCm `x`", "a | b", "<!-- x -->", " ", "x" * 101, "a\nb"])
def test_a_workflow_name_that_cannot_name_a_suite_is_refused(
        comment: Run, github: FakeGitHub, name: str) -> None:
    payload = workflow_run(MILES_HEAD)
    payload["workflow_run"]["name"] = name
    result = comment("ci-sglang-pr: #102", "--pr", "7", event="workflow_run", payload=payload)
    assert result.code == 2
    assert ("the workflow_run payload names no workflow (workflow_run.name)" if not name.strip()
            else "the triggering workflow's name (workflow_run.name; give input `suite` "
                 "instead) ") in result.stderr
    assert thread(github) == []


def test_require_tested_checks_every_suites_comment_by_default(
        comment: Run, guard: Guard, github: FakeGitHub) -> None:
    assert comment("ci-sglang-pr: #102").code == 0
    assert comment("ci-sglang-pr: #102", "--suite", CUDA).code == 0
    github.repository("sgl-project/sglang").pulls[102]["head"]["sha"] = MOVED
    assert comment("ci-sglang-pr: #102").code == 0  # ROCm re-ran on the new head; CUDA not
    result = guard("ci-sglang-pr: #102")
    assert result.code == 1
    [error] = json.loads(result.stdout)["errors"]
    assert error["message"].startswith(
        f"pull request #7: suite `{CUDA}` ({RUN}): sglang#102 moved 2222222→7777777 since "
        f"tested")
    only_rocm = guard("ci-sglang-pr: #102", "--suite", SUITE)
    assert only_rocm.code == 0, only_rocm.stderr
    assert json.loads(only_rocm.stdout)["errors"] == []


@pytest.mark.parametrize(("event", "code", "level"), [("merge_group", 1, "error"),
                                                      ("pull_request", 0, "warning")])
def test_a_suite_told_to_check_that_has_not_reported_is_not_tested(
        comment: Run, guard: Guard, event: str, code: int, level: str) -> None:
    assert comment("ci-sglang-pr: #102").code == 0
    result = guard("ci-sglang-pr: #102", "--suite", SUITE, "--suite", CUDA, event=event)
    assert result.code == code, result.stderr
    assert (f"::{level} title=rocm-deps%3A not tested") in result.stderr
    assert (f"pull request #7 has no section of suite `{CUDA}` in the manifest comment (it "
            f"holds `{SUITE}`): nothing says which dependency commits that suite "
            f"tested") in result.stderr


@pytest.mark.parametrize(("event", "code", "level"), [("merge_group", 1, "error"),
                                                      ("pull_request", 0, "warning")])
def test_a_manifest_with_no_suite_says_nothing_was_tested(
        guard: Guard, github: FakeGitHub, event: str, code: int, level: str) -> None:
    """A bot comment edited down to no section must not pass as "every suite checked"."""
    body = f"{SHARED_MARKER}\n### t\n\n{ManifestDocument({}).data_block()}\n"
    github.repository("radixark/miles").add_comment(7, "github-actions[bot]", body)
    result = guard("ci-sglang-pr: #102", event=event)
    assert result.code == code, result.stderr
    assert (f"::{level} title=rocm-deps%3A not tested") in result.stderr
    assert ("pull request #7 has a manifest comment by github-actions[bot] that holds no "
            "suite's section: nothing says which dependency commits CI tested") in result.stderr


def manifest_run(suite: str, refs: int, length: int) -> Any:
    from rocm_deps.contract.manifest import ManifestRow, ManifestRun
    from rocm_deps.contract.overrides import Override

    rows = [ManifestRow(f"dep{index}", Override(f"dep{index}", "ref", "r" * length, "body",
                                                "r" * length, None, index + 1),
                        "o/r", HEAD_102, ()) for index in range(refs)]
    return ManifestRun("radixark/miles", 7, RUN, suite, rows, install_labels=("a",))


@pytest.mark.parametrize(("refs", "length", "shown"), [(3, 20, "table"), (80, 300, "data")])
def test_a_comment_too_long_for_github_drops_detail_never_the_data(
        refs: int, length: int, shown: str) -> None:
    from rocm_deps.manifest.text import MAX_COMMENT, comment_body

    run = manifest_run("suite 1", refs, length)
    body = comment_body(run)
    assert len(body) <= MAX_COMMENT
    assert read_manifest(body) == ManifestDocument({run.suite: run.manifest})
    assert ("| dependency |" in body) is (shown == "table")
    assert ("tested at `222222222222`" in body) is (shown == "data")


def test_a_comment_whose_data_alone_is_too_long_fails_before_posting() -> None:
    from rocm_deps.errors import FatalError
    from rocm_deps.manifest.text import comment_body

    with pytest.raises(FatalError, match="does not fit in one comment"):
        comment_body(manifest_run("suite 1", 60, 1500))


# ---- a dependency pull request merged onto its base ------------------------------------------

MERGE, BASE, NEW_BASE, NEW_MERGE = "a" * 40, "b" * 40, "c" * 40, "d" * 40


@pytest.mark.parametrize("value", ["pull/102/merge", "refs/pull/102/merge"])
def test_require_tested_compares_a_merges_head_and_only_shows_its_base_moving(
        comment: Run, guard: Guard, github: FakeGitHub, value: str) -> None:
    sglang = github.repository("sgl-project/sglang")
    sglang.add_pull(102, HEAD_102, base_sha=BASE, merge_commit_sha=MERGE)
    result = comment(f"ci-sglang-pr: {value}")
    assert result.code == 0, result.stderr
    entry = section_of(thread(github)[0]["body"]).tested["sglang"]
    assert (entry.ref, entry.sha, entry.head, entry.base, entry.pr) == (
        "refs/pull/102/merge", MERGE, HEAD_102, BASE, 102)
    # The base moves: GitHub recomputes the merge. What the author named, the head, is the
    # one tested: the guard passes and says the base moved.
    sglang.add_pull(102, HEAD_102, base_sha=NEW_BASE, merge_commit_sha=NEW_MERGE)
    passed = guard(f"ci-sglang-pr: {value}")
    assert passed.code == 0, passed.stderr
    assert "sgl-project/sglang#102's base moved since suite" in passed.stderr
    # The head moves: the merge tested is not the change named now.
    sglang.add_pull(102, MOVED, base_sha=NEW_BASE, merge_commit_sha=NEW_MERGE)
    failed = guard(f"ci-sglang-pr: {value}")
    assert failed.code == 1
    assert f"suite `{SUITE}` ({RUN}): sglang#102 moved 2222222→7777777 since tested" in (
        failed.stderr)


@pytest.mark.parametrize("event", ["pull_request", "merge_group"])
@pytest.mark.parametrize(("tested_body", "body_now", "why"), [
    ("ci-sglang-pr: #102", "The fix landed upstream.",
     "sglang tested at 2222222, no longer named"),
    ("ci-sglang-pr: #102\nci-megatron-pr: #84", "ci-sglang-pr: #102",
     "megatron tested at 8888888, no longer named"),
], ids=["all-dropped", "one-of-two-dropped"])
def test_require_tested_fails_when_a_tested_directive_is_dropped(
        comment: Run, guard: Guard, github: FakeGitHub, tested_body: str, body_now: str,
        why: str, event: str) -> None:
    """The sweep's verdict, the guard's: what the suite tested is not what is named now."""
    github.repository("radixark/Megatron-LM").add_pull(84, "8" * 40)
    assert comment(tested_body).code == 0
    result = guard(body_now, event=event)
    assert result.code == 1, result.stdout
    [error] = json.loads(result.stdout)["errors"]
    assert why in error["message"]


def test_a_re_run_resolves_the_description_as_it_is_now(cli: Cli, tmp_path: Path,
                                                        write_event: EventWriter,
                                                        github: FakeGitHub,
                                                        config: Path) -> None:
    """A re-run replays the event: its payload names SGLang #102, the description now names
    Megatron-LM #84. With a token and the default body-source, #84 alone is tested."""
    github.repository("radixark/Megatron-LM").add_pull(84, "8" * 40)
    github.repository("radixark/miles").pulls[7]["body"] = "ci-megatron-pr: #84\n"
    event = write_event("ci-sglang-pr: #102\n", number=7, repository="radixark/miles",
                        head=MILES_HEAD)
    result = cli("resolve", "--event-name", "pull_request", "--event-path", event, "--config",
                 str(config), "--github-token-env", "TEST_GITHUB_TOKEN", "--format", "json",
                 env={"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": TOKEN})
    assert result.code == 0, result.stderr
    report = json.loads(result.stdout)
    assert {name: (entry["ref"], entry["sha"]) for name, entry in report["overrides"].items()
            if name != CONFIG_KEY} == {"megatron": ("refs/pull/84/head", "8" * 40)}
    assert report["body_read_from"] == ("pull request #7 of radixark/miles, read from the API "
                                        "(the current description)")
    assert "PR body read from: pull request #7 of radixark/miles, read from the API" in (
        result.summary)
