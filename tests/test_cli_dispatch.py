"""The dispatch of the command line: one module per command, each with its `build` and `run`;
and how few frames stand between the command line and the first side effect."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

from rocm_deps.cli import COMMAND_MODULES, main
from rocm_deps.options import COMMANDS, read
from rocm_deps.settings import Edge, Interpreter
from tests.conftest import Cli

EDGE = Edge({"PATH": "/usr/bin:/bin", "TOKEN": "ghs_secret"}, Path("/"),
            Interpreter(sys.executable, sys.prefix, sys.base_prefix))


def test_every_command_has_a_module_that_builds_and_runs_it() -> None:
    assert set(COMMAND_MODULES) == set(COMMANDS)
    for command, name in COMMAND_MODULES.items():
        module = importlib.import_module(name)
        assert callable(module.build) and callable(module.run), command
        token = {} if command == "demo" else {"github-token-env": "TOKEN"}  # demo takes none
        options = ({"report": ["r.json"], "suite": ["ROCm CI"]} if command == "comment" else
                   {"repository": "radixark/miles"} if command == "sweep" else {})
        built = module.build(read(command, {**options, **token}), EDGE)  # type: ignore[arg-type]
        assert type(built).__name__.lower().startswith(command.replace("-", "")), command


def test_the_first_git_process_of_install_is_at_most_seven_frames_from_the_command_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader steps through few layers from `cli.main` to the side effect (actions/checkout
    needs about five): counted the way a reviewer would, at the first `git` argv."""
    origin = tmp_path / "origin"
    subprocess.run(["git", "init", "-q", str(origin)], check=True)
    subprocess.run(["git", "-C", str(origin), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "--allow-empty", "-m", "one"], check=True)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
    sha = subprocess.run(["git", "-C", str(origin), "rev-parse", "HEAD"], capture_output=True,
                         text=True, check=True).stdout.strip()
    config = tmp_path / "config.toml"
    config.write_text(f"[dependencies.sglang]\npath = {json.dumps(str(clone))}\n"
                      f"install-dir = \"\"\n[dependencies.megatron]\nenabled = false\n"
                      f"[install]\nworkspace-install = false\n")
    overrides = json.dumps({"sglang": {"ref": sha, "sha": sha, "kind": "commit",
                                       "source": "dispatch", "raw": sha, "line": None,
                                       "pr": None}})
    stacks: list[list[str]] = []
    real_init = subprocess.Popen.__init__

    def spy(self: subprocess.Popen[str], args: object, *rest: object, **options: object) -> None:
        if not stacks and isinstance(args, (list, tuple)) and Path(str(args[0])).name == "git":
            stacks.append([f"{Path(frame.filename).name}:{frame.name}"
                           for frame in traceback.extract_stack()
                           if f"{os.sep}rocm_deps{os.sep}" in frame.filename])
        real_init(self, args, *rest, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(subprocess.Popen, "__init__", spy)
    code = main(["install", "--config", str(config), "--overrides", overrides,
                 "--python", sys.executable], environ={"PATH": os.environ["PATH"]})
    assert code == 0
    assert stacks[0] == ["cli.py:main", "cli.py:execute", "command.py:run",
                         "pipeline.py:install_one", "pipeline.py:_open", "git.py:layout",
                         "process.py:run"]


def test_merge_check_reads_values_as_resolve_does(cli: Cli, tmp_path: Path) -> None:
    """A near miss of a value directive is the same error in both commands."""
    body = tmp_path / "body.md"
    body.write_text("Image for this PR:\nci_image_tag: nightly\n", encoding="utf-8")
    resolved = cli("resolve", "--body-file", str(body), "--profile", "cuda")
    checked = cli("merge-check", "--body-file", str(body), "--profile", "cuda")
    assert (resolved.code, checked.code) == (1, 1)
    resolve_errors = [line for line in resolved.stderr.splitlines() if line.startswith("::error")]
    check_errors = [line for line in checked.stderr.splitlines() if line.startswith("::error")]
    assert len(resolve_errors) == 1, resolved.stderr
    assert "ci_image_tag: nightly" in resolve_errors[0]
    assert "ci-image-tag" in resolve_errors[0]  # the exact key to write
    # merge-check says which body the line is in, then the same words
    assert check_errors == [resolve_errors[0].replace("::line 2: ", "::the body file: line 2: ")]
