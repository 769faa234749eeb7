"""The command table: one entry per command, each built from the options and run by its
module; PyGithub is made importable in exactly the runs that talk to GitHub."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from rocm_deps.commands.table import TABLE, Edge
from rocm_deps.options import COMMANDS, read
from rocm_deps.settings import Interpreter
from tests.conftest import Cli

EDGE = Edge({"PATH": "/usr/bin:/bin", "TOKEN": "ghs_secret"}, Path("/"),
            Interpreter(sys.executable, sys.prefix, sys.base_prefix))


def test_every_command_has_an_entry_whose_module_runs_it() -> None:
    assert set(TABLE) == set(COMMANDS)
    for command, entry in TABLE.items():
        module = importlib.import_module(f"rocm_deps.commands.{entry.module}")
        assert callable(module.run), command


@pytest.mark.parametrize(("command", "options", "talks_to_github"), [
    ("resolve", {}, True),
    ("merge-check", {}, True),
    ("comment", {"report": ["r.json"], "suite": ["ROCm CI"]}, True),
    ("install", {}, True),  # single-job: it resolves the event itself
    ("install", {"overrides": "{}"}, False),
    ("demo", {}, False),
], ids=["resolve", "merge-check", "comment", "install-single-job", "install-overrides", "demo"])
def test_which_runs_get_the_api(command: str, options: dict[str, object],
                                talks_to_github: bool) -> None:
    token = {} if command == "demo" else {"github-token-env": "TOKEN"}  # demo takes none
    given = read(command, {**options, **token})  # type: ignore[arg-type]
    entry = TABLE[given.command]
    api = entry.api(entry.build(given, EDGE))
    assert (api is not None and api.token == "ghs_secret") is talks_to_github


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
