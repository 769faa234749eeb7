"""What every command leaves: step outputs, the job summary and its report on stdout."""


from __future__ import annotations

import json

from rocm_deps.runner import Runner


def publish(runner: Runner, outputs: dict[str, str], summary: str, document: object,
            text: str, output_format: str) -> None:
    """What every command leaves: step outputs, the job summary, and the report on stdout
    (JSON with `--format json`, else text)."""
    runner.set_outputs(outputs)
    runner.add_summary(summary)
    runner.report(json.dumps(document, indent=2) if output_format == "json" else text)


def compact_json(document: object) -> str:
    return json.dumps(document, separators=(",", ":"))
