"""Regenerate the README's input and output tables from action.yml.

`python scripts/render_readme.py` rewrites README.md in place; `--check` exits 1 (and says
what to run) when README.md is not what action.yml would generate. CI runs `--check`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

try:
    import yaml
except ModuleNotFoundError:  # the `lint` extra has it; the `test` extra alone does not
    raise SystemExit("scripts/render_readme.py needs PyYAML: "
                     "pip install -e '.[test,lint]'") from None

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = ("inputs", "outputs")


def cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def inputs_table(action: dict) -> str:
    rows = ["| input | default | description |", "|---|---|---|"]
    for name, spec in action["inputs"].items():
        value = spec.get("default", "")
        default = "(required)" if spec.get("required") else (f"`{value}`" if value else "(empty)")
        rows.append(f"| `{name}` | {default} | {cell(spec.get('description', ''))} |")
    return "\n".join(rows)


def outputs_table(action: dict) -> str:
    rows = ["| output | description |", "|---|---|"]
    for name, spec in action["outputs"].items():
        rows.append(f"| `{name}` | {cell(spec.get('description', ''))} |")
    return "\n".join(rows)


def render(readme: str, action: dict) -> str:
    generated = {"inputs": inputs_table(action),
                 "outputs": outputs_table(action)}
    for block in BLOCKS:
        start, end = f"<!-- {block}:start -->", f"<!-- {block}:end -->"
        if start not in readme or end not in readme:
            raise SystemExit(f"README.md lacks the markers {start} … {end}")
        head, rest = readme.split(start, 1)
        _, tail = rest.split(end, 1)
        readme = f"{head}{start}\n{generated[block]}\n{end}{tail}"
    return readme


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true")
    arguments = parser.parse_args()
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    readme_path = ROOT / "README.md"
    current = readme_path.read_text()
    expected = render(current, action)
    if arguments.check:
        if current != expected:
            print("README.md is out of date with action.yml; run: "
                  "python scripts/render_readme.py", file=sys.stderr)
            return 1
        return 0
    readme_path.write_text(expected)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
