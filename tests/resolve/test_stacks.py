"""Stacks and prerequisites against the local API stand-in: a pull request based on another
one's branch inherits its directives (resolve, merge-check, the manifest), `Depends-On:`
names a prerequisite or a dependency's pull request."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_mock import MockerFixture

from rocm_deps.contract.overrides import CONFIG_KEY, RUN_KEY
from tests.conftest import Cli, CliResult, EventWriter
from tests.fake_github import FakeGitHub
from tests.manifest.test_comment import installed_everything

TOKEN = "ghp_rocmdepsSTACKtoken0123456789abcdef"
MILES = "radixark/miles"
H84, H85, H30421 = "8" * 40, "5" * 40, "3" * 40


def head(number: int) -> str:
    return f"{number:040x}"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    """#49 on main names Megatron-LM #84; #50 is based on #49's branch and names nothing;
    #51 on #50's; #52 on #49's names its own Megatron-LM pull request #85."""
    with FakeGitHub() as fake:
        fake.repository("radixark/Megatron-LM").add_pull(84, H84)
        fake.repository("radixark/Megatron-LM").add_pull(85, H85)
        fake.repository("sgl-project/sglang").add_pull(30421, H30421)
        miles = fake.repository(MILES)
        miles.add_pull(49, head(49), body="The Megatron bump.\n\nci-megatron-pr: #84\n")
        miles.add_pull(50, head(50), body="Uses the bump.", base="feature-49")
        miles.add_pull(51, head(51), body="On top of that.", base="feature-50")
        miles.add_pull(52, head(52), body="ci-megatron-pr: #85\n", base="feature-49")
        yield fake


def environment(github: FakeGitHub) -> dict[str, str]:
    return {"GITHUB_API_URL": github.url, "TEST_GITHUB_TOKEN": TOKEN,
            "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": MILES,
            "GITHUB_RUN_ID": "77", "GITHUB_WORKFLOW": "ROCm CI"}


def resolve(cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
            number: int, *extra: str) -> CliResult:
    github.log.clear()
    event = write_event(github.repository(MILES).pulls[number]["body"], number=number,
                        repository=MILES, head=head(number))
    return cli("resolve", "--event-name", "pull_request", "--event-path", event, "--config",
               str(config), "--github-token-env", "TEST_GITHUB_TOKEN", "--format", "json",
               *extra, env=environment(github))


def overrides(result: CliResult) -> dict[str, Any]:
    """The dependencies of the report's overrides (its run record, `_run`, and the
    configuration it carries, `_config`, left out)."""
    assert result.code == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)["overrides"]
    assert document.pop(RUN_KEY)["run_id"] == 77
    assert document.pop(CONFIG_KEY)["source"].endswith("api.toml")
    return document


@pytest.mark.parametrize("number", [50, 51])
def test_a_stacked_pull_request_inherits_the_directive_below_it(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        number: int) -> None:
    result = resolve(cli, write_event, github, config, number)
    assert overrides(result) == {"megatron": {
        "ref": "refs/pull/84/head", "sha": H84, "kind": "pr", "source": "stack",
        "raw": "#84", "line": 3, "pr": 84, "via": 49}}
    assert "megatron: `ci-megatron-pr: #84` inherited from #49" in result.stderr
    # One request per level of the stack, then the dependency pull request once.
    levels = number - 49
    assert [line for line in github.log if "head=" in line] == [
        f"GET /repos/{MILES}/pulls?head=radixark%3Afeature-{level}&per_page=100&state=open"
        for level in range(number - 1, 48, -1)]
    assert len(github.log) == 1 + levels + 1  # its own body, the levels, #84


def test_its_own_directive_wins_over_the_stack(cli: Cli, write_event: EventWriter,
                                              github: FakeGitHub, config: Path) -> None:
    result = resolve(cli, write_event, github, config, 52)
    assert {name: (entry["raw"], entry["source"]) for name, entry in overrides(result).items()
            } == {"megatron": ("#85", "body")}


def test_a_pull_request_on_the_default_branch_asks_nothing_about_a_stack(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    result = resolve(cli, write_event, github, config, 49)
    assert overrides(result)["megatron"]["source"] == "body"
    assert [line for line in github.log if "head=" in line] == []


def test_a_cycle_of_bases_is_an_error_naming_it(cli: Cli, write_event: EventWriter,
                                                github: FakeGitHub, config: Path) -> None:
    miles = github.repository(MILES)
    miles.pulls[49]["base"]["ref"] = "feature-50"  # 49 on 50, 50 on 49
    result = resolve(cli, write_event, github, config, 50)
    assert result.code == 1
    assert ("the pull requests' bases form a cycle (#50 → #49 → #50)" in result.stderr)


def test_without_a_token_a_stacked_pull_request_says_the_stack_was_not_read(
        cli: Cli, write_event: EventWriter, config: Path) -> None:
    event = write_event("Uses the bump.", number=50, repository=MILES,
                        payload=None)
    document = json.loads(Path(event).read_text())
    document["pull_request"]["base"] = {"ref": "feature-49"}
    document["repository"]["default_branch"] = "main"
    Path(event).write_text(json.dumps(document))
    result = cli("resolve", "--event-name", "pull_request", "--event-path", event, "--config",
                 str(config), "--format", "json")
    assert result.code == 0, result.stderr
    assert list(json.loads(result.stdout)["overrides"]) == [CONFIG_KEY]  # nothing named
    assert ("this pull request is based on `feature-49`, not on `main`: if that is another "
            "pull request's branch, its directives are inherited only with a token") in (
        result.stderr)


@pytest.mark.parametrize("value", ["https://github.com/sgl-project/sglang/pull/30421",
                                   "sgl-project/sglang#30421"])
def test_depends_on_a_dependency_pull_request_is_its_directive(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        value: str) -> None:
    github.repository(MILES).pulls[49]["body"] = f"Depends-On: {value}\n"
    result = resolve(cli, write_event, github, config, 49)
    assert {name: (entry["ref"], entry["sha"], entry["pr"])
            for name, entry in overrides(result).items()} == {
        "sglang": ("refs/pull/30421/head", H30421, 30421)}


def test_depends_on_another_repository_is_an_error_naming_the_configured_ones(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    github.repository(MILES).pulls[49]["body"] = "Depends-On: vllm-project/vllm#9\n"
    result = resolve(cli, write_event, github, config, 49)
    assert result.code == 1
    assert ("`vllm-project/vllm` is neither this repository (radixark/miles) nor a configured "
            "dependency's (sgl-project/sglang (ci-sglang-pr), radixark/Megatron-LM "
            "(ci-megatron-pr)") in result.stderr


def merge_check(cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
                number: int) -> CliResult:
    event = write_event("(the payload's old body)", number=number, repository=MILES,
                        head=head(number))
    return cli("merge-check", "--event-name", "pull_request", "--event-path", event,
               "--config", str(config), "--github-token-env", "TEST_GITHUB_TOKEN",
               "--format", "json", env=environment(github))


def test_depends_on_blocks_the_merge_until_the_prerequisite_merged(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    miles = github.repository(MILES)
    miles.add_pull(60, head(60), body="Needs #49 merged first.\n\nDepends-On: #49\n")
    blocked = merge_check(cli, write_event, github, config, 60)
    assert blocked.code == 1
    [check] = json.loads(blocked.stdout)["checks"]
    assert (check["dependency"], check["state"], check["verdict"]) == (
        "(prerequisite)", "open", "fail")
    assert "`Depends-On: #49`: radixark/miles#49 is still open" in check["reason"]
    miles.pulls[49].update(state="closed", merged=True, merged_at="2026-11-02T10:00:00Z")
    passed = merge_check(cli, write_event, github, config, 60)
    assert passed.code == 0, passed.stderr
    assert json.loads(passed.stdout)["checks"][0]["state"] == "merged"


def test_merge_check_sees_the_inherited_dependency_like_its_own(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path) -> None:
    result = merge_check(cli, write_event, github, config, 50)
    assert result.code == 1  # Megatron-LM #84, inherited from #49, is open
    [check] = json.loads(result.stdout)["checks"]
    assert (check["dependency"], check["value"], check["state"]) == ("megatron", "#84", "open")
    assert "megatron: `ci-megatron-pr: #84` inherited from #49" in result.stderr


def test_the_manifest_of_a_stacked_pull_request_says_where_each_entry_came_from(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    resolved = resolve(cli, write_event, github, config, 50)
    report = tmp_path / "resolve.json"
    report.write_text(resolved.stdout)
    event = write_event("Uses the bump.", number=50, repository=MILES, head=head(50))
    commented = cli("comment", "--event-name", "pull_request", "--event-path", event,
                    "--config", str(config), "--report", str(report), "--report",
                    str(installed_everything(json.loads(resolved.stdout), tmp_path)),
                    "--github-token-env", "TEST_GITHUB_TOKEN", "--format", "json",
                    env=environment(github))
    assert commented.code == 0, commented.stderr
    [posted] = github.repository(MILES).comments[50]
    assert "| `megatron` | `inherited from #49, line 3: #84` |" in posted["body"]
    assert json.loads(commented.stdout)["status"]["state"] == "success"


def test_the_sweep_re_judges_a_stacked_pull_request_when_the_one_below_changes(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        tmp_path: Path) -> None:
    """#50, tested with Megatron-LM #84 inherited from #49: success; then #49's description
    names #85 instead: #50 tested what its stack no longer names."""
    resolved = resolve(cli, write_event, github, config, 50)
    report = tmp_path / "resolve.json"
    report.write_text(resolved.stdout)
    event = write_event("Uses the bump.", number=50, repository=MILES, head=head(50))
    assert cli("comment", "--event-name", "pull_request", "--event-path", event, "--config",
               str(config), "--report", str(report), "--report",
               str(installed_everything(json.loads(resolved.stdout), tmp_path)),
               "--github-token-env", "TEST_GITHUB_TOKEN", env=environment(github)).code == 0

    def status_of_50() -> tuple[str, str]:
        assert cli("sweep", "--config", str(config), "--github-token-env", "TEST_GITHUB_TOKEN",
                   "--suite", "ROCm CI", env=environment(github)).code == 0
        newest = github.repository(MILES).statuses[head(50)][0]
        return newest["state"], newest["description"]

    assert status_of_50() == ("success", "tested megatron#84 at 8888888")
    github.repository(MILES).pulls[49]["body"] = "ci-megatron-pr: #85\n"
    assert status_of_50() == ("failure", "megatron#85 not tested by this run")


def test_a_body_file_judges_depends_on_as_ci_does(cli: Cli, tmp_path: Path) -> None:
    """Locally, `resolve --body-file` with $GITHUB_REPOSITORY (or --repository) refuses a
    `Depends-On:` of another repository, as the pull_request run does, and lists the
    prerequisites it takes."""
    body = tmp_path / "body.md"
    body.write_text("Depends-On: someone/else#5\n")
    refused = cli("resolve", "--body-file", str(body), env={"GITHUB_REPOSITORY": MILES})
    assert refused.code == 1
    assert ("`someone/else` is neither this repository (radixark/miles) nor a configured "
            "dependency's") in refused.stderr
    flagged = cli("resolve", "--body-file", str(body), "--repository", MILES)
    assert flagged.code == 1
    body.write_text("Depends-On: #49\nDepends-On: radixark/miles#3194\n")
    taken = cli("resolve", "--body-file", str(body), env={"GITHUB_REPOSITORY": MILES},
                github_actions=False)
    assert taken.code == 0, taken.stderr
    assert ("merges after (Depends-On; merge-check waits for them): #49, radixark/miles#3194"
            in taken.stdout)


def test_a_repository_that_is_not_owner_repo_says_where_it_came_from(cli: Cli,
                                                                     tmp_path: Path) -> None:
    """act sets $GITHUB_REPOSITORY from the checkout's `origin`, a path on a local clone: the
    error names the variable and how to set it; a bad `--repository` names the option."""
    body = tmp_path / "body.md"
    body.write_text("Depends-On: #49\n")
    from_env = cli("resolve", "--body-file", str(body),
                   env={"GITHUB_REPOSITORY": "/check/repo.git"})
    assert from_env.code == 2
    assert ("'/check/repo.git' is not OWNER/REPO ($GITHUB_REPOSITORY; a local runner such as "
            "act takes it from the checkout's `origin` remote: give --env "
            "GITHUB_REPOSITORY=OWNER/REPO or the `repository` input)") in from_env.stderr
    given = cli("resolve", "--body-file", str(body), "--repository", "miles")
    assert given.code == 2
    assert "--repository 'miles' is not OWNER/REPO\n" in given.stderr + "\n"


def test_a_resolve_builds_one_api_client_for_the_body_the_stack_and_the_pins(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, config: Path,
        mocker: MockerFixture) -> None:
    """The live description, each level of the stack and the pin of what it inherits: three
    kinds of request, one client (its retry policy and deadline built once)."""
    from rocm_deps.github.api import GitHubApi

    built = mocker.spy(GitHubApi, "__init__")
    result = resolve(cli, write_event, github, config, 51)
    assert result.code == 0, result.stderr
    assert len(github.log) == 4  # #51's body, two levels, #84
    assert built.call_count == 1
