"""resolve with a token: PyGithub against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import pytest
from pytest_mock import MockerFixture

from tests.conftest import Cli, CliResult, EventWriter
from tests.fake_github import FakeGitHub
from tests.markdown_oracle import render

TOKEN = "ghp_rocmdepsTESTtoken0123456789abcdef"
PR_HEAD = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
MAIN_TIP = "ffeeddccbbaa99887766554433221100ffeeddcc"
LONG_SHA = "abc1234def5678901234567890abcdef12345678"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        sglang = fake.repository("sgl-project/sglang")
        sglang.add_pull(30421, PR_HEAD)
        sglang.add_pull(29000, "9" * 40, state="closed", merged=True)
        sglang.branches["main"] = MAIN_TIP
        megatron = fake.repository("radixark/Megatron-LM")
        megatron.commits.append(LONG_SHA)
        megatron.branches["rocm"] = LONG_SHA
        fake.repository("radixark/miles").add_pull(
            7, "7" * 40, body="Edited after the run started:\n- ci-sglang-pr: #30421\n")
        yield fake


class ResolveWithToken(Protocol):
    def __call__(self, body: str, *extra: str, config: str = "") -> CliResult: ...


@pytest.fixture
def resolve_with_token(cli: Cli, tmp_path: Path, write_event: EventWriter,
                       github: FakeGitHub) -> ResolveWithToken:
    """resolve on a pull_request event of radixark/miles with `body` (read from the payload), a
    token, the stand-in."""

    def invoke(body: str, *extra: str, config: str = "") -> CliResult:
        event = write_event(body, number=7, repository="radixark/miles")
        config_path = tmp_path / "api.toml"
        config_path.write_text("[api]\ntimeout-seconds = 1\nbackoff-seconds = 0.5\n" + config)
        # The payload's body: these tests are about pinning (a later --body-source wins).
        return cli("resolve", "--event-name", "pull_request", "--event-path", event,
                   "--config", str(config_path), "--github-token-env", "TEST_GITHUB_TOKEN",
                   "--format", "json", "--body-source", "event", *extra,
                   env={"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": TOKEN})

    return invoke


def test_pr_is_pinned_to_head_sha_with_one_request(resolve_with_token: ResolveWithToken, github: FakeGitHub) -> None:
    result = resolve_with_token("ci-sglang-pr: #30421")
    assert result.code == 0, result.stderr
    assert result.outputs["sglang_sha"] == PR_HEAD
    assert result.outputs["sglang_ref"] == "refs/pull/30421/head"
    assert json.loads(result.outputs["overrides"])["sglang"]["sha"] == PR_HEAD
    assert github.requests == ["/api/v3/repos/sgl-project/sglang/pulls/30421"]
    assert github.authorizations == [f"token {TOKEN}"]  # PyGithub's Auth.Token, as pinned
    assert "feature-30421 into main" in result.summary


def test_branch_and_short_sha_are_pinned_with_one_request_each(
        resolve_with_token: ResolveWithToken, github: FakeGitHub) -> None:
    result = resolve_with_token("ci-sglang-pr: main\nci-megatron-pr: abc1234")
    assert result.code == 0, result.stderr
    assert result.outputs["sglang_sha"] == MAIN_TIP
    assert (result.outputs["megatron_ref"], result.outputs["megatron_sha"]) == (LONG_SHA, LONG_SHA)
    assert sorted(github.requests) == ["/api/v3/repos/radixark/Megatron-LM/commits/abc1234",
                                       "/api/v3/repos/sgl-project/sglang/commits/main"]


def test_full_sha_is_checked_to_exist(resolve_with_token: ResolveWithToken, github: FakeGitHub) -> None:
    result = resolve_with_token(f"ci-megatron-pr: {'e' * 40}")
    assert result.code == 1
    assert f"`{'e' * 40}` in radixark/Megatron-LM: no single commit matches" in result.stderr
    assert len(github.requests) == 1


def test_missing_pr_fails_naming_repository_and_value(resolve_with_token: ResolveWithToken) -> None:
    result = resolve_with_token("- ci-sglang-pr: #404")
    assert result.code == 1
    assert ("line 1: sglang `#404` (body): pull request #404 of sgl-project/sglang does not "
            "exist (HTTP 404") in result.stderr
    assert json.loads(result.stdout)["errors"][0]["line"] == 1
    assert set(result.outputs) == {"report"}


def test_merged_pr_warns_in_annotation_and_summary(resolve_with_token: ResolveWithToken) -> None:
    result = resolve_with_token("ci-sglang-pr: #29000")
    assert result.code == 0, result.stderr
    assert "::warning" in result.stderr and "#29000 (sgl-project:feature-29000 into main) is merged" \
        in result.stderr
    assert "is merged; testing its head 9999" in render(result.summary)
    assert result.outputs["sglang_sha"] == "9" * 40


def test_server_errors_then_success(resolve_with_token: ResolveWithToken, mocker: MockerFixture, github: FakeGitHub) -> None:
    sleep = mocker.patch("time.sleep")
    github.fail_first = 2
    result = resolve_with_token("ci-sglang-pr: #30421")
    assert result.code == 0, result.stderr
    assert len(github.requests) == 3
    assert result.outputs["sglang_sha"] == PR_HEAD
    # The config's retry policy: backoff-seconds, then doubled.
    assert [call.args[0] for call in sleep.call_args_list] == [0.5, 1.0]


def test_server_errors_forever_are_bounded(resolve_with_token: ResolveWithToken, mocker: MockerFixture, github: FakeGitHub) -> None:
    mocker.patch("time.sleep")
    github.fail_first = 10**6
    result = resolve_with_token("ci-sglang-pr: #30421",
                                config="attempts = 4\n")
    assert result.code == 1
    assert len(github.requests) == 4
    assert (f"::error title=rocm-deps%3A GitHub API unreachable,line=1::could not reach the "
            f"GitHub API at {github.url} while reading pull request #30421 of "
            f"sgl-project/sglang: server errors (HTTP 502: Server Error) on every attempt, 4 "
            f"attempt(s) over "
            ) in result.stderr
    assert "; not checked: line 1" in result.stderr
    assert "invalid directive" not in result.stderr and "Traceback" not in result.stderr


def test_hanging_server_times_out_with_bounded_attempts(resolve_with_token: ResolveWithToken, mocker: MockerFixture, github: FakeGitHub) -> None:
    mocker.patch("time.sleep")
    github.hang_seconds = 30
    result = resolve_with_token("ci-sglang-pr: main", config="attempts = 2\n")
    assert result.code == 1
    assert len(github.requests) == 2
    assert (f"could not reach the GitHub API at {github.url} while reading `main` in "
            f"sgl-project/sglang: timed out after 1 s, 2 attempt(s) over ") in result.stderr


def test_rate_limit_an_hour_away_fails_without_sleeping(resolve_with_token: ResolveWithToken, mocker: MockerFixture, github: FakeGitHub) -> None:
    sleep = mocker.patch("time.sleep")
    github.rate_limited = True
    result = resolve_with_token("ci-sglang-pr: #30421")
    assert result.code == 1
    assert re.search(r"rate limited \(primary\) until [0-9]{2}:[0-9]{2} UTC while reading pull "
                     r"request #30421 of sgl-project/sglang: API rate limit exceeded for "
                     r"installation ID 1", result.stderr)
    assert sleep.call_args_list == []  # not even a short wait: the limit resets too late
    assert len(github.requests) == 1


def test_body_source_api_reads_the_live_body(resolve_with_token: ResolveWithToken, github: FakeGitHub) -> None:
    result = resolve_with_token("The body as it was when the run began.",
                                "--body-source", "api")
    assert result.code == 0, result.stderr
    assert result.outputs["sglang_ref"] == "refs/pull/30421/head"
    assert result.outputs["sglang_sha"] == PR_HEAD
    assert "read from the API" in result.summary
    assert github.requests[0] == "/api/v3/repos/radixark/miles/pulls/7"


def test_body_source_api_without_token_is_a_usage_error(cli: Cli,
                                                        write_event: EventWriter) -> None:
    event = write_event("", number=7, repository="radixark/miles")
    result = cli("resolve", "--event-name", "pull_request", "--event-path", event,
                 "--body-source", "api")
    assert result.code == 2 and "needs a token" in result.stderr


def test_token_never_appears_in_outputs(resolve_with_token: ResolveWithToken) -> None:
    result = resolve_with_token("", "--body-source", "api")
    assert result.code == 0 and result.outputs["sglang_sha"] == PR_HEAD
    assert TOKEN not in result.stdout
    assert TOKEN not in json.dumps(result.outputs)
    assert TOKEN not in result.outputs["report"]
    assert TOKEN not in result.summary
    # stderr carries it exactly once: in the `::add-mask::` command the runner consumes first.
    lines_with_token = [line for line in result.stderr.splitlines() if TOKEN in line]
    assert lines_with_token == [f"::add-mask::{TOKEN}"]
    assert result.stderr.splitlines()[0] == f"::add-mask::{TOKEN}"


def test_without_token_short_sha_is_an_error_that_explains(cli: Cli, tmp_path: Path) -> None:
    body = tmp_path / "body.md"
    body.write_text("ci-megatron-pr: abc1234\n")
    result = cli("resolve", "--body-file", str(body))
    assert result.code == 1
    assert "give the full 40-digit SHA" in result.stderr and "github-token" in result.stderr


def test_workflow_run_reads_the_body_of_its_pull_request_from_the_api(
        cli: Cli, write_event: EventWriter, github: FakeGitHub) -> None:
    payload = {"workflow_run": {"pull_requests": [{"number": 7}]},
               "repository": {"full_name": "radixark/miles"}}
    result = cli("resolve", "--event-name", "workflow_run", "--event-path",
                 write_event(payload=payload), "--body-source", "api",
                 "--github-token-env", "TEST_GITHUB_TOKEN",
                 env={"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": TOKEN})
    assert result.code == 0, result.stderr
    assert (result.outputs["sglang_ref"], result.outputs["sglang_sha"]) == (
        "refs/pull/30421/head", PR_HEAD)
    assert github.requests == [  # the configuration on the default branch, by convention
        "/api/v3/repos/radixark/miles/contents/.github/rocm-deps.toml",
        "/api/v3/repos/radixark/miles/pulls/7", "/api/v3/repos/sgl-project/sglang/pulls/30421"]


def test_a_token_echoed_by_the_api_is_masked_in_every_channel(
        resolve_with_token: ResolveWithToken, github: FakeGitHub) -> None:
    github.echo_authorization = True
    result = resolve_with_token("ci-sglang-pr: #30421")
    assert result.code == 1
    assert "Bad request with Authorization: token ***" in result.stdout  # the report: masked
    assert TOKEN not in result.stdout
    assert TOKEN not in json.dumps(result.outputs) and "token ***" in result.outputs["report"]
    assert TOKEN not in result.summary and "token ***" in result.summary
    assert [line for line in result.stderr.splitlines() if TOKEN in line] == [
        f"::add-mask::{TOKEN}"]


@pytest.mark.parametrize(("status", "body", "headers", "message"), [
    (200, b"<html>maintenance</html>", {"Content-Type": "text/html"},
     "gave an answer for pull request #30421 of sgl-project/sglang that is not what GitHub "
     "sends (not JSON: '<html>maintenance</html>')"),
    (200, b"{}", {}, "the answer for pull request #30421 of sgl-project/sglang is not a JSON "
                     "object"),
    (200, json.dumps({"state": "merged?", "merged": 1, "head": {}, "base": {}}).encode(), {},
     "the answer for pull request #30421 of sgl-project/sglang has no valid `state`/`merged`"),
    (200, json.dumps({"state": "open", "merged": False, "head": {
        "sha": "--upload-pack=touch /tmp/pwn"}, "base": {}}).encode(), {},
     "carries no valid commit SHA"),
    (200, json.dumps({"state": "open", "merged": False, "head": {"sha": "$(id)"},
                      "base": {}}).encode(), {}, "carries no valid commit SHA"),
    (200, json.dumps({"state": "open", "merged": False, "head": {"sha": "a" * 100_000},
                      "base": {}}).encode(), {}, "carries no valid commit SHA"),
    (301, b"", {"Location": "https://elsewhere.example/x"}, "is not what GitHub sends"),
], ids=["html", "empty-object", "bad-state", "option-sha", "shell-sha", "huge-sha",
        "redirect-elsewhere"])
def test_answers_unlike_githubs_are_clear_errors(
        resolve_with_token: ResolveWithToken, github: FakeGitHub, status: int, body: bytes,
        headers: dict[str, str], message: str) -> None:
    github.answer_override = (status, body, {"Content-Type": "application/json", **headers})
    result = resolve_with_token("ci-sglang-pr: #30421")
    assert (result.code, set(result.outputs)) == (1, {"report"}), result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "until-close"])
def test_an_answer_over_the_size_limit_is_refused(
        resolve_with_token: ResolveWithToken, github: FakeGitHub, declared: bool) -> None:
    from rocm_deps.github.api import MAX_ANSWER_BYTES

    body = b'{"x": "' + b"x" * MAX_ANSWER_BYTES + b'"}'  # valid JSON, larger than GitHub sends
    github.answer_override = (200, body, {"Content-Type": "application/json"})
    github.declare_length = declared
    result = resolve_with_token("ci-sglang-pr: #30421")
    assert (result.code, set(result.outputs)) == (1, {"report"}), result.stderr
    assert (f"answered /repos/sgl-project/sglang/pulls/30421 with {len(body)} bytes, over the "
            f"{MAX_ANSWER_BYTES}-byte limit") in result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


def test_a_description_longer_than_github_allows_is_refused_and_one_at_the_cap_is_read(
        resolve_with_token: ResolveWithToken, github: FakeGitHub) -> None:
    from rocm_deps.github.answers import MAX_DESCRIPTION

    sglang = github.repository("sgl-project/sglang")
    # At GitHub's cap, in characters that take three bytes each: read whole.
    sglang.add_pull(30421, "b" * 40, body="\u6f22" * MAX_DESCRIPTION)
    github.declare_length = False
    result = resolve_with_token("ci-sglang-pr: #30421")
    assert result.code == 0, result.stderr
    assert result.outputs["sglang_sha"] == "b" * 40
    sglang.add_pull(30421, "b" * 40, body="y" * (MAX_DESCRIPTION + 1))
    result = resolve_with_token("ci-sglang-pr: #30421")
    assert result.code == 1
    assert (f"pull request #30421 of sgl-project/sglang has a description over GitHub's "
            f"{MAX_DESCRIPTION}-character limit") in result.stderr


def test_an_answer_that_drips_in_meets_the_overall_deadline(
        resolve_with_token: ResolveWithToken, github: FakeGitHub) -> None:
    github.drip_seconds = 0.5  # under the 1 s read timeout: only the overall deadline ends it
    result = resolve_with_token("ci-sglang-pr: #30421",
                                config="attempts = 1\nmax-rate-limit-wait-seconds = 0\n")
    assert result.code == 1
    assert "within 2 s (the overall deadline of a request)" in result.stderr
    # The client gave up part of the way: one answer, begun and never read to its end.
    [(sent, size)] = github.dripped
    assert 0 < sent < size


EARLIER = "e1" * 20


def test_a_pull_request_commit_url_tests_that_commit_not_the_head(
        resolve_with_token: ResolveWithToken, github: FakeGitHub) -> None:
    github.repository("sgl-project/sglang").add_pull(30500, PR_HEAD[::-1], earlier=(EARLIER,))
    url = f"https://github.com/sgl-project/sglang/pull/30500/commits/{EARLIER}"
    result = resolve_with_token(f"ci-sglang-pr: {url}")
    assert result.code == 0, result.stderr
    assert (result.outputs["sglang_ref"], result.outputs["sglang_sha"]) == (EARLIER, EARLIER)
    assert github.requests == ["/api/v3/repos/sgl-project/sglang/pulls/30500/commits"]
    assert (f"sglang: testing commit {EARLIER}, commit 1 of 2 of #30500 (its head is "
            f"{PR_HEAD[::-1][:12]})") in result.stderr


def test_a_commit_url_of_another_pull_request_fails(
        resolve_with_token: ResolveWithToken, github: FakeGitHub) -> None:
    url = f"https://github.com/sgl-project/sglang/pull/30421/commits/{EARLIER}"
    result = resolve_with_token(f"ci-sglang-pr: {url}")
    assert result.code == 1
    assert (f"{EARLIER} is not one of the 1 commits of pull request #30421; name one of its "
            f"commits, or the pull request itself (`#30421`) to test its head") in result.stderr
    assert set(result.outputs) == {"report"}


def test_a_closed_port_is_an_unreachable_api_not_an_invalid_directive(
        cli: Cli, write_event: EventWriter, tmp_path: Path, mocker: MockerFixture) -> None:
    """No server at all: the message says the API could not be reached and why, whole, and
    which directives went unchecked; it is not the author's directive that is wrong."""
    mocker.patch("time.sleep")
    with socket.socket() as probe:  # a port nothing listens on once the socket is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path / "api.toml"
    config.write_text("[api]\ntimeout-seconds = 1\nbackoff-seconds = 0\n")
    result = cli("resolve", "--event-name", "pull_request", "--event-path",
                 write_event("ci-sglang-pr: #30421\n\nci-megatron-pr: rocm\n", number=7,
                             repository="radixark/miles"),
                 "--config", str(config), "--github-token-env", "TEST_GITHUB_TOKEN",
                 "--body-source", "event",
                 env={"GITHUB_API_URL": f"http://127.0.0.1:{port}", "TEST_GITHUB_TOKEN": TOKEN})
    assert result.code == 1
    [error] = [line for line in result.stderr.splitlines() if line.startswith("::error")]
    assert error.startswith(
        f"::error title=rocm-deps%3A GitHub API unreachable,line=1::could not reach the GitHub "
        f"API at http://127.0.0.1:{port} while reading pull request #30421 of "
        f"sgl-project/sglang: ConnectionRefusedError: [Errno 111] Connection refused, 3 "
        f"attempt(s) over ")
    assert error.endswith("; not checked: line 1, line 3")
    assert "invalid directive" not in result.stderr


def api_of(github: FakeGitHub) -> object:
    from rocm_deps.config import load_config
    from rocm_deps.github.api import GitHubApi

    return GitHubApi(github.url, TOKEN, load_config(None, "rocm").api)


def test_open_pulls_are_read_a_hundred_a_query_oldest_first(github: FakeGitHub) -> None:
    from rocm_deps.github.api import GitHubApi

    miles = github.repository("radixark/miles")
    for number in range(300, 99, -1):
        miles.add_pull(number, f"{number:040x}", body=f"#{number}")
    miles.pulls[150]["updated_at"] = "2026-12-01T09:00:00Z"
    api = api_of(github)
    assert isinstance(api, GitHubApi)
    github.log.clear()
    found, after, pages = [], None, 0
    while True:
        page = api.open_pulls_page("radixark/miles", after)
        pages += 1
        found += page.pulls
        assert page.total == 202
        after = page.after
        if after is None:
            break
    assert pages == 3 and github.log == ["POST /api/graphql"] * 3
    assert [entry.pull.number for entry in found] == [7, *range(100, 301)]
    assert found[0].pull.body == "Edited after the run started:\n- ci-sglang-pr: #30421\n"
    by_number = {entry.pull.number: entry for entry in found}
    assert by_number[150].updated_at is not None
    assert by_number[150].updated_at.isoformat() == "2026-12-01T09:00:00+00:00"


def test_statuses_keep_the_latest_of_each_context_and_refuse_what_github_never_sends(
        github: FakeGitHub) -> None:
    from rocm_deps.github.api import ApiError, CommitStatus, GitHubApi

    api = api_of(github)
    assert isinstance(api, GitHubApi)
    miles = github.repository("radixark/miles")
    sha = "7" * 40
    api.create_status("radixark/miles", sha, CommitStatus("rocm-deps: A", "pending", "old", ""))
    api.create_status("radixark/miles", sha, CommitStatus(
        "rocm-deps: A", "success", "new", "https://github.com/radixark/miles/pull/7#x-1"))
    miles.statuses[sha].insert(0, {"context": "other", "state": "failure",
                                   "description": "line\nbreak\u202e",
                                   "target_url": "javascript:alert(1)"})
    assert api.statuses("radixark/miles", sha) == {
        "rocm-deps: A": CommitStatus("rocm-deps: A", "success", "new",
                                     "https://github.com/radixark/miles/pull/7#x-1"),
        "other": CommitStatus("other", "failure", "line?break?", "")}
    miles.statuses[sha].insert(0, {"context": "x", "state": "green"})
    with pytest.raises(ApiError, match="has a status without a `context` and `state`"):
        api.statuses("radixark/miles", sha)


def test_a_comment_url_is_kept_only_when_it_is_a_plain_web_address(github: FakeGitHub) -> None:
    from rocm_deps.github.api import GitHubApi

    api = api_of(github)
    assert isinstance(api, GitHubApi)
    miles = github.repository("radixark/miles")
    good = miles.add_comment(7, "bot", "one")
    bad = miles.add_comment(7, "bot", "two")
    miles.find_comment(bad)["html_url"] = "javascript:alert(document.cookie)"  # type: ignore[index]
    urls = {comment.id: comment.url for comment in api.comments("radixark/miles", 7)}
    assert urls == {good: f"https://github.com/radixark/miles/pull/7#issuecomment-{good}",
                    bad: ""}


def test_a_rerun_is_one_post_for_the_run(github: FakeGitHub) -> None:
    from rocm_deps.github.api import GitHubApi

    api = api_of(github)
    assert isinstance(api, GitHubApi)
    github.log.clear()
    api.rerun("radixark/miles", 4242)
    assert github.log == ["POST /repos/radixark/miles/actions/runs/4242/rerun"]
    assert github.repository("radixark/miles").reruns == [4242]


def test_a_last_full_page_is_known_by_githubs_link_header(github: FakeGitHub) -> None:
    from rocm_deps.github.api import GitHubApi

    api = api_of(github)
    assert isinstance(api, GitHubApi)
    for number in range(200):  # two full pages
        github.repository("radixark/miles").add_comment(7, "someone", f"comment {number}")
    github.log.clear()
    assert len(api.comments("radixark/miles", 7)) == 200
    assert len(github.log) == 2  # no third request for an empty page
