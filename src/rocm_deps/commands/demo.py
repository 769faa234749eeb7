"""`rocm-deps demo`: resolve then install on an example PR body, in a throw-away sandbox.

Shows the whole product on a machine with only Python and git: a PR body names Megatron-LM
pull request #202; SGLang is not named and keeps the "image's" copy. Both steps run as real
processes of the command line, and the `overrides` output of resolve reaches install the
way it does between two jobs of a workflow: through `$GITHUB_OUTPUT`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import rocm_deps
from rocm_deps import process, sandbox
from rocm_deps.errors import EXIT_OK, FatalError
from rocm_deps.model import DemoSettings
from rocm_deps.process import CommandFailed
from rocm_deps.runner import Runner, parse_outputs

EXAMPLE_BODY = """\
## Summary

Test the ROCm suite against the unmerged Megatron-LM change.

- ci-megatron-pr: #{pr}

Examples in code blocks are not directives:

```
ci-sglang-pr: #1234
```
"""


def run(settings: DemoSettings, runner: Runner) -> int:
    root = Path(tempfile.mkdtemp(prefix="rocm-deps-demo-", dir=settings.temporary_directory))
    runner.info(f"building the sandbox in {root} (origins, baked clones, a target virtualenv)")
    try:
        box = sandbox.build(root, runner, settings.environ, python_for_venv=settings.python)
        body = EXAMPLE_BODY.format(pr=sandbox.MEGATRON.pr_number)
        event = box.event(body)
        runner.info(f"\n--- the PR body ---\n{body}")
        outputs, summary = root / "github_output", root / "step_summary.md"
        step_env = {**settings.environ, "GITHUB_OUTPUT": str(outputs),
                    "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_EVENT_NAME": "pull_request",
                    "GITHUB_EVENT_PATH": str(event)}
        step_env.pop("GITHUB_ACTIONS", None)
        runner.info("\n--- rocm-deps resolve ---")
        code = _tool(settings, runner, step_env, "resolve", "--config", str(box.config))
        if code != EXIT_OK:
            return code
        overrides = parse_outputs(outputs.read_text(encoding="utf-8"))["overrides"]
        runner.info("\n--- rocm-deps install ---")
        code = _tool(settings, runner, step_env, "install", "--config", str(box.config),
                     "--overrides", overrides, "--workspace", str(box.workspace),
                     "--python", box.python)
        runner.info("\n--- job summary (as GitHub would render it) ---")
        runner.info(summary.read_text(encoding="utf-8"))
        installed = sandbox.installed_versions(box, runner, settings.environ)
        runner.info(f"versions in the target interpreter: {installed}")
    except CommandFailed as error:
        raise FatalError(f"could not build the demo sandbox in {root}: {error}") from None
    finally:
        if settings.keep:
            runner.info(f"sandbox kept in {root}")
        else:
            sandbox.remove(root)
    return code


def _tool(settings: DemoSettings, runner: Runner, environ: Mapping[str, str],
          *arguments: str) -> int:
    """The real command line, as a child process with the step's environment."""
    argv: Sequence[str] = (settings.python, "-m", "rocm_deps", *arguments,
                           "--format", settings.output_format)
    # The child must import this very copy of the package, wherever it was started from.
    source = str(Path(rocm_deps.__file__).resolve().parent.parent)
    search_path = environ.get("PYTHONPATH", "")
    env = {**environ, "PYTHONPATH": source + (f":{search_path}" if search_path else "")}
    result = process.run(argv, runner, env=env, echo=False)
    runner.info(result.stderr.rstrip())
    print(result.stdout, end="", flush=True)
    return result.returncode
