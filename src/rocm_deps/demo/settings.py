"""`rocm-deps demo`'s front end: its options, its help and its settings, built once."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, cast, get_args

from rocm_deps import edge
from rocm_deps.edge import Edge
from rocm_deps.environment import child_environment
from rocm_deps.options import FORMAT, Given, Help, Option, OutputFormat

Scenario = Literal["pull-requests", "missing-target"]
ACTION = False  # the demo is not a step of a workflow: no `command: demo`

OPTIONS = (
    FORMAT,
    Option("keep", "keep the sandbox directory", default="false", boolean=True, switch=True,
           action=False),
    Option("scenario", "pull-requests: SGLang and Megatron-LM pull requests install; "
           "missing-target: a Megatron-LM pull request deleted the file the ROCm patch "
           "changes, and install says how to fix it", default="pull-requests",
           choices=get_args(Scenario), action=False),
)
HELP = Help(
    "run resolve then install in a throw-away sandbox",
    "Build a sandbox shaped like the MI350 image (origins with history, tags and pull request "
    "refs; complete clones; a virtualenv as the container's interpreter) and run the real "
    "resolve and install in it.",
    ("rocm-deps demo", "rocm-deps demo --scenario missing-target --keep"))


@dataclass(frozen=True)
class DemoSettings:
    keep: bool
    output_format: OutputFormat
    scenario: Scenario
    python: str  # the interpreter that runs the tool (and builds the sandbox's venv)
    temporary_directory: Path
    environ: Mapping[str, str] = field(default_factory=dict)


def build(given: Given, at: Edge) -> DemoSettings:
    return DemoSettings(keep=bool(given.flag("keep")), output_format=edge.output_format(given),
                        scenario=cast(Scenario, given.text("scenario")),
                        python=at.interpreter.executable,
                        temporary_directory=Path(at.environ.get("TMPDIR")
                                                 or tempfile.gettempdir()),
                        environ=child_environment(at.environ, None))
