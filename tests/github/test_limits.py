"""GitHub as it answers: answers at their documented sizes (a list entry of ~22 KB, commits with
their diffs, descriptions at GitHub's 65,536-character cap), and its rate limits as its docs
state them (primary and secondary, 403 or 429, with or without `retry-after`), held to the
command's deadline. The real commands against the fake, which answers as GitHub documents."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from tests.conftest import Cli, CliResult
from tests.fake_github import FakeGitHub, Limit

TOKEN = "ghp_rocmdepsLIMITStoken0123456789abcd"
MILES = "radixark/miles"
HEAD, BASE, MERGE = "1" * 40, "2" * 40, "3" * 40
UNTIL = r"until [0-9]{2}:[0-9]{2} UTC"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.repository("sgl-project/sglang").add_pull(30421, HEAD, base_sha=BASE,
                                                       merge_commit_sha=MERGE)
        yield fake


def resolve(cli: Cli, tmp_path: Path, github: FakeGitHub, body: str,
            config: str = "") -> CliResult:
    description = tmp_path / "body.md"
    description.write_text(body)
    path = tmp_path / "config.toml"
    path.write_text(config)
    return cli("resolve", "--body-file", str(description), "--config", str(path),
               "--github-token-env", "T", env={"GITHUB_API_URL": github.url, "T": TOKEN})


def sweep(cli: Cli, github: FakeGitHub, tmp_path: Path, *extra: str) -> CliResult:
    config = tmp_path / "sweep.toml"
    config.write_text("")
    return cli("sweep", "--config", str(config), "--github-token-env", "T", "--format", "json",
               "--suite", "ROCm CI", *extra, env={
                   "GITHUB_API_URL": github.url, "T": TOKEN, "GITHUB_REPOSITORY": MILES})


def test_a_sweep_of_a_hundred_and_twenty_pull_requests_at_githubs_sizes_runs_to_the_end(
        cli: Cli, github: FakeGitHub, tmp_path: Path) -> None:
    """Every description at GitHub's cap, half in characters of three bytes: a page of 100
    holds tens of MB as it comes in (twice that re-serialised as JSON). Three name SGLang
    #30421: each gets its pending status."""
    miles = github.repository(MILES)
    for number in range(1, 121):
        filler = ("\u6f22" if number % 2 else "x") * 65_000
        naming = "ci-sglang-pr: #30421\n\n" if number in (5, 60, 110) else ""
        miles.add_pull(number, f"{number:040x}", body=(naming + filler)[:65_536])
    result = sweep(cli, github, tmp_path)
    assert result.code == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["open_pulls"], report["naming"], report["stopped"]) == (120, 3, "")
    assert {number: [status["state"] for status in miles.statuses.get(f"{number:040x}", [])]
            for number in (5, 60, 110)} == {5: ["pending"], 60: ["pending"], 110: ["pending"]}
    assert max(github.sizes) > 10 * 1024 * 1024  # the first page, as it came in


def test_the_parents_of_a_test_merge_with_a_large_diff_are_read_without_it(
        cli: Cli, github: FakeGitHub, tmp_path: Path) -> None:
    """GitHub's commit answer carries the diff: for a test merge, the pull request's whole
    diff (here 3 MB). The parents come from the git database's commit, which holds none."""
    github.repository("sgl-project/sglang").diffs[MERGE] = 3_000_000
    result = resolve(cli, tmp_path, github, "ci-sglang-pr: pull/30421/merge")
    assert result.code == 0, result.stderr
    assert result.outputs["sglang_sha"] == MERGE
    assert f"GET /repos/sgl-project/sglang/git/commits/{MERGE}" in github.log
    assert max(github.sizes) < 100_000


def test_a_ref_is_pinned_from_its_bare_sha_not_the_commit_with_its_diff(
        cli: Cli, github: FakeGitHub, tmp_path: Path) -> None:
    sglang = github.repository("sgl-project/sglang")
    sglang.branches["main"] = "4" * 40
    sglang.diffs["4" * 40] = 5_000_000
    result = resolve(cli, tmp_path, github, "ci-sglang-pr: main")
    assert result.code == 0, result.stderr
    assert result.outputs["sglang_sha"] == "4" * 40
    assert github.sizes == [40]
    assert github.headers[-1]["Accept"] == "application/vnd.github.sha"


@pytest.mark.parametrize("status", [403, 429])
def test_a_secondary_limit_with_retry_after_is_waited_out_and_asked_again(
        cli: Cli, github: FakeGitHub, tmp_path: Path, mocker: MockerFixture,
        status: int) -> None:
    sleep = mocker.patch("time.sleep")
    github.limits.append(Limit("secondary", status, retry_after=7, count=1))
    result = resolve(cli, tmp_path, github, "ci-sglang-pr: #30421")
    assert result.code == 0, result.stderr
    assert [call.args[0] for call in sleep.call_args_list] == [7.0]
    assert len(github.requests) == 2
    assert "server errors" not in result.stderr


@pytest.mark.parametrize(("limit", "kind"), [
    (Limit("secondary", 429, retry_after=3600), "secondary"),
    (Limit("secondary", 403, retry_after=None), "secondary"),
    (Limit("primary", 429), "primary"),
], ids=["429-retry-after-an-hour", "403-no-retry-after", "primary-429"])
def test_a_limit_that_lifts_past_the_deadline_stops_at_once_saying_until_when(
        cli: Cli, github: FakeGitHub, tmp_path: Path, mocker: MockerFixture, limit: Limit,
        kind: str) -> None:
    """Without `retry-after` a secondary limit lifts after at least a minute (GitHub's
    docs): past a 30-second allowance, it is not waited for, and never reported as a network
    fault or as a request that got no answer."""
    sleep = mocker.patch("time.sleep")
    github.limits.append(limit)
    result = resolve(cli, tmp_path, github, "ci-sglang-pr: #30421",
                     config="[api]\nmax-rate-limit-wait-seconds = 30\n")
    assert result.code == 1
    assert re.search(rf"rate limited \({kind}\) {UNTIL} while reading pull request #30421 of "
                     rf"sgl-project/sglang: (You have exceeded a secondary rate limit|API rate "
                     rf"limit exceeded)", result.stderr), result.stderr
    assert sleep.call_args_list == [] and len(github.requests) == 1
    assert "no answer within" not in result.stderr and "network" not in result.stderr


def test_a_secondary_limit_without_retry_after_waits_a_minute_within_the_deadline(
        cli: Cli, github: FakeGitHub, tmp_path: Path, mocker: MockerFixture) -> None:
    sleep = mocker.patch("time.sleep")
    github.limits.append(Limit("secondary", 403, retry_after=None, count=1))
    result = resolve(cli, tmp_path, github, "ci-sglang-pr: #30421")
    assert result.code == 0, result.stderr
    assert [call.args[0] for call in sleep.call_args_list] == [60.0]


@pytest.mark.parametrize("status", [403, 429])
def test_a_secondary_limit_stops_the_sweep_and_nothing_more_is_asked(
        cli: Cli, github: FakeGitHub, tmp_path: Path, mocker: MockerFixture,
        status: int) -> None:
    """The sweep's deadline (30 s) is shorter than the minute GitHub asks for: the fourth
    request (the named pull requests, after the list, the stacks and who wrote the comments)
    stops it; no further request goes out, nothing is written, and the pull requests it did
    not reach are listed."""
    sleep = mocker.patch("time.sleep")
    miles = github.repository(MILES)
    for number in range(1, 7):
        miles.add_pull(number, f"{number:040x}", body="ci-sglang-pr: #30421\n")
    github.limits.append(Limit("secondary", status, retry_after=None, first=4))
    result = sweep(cli, github, tmp_path, "--max-seconds", "30")
    assert result.code == 0, result.stderr
    assert github.queries == ["OpenPulls", "Comments"] and len(github.requests) == 4
    report = json.loads(result.stdout)
    assert re.match(rf"stopped while reading \(rate limited \(secondary\) {UNTIL} while "
                    rf"reading 1 pull requests", report["stopped"]), report["stopped"]
    assert report["not_reached"] == [1, 2, 3, 4, 5, 6]
    assert miles.statuses == {} and sleep.call_args_list == []


def test_a_refused_status_write_quotes_githubs_reason(cli: Cli, github: FakeGitHub,
                                                      tmp_path: Path,
                                                      mocker: MockerFixture) -> None:
    """A 422 on a status write says why GitHub refused it (its recorded "Validation Failed"
    shape), never that no commit matches."""
    from rocm_deps.config import load_config
    from rocm_deps.github.answers import ApiError, CommitStatus
    from rocm_deps.github.api import GitHubApi

    github.status_refusal = {"message": "Validation Failed", "errors": [
        {"resource": "Status", "code": "custom", "field": "description",
         "message": "description is too long (maximum is 140 characters)"}],
        "documentation_url": "https://docs.github.com/rest/commits/statuses"}
    github.repository(MILES)
    api = GitHubApi(github.url, TOKEN, load_config(None, "rocm").api)
    with pytest.raises(ApiError) as refused:
        api.create_status(MILES, HEAD, CommitStatus("rocm-deps: x", "success", "ok", ""))
    assert str(refused.value) == (
        f"GitHub refused a `rocm-deps: x` status on {HEAD[:12]} of {MILES} (HTTP 422: "
        f"Validation Failed: description is too long (maximum is 140 characters))")


def test_writes_are_a_second_apart(github: FakeGitHub, mocker: MockerFixture) -> None:
    from rocm_deps.config import load_config
    from rocm_deps.github.answers import CommitStatus
    from rocm_deps.github.api import GitHubApi

    sleep = mocker.patch("time.sleep")
    github.repository(MILES)
    api = GitHubApi(github.url, TOKEN, load_config(None, "rocm").api)
    for state in ("pending", "success", "failure"):
        api.create_status(MILES, HEAD, CommitStatus("rocm-deps: x", state, state, ""))
    api.statuses(MILES, HEAD)  # a read waits for nothing
    waits = [call.args[0] for call in sleep.call_args_list]
    assert len(waits) == 2 and all(0.5 < wait <= 1.0 for wait in waits)


def test_a_commit_with_more_than_a_hundred_contexts_has_them_all_read(
        github: FakeGitHub) -> None:
    from rocm_deps.config import load_config
    from rocm_deps.github.api import GitHubApi

    miles = github.repository(MILES)
    miles.statuses[HEAD] = [{"context": f"check {index}", "state": "success",
                             "description": "ok", "target_url": None} for index in range(150)]
    api = GitHubApi(github.url, TOKEN, load_config(None, "rocm").api)
    found = api.statuses(MILES, HEAD)
    assert len(found) == 150 and found["check 149"].state == "success"
    assert len(github.requests) == 2


def test_a_sweep_whose_status_writes_github_refuses_fails_naming_each(
        cli: Cli, github: FakeGitHub, tmp_path: Path, mocker: MockerFixture) -> None:
    """A 422 on each write (GitHub's "Validation Failed", with its reason): those heads keep
    a stale status, so the sweep fails with one error quoting GitHub for each pull request,
    not a warning about judging."""
    mocker.patch("time.sleep")
    miles = github.repository(MILES)
    for number in (1, 2):
        miles.add_pull(number, f"{number:040x}", body="ci-sglang-pr: #30421\n")
    github.status_refusal = {"message": "Validation Failed", "errors": [
        {"resource": "Status", "code": "custom", "field": "context",
         "message": "This SHA and context has reached the maximum number of statuses."}],
        "documentation_url": "https://docs.github.com/rest/commits/statuses"}
    result = sweep(cli, github, tmp_path)
    assert result.code == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["statuses_written"] == 0 and report["problems"] == []
    assert [failure.split(": ", 1)[0] for failure in report["write_failures"]] == ["#1", "#2"]
    assert all(failure.endswith("(HTTP 422: Validation Failed: This SHA and context has "
                                "reached the maximum number of statuses.)")
               for failure in report["write_failures"]), report["write_failures"]
    [error] = [line for line in result.stderr.splitlines() if line.startswith("::error")]
    assert error.startswith("::error title=rocm-deps%3A sweep could not write statuses::sweep "
                            "could not write 2 status(es) that changed; those commits still "
                            "show what they showed before: #1: GitHub refused")
    assert "could not judge" not in result.stderr


def test_a_limit_on_a_write_says_writing_and_quotes_github_once(
        cli: Cli, github: FakeGitHub, tmp_path: Path, mocker: MockerFixture) -> None:
    """The fifth request is the first status write (after the list, the stacks, who wrote
    the comments and the named pull requests): the sweep stops there, saying it was writing,
    with GitHub's message ending in one full stop."""
    mocker.patch("time.sleep")
    miles = github.repository(MILES)
    for number in (1, 2):
        miles.add_pull(number, f"{number:040x}", body="ci-sglang-pr: #30421\n")
    github.limits.append(Limit("secondary", 429, retry_after=None, first=5))
    result = sweep(cli, github, tmp_path, "--max-seconds", "30")
    assert result.code == 0, result.stderr
    stopped = json.loads(result.stdout)["stopped"]
    assert re.match(rf"stopped while writing statuses \(rate limited \(secondary\) {UNTIL} "
                    rf"while writing a `rocm-deps: ROCm CI` status on ", stopped), stopped
    assert "You have exceeded a secondary rate limit" in stopped and ".." not in stopped
    assert len(github.requests) == 5 and miles.statuses == {}
