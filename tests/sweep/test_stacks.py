"""Stacks that change below: #50 is based on #49's branch and inherits SGLang #102 from #49's
description. When #49 is edited to name nothing, or merges with its branch kept, what #50's
suite tested is no longer named: the sweep must say so on #50's head, though #50 itself was
never touched. Real resolve, comment and sweep against the local API stand-in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Cli, EventWriter
from tests.fake_github import FakeGitHub
from tests.sweep.test_sweeper import (
    CONTEXT,
    MILES,
    github,
    run_the_suite_on,
    statuses,
    sweep,
)

__all__ = ["github"]
RECENT = "2099-01-01T00:00:00Z"  # updated "now": within any look-back


@pytest.fixture
def stacked(cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
            tmp_path: Path) -> FakeGitHub:
    """#50 on #49's branch, tested with what it inherits; the first sweep says success."""
    miles = github.repository(MILES)
    miles.pulls[49]["body"] = "The SGLang bump.\n\nci-sglang-pr: #102\n"
    miles.pulls[50]["body"] = "Stacked on #49: uses the bump.\n"
    miles.pulls[50]["base"]["ref"] = "feature-49"
    run_the_suite_on(cli, write_event, github, config, tmp_path, 50, miles.pulls[50]["body"])
    result = sweep(cli, github, config, "--suite", "ROCm CI")
    assert result.code == 0, result.stderr
    assert statuses(github)[50][0] == (CONTEXT, "success", "tested sglang#102 at 2222222")
    return github


def test_a_pull_request_below_edited_to_name_nothing_fails_the_one_above(
        cli: Cli, stacked: FakeGitHub, config: Path) -> None:
    below = stacked.repository(MILES).pulls[49]
    below.update(body="The SGLang bump landed elsewhere.", updated_at=RECENT)
    result = sweep(cli, stacked, config, "--suite", "ROCm CI")
    assert result.code == 0, result.stderr
    assert statuses(stacked)[50][0] == (CONTEXT, "failure",
                                        "sglang tested at 2222222, no longer named")


def test_a_pull_request_below_merged_with_its_branch_kept_fails_the_one_above(
        cli: Cli, stacked: FakeGitHub, config: Path) -> None:
    stacked.repository(MILES).pulls[49].update(state="closed", merged=True,
                                               merged_at="2026-12-03T10:00:00Z")
    for _ in range(2):  # and it stays said: the second sweep writes nothing new
        result = sweep(cli, stacked, config, "--suite", "ROCm CI")
        assert result.code == 0, result.stderr
        assert statuses(stacked)[50][0] == (CONTEXT, "failure",
                                            "sglang tested at 2222222, no longer named")
    assert len(statuses(stacked)[50]) == 2  # success, then one failure


def test_a_pull_request_below_that_did_not_change_costs_the_one_above_nothing(
        cli: Cli, stacked: FakeGitHub, config: Path) -> None:
    """#50 inherits, so it is judged every sweep; #48 on a quiet, unchanged #47 is not read."""
    miles = stacked.repository(MILES)
    miles.pulls[48]["base"]["ref"] = "feature-47"
    result = sweep(cli, stacked, config, "--suite", "ROCm CI")
    assert result.code == 0, result.stderr
    assert not any(f"/commits/{miles.pulls[48]['head']['sha']}/status" in line
                   for line in stacked.log)
