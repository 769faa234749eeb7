"""The manifest comment's text (manifest/text.py): its reproduction of the install reads the
configuration the run read, so it works for a repository that is not Miles."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from rocm_deps import edge
from rocm_deps.contract.manifest import ManifestRow, ManifestRun
from rocm_deps.contract.overrides import Override
from rocm_deps.defaults import CONFIG_FILE
from rocm_deps.demo.sandbox import Sandbox
from rocm_deps.edge import Edge, FoundConfig, Interpreter
from rocm_deps.install.settings import OPTIONS
from rocm_deps.manifest.text import section
from rocm_deps.options import read
from tests.conftest import Cli

NOT_MILES = Path("examples/not-miles/rocm-deps.toml").read_text(encoding="utf-8")
SHA = "1" * 40


def reproduction(options: tuple[str, ...]) -> list[str]:
    row = ManifestRow("mylib", Override("mylib", "pr", "refs/pull/12/head", "body", "#12",
                                       sha=SHA, pr=12), "acme/mylib", SHA, ())
    shown = section(ManifestRun("acme/app", 7, "https://run", "rocm", [row], options=options))
    block = shown.split("```")[-2]
    assert block.startswith("text\n")
    return shlex.split(block.removeprefix("text\n"))


def config_from(found: FoundConfig | None, given: dict[str, str]) -> tuple[str, ...]:
    at = Edge({}, Path.cwd(), Interpreter.current(), found=found)
    return edge.config_of(read("install", OPTIONS, given), at).options


def test_the_reproduction_names_the_file_and_the_profile_the_run_read(tmp_path: Path) -> None:
    explicit = tmp_path / "mine.toml"
    explicit.write_text(NOT_MILES)
    conventional = FoundConfig(NOT_MILES, f"{CONFIG_FILE} of acme/app at abc (the base branch)",
                               path=CONFIG_FILE)
    assert config_from(conventional, {}) == ("--config", CONFIG_FILE)
    assert config_from(None, {"config": str(explicit)}) == ("--config", str(explicit))
    assert config_from(None, {"profile": "cuda"}) == ("--profile", "miles-cuda")
    assert config_from(FoundConfig(None, "the built-in profile"), {}) == ()
    argv = reproduction(("--config", CONFIG_FILE))
    assert argv[:5] == ["rocm-deps", "install", "--config", CONFIG_FILE, "--overrides"]
    assert json.loads(argv[5]) == {"mylib": {"ref": "refs/pull/12/head", "sha": SHA}}


def test_the_reproduction_runs_in_the_repositorys_checkout(cli: Cli, box: Sandbox,
                                                          tmp_path: Path) -> None:
    """As the comment writes it (its file: the checkout's), install plans mylib's checkout;
    without the configuration, the error says to give it."""
    checkout = tmp_path / "app"
    (checkout / ".github").mkdir(parents=True)
    (checkout / CONFIG_FILE).write_text(NOT_MILES.replace("/opt/mylib", str(box.baked["sglang"]))
                                        .replace("/opt/Megatron-LM", str(box.baked["megatron"])))
    argv = reproduction(("--config", str(checkout / CONFIG_FILE)))
    planned = cli(*argv[1:], "--workspace", str(checkout), "--python", box.python, "--dry-run")
    assert planned.code == 0, planned.stderr
    assert json.loads(planned.outputs["report"])["dependencies"]["mylib"]["state"] == "planned"
    bare = reproduction(())
    refused = cli(*bare[1:], "--workspace", str(checkout), "--python", box.python, "--dry-run")
    assert refused.code == 2
    assert ("`mylib` is not a configured dependency (configured: sglang, megatron, "
            "megatron-bridge); read the overrides with the configuration that wrote them: its "
            f"file with `--config` (or {CONFIG_FILE} in the repository's checkout)") in (
        refused.stderr)
