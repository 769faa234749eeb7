"""A dependency pull request merged onto its base, on request: `refs/pull/N/merge`,
`pull/N/merge`, or every pull request form with `merge-with-base = true`; pinned to GitHub's
test-merge commit with a token, so every job tests one commit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from tests.conftest import Cli, CliResult
from tests.fake_github import FakeGitHub

TOKEN = "ghs_mergeTEST0123456789"
HEAD, BASE, MERGE = "1" * 40, "2" * 40, "3" * 40


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.repository("sgl-project/sglang").add_pull(30421, HEAD, base_sha=BASE,
                                                       merge_commit_sha=MERGE)
        yield fake


def resolve(cli: Cli, tmp_path: Path, github: FakeGitHub, body: str, config: str = "",
            token: bool = True) -> CliResult:
    description = tmp_path / "body.md"
    description.write_text(body)
    path = tmp_path / "config.toml"
    path.write_text(config)
    return cli("resolve", "--body-file", str(description), "--config", str(path), "--format",
               "json", *(("--github-token-env", "TEST_TOKEN") if token else ()),
               env={"GITHUB_API_URL": github.url, "TEST_TOKEN": TOKEN})


@pytest.mark.parametrize(("body", "config"), [
    ("ci-sglang-pr: refs/pull/30421/merge", ""),
    ("ci-sglang-pr: pull/30421/merge", ""),
    ("ci-sglang-pr: #30421", "[dependencies.sglang]\nmerge-with-base = true\n"),
    ("ci-sglang-pr: https://github.com/sgl-project/sglang/pull/30421",
     "[dependencies.sglang]\nmerge-with-base = true\n"),
], ids=["refs-merge", "pull-merge", "merge-with-base", "url-merge-with-base"])
def test_the_merge_resolves_to_githubs_merge_commit_and_stays_the_pull_request(
        cli: Cli, tmp_path: Path, github: FakeGitHub, body: str, config: str) -> None:
    result = resolve(cli, tmp_path, github, body, config)
    assert result.code == 0, result.stderr
    override = json.loads(result.outputs["overrides"])["sglang"]
    assert (override["ref"], override["sha"], override["pr"], override["kind"]) == (
        "refs/pull/30421/merge", MERGE, 30421, "pr")
    assert (override["head"], override["base"]) == (HEAD, BASE)
    assert result.outputs["sglang_sha"] == MERGE


def test_a_plain_pull_request_is_still_its_head(cli: Cli, tmp_path: Path,
                                                github: FakeGitHub) -> None:
    result = resolve(cli, tmp_path, github, "ci-sglang-pr: #30421")
    assert result.code == 0, result.stderr
    override = json.loads(result.outputs["overrides"])["sglang"]
    assert (override["ref"], override["sha"]) == ("refs/pull/30421/head", HEAD)
    assert "head" not in override


def test_a_pull_request_that_does_not_merge_cleanly_is_an_error(
        cli: Cli, tmp_path: Path, github: FakeGitHub) -> None:
    github.repository("sgl-project/sglang").add_pull(30421, HEAD, mergeable=False)
    result = resolve(cli, tmp_path, github, "ci-sglang-pr: pull/30421/merge")
    assert result.code == 1
    assert ("sgl-project/sglang#30421 does not merge cleanly onto main: rebase it, or name its "
            "head with `#30421`") in result.stderr


def test_a_merge_github_is_still_computing_is_asked_again(
        cli: Cli, tmp_path: Path, github: FakeGitHub, mocker: MockerFixture) -> None:
    sglang = github.repository("sgl-project/sglang")
    sglang.add_pull(30421, HEAD, base_sha=BASE, mergeable=None)

    def computed(seconds: float) -> None:  # GitHub finishes while the tool waits
        sglang.add_pull(30421, HEAD, base_sha=BASE, merge_commit_sha=MERGE)

    sleep = mocker.patch("rocm_deps.resolve.merge.time.sleep", side_effect=computed)
    result = resolve(cli, tmp_path, github, "ci-sglang-pr: pull/30421/merge")
    assert result.code == 0, result.stderr
    assert sleep.call_count == 1
    assert result.outputs["sglang_sha"] == MERGE
    assert github.log.count("GET /repos/sgl-project/sglang/pulls/30421") == 2


def test_a_merge_never_computed_is_an_error(cli: Cli, tmp_path: Path, github: FakeGitHub,
                                            mocker: MockerFixture) -> None:
    github.repository("sgl-project/sglang").add_pull(30421, HEAD, mergeable=None)
    sleep = mocker.patch("rocm_deps.resolve.merge.time.sleep")
    result = resolve(cli, tmp_path, github, "ci-sglang-pr: pull/30421/merge")
    assert result.code == 1
    # The API's retry policy (the config's [api]: 3 attempts, 2 s doubling).
    assert [call.args for call in sleep.call_args_list] == [(2.0,), (4.0,)]
    assert ("GitHub has not computed the merge of sgl-project/sglang#30421 onto main after 3 "
            "attempts") in result.stderr


def test_a_merge_of_an_earlier_head_is_asked_again_until_github_recomputes_it(
        cli: Cli, tmp_path: Path, github: FakeGitHub, mocker: MockerFixture) -> None:
    """After a push GitHub answers the new head with the merge of the old one for a while:
    pinning that merge would test code the pull request no longer has."""
    sglang = github.repository("sgl-project/sglang")
    pushed, recomputed = "4" * 40, "5" * 40
    sglang.move(30421, pushed)  # the merge commit is still MERGE, of HEAD

    def computed(seconds: float) -> None:
        sglang.add_pull(30421, pushed, base_sha=BASE, merge_commit_sha=recomputed)

    sleep = mocker.patch("rocm_deps.resolve.merge.time.sleep", side_effect=computed)
    result = resolve(cli, tmp_path, github, "ci-sglang-pr: pull/30421/merge")
    assert result.code == 0, result.stderr
    assert sleep.call_count == 1
    override = json.loads(result.outputs["overrides"])["sglang"]
    assert (override["sha"], override["head"], override["base"]) == (recomputed, pushed, BASE)


def test_a_merge_of_an_earlier_head_that_stays_is_an_error_naming_both(
        cli: Cli, tmp_path: Path, github: FakeGitHub, mocker: MockerFixture) -> None:
    github.repository("sgl-project/sglang").move(30421, "4" * 40)
    sleep = mocker.patch("rocm_deps.resolve.merge.time.sleep")
    result = resolve(cli, tmp_path, github, "ci-sglang-pr: #30421",
                     "[dependencies.sglang]\nmerge-with-base = true\n")
    assert result.code == 1
    assert sleep.call_count == 2
    assert (f"GitHub's merge commit {MERGE} of sgl-project/sglang#30421 merges "
            f"{BASE[:12]} and {HEAD[:12]}, not the base {BASE[:12]} and the head "
            f"{'4' * 12} after 3 attempts") in result.stderr
    assert "sglang_sha" not in result.outputs


def test_without_a_token_install_fixes_the_merge_commit(cli: Cli, tmp_path: Path,
                                                        github: FakeGitHub) -> None:
    result = resolve(cli, tmp_path, github, "ci-sglang-pr: pull/30421/merge", token=False)
    assert result.code == 0, result.stderr
    override = json.loads(result.outputs["overrides"])["sglang"]
    assert (override["ref"], override["sha"]) == ("refs/pull/30421/merge", None)
    assert "without a token the commit is fixed when install fetches" in result.stderr
