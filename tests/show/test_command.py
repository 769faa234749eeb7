"""`rocm-deps config` (show/command.py): the configuration in effect, each value with where it
comes from (the file, the built-in profile, the key's default; the profile from an input, the
file or the default), as the other commands would read it."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from rocm_deps.config.loader import load_config
from tests.conftest import Cli

# A repository that keeps Miles' CUDA settings but tests Megatron-LM's main.
CUDA_ON_MAIN = """\
profile = "miles-cuda"

[dependencies.megatron]
default = "main"
"""


def rows(stdout: str) -> dict[str, tuple[object, str]]:
    document = json.loads(stdout)
    return {row["key"]: (row["value"], row["origin"]) for row in document["values"]}


def test_each_value_says_whether_the_file_the_profile_or_the_default_set_it(
        cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "rocm-deps.toml"
    path.write_text(CUDA_ON_MAIN)
    result = cli("config", "--config", str(path), "--format", "json", github_actions=False)
    assert result.code == 0, result.stderr
    document, shown = json.loads(result.stdout), rows(result.stdout)
    assert (document["profile"], document["profile_origin"]) == (
        "miles-cuda", "the file's `profile`")
    assert shown["dependencies.megatron.default"] == ("main", str(path))
    assert shown["dependencies.sglang.default"] == (
        "sglang-miles", "the built-in profile miles-cuda")
    assert shown["dependencies.megatron.fetch-depth"] == (0, "default")
    assert shown["values.image-tag.default"] == ("dev", "the built-in profile miles-cuda")


def test_every_value_shown_is_the_one_the_commands_use(cli: Cli, tmp_path: Path) -> None:
    """Read from the loaded configuration, not from the file again: a git package's url is
    GitHub's though the file leaves it out, and a pip-env table is a table."""
    path = tmp_path / "rocm-deps.toml"
    path.write_text(Path("examples/not-miles/rocm-deps.toml").read_text()
                    + '\n[dependencies.mylib.pip-env]\nMAX_JOBS = "4"\n')
    result = cli("config", "--config", str(path), "--format", "json", github_actions=False)
    assert result.code == 0, result.stderr
    shown = rows(result.stdout)
    loaded = load_config(path)
    assert shown["dependencies.tokenizers.url"] == (
        loaded.dependency("tokenizers").url, "default")
    assert loaded.dependency("tokenizers").url == "https://github.com/acme/tokenizers.git"
    assert shown["dependencies.mylib.pip-env"] == ({"MAX_JOBS": "4"}, str(path))
    assert [key for key in shown if key.endswith(".repository")] == [
        "dependencies.megatron.repository", "dependencies.mylib.repository",
        "dependencies.tokenizers.repository"]  # profile "none": nothing of Miles'


@pytest.mark.parametrize(("argv", "origin"), [
    (("--profile", "none"), "input `profile`"), ((), "the default")])
def test_the_profile_says_what_chose_it(cli: Cli, argv: tuple[str, ...], origin: str,
                                        tmp_path: Path) -> None:
    path = tmp_path / "rocm-deps.toml"
    path.write_text("[install]\nfetch-attempts = 5\n")
    result = cli("config", "--config", str(path), *argv, github_actions=False)
    assert result.code == 0, result.stderr
    assert result.stdout.splitlines()[:2] == [
        f"# configuration: {path}",
        f"# profile: {'none' if argv else 'miles-rocm'} ({origin})"]
    assert re.search(rf"^install\.fetch-attempts = 5 +# {re.escape(str(path))}$",
                     result.stdout, re.MULTILINE)


def test_the_file_found_by_convention_is_the_working_trees(
        cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Locally, `.github/rocm-deps.toml` at the top of the repository the command runs in."""
    repository = tmp_path / "repo"
    (repository / ".github").mkdir(parents=True)
    (repository / ".github" / "rocm-deps.toml").write_text(CUDA_ON_MAIN)
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    (repository / "src").mkdir()
    monkeypatch.chdir(repository / "src")
    result = cli("config", "--format", "json", github_actions=False)
    assert result.code == 0, result.stderr
    assert rows(result.stdout)["dependencies.megatron.default"] == (
        "main", str(repository / ".github" / "rocm-deps.toml"))


def test_a_value_from_the_file_cannot_become_a_workflow_command(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "rocm-deps.toml"
    path.write_text('[install]\npip-args = ["\\u2028::error::forged", "x\\n::warning::y"]\n')
    result = cli("config", "--config", str(path))
    assert result.code == 0, result.stderr
    assert "pip-args" in result.stdout
    assert not [line for line in re.split(r"[\n\r\u0085\u2028\u2029]", result.stdout)
                if line.strip().startswith("::")]
