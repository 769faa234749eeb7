"""One verdict, three commands: the same scenarios, each played against the local API stand-in,
judged by `sweep` (the status it writes on the head), `merge-check --require-tested` (its exit
code and whether it says "not tested yet") and, where the scenario happens while the suite
runs, by `comment` (the status it sets). All must give the same answer."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.conftest import Cli, EventWriter
from tests.fake_github import FakeGitHub
from tests.manifest.test_comment import installed_everything, resolve_report

TOKEN = "ghp_rocmdepsVERDICTtoken0123456789abcdef"
MILES, SGLANG, MEGATRON = "radixark/miles", "sgl-project/sglang", "radixark/Megatron-LM"
HEAD, NEW_HEAD = "5" * 40, "6" * 40  # Miles #7's head, and a later push
H102, H101, H84, MOVED = "2" * 40, "1" * 40, "8" * 40, "7" * 40
SHA_A, SHA_B = "a" * 40, "b" * 40
MERGE, BASE = "c" * 40, "d" * 40
SUITE = "ROCm CI"
CONTEXT = f"rocm-deps: {SUITE}"

World = Callable[[FakeGitHub], None]


def nothing(_: FakeGitHub) -> None:
    """The world as the suite left it."""


def move(repository: str, number: int, head: str) -> World:
    def act(github: FakeGitHub) -> None:
        github.repository(repository).move(number, head)
    return act


def merge(repository: str, number: int, head: str | None = None) -> World:
    def act(github: FakeGitHub) -> None:
        pull = github.repository(repository).pulls[number]
        if head is not None:
            github.repository(repository).move(number, head)
        pull.update(state="closed", merged=True, merged_at="2026-11-02T10:00:00Z")
    return act


def push(github: FakeGitHub) -> None:
    github.repository(MILES).move(7, NEW_HEAD)


def both(*acts: World) -> World:
    def act(github: FakeGitHub) -> None:
        for each in acts:
            each(github)
    return act


@dataclass(frozen=True)
class Scenario:
    tested: str  # the description the suite's run resolved and tested
    now: str  # the description when the commands judge
    then: World = nothing  # what happens after the run (before the judges)
    state: str = "success"
    config: str = ""  # extra configuration
    during: bool = False  # `then` happens while the suite runs: `comment` judges it too
    why: str = ""  # a part of the status description, when it matters
    guard_why: str | None = None  # merge-check's words for it, when not `why`


SCENARIOS = {
    "unchanged": Scenario("ci-sglang-pr: #102", "ci-sglang-pr: #102", during=True,
                          why="tested sglang#102 at 2222222"),
    "moved": Scenario("ci-sglang-pr: #102", "ci-sglang-pr: #102", move(SGLANG, 102, MOVED),
                      "failure", during=True, why="sglang#102 moved 2222222→7777777"),
    "merged-at-tested-head": Scenario("ci-sglang-pr: #102", "ci-sglang-pr: #102",
                                      merge(SGLANG, 102), during=True,
                                      why="sglang#102 merged at 2222222"),
    "merged-after-moving": Scenario("ci-sglang-pr: #102", "ci-sglang-pr: #102",
                                    merge(SGLANG, 102, MOVED), "failure", during=True),
    "all-dropped": Scenario("ci-sglang-pr: #102", "The fix landed.", state="failure",
                            why="sglang tested at 2222222, no longer named"),
    "one-of-two-dropped": Scenario("ci-sglang-pr: #102\nci-megatron-pr: #84",
                                   "ci-sglang-pr: #102", state="failure",
                                   why="megatron tested at 8888888, no longer named"),
    "one-added": Scenario("ci-sglang-pr: #102", "ci-sglang-pr: #102\nci-megatron-pr: #84",
                          state="failure", why="megatron#84 not tested by this run"),
    "another-pull-request": Scenario("ci-sglang-pr: #102", "ci-sglang-pr: #101",
                                     state="failure", why="sglang#101 not tested by this run"),
    "sha-unchanged": Scenario(f"ci-sglang-pr: {SHA_A}", f"ci-sglang-pr: {SHA_A}", during=True),
    "sha-edited": Scenario(f"ci-sglang-pr: {SHA_A}", f"ci-sglang-pr: {SHA_B}", state="failure",
                           why="sglang bbbbbbb not tested (tested aaaaaaa)"),
    "short-sha-of-the-tested": Scenario(f"ci-sglang-pr: {SHA_A}", "ci-sglang-pr: aaaaaaa"),
    "branch": Scenario("ci-sglang-pr: feature-x", "ci-sglang-pr: feature-x", state="failure",
                       during=True, why="names a branch or tag"),
    "nothing-named": Scenario("Just a refactor.", "Just a refactor.", during=True,
                              why="nothing named"),
    "pushed-after-the-run": Scenario("ci-sglang-pr: #102", "ci-sglang-pr: #102", push,
                                     "pending", why="not reported on 6666666 yet"),
    "pushed-naming-nothing": Scenario("Just a refactor.", "Just a refactor.", push),
    "two-unchanged": Scenario("ci-sglang-pr: #102\nci-megatron-pr: #84",
                              "ci-sglang-pr: #102\nci-megatron-pr: #84", during=True),
    "two-one-moved": Scenario("ci-sglang-pr: #102\nci-megatron-pr: #84",
                              "ci-sglang-pr: #102\nci-megatron-pr: #84",
                              move(MEGATRON, 84, MOVED), "failure", during=True,
                              why="megatron#84 moved 8888888→7777777"),
    "two-both-moved": Scenario("ci-sglang-pr: #102\nci-megatron-pr: #84",
                               "ci-sglang-pr: #102\nci-megatron-pr: #84",
                               both(move(MEGATRON, 84, MOVED), move(SGLANG, 102, MOVED)),
                               "failure", during=True),
    "url-form-of-the-tested": Scenario(
        "ci-sglang-pr: #102", "ci-sglang-pr: https://github.com/sgl-project/sglang/pull/102"),
    "owner-repo-form": Scenario("ci-sglang-pr: #102", "ci-sglang-pr: sgl-project/sglang#102"),
    "head-tested-merge-named": Scenario("ci-sglang-pr: #102", "ci-sglang-pr: pull/102/merge",
                                        state="failure",
                                        why="merged onto its base named, its head tested"),
    "merge-tested-head-named": Scenario("ci-sglang-pr: pull/102/merge", "ci-sglang-pr: #102",
                                        state="failure", why="head named, its merge tested"),
    "merge-with-base-unchanged": Scenario("ci-sglang-pr: #102", "ci-sglang-pr: #102",
                                          config="[dependencies.sglang]\nmerge-with-base = "
                                                 "true\n", during=True),
    "merge-with-base-moved": Scenario("ci-sglang-pr: #102", "ci-sglang-pr: #102",
                                      move(SGLANG, 102, MOVED), "failure",
                                      config="[dependencies.sglang]\nmerge-with-base = "
                                             "true\n", during=True,
                                      why="sglang#102 moved 2222222→7777777"),
    "an-error-in-the-description": Scenario("ci-sglang-pr: #102",
                                            "ci-sglang-pr: #102\nci-sglng-pr: #5",
                                            state="failure", why="the description has 1 error",
                                            guard_why="`ci-sglng-pr` is not a known directive"),
    "shown-as-code-only": Scenario("ci-sglang-pr: #102", "```\nci-sglang-pr: #102\n```",
                                   state="failure", why="the description has 1 error",
                                   guard_why="GitHub shows this inside a code block"),
    "commit-of-the-pull-request": Scenario(
        f"ci-sglang-pr: https://github.com/sgl-project/sglang/pull/102/commits/{H101}",
        f"ci-sglang-pr: {H101}", during=True),
}


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        sglang = fake.repository(SGLANG)
        sglang.add_pull(102, H102, base_sha=BASE, merge_commit_sha=MERGE, earlier=(H101,))
        sglang.add_pull(101, H101)
        sglang.commits += [SHA_A, SHA_B, MERGE]
        sglang.branches["feature-x"] = "4" * 40
        fake.repository(MEGATRON).add_pull(84, H84)
        fake.repository(MILES).add_pull(7, HEAD)
        yield fake


def environment(github: FakeGitHub) -> dict[str, str]:
    return {"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": TOKEN,
            "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": MILES,
            "GITHUB_RUN_ID": "42", "GITHUB_WORKFLOW": SUITE}


def run_the_suite(cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
                  tmp_path: Path, scenario: Scenario) -> str:
    """resolve, a GPU job that installed what it pinned, then `comment` (after `then` when
    it happens during the run); returns the state of the status `comment` set."""
    github.repository(MILES).pulls[7]["body"] = scenario.tested
    event = write_event(scenario.tested, number=7, repository=MILES, head=HEAD)
    report, resolved = resolve_report(cli, event, config, environment(github), tmp_path)
    if scenario.during:
        scenario.then(github)
    result = cli("comment", "--event-name", "pull_request", "--event-path", event, "--config",
                 str(config), "--report", str(report), "--report",
                 str(installed_everything(resolved, tmp_path)), "--github-token-env",
                 "TEST_GITHUB_TOKEN", "--format", "json", env=environment(github))
    assert result.code == 0, result.stderr
    status = json.loads(result.stdout)["status"]
    return f"{status['state']}: {status['description']}"


def swept(cli: Cli, github: FakeGitHub, config: Path) -> str:
    result = cli("sweep", "--config", str(config), "--github-token-env", "TEST_GITHUB_TOKEN",
                 "--suite", SUITE, env=environment(github))
    assert result.code == 0, result.stderr
    head = github.repository(MILES).pulls[7]["head"]["sha"]
    written = github.repository(MILES).statuses.get(head, [])
    ours = [status for status in written if status["context"] == CONTEXT]
    return f"{ours[0]['state']}: {ours[0]['description']}" if ours else "success: (none)"


def guarded(cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> str:
    event = write_event("(the payload's old body)", number=7, repository=MILES,
                        head=github.repository(MILES).pulls[7]["head"]["sha"])
    result = cli("merge-check", "--event-name", "pull_request", "--event-path", event,
                 "--config", str(config), "--require-tested", "--policy", "warn", "--format",
                 "json", "--github-token-env", "TEST_GITHUB_TOKEN", env=environment(github))
    report = json.loads(result.stdout) if result.stdout else {"errors": [], "warnings": []}
    if result.code != 0:
        return "failure: " + " ".join(error["message"] for error in report["errors"])
    not_yet = [warning["message"] for warning in report["warnings"]
               if "the suite reports after this check" in warning["message"]]
    return f"pending: {' '.join(not_yet)}" if not_yet else "success: "


@pytest.mark.parametrize("name", SCENARIOS)
def test_comment_sweep_and_merge_check_give_one_answer(
        name: str, cli: Cli, write_event: EventWriter, github: FakeGitHub, tmp_path: Path) -> None:
    scenario = SCENARIOS[name]
    config = tmp_path / "verdict.toml"
    config.write_text("[api]\ntimeout-seconds = 5\nbackoff-seconds = 0\n" + scenario.config,
                      encoding="utf-8")
    commented = run_the_suite(cli, write_event, github, config, tmp_path, scenario)
    if not scenario.during:
        scenario.then(github)
    github.repository(MILES).pulls[7].update(  # an edit: the sweep reads the description
        body=scenario.now, updated_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    answers = {"sweep": swept(cli, github, config),
               "merge-check": guarded(cli, write_event, github, config)}
    if scenario.during:
        answers["comment"] = commented
    states = {command: answer.split(":", 1)[0] for command, answer in answers.items()}
    assert states == dict.fromkeys(answers, scenario.state), answers
    assert scenario.why in answers["sweep"], answers
    if scenario.state == "failure":
        assert (scenario.why if scenario.guard_why is None else scenario.guard_why) in (
            answers["merge-check"]), answers


def test_the_table_holds_at_least_25_scenarios_of_every_state() -> None:
    states = [scenario.state for scenario in SCENARIOS.values()]
    assert len(SCENARIOS) >= 25
    assert {state: states.count(state) > 0 for state in ("success", "failure", "pending")} == {
        "success": True, "failure": True, "pending": True}
    assert sum(scenario.during for scenario in SCENARIOS.values()) >= 10
