"""The dispatch of the command line: one module per command, each with its `build` and `run`;
and how few frames stand between the command line and the first side effect."""

from __future__ import annotations

import fnmatch
import importlib
import json
import os
import re
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

from rocm_deps import cli
from rocm_deps.cli import COMMANDS, front, main
from rocm_deps.edge import Edge, Interpreter
from rocm_deps.files import toml_parser
from rocm_deps.options import read
from tests.conftest import Cli

ROOT = Path(__file__).resolve().parent.parent
EDGE = Edge({"PATH": "/usr/bin:/bin", "TOKEN": "ghs_secret"}, Path("/"),
            Interpreter(sys.executable, sys.prefix, sys.base_prefix), "ghs_secret")


def test_every_command_has_a_front_end_that_builds_its_settings_and_a_run() -> None:
    for command, package in COMMANDS.items():
        module = front(command)
        token = {} if command == "demo" else {"github-token-env": "TOKEN"}  # demo takes none
        options = ({"report": ["r.json"], "suite": ["ROCm CI"]} if command == "comment" else
                   {"repository": "radixark/miles"} if command == "sweep" else {})
        built = module.build(read(command, module.OPTIONS, {**options, **token}), EDGE)
        assert type(built).__name__.lower().startswith(command.replace("-", "")), command
        assert type(built).__module__ == f"{package}.settings"  # defined in its own folder
        assert callable(importlib.import_module(f"{package}.command").run)


TOY_SETTINGS = """\
from dataclasses import dataclass
from rocm_deps.options import Help, Option
ACTION = True
OPTIONS = (Option("greeting", "what to say", default="hello", choices=("hello", "bye")),
           Option("times", "how often", "N", default="2", low=1, high=3))
HELP = Help("say something", "Say the greeting a few times.", ("rocm-deps toy --times 3",))

@dataclass(frozen=True)
class ToySettings:
    words: tuple[str, ...]

def build(given, edge):
    return ToySettings((given.text("greeting"),) * given.number("times"))
"""
TOY_COMMAND = """\
def run(settings, runner):
    runner.info(" ".join(settings.words))
    return 0
"""


def test_a_new_command_is_its_folder_and_one_registry_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """What docs/development.md, *Adding a command*, says: nothing else is touched."""
    folder = tmp_path / "toy"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "settings.py").write_text(TOY_SETTINGS)
    (folder / "command.py").write_text(TOY_COMMAND)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli.COMMANDS, "toy", "toy")  # the registry line
    assert main(["toy", "--greeting", "bye", "--times", "3"], environ={}) == 0
    assert capsys.readouterr().err.splitlines()[-1] == "bye bye bye"
    assert main(["toy", "--times", "9"], environ={}) == 2
    assert "--times has invalid value '9'. Expected a whole number from 1 to 3." in (
        capsys.readouterr().err)
    with pytest.raises(SystemExit):
        main(["toy", "--help"], environ={})
    shown = " ".join(capsys.readouterr().out.split())
    assert "Say the greeting a few times." in shown and "(default 2)" in shown
    # The action's `command:` takes it with its inputs, the generated command line in
    # docs/configuration.md shows it, and the import contract holds its command.py.
    from rocm_deps.action import action_inputs

    assert [option.name for option in action_inputs()["toy"]] == ["greeting", "times"]
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from render_docs import command_line_block
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert "rocm-deps toy [--greeting hello|bye] [--times N]" in command_line_block()
    contracts = toml_parser().loads((ROOT / "pyproject.toml").read_text())["tool"][
        "importlinter"]["contracts"]
    [independent] = [contract["modules"] for contract in contracts
                     if contract["type"] == "independence"]
    assert [pattern for pattern in independent
            if fnmatch.fnmatchcase("rocm_deps.toy.command", pattern)] == ["rocm_deps.*.command"]


def test_the_command_interface_is_typed_and_the_profile_named_once() -> None:
    """Every command's front end says whether it is a step of the action (no attribute is
    read with a fallback), and the default profile's name is written in its `Literal` and
    the profile table only."""
    assert {command: front(command).ACTION for command in COMMANDS} == {
        "resolve": True, "install": True, "merge-check": True, "comment": True,
        "sweep": True, "demo": False, "config": False}
    source = [path.read_text(encoding="utf-8") for path in (ROOT / "src").rglob("*.py")]
    assert sum(text.count('"miles-rocm"') for text in source) == 2
    assert not [text for text in source if re.search(r"getattr\([^)]*ACTION", text)]


def test_the_first_git_process_of_install_is_at_most_seven_frames_from_the_console_script(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader steps through few layers from the console script's entry point (`cli.main`,
    pyproject's `[project.scripts]`) to the side effect (actions/checkout needs about five):
    counted the way a reviewer would, at the first `git` argv; every git question goes through
    `Git.run`."""
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
                         "pipeline.py:install_one", "git.py:layout", "git.py:run",
                         "process.py:run"]
    scripts = toml_parser().loads((Path(__file__).parent.parent / "pyproject.toml").read_text())[
        "project"]["scripts"]
    assert scripts == {"rocm-deps": "rocm_deps.cli:main"}


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


def test_every_command_is_typed_and_in_the_layers_contract() -> None:
    """The registry's typed table (cli.py, under TYPE_CHECKING) has one `_typed` line for each
    entry of COMMANDS, so mypy holds its front and back end to one settings type; and the
    layers contract of lint-imports names each command's folder."""
    source = (ROOT / "src" / "rocm_deps" / "cli.py").read_text(encoding="utf-8")
    typed = re.findall(r"^    _typed\(([\w.]+)\.settings, ([\w.]+)\.command\)$", source,
                       re.MULTILINE)
    assert typed == [(package, package) for package in COMMANDS.values()]
    contracts = toml_parser().loads((ROOT / "pyproject.toml").read_text())["tool"][
        "importlinter"]["contracts"]
    [layers] = [contract["layers"] for contract in contracts
                if contract["type"] == "layers" and "rocm_deps.cli" in contract["layers"]]
    named = [module.strip() for layer in layers for module in layer.split("|")]
    assert [package for package in COMMANDS.values() if package not in named] == []
