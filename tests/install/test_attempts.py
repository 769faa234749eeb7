"""A re-run of failed jobs: install in attempt 2 receives attempt 1's pins (GitHub keeps the
outputs of the jobs it does not re-run) and goes on only when they are still what the
description names. Real resolve and install, a real sandbox, the local API stand-in."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from rocm_deps.contract.overrides import RUN_KEY
from rocm_deps.demo.sandbox import Sandbox
from tests.conftest import Cli, CliResult, EventWriter, git, snapshot
from tests.fake_github import FakeGitHub

TOKEN = "ghp_rocmdepsATTEMPTtoken0123456789abcdef"
MILES, MEGATRON = "radixark/miles", "radixark/Megatron-LM"
HEAD_42 = "4" * 40


@pytest.fixture
def github(box: Sandbox) -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.repository(MILES).add_pull(42, HEAD_42, body="ci-megatron-pr: #202")
        megatron = fake.repository(MEGATRON)
        megatron.add_pull(202, box.commits["megatron"]["pr"])
        megatron.add_pull(203, box.commits["megatron"]["pr_old_base"])
        yield fake


@pytest.fixture
def config(box: Sandbox, tmp_path: Path) -> Path:
    path = tmp_path / "attempts.toml"
    path.write_text(box.config.read_text() + "\n[api]\ntimeout-seconds = 5\nbackoff-seconds = 0\n")
    return path


def environment(github: FakeGitHub, attempt: int, token: bool = True) -> dict[str, str]:
    return {"GITHUB_API_URL": github.url, "GITHUB_RUN_ID": "77",
            "GITHUB_RUN_ATTEMPT": str(attempt), **({"TEST_GITHUB_TOKEN": TOKEN} if token else {})}


def event_options(write_event: EventWriter) -> tuple[str, ...]:
    # The payload a re-run replays: the description as it was when the run started.
    path = write_event("ci-megatron-pr: #202", number=42, repository=MILES, head=HEAD_42)
    return ("--event-name", "pull_request", "--event-path", path)


def resolve_attempt_1(cli: Cli, write_event: EventWriter, github: FakeGitHub,
                      config: Path) -> str:
    result = cli("resolve", "--config", str(config), *event_options(write_event),
                 "--github-token-env", "TEST_GITHUB_TOKEN", env=environment(github, 1))
    assert result.code == 0, result.stderr
    return result.outputs["overrides"]


def install(cli: Cli, box: Sandbox, config: Path, write_event: EventWriter, github: FakeGitHub,
            pins: str, attempt: int, token: bool = True) -> CliResult:
    github.log.clear()
    return cli("install", "--config", str(config), "--overrides", pins, "--workspace",
               str(box.workspace), "--python", box.python, *event_options(write_event),
               *(("--github-token-env", "TEST_GITHUB_TOKEN") if token else ()),
               env=environment(github, attempt, token))


def test_the_overrides_record_the_run_and_attempt_that_resolved(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    record = json.loads(resolve_attempt_1(cli, write_event, github, config))[RUN_KEY]
    assert (record["run_id"], record["attempt"], record["api"]) == (77, 1, True)
    assert len(record["digest"]) == 64


def test_attempt_2_refuses_attempt_1_pins_when_the_description_names_another_pull_request(
        cli: Cli, box: Sandbox, write_event: EventWriter, github: FakeGitHub,
        config: Path) -> None:
    pins = resolve_attempt_1(cli, write_event, github, config)
    github.repository(MILES).pulls[42]["body"] = "ci-megatron-pr: #203"  # edited since
    before = snapshot(box.baked["megatron"])
    result = install(cli, box, config, write_event, github, pins, attempt=2)
    assert result.code == 1
    old, new = box.commits["megatron"]["pr"][:7], box.commits["megatron"]["pr_old_base"][:7]
    assert (f"install got the pins of attempt 1 (megatron #202 at {old}); the description now "
            f"names megatron #203 at {new}: re-run all jobs") in result.stderr
    assert snapshot(box.baked["megatron"]) == before  # it failed before any work


def test_attempt_2_refuses_pins_of_a_pull_request_that_moved_since(
        cli: Cli, box: Sandbox, write_event: EventWriter, github: FakeGitHub,
        config: Path) -> None:
    pins = resolve_attempt_1(cli, write_event, github, config)
    github.repository(MEGATRON).move(202, "9" * 40)
    result = install(cli, box, config, write_event, github, pins, attempt=2)
    assert result.code == 1
    assert "now names megatron #202 at 9999999: re-run all jobs" in result.stderr


def test_attempt_2_goes_on_when_the_pins_are_still_what_is_named(
        cli: Cli, box: Sandbox, write_event: EventWriter, github: FakeGitHub,
        config: Path) -> None:
    pins = resolve_attempt_1(cli, write_event, github, config)
    github.repository(MILES).pulls[42]["body"] = "Fixed a typo.\n\nci-megatron-pr: #202"
    result = install(cli, box, config, write_event, github, pins, attempt=2)
    assert result.code == 0, result.stderr
    assert "attempt 2: the pins of attempt 1 (megatron #202 at " in result.stderr
    assert git(box.baked["megatron"], "rev-parse", "HEAD") == box.commits["megatron"]["pr"]
    # It read the description and the named pull request again: what resolve reads.
    assert [line.split("?")[0] for line in github.log] == [
        f"GET /repos/{MILES}/pulls/42", f"GET /repos/{MEGATRON}/pulls/202"]


def test_attempt_2_without_a_token_cannot_check_and_fails(
        cli: Cli, box: Sandbox, write_event: EventWriter, github: FakeGitHub,
        config: Path) -> None:
    pins = resolve_attempt_1(cli, write_event, github, config)
    result = install(cli, box, config, write_event, github, pins, attempt=2, token=False)
    assert result.code == 1
    assert "this is attempt 2 of run 77, and install got the pins of attempt 1" in result.stderr
    assert "github-token" in result.stderr and "or re-run all jobs" in result.stderr
    assert github.log == []


def test_the_attempt_that_resolved_asks_nothing_more(
        cli: Cli, box: Sandbox, write_event: EventWriter, github: FakeGitHub,
        config: Path) -> None:
    pins = resolve_attempt_1(cli, write_event, github, config)
    github.repository(MILES).pulls[42]["body"] = "ci-megatron-pr: #203"
    result = install(cli, box, config, write_event, github, pins, attempt=1)
    assert result.code == 0, result.stderr  # its own resolve decided these pins just now
    assert github.log == []
