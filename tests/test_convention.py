"""The configuration found by convention (convention.py): `.github/rocm-deps.toml`, in a workflow
as it is on the base branch, locally from the working tree, and carried from resolve to
install; what a pull request's own edit of it does (nothing, until it merges)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Cli, EventWriter
from tests.fake_github import FakeGitHub
from tests.repos import make_repo

TOKEN = "ghp_rocmdepsCONVENTIONtoken012345678"
MILES = "radixark/miles"
# Another repository's image: NVIDIA's Megatron-LM, a library of its own, a git package.
NOT_MILES = """\
profile = "none"

[dependencies.megatron]
repository = "NVIDIA/Megatron-LM"
path = "/opt/Megatron-LM"

[dependencies.mylib]
repository = "acme/mylib"
path = "/opt/mylib"

[dependencies.tokenizers]
repository = "acme/tokenizers"
distribution = "acme-tokenizers"
"""
BASE, HEAD = "b" * 40, "c" * 40


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.repository(MILES).files[".github/rocm-deps.toml"] = NOT_MILES
        fake.repository("acme/mylib").add_pull(12, "1" * 40)
        yield fake


def pull_request(write_event: EventWriter, body: str) -> str:
    return write_event(payload={"pull_request": {
        "number": 7, "body": body, "author_association": "MEMBER",
        "base": {"sha": BASE, "ref": "main"}, "head": {"sha": HEAD}}}, repository=MILES)


def resolve(cli: Cli, event: str, github: FakeGitHub, *extra: str, token: bool = True,
            workspace: Path | None = None) -> tuple[int, str, dict[str, str]]:
    env = {"GITHUB_API_URL": github.url, "T": TOKEN if token else "",
           **({"GITHUB_WORKSPACE": str(workspace)} if workspace else {})}
    result = cli("resolve", "--event-name", "pull_request", "--event-path", event,
                 "--github-token-env", "T", "--body-source", "event", *extra, env=env)
    return result.code, result.stderr, result.outputs


def test_a_workflow_reads_the_base_branchs_file_through_the_api(
        cli: Cli, write_event: EventWriter, github: FakeGitHub) -> None:
    code, stderr, outputs = resolve(cli, pull_request(write_event, "ci-mylib-pr: #12\n"),
                                    github)
    assert code == 0, stderr
    assert (f"rocm-deps: configuration: .github/rocm-deps.toml of {MILES} at {BASE[:12]} (the "
            f"base branch)") in stderr
    assert github.log[0] == (f"GET /repos/{MILES}/contents/.github/rocm-deps.toml?ref={BASE}")
    assert json.loads(outputs["overrides"])["mylib"]["ref"] == "refs/pull/12/head"
    assert "sglang_ref" not in outputs  # nothing of Miles' (profile = "none")


def test_a_pull_request_that_edits_the_file_is_judged_by_the_base_and_told_so(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, tmp_path: Path) -> None:
    """The pull request's checkout adds `[dependencies.evil]`: its own run does not take it."""
    workspace = tmp_path / "checkout"
    make_repo(workspace, {".github/rocm-deps.toml": NOT_MILES + '\n[dependencies.evil]\n'
                                                                'repository = "x/y"\n'
                                                                'path = "/x"\n'})
    code, stderr, _ = resolve(cli, pull_request(write_event, "ci-evil-pr: #1\n"), github,
                              workspace=workspace)
    assert code == 1
    assert ("this pull request changes .github/rocm-deps.toml: its run, its merge guard and the "
            "sweep read the base branch's") in stderr
    assert "`ci-evil-pr` is not a known directive" in stderr


@pytest.mark.parametrize("at_base", [True, False], ids=["checkout-of-the-base", "pr-checkout"])
def test_without_a_token_the_checkout_is_read_only_when_it_is_the_base(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, tmp_path: Path,
        at_base: bool) -> None:
    workspace = tmp_path / "checkout"
    head = make_repo(workspace, {".github/rocm-deps.toml": NOT_MILES})
    event = write_event(payload={"pull_request": {
        "number": 7, "body": "ci-mylib-pr: 1111111111111111111111111111111111111111\n",
        "author_association": "MEMBER", "base": {"sha": head if at_base else BASE}}},
        repository=MILES)
    code, stderr, outputs = resolve(cli, event, github, token=False, workspace=workspace)
    assert github.log == []
    if at_base:
        assert code == 0, stderr
        assert outputs["mylib_ref"] == "1" * 40
        assert f"(the checkout of {head[:12]}, the base)" in stderr
    else:
        assert code == 1
        assert (f"{workspace / '.github' / 'rocm-deps.toml'} is not read: the checkout at "
                f"{workspace} is {head[:12]}, not the base {BASE[:12]}") in stderr


def test_locally_the_working_trees_file_is_read(cli: Cli, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    repository = tmp_path / "project"
    make_repo(repository, {".github/rocm-deps.toml": NOT_MILES, "src/x.py": ""})
    body = tmp_path / "body.md"
    body.write_text("ci-mylib-pr: 1111111111111111111111111111111111111111\n")
    monkeypatch.chdir(repository / "src")
    result = cli("resolve", "--body-file", str(body), github_actions=False)
    assert result.code == 0, result.stderr
    assert result.outputs["mylib_ref"] == "1" * 40
    assert f"configuration: {repository / '.github' / 'rocm-deps.toml'}" in result.stderr


def test_install_takes_the_configuration_resolve_read_from_overrides(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, tmp_path: Path) -> None:
    """The GPU job has no token and checks out the pull request: the `overrides` it is given
    carry the base branch's configuration; its dry run plans the non-Miles clones."""
    code, stderr, outputs = resolve(cli, pull_request(write_event, "ci-mylib-pr: #12\n"),
                                    github)
    assert code == 0, stderr
    carried = json.loads(outputs["overrides"])["_config"]
    assert carried == {"source": f".github/rocm-deps.toml of {MILES} at {BASE[:12]} (the base "
                                 f"branch)", "text": NOT_MILES}
    installed = cli("install", "--overrides", outputs["overrides"], "--dry-run",
                    "--workspace", str(tmp_path), "--format", "json", env={})
    report = json.loads(installed.stdout)
    assert sorted(report["dependencies"]) == ["megatron", "mylib", "tokenizers"]
    assert "as resolve read it" in installed.stderr


def test_an_explicit_config_wins(cli: Cli, write_event: EventWriter, github: FakeGitHub,
                                 config: Path) -> None:
    """`config` names Miles' defaults (a file of `[api]` settings alone): SGLang is known, and
    the base branch's file is not read."""
    github.repository("sgl-project/sglang").add_pull(30421, "3" * 40)
    code, stderr, outputs = resolve(cli, pull_request(write_event, "ci-sglang-pr: #30421\n"),
                                    github, "--config", str(config))
    assert code == 0, stderr
    assert outputs["sglang_sha"] == "3" * 40
    assert [line for line in github.log if "/contents/" in line] == []
