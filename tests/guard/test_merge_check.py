"""`rocm-deps merge-check` (the merge guard) against the local API stand-in."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import pytest

from rocm_deps.action import read_inputs
from rocm_deps.errors import UsageError
from rocm_deps.options import DEFAULT_TRUSTED
from tests.conftest import Cli, CliResult, EventWriter
from tests.fake_github import FakeGitHub

TOKEN = "ghp_rocmdepsMERGEtoken0123456789abcdef"
BASE = "b" * 40
HEAD = "c" * 40
GUARD_7 = f"/api/v3/repos/radixark/miles/statuses/{'7' * 40}"  # the guard's status on #7's head


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        sglang = fake.repository("sgl-project/sglang")
        sglang.add_pull(101, "1" * 40, state="closed", merged=True)
        sglang.add_pull(102, "2" * 40)  # open
        sglang.add_pull(103, "3" * 40, state="closed", merged=False)
        megatron = fake.repository("radixark/Megatron-LM")
        megatron.add_pull(202, "4" * 40)  # open
        miles = fake.repository("radixark/miles")
        miles.add_pull(11, "5" * 40, body="Needs the SGLang fix.\n\nci-sglang-pr: #101\n")
        miles.add_pull(12, "6" * 40, body="- ci-megatron-pr: #202\n")
        miles.comparisons[f"{BASE}...{HEAD}"] = [
            ("Merge pull request #11 from radixark/fix\n\nNeeds the SGLang fix.",
             ["Fix the thing", "Revert an old change (#50)"]),  # the PR's own commits
            "Add the ROCm suite (#12)"]
        yield fake


class MergeCheck(Protocol):
    def __call__(self, body: str | None = None, *extra: str,
                 payload: Mapping[str, object] | None = None, event: str = "pull_request",
                 token: bool = True) -> CliResult: ...


@pytest.fixture
def merge_check(cli: Cli, tmp_path: Path, write_event: EventWriter,
                github: FakeGitHub) -> MergeCheck:
    def invoke(body: str | None = None, *extra: str,
               payload: Mapping[str, object] | None = None, event: str = "pull_request",
               token: bool = True) -> CliResult:
        path = write_event(body, number=7, repository="radixark/miles", payload=payload)
        if body is not None:  # what the API answers now: the body as the payload has it
            github.repository("radixark/miles").add_pull(7, "7" * 40, body=body)
        config = tmp_path / "api.toml"
        config.write_text("[api]\ntimeout-seconds = 2\nbackoff-seconds = 0\n")
        argv = ["merge-check", "--event-name", event, "--event-path", path,
                "--config", str(config), "--format", "json", *extra]
        if token:
            argv += ["--github-token-env", "TEST_GITHUB_TOKEN"]
        return cli(*argv, env={"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": TOKEN})

    return invoke


def report_of(result: CliResult) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(result.outputs["report"])
    assert json.loads(result.stdout) == report
    return report


def verdicts(result: CliResult) -> list[tuple[str, str, str]]:
    return [(check["dependency"], check["state"], check["verdict"])
            for check in report_of(result)["checks"]]


def test_a_merged_dependency_pull_request_passes(merge_check: MergeCheck,
                                                 github: FakeGitHub) -> None:
    result = merge_check("ci-sglang-pr: #101")
    assert result.code == 0, result.stderr
    assert verdicts(result) == [("sglang", "merged", "pass")]
    assert github.requests == ["/api/v3/repos/radixark/miles/pulls/7",  # the live body
                               "/api/v3/repos/sgl-project/sglang/pulls/101", GUARD_7]
    assert ("::notice title=rocm-deps%3A merge check::pull request #7, line 1: "
            "`ci-sglang-pr: #101`: sgl-project/sglang#101 is merged") in result.stderr
    assert "### rocm-deps merge-check (require-merged): passes" in result.summary


@pytest.mark.parametrize("value", ["pull/102/head", "refs/pull/102/head",
                                   "https://github.com/sgl-project/sglang/tree/pull/102/head",
                                   "pull/102/merge"])
def test_every_form_of_an_open_pull_request_blocks_the_merge(merge_check: MergeCheck,
                                                             value: str) -> None:
    """`pull/N/head` once read as a branch: the guard saw no pull request and passed."""
    result = merge_check(f"ci-sglang-pr: {value}\n")
    assert result.code == 1, result.stderr
    assert verdicts(result) == [("sglang", "open", "fail")]


def test_an_open_dependency_pull_request_blocks_the_merge(merge_check: MergeCheck) -> None:
    result = merge_check("Testing against the fix.\n\nci-sglang-pr: #102\n")
    assert result.code == 1
    assert verdicts(result) == [("sglang", "open", "fail")]
    [annotation] = [line for line in result.stderr.splitlines() if line.startswith("::error")]
    assert annotation.startswith("::error title=rocm-deps%3A merge blocked by sglang::pull "
                                 "request #7, line 3: `ci-sglang-pr: #102`: "
                                 "sgl-project/sglang#102 is still open.")
    assert "merge sgl-project/sglang#102 first" in annotation
    assert "### rocm-deps merge-check (require-merged): **blocked**" in result.summary
    assert "| #7 | sglang | `#102` | 3 | open | fail |" in result.summary


def test_a_dependency_pull_request_closed_unmerged_blocks_the_merge(
        merge_check: MergeCheck) -> None:
    result = merge_check("ci-sglang-pr: #103")
    assert result.code == 1
    assert verdicts(result) == [("sglang", "closed (unmerged)", "fail")]
    assert "was closed without being merged" in report_of(result)["checks"][0]["reason"]


def test_a_sha_names_no_pull_request_and_passes_with_a_notice(
        merge_check: MergeCheck, github: FakeGitHub) -> None:
    result = merge_check(f"ci-megatron-pr: {'d' * 40}")
    assert result.code == 0, result.stderr
    assert verdicts(result) == [("megatron", "not a PR", "pass")]
    assert github.requests == ["/api/v3/repos/radixark/miles/pulls/7", GUARD_7]  # nothing to ask of a SHA
    assert "names no pull request (not a PR); nothing to wait for" in result.stderr


def test_forbid_overrides_fails_on_anything_named(merge_check: MergeCheck,
                                                  github: FakeGitHub) -> None:
    result = merge_check(f"ci-sglang-pr: #101\nci-megatron-pr: {'d' * 40}",
                         "--policy", "forbid-overrides")
    assert result.code == 1
    assert verdicts(result) == [("sglang", "not asked", "fail"),
                                ("megatron", "not a PR", "fail")]
    assert github.requests == ["/api/v3/repos/radixark/miles/pulls/7", GUARD_7]  # the policy asks nothing more
    assert result.stderr.count("::error title=rocm-deps%3A merge blocked by") == 2


def test_warn_policy_annotates_and_passes(merge_check: MergeCheck) -> None:
    result = merge_check("ci-sglang-pr: #102", "--policy", "warn")
    assert result.code == 0, result.stderr
    assert verdicts(result) == [("sglang", "open", "warn")]
    assert "::warning title=rocm-deps%3A sglang not merged::" in result.stderr


def test_nothing_named_passes_and_says_so(merge_check: MergeCheck) -> None:
    result = merge_check("Just a refactor.")
    assert result.code == 0, result.stderr
    assert report_of(result)["notices"] == ["no directive names a dependency: nothing to wait for"]


def test_an_invalid_directive_fails_as_resolve_would(merge_check: MergeCheck) -> None:
    result = merge_check("ci-sglan-pr: #102")
    assert result.code == 1
    assert "`ci-sglan-pr` is not a known directive; did you mean `sglang`" in (
        report_of(result)["errors"][0]["message"])


def test_without_a_token_a_named_pull_request_cannot_be_checked(
        merge_check: MergeCheck) -> None:
    result = merge_check("ci-sglang-pr: #102", token=False)
    assert result.code == 2
    assert "asks the API whether sgl-project/sglang#102 is merged: set the `github-token` " \
           "input" in result.stderr


def test_a_merge_group_of_two_pull_requests_reads_both_current_bodies(
        merge_check: MergeCheck, github: FakeGitHub) -> None:
    payload = {"action": "checks_requested", "repository": {"full_name": "radixark/miles"},
               "merge_group": {"head_sha": HEAD, "base_sha": BASE, "base_ref": "refs/heads/main",
                               "head_ref": f"refs/heads/gh-readonly-queue/main/pr-12-{BASE}",
                               "head_commit": {"id": HEAD, "message": "Add the ROCm suite (#12)"}}}
    result = merge_check(payload=payload, event="merge_group")
    assert result.code == 1
    report = report_of(result)
    assert report["pulls"] == [11, 12]
    assert [(c["pull"], c["dependency"], c["state"], c["verdict"]) for c in report["checks"]] == [
        (11, "sglang", "merged", "pass"), (12, "megatron", "open", "fail")]
    assert github.requests == [
        "/api/v3/repos/radixark/miles/commits",
        "/api/v3/repos/radixark/miles/pulls/11", "/api/v3/repos/radixark/miles/pulls/12",
        "/api/v3/repos/sgl-project/sglang/pulls/101",
        "/api/v3/repos/radixark/Megatron-LM/pulls/202",
        f"/api/v3/repos/radixark/miles/statuses/{HEAD}"]  # one status, on the group's commit
    assert "pull request #12, line 1: `ci-megatron-pr: #202`" in result.stderr
    assert [(status["state"], status["description"]) for status in
            github.repository("radixark/miles").statuses[HEAD]] == [
        ("failure", "waits for megatron#202 (open)")]


GROUP = {"action": "checks_requested", "repository": {"full_name": "radixark/miles"},
         "merge_group": {"head_sha": HEAD, "base_sha": BASE, "base_ref": "refs/heads/main",
                         "head_ref": f"refs/heads/gh-readonly-queue/main/pr-12-{BASE}"}}


@pytest.mark.parametrize(("commits", "total", "why"), [
    (["Fix the thing", "Add the ROCm suite"], None,
     "2 of the commits that merge it name no pull request (a rebase merge writes the pull "
     "requests' own commits)"),
    (["Merge pull request #11 from radixark/fix", "Add the ROCm suite (#13)"], None,
     "its newest commit does not name #12, the pull request of its queue branch"),
    (["Merge pull request #11 from radixark/fix", "Add the ROCm suite (#12)"], 600,
     f"its commits back to its base {BASE[:12]} are more than the 500 newest of its history"),
], ids=["rebase-merges", "newest-names-another", "longer-than-read"])
def test_a_group_that_cannot_be_identified_fails_closed(
        merge_check: MergeCheck, github: FakeGitHub, commits: list[str], total: int | None,
        why: str) -> None:
    miles = github.repository("radixark/miles")
    miles.comparisons[f"{BASE}...{HEAD}"] = list(commits)
    if total is not None:
        miles.totals[f"{BASE}...{HEAD}"] = total
    result = merge_check(payload=GROUP, event="merge_group")
    assert result.code == 1, result.stderr
    assert (f"::error title=rocm-deps%3A merge group not identified::the merge group's pull "
            f"requests cannot all be identified: {why}. Only #12 (the queue branch's) is "
            f"checked, so merge-check fails closed under `require-merged`") in result.stderr
    warned = merge_check("", "--policy", "warn", payload=GROUP, event="merge_group")
    assert warned.code == 0, warned.stderr
    assert f"cannot all be identified: {why}" in warned.stderr


def test_a_merge_group_without_a_queue_branch_is_an_error(merge_check: MergeCheck) -> None:
    payload = {"repository": {"full_name": "radixark/miles"},
               "merge_group": {"head_ref": "refs/heads/main", "head_sha": HEAD,
                               "base_sha": BASE}}
    result = merge_check(payload=payload, event="merge_group")
    assert result.code == 1
    assert "names no pull request" in result.stderr


def test_the_action_passes_policy_to_merge_check_and_the_sweep_only() -> None:
    # The other inputs as action.yml's defaults fill them in: not given, so no error.
    environ = {"INPUT_COMMAND": "merge-check", "INPUT_POLICY": "warn",
               "INPUT_GITHUB_TOKEN": TOKEN, "INPUT_TRUSTED_ASSOCIATIONS": DEFAULT_TRUSTED,
               "INPUT_BODY_SOURCE": "event", "INPUT_DRY_RUN": "false"}
    given = read_inputs(environ)
    assert (given.command, given.text("policy")) == ("merge-check", "warn")
    # body-source applies to merge-check too: its default is given, as action.yml gives it
    assert given.values == {"policy": "warn", "github-token-env": "INPUT_GITHUB_TOKEN",
                            "body-source": "event"}
    assert read_inputs({**environ, "INPUT_POLICY": ""}).text("policy") == "require-merged"
    with pytest.raises(UsageError, match="Input 'policy' has invalid value 'block'"):
        read_inputs({**environ, "INPUT_POLICY": "block"})
    with pytest.raises(UsageError, match="Input 'overrides' applies to `command: install`, "
                                         "not to `command: merge-check`; remove it from the "
                                         "merge-check step"):
        read_inputs({**environ, "INPUT_OVERRIDES": "{}"})
    with pytest.raises(UsageError, match="Input 'trusted-associations' applies to `command: "
                                         "resolve, install, sweep`, not to `command: "
                                         "merge-check`"):
        read_inputs({**environ, "INPUT_TRUSTED_ASSOCIATIONS": "OWNER"})
    with pytest.raises(UsageError, match="Input 'policy' applies to `command: merge-check, "
                                         "sweep`, not to `command: resolve`; remove it from the "
                                         "resolve step"):
        read_inputs({"INPUT_COMMAND": "resolve", "INPUT_POLICY": "warn"})


def test_a_squash_of_a_pull_request_titled_like_a_merge_is_read_by_its_suffix(
        merge_check: MergeCheck, github: FakeGitHub) -> None:
    # #12's own title reads like a merge commit's; the squash suffix is what names it.
    github.repository("radixark/miles").comparisons[f"{BASE}...{HEAD}"] = [
        "Merge pull request #11 from radixark/fix",
        "Merge pull request #7 from radixark/old-branch (#12)"]
    result = merge_check(payload=GROUP, event="merge_group")
    assert report_of(result)["pulls"] == [11, 12]
    assert "cannot all be identified" not in result.stderr


def test_body_source_api_judges_the_current_description_not_the_payload(
        cli: Cli, write_event: EventWriter) -> None:
    """A re-run replays the payload: its body named nothing, the live body names an open PR."""
    with FakeGitHub() as github:
        github.repository("sgl-project/sglang").add_pull(102, "2" * 40)  # open
        github.repository("radixark/miles").add_pull(7, "5" * 40, body="ci-sglang-pr: #102")
        path = write_event("Just a fix.", number=7, repository="radixark/miles")
        env = {"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": "ghp_mergecheckTEST0123"}
        argv = ("merge-check", "--event-name", "pull_request", "--event-path", path,
                "--github-token-env", "TEST_GITHUB_TOKEN")
        # Each run reads the base branch's configuration first (by convention: none here).
        config = "/api/v3/repos/radixark/miles/contents/.github/rocm-deps.toml"
        replayed = cli(*argv, "--body-source", "event", env=env)
        assert replayed.code == 0, replayed.stderr
        assert github.requests == [config]
        github.requests.clear()
        for chosen in ((), ("--body-source", "api")):  # with a token, live by default
            live = cli(*argv, *chosen, env=env)
            assert live.code == 1
            assert "`ci-sglang-pr: #102`: sgl-project/sglang#102 is still open" in live.stderr
            assert github.requests == [config, "/api/v3/repos/radixark/miles/pulls/7",
                                       "/api/v3/repos/sgl-project/sglang/pulls/102",
                                       f"/api/v3/repos/radixark/miles/statuses/{'5' * 40}"]
            github.requests.clear()


def test_a_token_variable_that_holds_nothing_is_named_in_the_error(cli: Cli,
                                                                   tmp_path: Path) -> None:
    body = tmp_path / "body.md"
    body.write_text("ci-sglang-pr: #1\n")
    result = cli("merge-check", "--body-file", str(body), "--github-token-env", "GH_TOKEN",
                 env={"GH_TOKEN": ""})
    assert result.code == 2
    assert ("merge-check asks the API whether sgl-project/sglang#1 is merged: set the "
            "`github-token` input (CLI: --github-token-env VAR) with `pull-requests: read` "
            "(--github-token-env names GH_TOKEN, which is unset or empty here)") in result.stderr
