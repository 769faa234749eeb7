"""`rocm-deps sweep` against the local API stand-in: 250 open pull requests, four naming a
dependency, three tested through the real `resolve` and `comment`; statuses written only when
they change, a moved dependency pull request turning exactly its dependents to failure, and
`--rerun moved` re-running exactly their recorded runs."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rocm_deps.contract.status import fit
from tests.conftest import Cli, CliResult, EventWriter
from tests.fake_github import FakeGitHub
from tests.manifest.test_comment import installed_everything, resolve_report

TOKEN = "ghp_rocmdepsSWEEPtoken0123456789abcdefgh"
MILES = "radixark/miles"
HEAD_102, HEAD_103, HEAD_55 = "2" * 40, "3" * 40, "5" * 40
MOVED = "7" * 40
MEGATRON_SHA = "abcdef0" + "1" * 33
SUITE = "ROCm CI"
# The four pull requests that name something: number -> description.
NAMING = {
    10: "Fix the router.\n\nci-sglang-pr: #102\n",
    20: f"Both at once.\n\nci-sglang-pr: #102\nci-megatron-pr: {MEGATRON_SHA}\n",
    30: "Megatron only.\n\nci-megatron-pr: #55\n",
    40: "Not run yet.\n\nci-sglang-pr: #103\n",
}
TESTED = (10, 20, 30)


def head_of(number: int) -> str:
    return f"{number:040x}"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        sglang = fake.repository("sgl-project/sglang")
        sglang.add_pull(102, HEAD_102)
        sglang.add_pull(103, HEAD_103)
        megatron = fake.repository("radixark/Megatron-LM")
        megatron.add_pull(55, HEAD_55)
        megatron.commits.append(MEGATRON_SHA)
        miles = fake.repository(MILES)
        for number in range(1, 251):
            miles.add_pull(number, head_of(number),
                           body=NAMING.get(number, f"Change {number}: a refactor, see "
                                                   f"ci-docs for ci-sglang-pr usage."))
        yield fake


def environment(github: FakeGitHub, run_id: int = 1) -> dict[str, str]:
    return {"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": TOKEN,
            "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": MILES,
            "GITHUB_RUN_ID": str(run_id), "GITHUB_WORKFLOW": SUITE}


def run_the_suite_on(cli: Cli, write_event: EventWriter, github: FakeGitHub,
                     config: Path, tmp_path: Path, number: int, body: str = "") -> None:
    """The suite's run on pull request `number` (run 1000 + number): resolve with the token,
    a GPU job that installed every pinned commit, then the real `comment`."""
    env = environment(github, 1000 + number)
    event = write_event(body or NAMING[number], number=number, repository=MILES,
                        head=head_of(number))
    report, resolved = resolve_report(cli, event, config, env, tmp_path)
    install = installed_everything(resolved, tmp_path)
    commented = cli("comment", "--event-name", "pull_request", "--event-path", event,
                    "--config", str(config), "--report", str(report), "--report", str(install),
                    "--github-token-env", "TEST_GITHUB_TOKEN", env=env)
    assert commented.code == 0, commented.stderr


@pytest.fixture
def tested(cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
           tmp_path: Path) -> FakeGitHub:
    for number in TESTED:
        run_the_suite_on(cli, write_event, github, config, tmp_path, number)
    github.log.clear()
    return github


def sweep(cli: Cli, github: FakeGitHub, config: Path, *extra: str) -> CliResult:
    github.log.clear()
    github.queries.clear()
    return cli("sweep", "--config", str(config), "--github-token-env", "TEST_GITHUB_TOKEN",
               "--format", "json", *extra, env=environment(github))


def statuses(github: FakeGitHub) -> dict[int, list[tuple[str, str, str]]]:
    """Pull request -> (context, state, description) of each status on its head, newest
    first; pull requests with none left out."""
    miles = github.repository(MILES)
    found = {number: [(status["context"], status["state"], status["description"])
                      for status in miles.statuses.get(head_of(number), [])]
             for number in miles.pulls}
    return {number: entries for number, entries in found.items() if entries}


def writes(github: FakeGitHub) -> list[str]:
    """The requests that write (a GraphQL query is a POST that reads)."""
    return [line for line in github.log if not line.startswith("GET ")
            and line != "POST /api/graphql"]


CONTEXT = f"rocm-deps: {SUITE}"


def test_the_first_sweep_judges_the_four_and_nothing_else(cli: Cli, tested: FakeGitHub,
                                                           config: Path) -> None:
    result = sweep(cli, tested, config)
    assert result.code == 0, result.stderr
    # Three pages of 100 open pull requests; the native stacks (none: the preview is not
    # enabled); who wrote the comments of the four, then the bodies of the bot's three
    # manifests; the three dependency pull requests in one query; one write (the pending
    # one: comment set the others). Nothing per pull request.
    assert tested.queries == ["OpenPulls"] * 3 + ["Comments", "Bodies", "Pulls"]
    assert tested.log == ["POST /api/graphql"] * 3 + [
        f"GET /repos/{MILES}/stacks?page=1&per_page=100"] + ["POST /api/graphql"] * 3 + [
        f"POST /repos/{MILES}/statuses/{head_of(40)}"]
    assert statuses(tested) == {
        10: [(CONTEXT, "success", "tested sglang#102 at 2222222")],
        20: [(CONTEXT, "success", "tested sglang#102 at 2222222, megatron abcdef0")],
        30: [(CONTEXT, "success", "tested megatron#55 at 5555555")],
        40: [(CONTEXT, "pending", "sglang#103 named; not reported by this suite yet")]}
    report = json.loads(result.stdout)
    assert (report["open_pulls"], report["naming"], report["dependency_pulls"],
            report["statuses_written"], report["requests"], report["points"]) == (
        250, 4, 3, 1, 8, tested.points)
    assert tested.points == 6  # a point a query: the formula's minimum
    assert ("| #40 | `ROCm CI` | pending | `sglang#103 named; not reported by this suite yet` "
            "| yes |  |") in result.summary.split("\n")


def test_a_second_sweep_writes_nothing(cli: Cli, tested: FakeGitHub, config: Path) -> None:
    assert sweep(cli, tested, config).code == 0
    before = statuses(tested)
    result = sweep(cli, tested, config)
    assert result.code == 0, result.stderr
    assert writes(tested) == []
    assert statuses(tested) == before
    assert json.loads(result.stdout)["statuses_written"] == 0


def test_a_moved_dependency_fails_exactly_its_dependents_and_reruns_their_runs(
        cli: Cli, tested: FakeGitHub, config: Path) -> None:
    assert sweep(cli, tested, config).code == 0
    tested.repository("sgl-project/sglang").move(102, MOVED)
    result = sweep(cli, tested, config, "--rerun", "moved")
    assert result.code == 0, result.stderr
    moved = "sglang#102 moved 2222222→7777777 since tested; re-run requested"
    now = {number: entries[0] for number, entries in statuses(tested).items()}
    assert now == {10: (CONTEXT, "failure", moved), 20: (CONTEXT, "failure", moved),
                   30: (CONTEXT, "success", "tested megatron#55 at 5555555"),
                   40: (CONTEXT, "pending", "sglang#103 named; not reported by this suite yet")}
    assert tested.repository(MILES).reruns == [1010, 1020]
    # Each run re-run before the status that says so.
    assert writes(tested) == [
        f"POST /repos/{MILES}/actions/runs/1010/rerun",
        f"POST /repos/{MILES}/actions/runs/1020/rerun",
        f"POST /repos/{MILES}/statuses/{head_of(10)}",
        f"POST /repos/{MILES}/statuses/{head_of(20)}"]
    # The re-runs are in flight: the next sweep asks for none again and writes nothing.
    again = sweep(cli, tested, config, "--rerun", "moved")
    assert again.code == 0 and writes(tested) == []
    assert tested.repository(MILES).reruns == [1010, 1020]


def test_max_reruns_takes_the_oldest_first_and_the_next_sweep_the_rest(
        cli: Cli, tested: FakeGitHub, config: Path) -> None:
    tested.repository("sgl-project/sglang").move(102, MOVED)
    first = sweep(cli, tested, config, "--rerun", "moved", "--max-reruns", "1")
    assert first.code == 0, first.stderr
    assert tested.repository(MILES).reruns == [1010]
    assert statuses(tested)[20][0] == (
        CONTEXT, "failure", "sglang#102 moved 2222222→7777777 since tested")
    assert sweep(cli, tested, config, "--rerun", "moved", "--max-reruns", "1").code == 0
    assert tested.repository(MILES).reruns == [1010, 1020]


def test_without_rerun_a_move_only_sets_the_status(cli: Cli, tested: FakeGitHub,
                                                    config: Path) -> None:
    tested.repository("sgl-project/sglang").move(102, MOVED)
    assert sweep(cli, tested, config).code == 0
    assert tested.repository(MILES).reruns == []
    assert statuses(tested)[10][0] == (
        CONTEXT, "failure", "sglang#102 moved 2222222→7777777 since tested")


def test_a_merged_dependency_at_the_tested_head_stays_success(cli: Cli, tested: FakeGitHub,
                                                               config: Path) -> None:
    pull = tested.repository("radixark/Megatron-LM").pulls[55]
    pull["state"], pull["merged"] = "closed", True
    assert sweep(cli, tested, config).code == 0
    assert statuses(tested)[30][0] == (CONTEXT, "success", "tested megatron#55 merged at 5555555")


def test_an_unreadable_manifest_is_a_failure_on_that_pull_request_only(
        cli: Cli, tested: FakeGitHub, config: Path) -> None:
    [manifest] = tested.repository(MILES).comments[30]
    manifest["body"] += "\n<!-- rocm-deps:data {} -->"  # a second data block
    result = sweep(cli, tested, config)
    assert result.code == 0, result.stderr
    assert statuses(tested)[30][0] == (
        CONTEXT, "failure", "the manifest comment cannot be read: re-run the suite's comment "
                            "step")
    assert statuses(tested)[10][0][1] == "success"


def test_a_description_edited_to_name_nothing_fails_until_the_suite_runs_again(
        cli: Cli, write_event: EventWriter, tested: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    """The suite tested sglang#102 because the description named it; now it names nothing,
    so what was tested is not what is asked for, until the suite runs on the new text."""
    pull = tested.repository(MILES).pulls[10]
    pull["body"], pull["updated_at"] = "The fix landed upstream.", "2099-01-01T00:00:00Z"
    result = sweep(cli, tested, config)
    assert result.code == 0, result.stderr
    assert statuses(tested)[10][0] == (CONTEXT, "failure",
                                       "sglang tested at 2222222, no longer named")
    run_the_suite_on(cli, write_event, tested, config, tmp_path, 10,
                     body="The fix landed upstream.")
    assert statuses(tested)[10][0] == (CONTEXT, "success", "nothing named")  # comment's
    assert sweep(cli, tested, config).code == 0
    assert writes(tested) == []


def test_a_branch_named_is_a_failure(cli: Cli, github: FakeGitHub, config: Path) -> None:
    github.repository(MILES).pulls[40]["body"] = "ci-sglang-pr: feature/fast-path\n"
    result = sweep(cli, github, config, "--suite", SUITE)
    assert result.code == 0, result.stderr
    assert statuses(github)[40] == [(CONTEXT, "failure", "sglang feature/fast-path names a "
                                                         "branch or tag, which moves without a "
                                                         "trace: name the pull request or the "
                                                         "commit")]
    assert statuses(github)[30] == [(CONTEXT, "pending", "megatron#55 named; not reported by "
                                                         "this suite yet")]


@pytest.mark.parametrize(("setup", "message"), [
    (lambda fake: setattr(fake, "fail_first", 99) or setattr(fake, "fail_status", 401),
     "the sweep cannot run: the GitHub token was rejected (HTTP 401: Bad credentials) while "
     "reading the open pull requests of radixark/miles"),
])
def test_the_sweep_fails_only_when_it_cannot_run(cli: Cli, github: FakeGitHub, config: Path,
                                                 setup: Any, message: str) -> None:
    setup(github)
    result = sweep(cli, github, config)
    assert result.code == 1
    assert message in result.stderr
    assert statuses(github) == {}


def test_without_a_token_it_says_what_it_needs(cli: Cli, github: FakeGitHub,
                                               config: Path) -> None:
    result = cli("sweep", "--config", str(config), "--rerun", "moved",
                 env={**environment(github), "TEST_GITHUB_TOKEN": ""})
    assert result.code == 2
    assert "sweep reads the open pull requests and writes commit statuses" in result.stderr
    assert "pull-requests: read, statuses: write, actions: write" in result.stderr


def test_a_spent_rate_limit_stops_the_sweep_and_nothing_more_is_asked(
        cli: Cli, tested: FakeGitHub, config: Path) -> None:
    """Three pages, the stacks, who wrote the comments: the sixth request, the bodies, meets
    GraphQL's primary limit (an answer of 200 that says so), an hour away: not waited for.
    Nothing more is asked, nothing is written, and the report lists the four not reached."""
    tested.repository("sgl-project/sglang").move(102, MOVED)  # #10 and #20 would turn red
    tested.requests.clear()
    tested.rate_limited_from = 6
    result = sweep(cli, tested, config)
    assert result.code == 0, result.stderr
    assert len(tested.requests) == 6
    report = json.loads(result.stdout)
    assert re.fullmatch(
        r"stopped while reading \(rate limited \(primary\) until [0-9]{2}:[0-9]{2} UTC while "
        r"reading 3 comments: API rate limit exceeded for installation ID 1\. .*\); nothing "
        r"was written: GitHub asks for no more requests until then", report["stopped"])
    assert report["not_reached"] == [10, 20, 30, 40]
    assert report["judged"] == [] and report["statuses_written"] == 0
    assert "not judged, not reached: #10, #20, #30, #40" in result.summary
    [warning] = [line for line in result.stderr.splitlines()
                 if line.startswith("::warning title=rocm-deps%3A sweep stopped early")]
    assert "not judged, not reached: #10, #20, #30, #40" in warning


@pytest.mark.parametrize(("clock", "stopped", "written"), [
    # The list at 1 to 3 s, the stacks at 4, who wrote the comments at 9: past 80 % of 10 s.
    ([0, 1, 2, 3, 4, 9], "stopped while reading (its 10 s ran out)", {}),
    # Everything read by 6 s; the first write at 7, the second at 11: past the 10 s.
    ([0, 1, 2, 3, 4, 5, 6, 7, 11], "stopped while writing statuses (its 10 s ran out): 1 "
                                "written, 3 left as they were",
     {10: [(CONTEXT, "pending", "sglang#102 named; not reported by this suite yet")]}),
], ids=["reading", "writing"])
def test_the_time_budget_stops_reading_then_writing_and_says_so(
        github: FakeGitHub, clock: list[int], stopped: str,
        written: dict[int, list[tuple[str, str, str]]]) -> None:
    from rocm_deps.config import load_config
    from rocm_deps.edge import ApiSettings
    from rocm_deps.github.api import GitHubApi
    from rocm_deps.sweep.settings import SweepSettings
    from rocm_deps.sweep.sweeper import sweep as run_sweep

    config = load_config(None, "rocm")
    settings = SweepSettings(config, MILES, ApiSettings(github.url, TOKEN), suites=(SUITE,),
                             max_seconds=10)
    ticks = iter([*map(float, clock), *[100.0] * 10])
    report = run_sweep(settings, GitHubApi(github.url, TOKEN, config.api),
                       clock=lambda: next(ticks))
    assert report.stopped == stopped
    assert statuses(github) == written
    if not written:  # nothing judged: all four were not reached
        assert report.not_reached == [10, 20, 30, 40]


def test_hostile_text_reaches_the_log_only_as_text(cli: Cli, github: FakeGitHub,
                                                   config: Path) -> None:
    """A description with a line separator, and an API whose error message carries a line
    break and a workflow command: neither becomes a command in the log."""
    github.repository(MILES).pulls[40]["body"] = (
        "ci-sglang-pr: #103 \u2028::error title=pwned::forged\n")
    # GitHub answers the comments of #10 (the first alias) with an error and no data.
    github.alias_errors["Comments.p0"] = "down\n::error title=pwned::forged"
    result = cli("sweep", "--config", str(config), "--github-token-env", "TEST_GITHUB_TOKEN",
                 "--suite", SUITE, env=environment(github))
    assert result.code == 0, result.stderr
    assert statuses(github)[40][0][1:] == ("failure", fit(
        "the description has 1 error: line 1: `ci-sglang-pr: #103 <U+2028>::error "
        "title=pwned::forged` — the line contains the invisible character U+2028 LINE "
        "SEPARATOR; retype the line without it"))
    assert "#10: could not read its comments" in result.stdout
    for line in (result.stdout + result.stderr).splitlines():
        assert not line.strip().startswith("::error"), line


def test_a_new_push_is_pending_until_the_suite_reports_on_it(cli: Cli, tested: FakeGitHub,
                                                             config: Path) -> None:
    tested.repository(MILES).move(10, "a" * 40)
    tested.repository("sgl-project/sglang").move(102, MOVED)
    assert sweep(cli, tested, config, "--rerun", "moved").code == 0
    miles = tested.repository(MILES)
    assert [(s["state"], s["description"]) for s in miles.statuses["a" * 40]] == [
        ("pending", "this suite has not reported on aaaaaaa yet (it tested 0000000)")]
    assert miles.reruns == [1020]  # #10's run tested its old head: not re-run for the new one


def test_a_refused_rerun_is_said_once_and_the_next_run_takes_its_place(
        cli: Cli, tested: FakeGitHub, config: Path) -> None:
    tested.repository(MILES).refused_reruns.add(1010)
    tested.repository("sgl-project/sglang").move(102, MOVED)
    assert sweep(cli, tested, config, "--rerun", "moved", "--max-reruns", "1").code == 0
    assert statuses(tested)[10][0][2] == (
        "sglang#102 moved 2222222→7777777 since tested; re-run refused")
    assert sweep(cli, tested, config, "--rerun", "moved", "--max-reruns", "1").code == 0
    assert tested.repository(MILES).reruns == [1020]
    assert writes(tested) == [f"POST /repos/{MILES}/actions/runs/1020/rerun",
                              f"POST /repos/{MILES}/statuses/{head_of(20)}"]


def test_two_suites_recording_one_run_share_one_rerun(
        cli: Cli, write_event: EventWriter, tested: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    """A second `comment` step (`suite: CUDA`) in the same run 1010 on #10."""
    env = environment(tested, 1010)
    event = write_event(NAMING[10], number=10, repository=MILES, head=head_of(10))
    report, resolved = resolve_report(cli, event, config, env, tmp_path)
    assert cli("comment", "--event-name", "pull_request", "--event-path", event, "--config",
               str(config), "--report", str(report), "--report",
               str(installed_everything(resolved, tmp_path)), "--suite", "CUDA",
               "--github-token-env", "TEST_GITHUB_TOKEN", env=env).code == 0
    tested.repository("sgl-project/sglang").move(102, MOVED)
    assert sweep(cli, tested, config, "--rerun", "moved").code == 0
    assert tested.repository(MILES).reruns == [1010, 1020]
    moved = "sglang#102 moved 2222222→7777777 since tested; re-run requested"
    assert sorted(statuses(tested)[10][:2]) == [("rocm-deps: CUDA", "failure", moved),
                                                (CONTEXT, "failure", moved)]


def test_a_pull_request_naming_nothing_never_turns_a_shared_head_green(
        cli: Cli, tested: FakeGitHub, config: Path) -> None:
    """A status belongs to a commit: a fork opens #251 on #10's head, naming nothing. While
    #10's dependency moved, the head stays `failure`, every sweep, and #10's run is re-run
    once for the move."""
    miles = tested.repository(MILES)
    miles.add_pull(251, head_of(10), body="Nothing named here.", author="FIRST_TIMER",
                   head_repository="stranger/miles")
    miles.pulls[251]["updated_at"] = "2099-01-01T00:00:00Z"  # recently edited, read
    tested.repository("sgl-project/sglang").move(102, MOVED)
    moved = "sglang#102 moved 2222222→7777777 since tested; re-run requested"
    for _ in range(3):
        result = sweep(cli, tested, config, "--rerun", "moved")
        assert result.code == 0, result.stderr
        newest = miles.statuses[head_of(10)][0]
        assert (newest["context"], newest["state"], newest["description"]) == (
            CONTEXT, "failure", moved)
    assert miles.reruns == [1010, 1020]  # once for the move, not once per sweep
    assert [entry["description"] for entry in miles.statuses[head_of(10)]].count(moved) == 1


def test_the_worst_verdict_of_two_naming_pull_requests_on_one_head_is_its_status(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    """#30 (tested, success) and #252 on the same head naming SGLang #103, not tested:
    the head is `pending`, never #30's green; the report says whose verdict it shows."""
    run_the_suite_on(cli, write_event, github, config, tmp_path, 30)
    github.repository(MILES).add_pull(252, head_of(30), body="ci-sglang-pr: #103\n")
    result = sweep(cli, github, config, "--suite", SUITE)
    assert result.code == 0, result.stderr
    assert statuses(github)[30][0][1:] == (
        "pending", "sglang#103 named; not reported by this suite yet")
    judged = {entry["pull"]: entry for entry in json.loads(result.stdout)["judged"]}
    assert (judged[30]["state"], judged[30]["written"]) == ("success", False)
    assert judged[30]["status"] == ("pending: sglang#103 named; not reported by this suite yet "
                                    "(its head's, from #252)")
    assert (judged[252]["state"], judged[252]["written"]) == ("pending", True)


def test_reruns_only_for_pull_requests_trusted_with_the_runner(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    """Three first-timers' fork pull requests tested against SGLang #102 come before a
    member's; with one re-run to give, the member's run gets it and the forks are listed."""
    miles = github.repository(MILES)
    for number in (10, 20, 30):
        miles.pulls[number]["author_association"] = "FIRST_TIME_CONTRIBUTOR"
        miles.pulls[number]["head"]["repo"]["full_name"] = f"fork{number}/miles"
    miles.pulls[40]["body"] = "ci-sglang-pr: #102\n"
    NAMING_40 = miles.pulls[40]["body"]
    for number in (10, 20):
        run_the_suite_on(cli, write_event, github, config, tmp_path, number)
    run_the_suite_on(cli, write_event, github, config, tmp_path, 40, NAMING_40)
    github.repository("sgl-project/sglang").move(102, MOVED)
    result = sweep(cli, github, config, "--rerun", "moved", "--max-reruns", "1")
    assert result.code == 0, result.stderr
    assert miles.reruns == [1040]
    skipped = json.loads(result.stdout)["skipped_reruns"]
    assert skipped == [
        f"#{number} `{SUITE}`: from fork{number}/miles by a FIRST_TIME_CONTRIBUTOR author, "
        f"not trusted with the runner (trusted-associations)" for number in (10, 20)]
    assert "re-run not asked: #10" in cli("sweep", "--config", str(config), "--github-token-env",
                                          "TEST_GITHUB_TOKEN", "--rerun", "moved",
                                          env=environment(github)).stdout


def test_merge_with_base_is_judged_as_resolve_named_it(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, tmp_path: Path) -> None:
    """With `merge-with-base = true`, `#102` names SGLang #102 merged onto its base; the
    sweep reads it so: success while its head stays, a move when it moves."""
    sglang = github.repository("sgl-project/sglang")
    pull = sglang.pulls[102]
    pull["merge_commit_sha"] = "9" * 40
    sglang.commits.append("9" * 40)
    sglang.parents["9" * 40] = [pull["base"]["sha"], pull["head"]["sha"]]
    config = tmp_path / "merge.toml"
    config.write_text("[dependencies.sglang]\nmerge-with-base = true\n", encoding="utf-8")
    run_the_suite_on(cli, write_event, github, config, tmp_path, 10)
    assert sweep(cli, github, config, "--suite", SUITE).code == 0
    assert statuses(github)[10][0][1:] == ("success", "tested sglang#102 at 2222222")
    sglang.move(102, MOVED)
    assert sweep(cli, github, config, "--suite", SUITE, "--rerun", "moved").code == 0
    assert statuses(github)[10][0][1:] == (
        "failure", "sglang#102 moved 2222222→7777777 since tested; re-run requested")


def test_a_sweep_stopped_before_a_pull_requests_reads_are_done_writes_nothing_for_it(
        github: FakeGitHub) -> None:
    """#30 names a commit, the others pull requests; the time runs out before the named pull
    requests are read: #30 is judged, the others are not, and their heads get no status (not
    `could not be read`)."""
    from rocm_deps.config import load_config
    from rocm_deps.edge import ApiSettings
    from rocm_deps.github.api import GitHubApi
    from rocm_deps.sweep.settings import SweepSettings
    from rocm_deps.sweep.sweeper import sweep as run_sweep

    github.repository(MILES).pulls[30]["body"] = f"ci-megatron-pr: {MEGATRON_SHA}\n"
    config = load_config(None, "rocm")
    settings = SweepSettings(config, MILES, ApiSettings(github.url, TOKEN), suites=(SUITE,),
                             max_seconds=100)
    # The start, the three pages, the stacks, who wrote the comments; the named pull requests
    # past 80 %.
    ticks = iter([0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 90.0, *([91.0] * 50)])
    report = run_sweep(settings, GitHubApi(github.url, TOKEN, config.api),
                       clock=lambda: next(ticks))
    assert report.stopped == "stopped while reading (its 100 s ran out)"
    assert [judged.pull for judged in report.judged] == [30]
    assert report.not_reached == [10, 20, 40]
    assert sorted(statuses(github)) == [30]


def test_a_dry_run_reads_as_a_sweep_does_and_writes_nothing(cli: Cli, tested: FakeGitHub,
                                                            config: Path) -> None:
    tested.repository("sgl-project/sglang").move(102, MOVED)
    before = statuses(tested)
    result = cli("sweep", "--config", str(config), "--github-token-env", "TEST_GITHUB_TOKEN",
                 "--rerun", "moved", "--dry-run", env=environment(tested))
    assert result.code == 0, result.stderr
    assert writes(tested) == []  # no status, no re-run
    assert statuses(tested) == before and tested.repository(MILES).reruns == []
    assert ("#10 ROCm CI: failure: sglang#102 moved 2222222→7777777 since tested; re-run "
            "requested (would write); would re-run https://github.com/radixark/miles/actions/"
            "runs/1010") in result.stdout
    assert "statuses judged, 3 would be written (dry run: nothing written)" in result.stdout
