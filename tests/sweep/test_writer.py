"""What the sweep writes: shared heads decided by the trusted pull requests, and the merge
guard's status recomputed as merge-check gives it (it turns green when what a description waits
for merges, with no push and no re-run). Real resolve, comment, merge-check and sweep against
the local API stand-in."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Cli, CliResult, EventWriter
from tests.fake_github import FakeGitHub
from tests.sweep.test_sweeper import (
    CONTEXT,
    MILES,
    environment,
    github,
    head_of,
    run_the_suite_on,
    statuses,
    sweep,
    writes,
)

__all__ = ["github"]
GUARD = "rocm-deps: merge guard"


def test_a_strangers_fork_on_a_trusted_head_writes_nothing_there(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    """#30 (a member's, tested, success); a first-timer's fork opens #251 on #30's commit,
    with a description error, and #252 naming SGLang #103: neither decides #30's status."""
    run_the_suite_on(cli, write_event, github, config, tmp_path, 30)
    miles = github.repository(MILES)
    miles.add_pull(251, head_of(30), body="ci_sglang_pr: #102", author="FIRST_TIMER",
                   head_repository="stranger/miles")
    miles.add_pull(252, head_of(30), body="ci-sglang-pr: #103", author="NONE",
                   head_repository="other/miles")
    for _ in range(2):
        result = sweep(cli, github, config)
        assert result.code == 0, result.stderr
        assert statuses(github)[30][0] == (CONTEXT, "success", "tested megatron#55 at 5555555")
    judged = {entry["pull"]: entry for entry in json.loads(result.stdout)["judged"]}
    assert judged[251]["status"] == judged[252]["status"] == (
        "decided by the trusted pull requests with this head")
    assert not judged[251]["written"] and not judged[252]["written"]


def test_an_untrusted_pull_request_decides_a_head_no_trusted_one_shares(
        cli: Cli, github: FakeGitHub, config: Path) -> None:
    github.repository(MILES).add_pull(253, "f" * 40, body="ci-sglang-pr: #103", author="NONE",
                                      head_repository="other/miles")
    result = sweep(cli, github, config, "--suite", "ROCm CI")
    assert result.code == 0, result.stderr
    assert github.repository(MILES).statuses["f" * 40][0]["state"] == "pending"


def merge_check(cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
                number: int, *extra: str) -> CliResult:
    event = write_event(github.repository(MILES).pulls[number]["body"], number=number,
                        repository=MILES, head=head_of(number))
    return cli("merge-check", "--event-name", "pull_request", "--event-path", event,
               "--config", str(config), "--github-token-env", "TEST_GITHUB_TOKEN",
               "--format", "json", *extra, env=environment(github))


def guard_status(github: FakeGitHub, number: int) -> tuple[str, str]:
    found = [(status["state"], status["description"]) for status in
             github.repository(MILES).statuses.get(head_of(number), [])
             if status["context"] == GUARD]
    return found[0]


def test_the_guard_turns_green_when_the_named_dependency_merges_and_stays_quiet(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    """The acceptance scenario: #42 names SGLang #30421 while it is open."""
    github.repository("sgl-project/sglang").add_pull(30421, "3" * 40)
    github.repository(MILES).pulls[42]["body"] = "ci-sglang-pr: #30421\n"
    checked = merge_check(cli, write_event, github, config, 42)
    assert checked.code == 1
    assert guard_status(github, 42) == ("failure", "waits for sglang#30421 (open)")
    sglang_pull = github.repository("sgl-project/sglang").pulls[30421]
    sglang_pull.update(state="closed", merged=True, merged_at="2026-12-03T10:00:00Z")
    first = sweep(cli, github, config)
    assert first.code == 0, first.stderr
    assert guard_status(github, 42) == ("success", "sglang#30421 merged")
    assert writes(github) == [f"POST /repos/{MILES}/statuses/{head_of(42)}"]
    second = sweep(cli, github, config)
    assert second.code == 0, second.stderr
    assert writes(github) == []  # nothing changed: nothing written


def test_a_green_is_not_written_over_what_changed_while_the_sweep_read(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    """#42's dependency merged, so its guard would turn green; while the sweep reads the
    named pull requests, the author adds `Depends-On: #49` (open) and merge-check writes
    `failure`. The sweep reads #42 again before the green, sees the edit, and writes nothing
    over it; the next sweep judges the new description."""
    sglang = github.repository("sgl-project/sglang")
    sglang.add_pull(30421, "3" * 40)
    miles = github.repository(MILES)
    miles.pulls[42]["body"] = "ci-sglang-pr: #30421\n"
    assert merge_check(cli, write_event, github, config, 42).code == 1
    sglang.pulls[30421].update(state="closed", merged=True, merged_at="2026-12-03T10:00:00Z")

    def author_and_merge_check() -> None:
        miles.pulls[42].update(body="ci-sglang-pr: #30421\nDepends-On: #49\n",
                               updated_at="2026-12-07T10:00:00Z")
        miles.statuses[head_of(42)].insert(0, {"context": GUARD, "state": "failure",
                                               "description": "waits for #49 (open)",
                                               "target_url": None})

    github.on_query["Pulls"] = author_and_merge_check
    result = sweep(cli, github, config)
    assert result.code == 0, result.stderr
    assert github.queries[-1] == "Reread"
    assert guard_status(github, 42) == ("failure", "waits for #49 (open)")
    assert writes(github) == []
    assert ("#42: `rocm-deps: merge guard` left as it is, not turned `success`: it was edited "
            "(its description, a comment or a push) since the sweep read it; the next sweep "
            "judges it again") in json.loads(result.stdout)["problems"]
    assert sweep(cli, github, config).code == 0
    assert guard_status(github, 42) == ("failure", "waits for #49 (open)")


def test_the_guard_turns_red_when_a_prerequisite_closes_unmerged(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    """#42 waits for #41 (open: in the list, no request); #41 closes without merging."""
    miles = github.repository(MILES)
    miles.pulls[42]["body"] = "Depends-On: #41\n"
    assert merge_check(cli, write_event, github, config, 42).code == 1
    assert guard_status(github, 42) == ("failure", "waits for #41 (open)")
    miles.pulls[41]["state"] = "closed"
    assert sweep(cli, github, config).code == 0
    assert guard_status(github, 42) == ("failure", "waits for #41 (closed unmerged)")
    # No longer in the list: read once, with the other named pull requests; #42 carries only
    # the guard's status: its comments are not read (the four naming ones' are).
    assert github.queries == ["OpenPulls"] * 3 + ["Comments", "Pulls"]


def test_a_prerequisite_merged_into_another_pull_requests_branch_is_not_merged(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    miles = github.repository(MILES)
    miles.pulls[42]["body"] = "Depends-On: #41\n"
    miles.pulls[41].update(state="closed", merged=True, merged_at="2026-12-03T10:00:00Z")
    miles.pulls[41]["base"]["ref"] = "feature-40"  # merged into #40's branch, a stack
    result = merge_check(cli, write_event, github, config, 42)
    assert result.code == 1
    assert ("`Depends-On: #41`: radixark/miles#41 was merged into `feature-40`, not into its "
            "repository's default branch, so it has not landed") in result.stderr
    assert guard_status(github, 42) == ("failure", "waits for #41 (merged elsewhere)")
    assert sweep(cli, github, config).code == 0
    assert guard_status(github, 42) == ("failure", "waits for #41 (merged elsewhere)")


def test_a_dependency_pull_request_merged_into_another_branch_is_not_merged(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    sglang = github.repository("sgl-project/sglang")
    sglang.add_pull(30421, "3" * 40, state="closed", merged=True, base="sglang-miles")
    github.repository(MILES).pulls[42]["body"] = "ci-sglang-pr: #30421\n"
    result = merge_check(cli, write_event, github, config, 42)
    assert result.code == 1
    assert "sgl-project/sglang#30421 was merged into `sglang-miles`" in result.stderr


def test_a_custom_context_and_no_status(cli: Cli, write_event: EventWriter, github: FakeGitHub,
                                        config: Path) -> None:
    github.repository(MILES).pulls[42]["body"] = "Depends-On: #41\n"
    named = merge_check(cli, write_event, github, config, 42, "--guard-context", "deps: guard")
    assert named.code == 1
    assert [status["context"] for status in
            github.repository(MILES).statuses[head_of(42)]] == ["deps: guard"]
    github.repository(MILES).statuses.clear()
    github.log.clear()
    silent = merge_check(cli, write_event, github, config, 42, "--guard-status", "false")
    assert silent.code == 1
    assert writes(github) == []


def test_a_token_that_cannot_write_statuses_keeps_the_verdict_and_says_what_to_grant(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    """A merge guard workflow written for 1.0 grants no `statuses: write`: the step's verdict
    stands (#41's dependency merged: it passes), with a warning; no status is written."""
    github.statuses_forbidden = True
    result = merge_check(cli, write_event, github, config, 41)
    assert result.code == 0, result.stderr
    head = f"{41:040x}"
    assert writes(github) == [f"POST /repos/radixark/miles/statuses/{head}"]  # refused
    assert head not in github.repository("radixark/miles").statuses
    [warning] = [line for line in result.stderr.splitlines() if line.startswith("::warning")]
    assert ("the verdict is not written as the `rocm-deps: merge guard` status on "
            "000000000000: GitHub refused") in warning
    assert warning.endswith("Grant the job `statuses: write` (or set `guard-status: false`)")
    assert len([line for line in result.stderr.splitlines() if "403" in line]) == 1  # ours


def test_guard_statuses_a_quiet_stack_and_a_prerequisite_cost_nothing_more_in_250(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    """The 250 open pull requests of test_sweeper, four naming something, each head with the
    guard's status; #61 stacked on the quiet #60; #62 waiting for the open #10 (its guard
    status kept): the guard, the stack and the prerequisite are judged from what the sweep
    reads anyway."""
    for number in (10, 20, 30):
        run_the_suite_on(cli, write_event, github, config, tmp_path, number)
    miles = github.repository(MILES)
    for number in (10, 20, 30, 40, 62):
        assert merge_check(cli, write_event, github, config, number).code in (0, 1)
    miles.pulls[61]["base"]["ref"] = "feature-60"
    miles.pulls[62]["body"] = "Depends-On: #10\n"
    assert merge_check(cli, write_event, github, config, 62).code == 1
    result = sweep(cli, github, config)
    assert result.code == 0, result.stderr
    # 3 pages (every head's statuses with them); the native stacks; who wrote the comments of the four and #61, the manifests' bodies; the
    # dependency pull requests; #40's pending write. Nothing for #62 but its guard's status.
    assert github.queries == ["OpenPulls"] * 3 + ["Comments", "Bodies", "Pulls"]
    assert github.log == ["POST /api/graphql"] * 3 + [
        f"GET /repos/{MILES}/stacks?page=1&per_page=100"] + ["POST /api/graphql"] * 3 + [
        f"POST /repos/{MILES}/statuses/{head_of(40)}"]
    assert guard_status(github, 62) == ("failure", "waits for #10 (open)")


def test_a_sweep_that_may_write_no_status_fails_once_naming_statuses_write(
        cli: Cli, github: FakeGitHub, config: Path) -> None:
    """Heads that need a status (three more than the fixture's), and a token without
    `statuses: write`: one write is tried, the sweep fails with one error that says what to
    grant, and nothing else (no raw client line) speaks of the refusal. With the permission,
    the next sweep writes every one it could not."""
    for number in (261, 262, 263):
        github.repository(MILES).add_pull(number, f"{number:040x}", body="ci-sglang-pr: #103")
    github.statuses_forbidden = True
    result = sweep(cli, github, config, "--suite", "ROCm CI")
    assert result.code == 1, result.stderr
    assert len(writes(github)) == 1
    refusals = [line for line in result.stderr.splitlines() if "403" in line
                or "Resource not accessible" in line]
    assert len(refusals) == 1 and refusals[0].startswith(
        "::error title=rocm-deps%3A sweep could not write statuses::sweep could not write "
        "commit statuses: GitHub refused")
    assert refusals[0].endswith("status(es) that changed were not written. Grant the job "
                                "`statuses: write` (`permissions:`), or give a token that has it")
    document = json.loads(result.stdout)
    assert document["statuses_written"] == 0
    github.statuses_forbidden = False
    github.log.clear()
    again = sweep(cli, github, config, "--suite", "ROCm CI")
    assert again.code == 0, again.stderr
    assert len(writes(github)) == document["unwritten"] == json.loads(again.stdout)[
        "statuses_written"]
    assert all(f"{number:040x}" in github.repository(MILES).statuses
               for number in (261, 262, 263))
