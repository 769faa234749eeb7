"""What a new user reads says what the tool does: the README's introduction, the guide, the
migration guide's examples, the third-dependency example and the action's token input. Each
check names a fact the documents once got wrong."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocm_deps.config import load_config
from rocm_deps.demo.sandbox import Sandbox
from tests.conftest import Cli

ROOT = Path(__file__).resolve().parent.parent
DEPENDENCIES = load_config(None).dependencies


def read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """The text from `heading` to the next heading of the same or a higher level (a `#` line
    in a fenced block is no heading)."""
    level = len(heading.split(" ", 1)[0])
    lines, fenced = [], False
    for line in text[text.index(heading + "\n") + len(heading) + 1:].splitlines():
        fenced ^= line.startswith("```")
        if not fenced and re.match(rf"#{{1,{level}}} ", line):
            break
        lines.append(line)
    return "\n".join(lines)


def test_the_readme_introduction_names_every_dependency_and_the_merge_form() -> None:
    readme = read("README.md")
    introduction = readme[:readme.index("## Quick start")]
    for dependency in DEPENDENCIES:
        assert dependency.directive in introduction or dependency.name in ("sglang",
                                                                         "megatron"), (
            dependency.directive)
    assert "ci-megatron-bridge-pr" in introduction and "Megatron-Bridge" in introduction
    assert "merge-with-base" in introduction and "pull/N/merge" in introduction


def test_the_quick_start_says_how_long_the_suite_takes() -> None:
    quick_start = section(read("README.md"), "## Quick start")
    assert re.search(r"about \d+ minutes", quick_start)


def test_the_guide_shows_every_key_the_merge_form_and_both_kinds_of_dependency() -> None:
    guide = read("docs/guide.md")
    writing = section(guide, "## Writing directives")
    for dependency in DEPENDENCIES:
        assert f"`{dependency.directive}`" in writing, dependency.directive
    assert "pull/1234/merge" in writing and "merge-with-base" in writing
    recipes = section(guide, "## Recipes")
    assert "ci-megatron-bridge-pr" in recipes and "merge-with-base" in recipes
    third = section(guide, "## A third dependency")
    assert "distribution =" in third and "path =" in third
    assert "a-z, 0-9, _ and -" in third
    assert "lowercase letters, digits, _;" not in third  # the old rule, without `-`


def test_the_third_dependency_example_lists_every_fixed_output() -> None:
    example = read("examples/third-dependency.yml")
    fixed = re.search(r"outputs are fixed \(([^)]*)\)", example)
    assert fixed is not None
    assert fixed.group(1).split(", ") == [
        f"{dependency.name.replace('-', '_')}_*" for dependency in DEPENDENCIES]


def test_a_new_dependency_needs_a_path_or_a_distribution() -> None:
    configuration = read("docs/configuration.md")
    assert "either `path`" in configuration and "or `distribution`" in configuration
    assert "needs `repository` and `path`;" not in configuration


def test_the_token_input_says_which_commands_need_it() -> None:
    action = read("action.yml")
    token = action[action.index("  github-token:"):action.index("  config:")]
    assert "merge-check, comment and sweep need one" in " ".join(token.split())
    # What each way installs for the step: PyGithub with a token, GitHub's engine without.
    assert "nothing installed" not in token
    assert "PyGithub is installed" in " ".join(token.split())
    assert "cmarkgfm, installed for the step from the package index" in " ".join(token.split())


def migration_row(name: str) -> str:
    return next(line for line in read("docs/migrating-miles.md").splitlines()
                if line.startswith(f"| `{name}` |"))


@pytest.mark.parametrize(("row", "code"), [("unsupported-ref", 1), ("merge-ref", 0)])
def test_the_migration_guide_says_what_each_example_value_does(cli: Cli, tmp_path: Path,
                                                              row: str, code: int) -> None:
    """Each back-ticked value of the row, in a description resolved without a token: an
    error, or applied."""
    values = re.findall(r"`([^`]+)`", migration_row(row).split("|")[2])
    assert values
    body = tmp_path / "description.md"
    for value in values:
        body.write_text(f"ci-sglang-pr: {value}\n", encoding="utf-8")
        result = cli("resolve", "--body-file", str(body), "--format", "json")
        assert result.code == code, (value, result.stderr)


def test_the_not_miles_config_resolves_and_plans_an_install(cli: Cli, box: Sandbox,
                                                            tmp_path: Path) -> None:
    """The README's "Not Miles?" config is examples/not-miles/rocm-deps.toml; with it (only the
    clones' paths are the sandbox's) resolve applies the example description, which names
    another repository's pull request by URL, and install --dry-run plans exactly those
    checkouts, from the configuration resolve carried in overrides."""
    import json

    block = re.search(r"^```toml\n(.*?)^```$", section(read("README.md"), "## Not Miles?"),
                      re.MULTILINE | re.DOTALL)
    assert block is not None
    example = read("examples/not-miles/rocm-deps.toml")
    assert example.endswith(block.group(1))
    assert all(line.startswith("#") for line in example[:-len(block.group(1))].splitlines())
    config = tmp_path / "rocm-deps.toml"
    config.write_text(example.replace("/opt/Megatron-LM", str(box.baked["megatron"]))
                      .replace("/opt/mylib", str(box.baked["sglang"])))  # a complete clone
    resolved = cli("resolve", "--config", str(config), "--body-file",
                   str(ROOT / "examples/not-miles/description.md"), "--format", "json")
    assert resolved.code == 0, resolved.stderr
    overrides = json.loads(resolved.stdout)["overrides"]
    assert [(name, entry["ref"]) for name, entry in overrides.items() if name != "_config"] == [
        ("megatron", "refs/pull/2202/head"), ("mylib", "refs/pull/12/head")]
    planned = cli("install", "--overrides", json.dumps(overrides),
                  "--workspace", str(box.workspace), "--python", box.python, "--dry-run")
    assert planned.code == 0, planned.stderr
    report = json.loads(planned.outputs["report"])
    assert {name: entry["state"] for name, entry in report["dependencies"].items()} == {
        "megatron": "planned", "mylib": "planned", "tokenizers": "absent"}  # not in the venv
    assert "refs/pull/2202/head" in planned.stderr and "refs/pull/12/head" in planned.stderr


def test_the_readme_shows_the_minimal_workflow_early() -> None:
    """The README shows a complete workflow itself, within its first 150 lines: resolve with
    a token in a cheap job, install from its overrides in the GPU job, no `config:` line (the
    file is found by convention); each input it passes is one examples/rocm-suite.yml passes
    to the same command, which it points to for the rest."""
    text = read("README.md")
    workflow = section(text, "## A workflow")
    assert text[:text.index("## A workflow")].count("\n") + workflow.count("\n") < 150
    block = re.search(r"^```yaml\n(.*?)^```$", workflow, re.MULTILINE | re.DOTALL)
    assert block is not None
    steps = re.findall(r"^ +with:\n((?: {10}.*\n)+)", block.group(1), re.MULTILINE)
    inputs = [dict(line.strip().split(": ", 1) for line in step.splitlines()) for step in steps
              if "command: " in step]  # actions/checkout's inputs are not ours
    assert [step["command"] for step in inputs] == ["resolve", "install"]
    assert "config" not in block.group(1)
    example = read("examples/rocm-suite.yml")
    for step in inputs:
        for key in set(step) - {"command"}:
            assert re.search(rf"^ +command: {step['command']}\n(?: {{10}}.*\n)*? {{10}}{key}: ",
                             example, re.MULTILINE), key
    assert "[`examples/rocm-suite.yml`](examples/rocm-suite.yml)" in workflow
    assert "run it in every GPU job" in workflow
