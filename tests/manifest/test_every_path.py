"""`comment` on the paths GitHub runs a suite along besides a push: a re-run of failed jobs
(attempt 1's resolve report, the description edited since) and a dispatch re-test (Miles'
`/rerun-test`: a `workflow_dispatch` run carrying the pull request, the head it tests and the
pins). Real resolve and comment against the local API stand-in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_deps.contract.manifest import read_manifest
from tests.conftest import Cli, CliResult, EventWriter
from tests.fake_github import FakeGitHub
from tests.manifest.test_comment import (  # the fixtures `comment` and `github` too
    MILES_HEAD,
    SUITE,
    TOKEN,
    Run,
    comment,
    github,
    installed_everything,
    statuses,
)

__all__ = ["comment", "github"]

NEW_HEAD = "6" * 40
ENV = {"TEST_GITHUB_TOKEN": TOKEN, "GITHUB_SERVER_URL": "https://github.com",
       "GITHUB_REPOSITORY": "radixark/miles", "GITHUB_RUN_ID": "42", "GITHUB_WORKFLOW": SUITE}


def test_a_rerun_of_failed_jobs_is_judged_on_what_the_description_names_now(
        comment: Run, github: FakeGitHub) -> None:
    """The comment job of attempt 2 reads attempt 1's resolve report (GitHub kept its job's
    outputs); the description was edited to name nothing in between."""
    result = comment("ci-sglang-pr: #102", live="Dropped the SGLang change.")
    assert result.code == 0, result.stderr
    assert [(s["state"], s["description"]) for s in statuses(github)] == [
        ("failure", "sglang tested at 2222222, no longer named")]


def test_a_rerun_of_failed_jobs_after_naming_another_pull_request_is_not_success(
        comment: Run, github: FakeGitHub) -> None:
    result = comment("ci-sglang-pr: #102", live="ci-sglang-pr: #101")
    assert result.code == 0, result.stderr
    [status] = statuses(github)
    assert (status["state"], status["description"]) == ("failure",
                                                         "sglang#101 not tested by this run")


def dispatch(write_event: EventWriter, **inputs: str) -> str:
    """The payload of Miles' `/rerun-test`: a workflow_dispatch on the default branch."""
    return write_event(payload={"inputs": {"pull_number": "7", "test_file": "tests/ci/test_a.py",
                                           **inputs}, "ref": "refs/heads/main"},
                       repository="radixark/miles")


def retest(cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
           tmp_path: Path, *extra: str, checked_out: str | None = MILES_HEAD,
           **inputs: str) -> CliResult:
    """resolve then comment on one dispatch re-test; every GPU job installed the pins into
    the pull request's commit it checked out (`checked_out`)."""
    env = {**ENV, "GITHUB_API_URL": github.url}
    event = dispatch(write_event, **inputs)
    resolved = cli("resolve", "--event-name", "workflow_dispatch", "--event-path", event,
                   "--config", str(config), "--format", "json",
                   "--github-token-env", "TEST_GITHUB_TOKEN", env=env)
    assert resolved.code == 0, resolved.stderr
    report = tmp_path / "resolve.json"
    report.write_text(resolved.stdout)
    install = installed_everything(json.loads(resolved.stdout), tmp_path, checked_out)
    return cli("comment", "--event-name", "workflow_dispatch", "--event-path", event,
               "--config", str(config), "--report", str(report), "--report", str(install),
               "--pr", "7", "--github-token-env", "TEST_GITHUB_TOKEN", "--format", "json",
               *extra, env=env)


def miles_statuses(github: FakeGitHub) -> dict[str, list[tuple[str, str]]]:
    return {sha: [(status["state"], status["description"]) for status in entries]
            for sha, entries in github.repository("radixark/miles").statuses.items()}


def test_a_dispatch_retest_sets_its_status_on_the_head_it_tested_not_the_head_now(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    """The pull request moved while the re-test ran: its new head gets nothing."""
    github.repository("radixark/miles").move(7, NEW_HEAD)  # the live head is NEW_HEAD
    result = retest(cli, write_event, github, config, tmp_path, head_sha=MILES_HEAD,
                    ci_sglang_pr="#102")
    assert result.code == 0, result.stderr
    assert miles_statuses(github) == {MILES_HEAD: [("success", "tested sglang#102 at 2222222")]}
    assert json.loads(result.stdout)["status"]["state"] == "success"


def test_dispatch_pins_the_description_does_not_name_never_make_its_commit_success(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    github.repository("radixark/miles").pulls[7]["body"] = "No dependency change."
    result = retest(cli, write_event, github, config, tmp_path, head_sha=MILES_HEAD,
                    ci_sglang_pr="#102")
    assert result.code == 0, result.stderr
    assert miles_statuses(github) == {MILES_HEAD: [
        ("failure", "sglang tested at 2222222, a dispatch input the description does not "
                    "name")]}


def test_a_dispatch_retest_without_its_head_is_refused(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    result = retest(cli, write_event, github, config, tmp_path, ci_sglang_pr="#102")
    assert result.code == 2
    assert ("this `workflow_dispatch` event does not say which commit of pull request #7 the "
            "run tested") in result.stderr
    assert miles_statuses(github) == {}
    # --head-sha says it.
    named = retest(cli, write_event, github, config, tmp_path, "--head-sha", MILES_HEAD.upper(),
                   ci_sglang_pr="#102")
    assert named.code == 0, named.stderr
    assert list(miles_statuses(github)) == [MILES_HEAD]


@pytest.mark.parametrize(("checked_out", "refusal"), [
    (NEW_HEAD, f"the status would go on {MILES_HEAD[:12]} (`head_sha`), but this run checked "
               f"out another commit (install-mi350 at {NEW_HEAD[:12]}): refusing to set a status on a "
               f"commit it did not test"),
    (None, "a dispatch re-test's status goes only on the commit its jobs checked out, and no "
           "install report says which (`workspace_commit`)"),
], ids=["another-commit", "unsaid"])
def test_a_dispatch_retest_sets_no_status_on_a_head_it_did_not_check_out(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path, tmp_path: Path,
        checked_out: str | None, refusal: str) -> None:
    """A re-test whose jobs tested another commit than its `head_sha` input: nothing is set
    on `head_sha`, and nothing on what it did test (the input decides where a status goes)."""
    result = retest(cli, write_event, github, config, tmp_path, head_sha=MILES_HEAD,
                    checked_out=checked_out, ci_sglang_pr="#102")
    assert result.code == 1
    assert refusal in result.stderr
    assert miles_statuses(github) == {}


def test_the_manifest_records_the_head_the_retest_tested(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    github.repository("radixark/miles").move(7, NEW_HEAD)
    assert retest(cli, write_event, github, config, tmp_path, head_sha=MILES_HEAD,
                  ci_sglang_pr="#102").code == 0
    [posted] = github.repository("radixark/miles").comments[7]
    document = read_manifest(posted["body"])
    assert document is not None
    assert document.suites[SUITE].head == MILES_HEAD
