"""Stacks that change below: #50 is based on #49's branch and inherits SGLang #102 from #49's
description. When #49 is edited to name nothing, or merges with its branch kept, what #50's
suite tested is no longer named: the sweep must say so on #50's head, though #50 itself was
never touched. Real resolve, comment and sweep against the local API stand-in."""

from __future__ import annotations

import json
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


@pytest.fixture(params=["chained", "native"])
def stacked(request: pytest.FixtureRequest, cli: Cli, write_event: EventWriter,
            github: FakeGitHub, config: Path, tmp_path: Path) -> FakeGitHub:
    """#50 on #49's branch, tested with what it inherits; the first sweep says success. The
    stack is GitHub's native one too (its public preview), or only the chain of branches:
    the verdicts are the same."""
    miles = github.repository(MILES)
    if request.param == "native":
        miles.stacks = [[49, 50]]
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


def test_a_pull_request_below_merged_and_the_one_above_retargeted_fails_the_one_above(
        cli: Cli, stacked: FakeGitHub, config: Path) -> None:
    """GitHub retargets #50 onto the default branch when #49 merges and its branch goes (an
    edit of #50: it is recent)."""
    miles = stacked.repository(MILES)
    miles.pulls[49].update(state="closed", merged=True, merged_at="2026-12-03T10:00:00Z")
    miles.pulls[50]["base"]["ref"] = "main"
    miles.pulls[50]["updated_at"] = RECENT
    result = sweep(cli, stacked, config, "--suite", "ROCm CI")
    assert result.code == 0, result.stderr
    assert statuses(stacked)[50][0] == (CONTEXT, "failure",
                                        "sglang tested at 2222222, no longer named")


def test_a_pull_request_below_that_did_not_change_costs_the_one_above_nothing(
        cli: Cli, stacked: FakeGitHub, config: Path) -> None:
    """#50 inherits, so it is judged every sweep; #48 on a quiet, unchanged #47 is not."""
    miles = stacked.repository(MILES)
    miles.pulls[48]["base"]["ref"] = "feature-47"
    if miles.stacks is not None:
        miles.stacks.append([47, 48])
    result = sweep(cli, stacked, config, "--suite", "ROCm CI")
    assert result.code == 0, result.stderr
    judged = {entry["pull"] for entry in json.loads(result.stdout)["judged"]}
    assert 50 in judged and 48 not in judged
    assert stacked.queries == ["OpenPulls"] * 3 + ["Comments", "Bodies", "Pulls"]


def test_a_native_stack_is_read_where_the_branches_do_not_chain(
        cli: Cli, github: FakeGitHub, config: Path) -> None:
    """GitHub shows #49 and #50 as one native stack though #50 is based on the default
    branch: #50 inherits SGLang #102 from #49, and its suite has not reported on it. Without
    the native stack, #50 names nothing and is not judged."""
    miles = github.repository(MILES)
    miles.pulls[49]["body"] = "The SGLang bump.\n\nci-sglang-pr: #102\n"
    miles.pulls[50]["body"] = "Uses the bump.\n"
    judged = {}
    for stacks in (None, [[49, 50]]):
        miles.stacks = stacks
        result = sweep(cli, github, config, "--suite", "ROCm CI", "--dry-run")
        assert result.code == 0, result.stderr
        judged[stacks is not None] = {entry["pull"]: entry["description"]
                                      for entry in json.loads(result.stdout)["judged"]}
    assert 50 not in judged[False]
    assert judged[True][50] == "sglang#102 named; not reported by this suite yet"
