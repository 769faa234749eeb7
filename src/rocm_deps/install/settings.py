"""`rocm-deps install`'s front end: its options, its help and its settings, built once."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from rocm_deps import edge
from rocm_deps.config import Config
from rocm_deps.contract.overrides import Override, RunRecord, pins_from_json
from rocm_deps.edge import Edge, Interpreter
from rocm_deps.environment import absolute_search_path, child_environment
from rocm_deps.errors import UsageError
from rocm_deps.files import OVERRIDES_LIMIT, parse_json, read_bounded
from rocm_deps.options import Given, Help, Option, OutputFormat, default_of
from rocm_deps.resolve import settings as resolve_settings
from rocm_deps.resolve.settings import ResolveSettings

ACTION = True  # a step of workflows: `command: install`
OPTIONS = (
    *resolve_settings.RESOLVING,
    Option("overrides", "the `overrides` output of resolve (default: resolve from the event)",
           "JSON"),
    Option("overrides-file", "a file holding the overrides JSON or a whole resolve report",
           "F", action=False),
    Option("workspace", "checkout of the framework under test, where patch paths are "
           "relative to (default: $GITHUB_WORKSPACE, else the current dir)", "DIR"),
    Option("python", "interpreter to pip install into (default: python3 on PATH)", "EXE"),
    Option("dry-run", "print every command in order and change nothing", default="false",
           boolean=True, switch=True),
    Option("workspace-install", "override the config's install.workspace-install",
           "true|false", boolean=True),
)
HELP = Help(
    "check out, patch and pip install overrides",
    "In the GPU container: for each configured dependency, install exactly the commit that "
    "is named (by --overrides, else by resolving the event itself) or hold the image's copy: "
    "clean the image's clone, fetch and check out the commit, probe and apply the patches, "
    "pip install it into the interpreter under test and check that it imports from there. "
    "--dry-run prints every command; without the image's clones it prints the plan and exits "
    "1 naming each missing clone. The rocm profile's Megatron-LM patch lives in Miles' "
    "checkout (--workspace): elsewhere its plan stops earlier, saying so; the first example "
    "(the cuda profile, no patches) prints the whole plan anywhere.",
    ("rocm-deps install --dry-run --body-file examples/description.md --profile cuda",
     "rocm-deps install --overrides-file resolve.json --python /usr/bin/python3"))


@dataclass(frozen=True)
class InstallSettings:
    resolve: ResolveSettings  # for single-job use, and the one home of the config
    overrides: Mapping[str, Override] | None  # None: resolve from the event (single job)
    workspace: Path
    python: str
    dry_run: bool = default_of(OPTIONS, "dry-run")
    output_format: OutputFormat = default_of(OPTIONS, "format")
    # What every child process (git, pip, prepare) starts from: child_environment().
    environ: Mapping[str, str] = field(default_factory=dict)
    # The run and attempt whose resolve wrote `overrides` (None: written outside a run).
    pinned_by: RunRecord | None = None

    @property
    def config(self) -> Config:
        return self.resolve.config


def build(given: Given, at: Edge) -> InstallSettings:
    resolve = resolve_settings.build(given, at)
    workspace_install = given.flag("workspace-install")
    if workspace_install is not None:
        config = resolve.config
        resolve = replace(resolve, config=replace(config, install=replace(
            config.install, workspace_install=workspace_install)))
    workspace = edge.path(given.optional("workspace")) or Path(
        at.environ.get("GITHUB_WORKSPACE") or at.cwd)
    overrides, pinned_by = _overrides(given, resolve.config)
    return InstallSettings(
        resolve=resolve, overrides=overrides, pinned_by=pinned_by,
        workspace=workspace.resolve(),
        python=find_python(given.optional("python"), at.environ, at.interpreter),
        dry_run=bool(given.flag("dry-run")), output_format=edge.output_format(given),
        environ=child_environment(at.environ, at.token))


def _overrides(given: Given, config: Config
               ) -> tuple[dict[str, Override] | None, RunRecord | None]:
    text, file = given.optional("overrides"), given.optional("overrides-file")
    if text is not None and file is not None:
        raise UsageError("--overrides and --overrides-file name the same thing; give one")
    if text is not None:
        return parse_overrides(text, config, given.where("overrides"))
    if file is not None:
        document = read_bounded(Path(file), OVERRIDES_LIMIT, "--overrides-file")
        return parse_overrides(document, config, f"--overrides-file {file}")
    return None, None  # install resolves the event itself


def parse_overrides(text: str, config: Config,
                    where: str) -> tuple[dict[str, Override], RunRecord | None]:
    if len(text) > OVERRIDES_LIMIT:
        raise UsageError(f"{where}: larger than {OVERRIDES_LIMIT // 1024} KiB")
    return pins_from_json(parse_json(text, where), config.names, where)


def find_python(requested: str | None, environ: Mapping[str, str],
                interpreter: Interpreter) -> str:
    """The interpreter under test: `--python`, else `python3` on PATH *outside* the tool's own
    virtualenv (the action's private environment must never get the dependencies)."""
    search_path = absolute_search_path(environ)
    if requested:
        found = shutil.which(requested, path=search_path)
        if found is None:
            raise UsageError(f"--python {requested!r}: no such interpreter (not an executable "
                             f"file and not found on PATH)")
        return found
    own_bin = (Path(interpreter.prefix, "bin").resolve()
               if interpreter.prefix != interpreter.base_prefix else None)
    directories = [entry for entry in search_path.split(os.pathsep)
                   if entry and (own_bin is None or Path(entry).resolve() != own_bin)]
    found = shutil.which("python3", path=os.pathsep.join(directories))
    if found is None:
        raise UsageError("no python3 found on PATH outside rocm-deps' own environment; "
                         "pass --python (action input `python`) with the container's interpreter")
    return found
