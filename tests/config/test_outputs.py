"""The action's outputs: what action.yml declares is exactly what the commands can write."""

from __future__ import annotations

import re
from pathlib import Path

from rocm_deps.config import load_config
from rocm_deps.config.outputs import action_outputs
from rocm_deps.contract.install import DependencyReport, InstallReport
from rocm_deps.install import report as install_report
from tests.conftest import Cli, EventWriter
from tests.fake_github import FakeGitHub

ROOT = Path(__file__).resolve().parent.parent.parent
SHA = "3f1c0d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e"


def declared_outputs() -> list[tuple[str, str]]:
    """`outputs:` of action.yml as (name, the step output its value reads), read without a
    YAML library: the file is ours and keeps one key per line."""
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    block = text.split("\noutputs:\n", 1)[1].split("\nruns:\n", 1)[0]
    names = re.findall(r"^  ([a-z_]+):$", block, re.MULTILINE)
    values = re.findall(r"^    value: \$\{\{ steps\.run\.outputs\.([a-z_]+) \}\}$", block,
                        re.MULTILINE)
    return list(zip(names, values, strict=True))


def test_action_yml_declares_the_outputs_of_the_built_in_configuration_in_order() -> None:
    declared = declared_outputs()
    assert [name for name, _ in declared] == list(action_outputs(load_config(None)))
    assert all(name == value for name, value in declared)  # each passes its own step output


def test_every_declared_output_is_written_by_a_command_and_nothing_else(
        cli: Cli, tmp_path: Path, write_event: EventWriter) -> None:
    body = tmp_path / "body.md"
    body.write_text(f"ci-sglang-pr: #12\nci-megatron-pr: {SHA}\n", encoding="utf-8")
    resolved = cli("resolve", "--body-file", str(body), "--format", "json")
    assert resolved.code == 0, resolved.stderr
    report = tmp_path / "resolve.json"
    report.write_text(resolved.stdout)
    with FakeGitHub() as github:  # comment writes its output after a real API round trip
        github.repository("sgl-project/sglang").add_pull(12, "1" * 40)
        github.repository("radixark/miles").add_pull(7, "5" * 40)
        commented = cli("comment", "--report", str(report), "--pr", "7", "--suite", "CI",
                        "--event-name", "pull_request", "--event-path",
                        write_event(body.read_text(), number=7, repository="radixark/miles", head="7" * 40),
                        "--github-token-env", "TEST_TOKEN",
                        env={"GITHUB_API_URL": github.url, "TEST_TOKEN": "ghs_outputsTEST"})
    assert commented.code == 0, commented.stderr
    # forbid-overrides asks no API; it fails on the named dependencies and still reports
    checked = cli("merge-check", "--body-file", str(body), "--policy", "forbid-overrides")
    assert checked.code == 1, checked.stderr
    config = load_config(None)
    install = InstallReport(dry_run=True, python="python3", dependencies={
        "sglang": DependencyReport("sglang", "body", "refs/pull/12/head", None)})
    written = (set(resolved.outputs) | set(checked.outputs)
               | set(install_report.outputs(install, config)) | set(commented.outputs))
    assert written == {name for name, _ in declared_outputs()}
