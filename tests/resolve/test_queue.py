"""Merge queues: a `merge_group` event carries no description. resolve finds the group's pull
requests (the queue branch and the commits that merge them), reads their descriptions and
applies their directives; comment sets the suite's status on the group's commit, where the
queue's required check looks. Against the local API stand-in."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli, CliResult, EventWriter
from tests.fake_github import FakeGitHub
from tests.manifest.test_comment import installed_everything

TOKEN = "ghp_rocmdepsQUEUEtoken0123456789abcdef"
MILES, SGLANG = "radixark/miles", "sgl-project/sglang"
BASE, GROUP_HEAD = "b" * 40, "c" * 40
H30421, H30500 = "3" * 40, "5" * 40
SUITE = "ROCm CI"
PAYLOAD = {"action": "checks_requested", "repository": {"full_name": MILES},
           "merge_group": {"head_sha": GROUP_HEAD, "base_sha": BASE,
                           "base_ref": "refs/heads/main",
                           "head_ref": f"refs/heads/gh-readonly-queue/main/pr-42-{BASE}",
                           "head_commit": {"id": GROUP_HEAD, "message": "Bump SGLang (#42)"}}}


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        sglang = fake.repository(SGLANG)
        sglang.add_pull(30421, H30421)
        sglang.add_pull(30500, H30500)
        miles = fake.repository(MILES)
        miles.add_pull(41, "1" * 40, body="Fix the docs.")
        miles.add_pull(42, "2" * 40, body="Bump SGLang.\n\nci-sglang-pr: #30421\n")
        miles.comparisons[f"{BASE}...{GROUP_HEAD}"] = [
            ("Merge pull request #41 from radixark/docs", ["Fix the docs"]), "Bump SGLang (#42)"]
        yield fake


def environment(github: FakeGitHub) -> dict[str, str]:
    return {"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": TOKEN, "GITHUB_RUN_ID": "9",
            "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": MILES,
            "GITHUB_WORKFLOW": SUITE}


def resolve(cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
            token: bool = True) -> CliResult:
    event = write_event(payload=PAYLOAD)
    return cli("resolve", "--event-name", "merge_group", "--event-path", event, "--config",
               str(config), "--format", "json",
               *(("--github-token-env", "TEST_GITHUB_TOKEN") if token else ()),
               env=environment(github))


def test_a_merge_group_resolves_to_what_its_pull_requests_name_pinned(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    result = resolve(cli, write_event, github, config)
    assert result.code == 0, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    assert report["skip_dependency_install"] is False
    assert report["overrides"]["sglang"] == {
        "ref": "refs/pull/30421/head", "sha": H30421, "kind": "pr", "source": "queue",
        "raw": "#30421", "line": 3, "pr": 30421, "via": 42}
    assert report["named_by"] == "queue"
    assert report["body_read_from"] == ("the merge group's pull requests (#41, #42), read from "
                                        "the API")
    assert "sglang: `ci-sglang-pr: #30421` from #42 (in the merge group)" in result.stderr


def test_two_queued_pull_requests_naming_different_commits_is_an_error_naming_both(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    github.repository(MILES).pulls[41]["body"] = "ci-sglang-pr: #30500"
    result = resolve(cli, write_event, github, config)
    assert result.code == 1
    assert ("sglang: #41 names `ci-sglang-pr: #30500` and #42 names `ci-sglang-pr: #30421`; "
            "one run of the merge group cannot test both") in result.stderr
    assert "skip_dependency_install" not in result.outputs


def test_two_queued_pull_requests_naming_the_same_commit_agree(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    github.repository(MILES).pulls[41]["body"] = "ci-sglang-pr: #30421"
    result = resolve(cli, write_event, github, config)
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["overrides"]["sglang"]["via"] == 41


def test_a_merge_group_without_a_token_fails_instead_of_testing_the_baseline(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    result = resolve(cli, write_event, github, config, token=False)
    assert result.code == 1
    assert "on a `merge_group` event the payload carries no description" in result.stderr
    assert "skip_dependency_install" not in result.outputs


def test_a_merge_group_it_cannot_identify_fails_closed(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    github.repository(MILES).comparisons[f"{BASE}...{GROUP_HEAD}"] = [
        "Fix the docs", "Bump SGLang (#42)"]  # a rebase merge: the first names no PR
    result = resolve(cli, write_event, github, config)
    assert result.code == 1
    assert ("the merge group's pull requests cannot all be identified: 1 of the commits that "
            "merge it name no pull request") in result.stderr


def test_comment_sets_the_suites_status_on_the_groups_commit(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    resolved = resolve(cli, write_event, github, config)
    assert resolved.code == 0, resolved.stderr
    report = tmp_path / "resolve.json"
    report.write_text(resolved.stdout)
    install = installed_everything(json.loads(resolved.stdout), tmp_path)
    github.log.clear()
    result = cli("comment", "--event-name", "merge_group", "--event-path",
                 write_event(payload=PAYLOAD), "--config", str(config), "--report", str(report),
                 "--report", str(install), "--github-token-env", "TEST_GITHUB_TOKEN",
                 "--format", "json", env=environment(github))
    assert result.code == 0, result.stderr
    miles = github.repository(MILES)
    assert {sha: [(s["context"], s["state"], s["description"]) for s in entries]
            for sha, entries in miles.statuses.items()} == {
        GROUP_HEAD: [(f"rocm-deps: {SUITE}", "success", "tested sglang#30421 at 3333333")]}
    assert miles.comments == {}  # the group's run is no pull request's: no manifest comment
    assert json.loads(result.stdout)["action"] == "not needed"
