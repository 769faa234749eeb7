"""`rocm-deps demo`: resolve then install on an example PR body, in a throw-away sandbox.

Shows the whole product on a machine with only Python and git: a PR body names Megatron-LM
pull request #202; SGLang is not named and keeps the "image's" copy.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from rocm_deps import sandbox
from rocm_deps.errors import EXIT_OK, FatalError
from rocm_deps.process import CommandFailed
from rocm_deps.runner import Runner

EXAMPLE_BODY = """\
## Summary

Test the ROCm suite against the unmerged Megatron-LM change.

- ci-megatron-pr: #{pr}

Examples in code blocks are not directives:

```
ci-sglang-pr: #1234
```
"""


def run(*, keep: bool, output_format: str, runner: Runner) -> int:
    from rocm_deps.main import main  # the demo drives the real command line

    root = Path(tempfile.mkdtemp(prefix="rocm-deps-demo-"))
    environ = dict(os.environ)
    runner.info(f"building the sandbox in {root} (origins, baked clones, a target virtualenv)")
    try:
        box = sandbox.build(root, runner, environ)
    except CommandFailed as error:
        raise FatalError(f"could not build the demo sandbox in {root}: {error}") from None
    event = box.event(EXAMPLE_BODY.format(pr=sandbox.MEGATRON.pr_number))
    runner.info(f"\n--- the PR body ---\n{json.loads(event.read_text())['pull_request']['body']}")
    outputs, summary = root / "github_output", root / "step_summary.md"
    step_env = {**environ, "GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(summary),
                "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event)}
    step_env.pop("GITHUB_ACTIONS", None)
    runner.info("\n--- rocm-deps resolve ---")
    code = main(["resolve", "--config", str(box.config), "--format", output_format], step_env)
    if code != EXIT_OK:
        return code
    overrides = _read_output(outputs, "overrides")
    outputs.write_text("")
    runner.info("\n--- rocm-deps install ---")
    code = main(["install", "--config", str(box.config), "--overrides", overrides,
                 "--workspace", str(box.workspace), "--python", box.python,
                 "--format", output_format], step_env)
    runner.info("\n--- job summary (as GitHub would render it) ---")
    runner.info(summary.read_text(encoding="utf-8"))
    installed = sandbox.installed_versions(box, runner, environ)
    runner.info(f"versions in the target interpreter: {installed}")
    if keep:
        runner.info(f"sandbox kept in {root}")
    else:
        sandbox.remove(root)
    return code


def _read_output(path: Path, name: str) -> str:
    from rocm_deps.runner import parse_outputs

    return parse_outputs(path.read_text(encoding="utf-8"))[name]
