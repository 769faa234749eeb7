"""The one list of install steps (install.pipeline.STEPS): a run, a dry run and a dry run
without the clone walk the same steps, so a plan never leaves out a step the run takes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import get_args

from rocm_deps.contract.install import PHASES, StepName
from rocm_deps.demo.sandbox import Sandbox
from rocm_deps.install.pipeline import STEPS
from tests.conftest import Cli, CliResult, overrides
from tests.install.test_install import install

STEP_NAMES = [step.name for step in STEPS]


def with_prepare(box: Sandbox, argv: list[str], path: Path | None = None) -> None:
    """Give Megatron-LM a `prepare` command (and, optionally, a path this machine lacks)."""
    text = box.config.read_text()
    if path is not None:
        text = text.replace(str(box.baked["megatron"]), str(path))
    if "prepare = " not in text:
        text = text.replace("[dependencies.megatron]\n",
                            f"[dependencies.megatron]\nprepare = [{json.dumps(argv)}]\n")
    box.config.write_text(text)


def walked(result: CliResult, code: int = 0) -> list[str]:
    assert result.code == code, result.stderr
    steps: list[str] = json.loads(result.outputs["report"])["dependencies"]["megatron"]["steps"]
    return steps


def test_a_run_a_dry_run_and_a_clone_less_plan_walk_the_same_steps(cli: Cli, box: Sandbox,
                                                                   tmp_path: Path) -> None:
    with_prepare(box, ["git", "status", "--short"])
    document = overrides(megatron="refs/pull/202/head")
    dry_run = walked(install(cli, box, document, "--dry-run"))
    run = walked(install(cli, box, document))
    with_prepare(box, ["git", "status", "--short"], tmp_path / "laptop" / "Megatron-LM")
    clone_less = walked(install(cli, box, document, "--dry-run"), code=1)  # the clone lacks
    assert dry_run == run == clone_less == STEP_NAMES


def test_an_up_to_date_install_walks_no_step(cli: Cli, box: Sandbox) -> None:
    document = overrides(megatron="refs/pull/202/head")
    assert walked(install(cli, box, document)) == STEP_NAMES
    again = install(cli, box, document)
    assert walked(again) == []
    assert json.loads(again.outputs["report"])["dependencies"]["megatron"]["state"] == (
        "up-to-date")


def test_a_clone_less_dry_run_shows_the_prepare_command(cli: Cli, box: Sandbox,
                                                        tmp_path: Path) -> None:
    missing = tmp_path / "laptop" / "Megatron-LM"
    with_prepare(box, ["echo", "X"], missing)
    result = install(cli, box, overrides(megatron="refs/pull/202/head"), "--dry-run")
    assert result.code == 1, result.stderr  # the whole plan, then the missing clone
    plan = [line for line in result.stderr.splitlines() if line.startswith("[dry-run] + ")]
    prepare = plan.index("[dry-run] + echo X")
    # In the run's order: after the patch is applied, before pip.
    assert "apply " in plan[prepare - 1] and "-m pip install -e" in plan[prepare + 1]
    assert not missing.exists()


def test_every_timed_phase_is_a_step_of_the_pipeline() -> None:
    """The summary's columns are the pipeline's phases, in its order."""
    phases = list(dict.fromkeys(step.phase for step in STEPS if step.phase is not None))
    assert tuple(phases) == PHASES


def test_a_prepare_command_never_sees_the_token(cli: Cli, box: Sandbox, tmp_path: Path) -> None:
    dump = tmp_path / "environment.json"
    with_prepare(box, [sys.executable, "-c", "import json, os, sys; open(sys.argv[1], 'w')"
                       ".write(json.dumps(dict(os.environ)))", str(dump)])
    token = "ghs_prepareTESTtoken0123456789abcdef"
    env = {"TEST_TOKEN": token, "INPUT_GITHUB_TOKEN": token, "GITHUB_TOKEN": "ghs_other",
           "CLONE_URL": f"https://x-access-token:{token}@github.com/o/r"}
    result = install(cli, box, overrides(megatron="refs/pull/202/head"),
                     "--github-token-env", "TEST_TOKEN", env=env)
    assert result.code == 0, result.stderr
    seen = json.loads(dump.read_text())
    assert not {"TEST_TOKEN", "INPUT_GITHUB_TOKEN", "GITHUB_TOKEN", "CLONE_URL"} & set(seen)
    assert token not in json.dumps(seen) and "ghs_other" not in json.dumps(seen)


def test_the_step_names_of_the_report_are_the_pipelines_steps() -> None:
    """`StepName`, what a report can say it walked, and `STEPS`, what the pipeline walks,
    are the same list in the same order."""
    assert tuple(step.name for step in STEPS) == get_args(StepName)
