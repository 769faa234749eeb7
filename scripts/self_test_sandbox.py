"""Build the demo sandbox for the CI self-test job and hand its paths to the next steps.

Usage: PYTHONPATH=src python3 scripts/self_test_sandbox.py DIR

Writes to $GITHUB_OUTPUT: `config`, `python` (the sandbox's stand-in for the container's
interpreter), `workspace`, `overrides` (Megatron-LM pull request #202, pinned to its head)
and `expected_sha`, what install must leave Megatron-LM at.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from rocm_deps.contract.overrides import Override, overrides_to_json
from rocm_deps.demo import sandbox, world
from rocm_deps.runner import Runner


def main(root: Path) -> int:
    runner = Runner(github_actions=os.environ.get("GITHUB_ACTIONS") == "true")
    box = sandbox.build(root, runner, dict(os.environ), python_for_venv=sys.executable)
    number = world.MEGATRON.pr_number
    head = box.commits["megatron"]["pr"]
    override = Override(name="megatron", ref=f"refs/pull/{number}/head", sha=head, kind="pr",
                        source="dispatch", raw=f"#{number}", pr=number)
    outputs = {"config": str(box.config), "python": box.python,
               "workspace": str(box.workspace),
               "overrides": json.dumps(overrides_to_json({"megatron": override}),
                                       separators=(",", ":")),
               "expected_sha": head}
    with open(os.environ.get("GITHUB_OUTPUT", os.devnull), "a", encoding="utf-8") as handle:
        for name, value in outputs.items():
            handle.write(f"{name}={value}\n")
    print(json.dumps(outputs, indent=2))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    raise SystemExit(main(Path(sys.argv[1])))
