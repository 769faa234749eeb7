"""`rocm-deps demo`: resolve then install on an example PR body, in a throw-away sandbox.

Shows the whole product on a machine with only Python and git, in a sandbox shaped like the
MI350 image (see demo/world.py): the PR body names an SGLang pull request that changes a
kernel the image compiled and a Megatron-LM pull request branched off a base older than the
image's commit. Install then shows SGLang's version computed from git, the image's edits the
reset discards and the `prepare` command that redoes the pyproject swap, the rebuild
warning, the ROCm patch, and the workspace installed last. `--scenario missing-target`
names a Megatron-LM pull request that deleted the file the ROCm patch changes.

Both steps run as real processes of the command line, and the `overrides` output of resolve
reaches install the way it does between two jobs of a workflow: through `$GITHUB_OUTPUT`.
"""

from __future__ import annotations

import json
import shlex
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import rocm_deps
from rocm_deps import process
from rocm_deps.demo import sandbox
from rocm_deps.demo.sandbox import toml_string
from rocm_deps.demo.settings import DemoSettings
from rocm_deps.demo.world import SCENARIOS
from rocm_deps.errors import EXIT_OK, FatalError
from rocm_deps.process import CommandFailed
from rocm_deps.runner import Runner, parse_outputs

# The configuration a Miles-like repository would use on the MI350 image: the defaults (SGLang's
# recipe redoes the image's pyproject swap after checkout) and the sandbox's paths.
DEMO_CONFIG = """\
[dependencies.sglang]
path = {sglang}

[dependencies.megatron]
path = {megatron}

[install]
retry-min-seconds = 0
retry-max-seconds = 0
# The sandbox provides the build requirements (no network).
pip-args = ["--no-build-isolation"]
"""



def run(settings: DemoSettings, runner: Runner) -> int:
    root = Path(tempfile.mkdtemp(prefix="rocm-deps-demo-", dir=settings.temporary_directory))
    runner.info(f"building the sandbox in {root} (origins, baked clones, a target virtualenv)")
    try:
        box = sandbox.build(root, runner, settings.environ, python_for_venv=settings.python)
        sandbox.add_workspace_package(box)
        config = root / "demo.toml"
        config.write_text(DEMO_CONFIG.format(sglang=toml_string(str(box.baked["sglang"])),
                                             megatron=toml_string(str(box.baked["megatron"]))),
                          encoding="utf-8")
        body = SCENARIOS[settings.scenario]
        event = box.event(body)
        runner.info(f"\n--- the PR body ---\n{body}")
        outputs, summary = root / "github_output", root / "step_summary.md"
        step_env = {**settings.environ, "GITHUB_OUTPUT": str(outputs),
                    "GITHUB_STEP_SUMMARY": str(summary)}
        for name in ("GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH"):
            step_env.pop(name, None)
        step_env.pop("GITHUB_ACTIONS", None)
        runner.info("\n--- rocm-deps resolve ---")
        event_variables = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event)}
        code, resolved = _tool(settings, runner, step_env, event_variables, "resolve",
                               "--config", str(config))
        reports = {"resolve": resolved}
        said = {"resolve": _report_output(outputs)}
        if code != EXIT_OK:
            _print_reports(settings, reports)
            _closing(settings, runner, said, code)
            return code
        overrides_file = root / "overrides.json"
        overrides_file.write_text(parse_outputs(outputs.read_text(encoding="utf-8"))[
            "overrides"], encoding="utf-8")
        runner.info("\n--- rocm-deps install (the overrides output of resolve, saved to a "
                    "file) ---")
        install = ("install", "--config", str(config), "--overrides-file", str(overrides_file),
                   "--workspace", str(box.workspace), "--python", box.python)
        code, reports["install"] = _tool(settings, runner, step_env, {}, *install)
        said["install"] = _report_output(outputs)
        runner.info("\n--- the job summary: the Markdown written to $GITHUB_STEP_SUMMARY, "
                    "which GitHub shows as headings and tables ---")
        runner.info(summary.read_text(encoding="utf-8"))
        installed = sandbox.installed_versions(box, runner, settings.environ)
        runner.info(f"versions in the target interpreter: {installed}")
        _print_reports(settings, reports)
        if settings.keep:
            runner.info(f"\nsandbox kept in {root}. Run install there again (nothing to "
                        f"fetch the second time: it reports up-to-date):\n  "
                        f"{shlex.join((*_program(settings), *install))}")
        _closing(settings, runner, said, code)
    except CommandFailed as error:
        raise FatalError(f"could not build the demo sandbox in {root}: {error}") from None
    finally:
        if not settings.keep:
            sandbox.remove(root)
    return code


def _tool(settings: DemoSettings, runner: Runner, environ: Mapping[str, str],
          variables: Mapping[str, str], *arguments: str) -> tuple[int, object]:
    """The real command line, as a child process with the step's environment and
    `variables`; printed first the way a user would type it. Returns the exit code and the
    report the command printed (JSON)."""
    runner.info("$ " + shlex.join((*(f"{name}={value}" for name, value in variables.items()),
                                   *_program(settings), *arguments)))
    argv: Sequence[str] = (settings.python, "-m", "rocm_deps", *arguments,
                           "--format", settings.output_format)
    # The child must import this very copy of the package, wherever it was started from.
    source = str(Path(rocm_deps.__file__).resolve().parent.parent)
    search_path = environ.get("PYTHONPATH", "")
    env = {**environ, **variables,
           "PYTHONPATH": source + (f":{search_path}" if search_path else "")}
    result = process.run(argv, runner, env=env, echo=False)
    runner.info(result.stderr.rstrip())
    if settings.output_format == "text":
        print(result.stdout, end="", flush=True)
        return result.returncode, None
    try:
        report: object = json.loads(result.stdout)
    except ValueError:
        report = None
    return result.returncode, report


def _report_output(outputs: Path) -> dict[str, Any]:
    """The `report` output the last command wrote to $GITHUB_OUTPUT ({} when none)."""
    try:
        document = json.loads(parse_outputs(outputs.read_text(encoding="utf-8"))["report"])
    except (OSError, KeyError, ValueError):
        return {}
    return document if isinstance(document, dict) else {}


def _closing(settings: DemoSettings, runner: Runner, said: Mapping[str, dict[str, Any]],
             code: int) -> None:
    """What happened, from the reports the two steps wrote, and what to do next."""
    lines = ["", "--- what happened ---"]
    resolved = said.get("resolve", {})
    named = resolved.get("overrides") or {}
    picks = [f"{name} {entry.get('raw') or entry.get('ref')} → {entry.get('ref')}"
             for name, entry in named.items() if not name.startswith("_")]
    errors = resolved.get("errors") or []
    lines.append(f"resolve: {len(errors)} error(s); nothing may be installed" if errors else
                 f"resolve: applied {'; '.join(picks) or 'nothing (the image is tested)'}")
    for name, entry in (said.get("install", {}).get("dependencies") or {}).items():
        patches = ", ".join(f"{patch} {outcome.get('state')}"
                            for patch, outcome in (entry.get("patches") or {}).items())
        discarded = ((entry.get("local_changes") or {}).get("discarded") or {})
        changes = sum(kind.get("count", 0) for kind in discarded.values())
        state = entry.get("state")
        error = str(entry.get("error"))
        detail = (f"at step {entry.get('failed_step')}: "
                  f"{error if len(error) <= 240 else error[:240] + '…'}"
                  if state == "failed" else
                  ", ".join(filter(None, (
                      f"at {str(entry.get('sha'))[:9]}" if entry.get("sha") else "",
                      f"version {entry.get('version')}" if entry.get("version") else "",
                      patches, f"{changes} of the image's edits reset" if changes else ""))))
        lines.append(f"install: {name}: {state}{f' {detail}' if detail else ''}")
    verdict = ("pass" if code == EXIT_OK else
               "fail, as it must when the named commit cannot be tested exactly")
    lines.append(f"exit code {code}: a workflow step would {verdict}")
    program = " ".join(_program(settings))
    lines += ["", "--- next ---",
              f"lint a description of your own:  {program} resolve --body-file YOUR.md",
              f"see the configuration in effect: {program} config",
              "put it in CI: the README's \"A workflow\" (examples/rocm-suite.yml has the rest)",
              f"look around the sandbox:         {program} demo --keep"]
    runner.info("\n".join(lines))


def _program(settings: DemoSettings) -> tuple[str, ...]:
    """How a user runs the tool: `rocm-deps` when it is on PATH, else the script installed
    next to the interpreter (a virtualenv's), else the module."""
    if shutil.which("rocm-deps", path=settings.environ.get("PATH")):
        return ("rocm-deps",)
    script = Path(settings.python).parent / "rocm-deps"
    return (str(script),) if script.is_file() else (settings.python, "-m", "rocm_deps")


def _print_reports(settings: DemoSettings, reports: Mapping[str, object]) -> None:
    """With `--format json`, both reports as one document on stdout (the text reports were
    printed as each command ran)."""
    if settings.output_format == "json":
        print(json.dumps(reports, indent=2), flush=True)
