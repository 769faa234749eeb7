"""Regenerate the documentation's generated blocks: the input and output tables from
action.yml (brief in the README, whole in docs/inputs.md), and docs/configuration.md's
built-in defaults and key tables from the configuration's rows
(src/rocm_deps/config/fields.py and profiles.py).

`python scripts/render_docs.py` rewrites the files in place; `--check` exits 1 (and says
what to run) when either is not what its source would generate. CI runs `--check`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from rocm_deps.cli import COMMANDS, front  # noqa: E402 - the source tree, not an install
from rocm_deps.config import fields, profiles  # noqa: E402


def cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def first_sentence(text: str) -> str:
    """A description's first sentence, for the README's brief tables."""
    flat = " ".join(str(text).split())
    end = flat.find(". ")
    return flat if end < 0 else flat[:end + 1]


def inputs_table(action: dict[str, Any], *, brief: bool = False) -> str:
    rows = ["| input | default | description |", "|---|---|---|"]
    for name, spec in action["inputs"].items():
        value = spec.get("default", "")
        default = "(required)" if spec.get("required") else (f"`{value}`" if value else "(empty)")
        description = spec.get("description", "")
        shown = first_sentence(description) if brief else description
        rows.append(f"| `{name}` | {default} | {cell(shown)} |")
    return "\n".join(rows)


def outputs_table(action: dict[str, Any], *, brief: bool = False) -> str:
    rows = ["| output | description |", "|---|---|"]
    for name, spec in action["outputs"].items():
        description = spec.get("description", "")
        rows.append(f"| `{name}` | {cell(first_sentence(description) if brief else description)} |")
    return "\n".join(rows)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{key} = {toml_value(item)}" for key, item in value.items()) + "}"
    raise TypeError(value)


def table_lines(name: str, table: Mapping[str, Any]) -> list[str]:
    return ["", f"[{name}]", *(f"{key} = {toml_value(value)}" for key, value in table.items())]


def defaults_block(profile: Mapping[str, Any], *, complete: bool = True) -> str:
    """The profile as TOML; `complete`: with every [install] and [api] key at its default."""
    lines = [f"{key} = {toml_value(profile[key])}" for key in ("lock-file", "lock-file-required")
             if key in profile]
    for table in ("dependencies", "values"):
        for name, entries in profile.get(table, {}).items():
            lines += table_lines(f"{table}.{name}", entries)
    for table, rows in (("install", fields.INSTALL), ("api", fields.API)):
        defaults = {row.key: row.default for row in rows.values()} if complete else {}
        if defaults or table in profile:
            lines += table_lines(table, {**defaults, **profile.get(table, {})})
    return "```toml\n" + "\n".join(lines).strip() + "\n```"


def shown_default(row: fields.Field) -> str:
    if row.default is fields.REQUIRED:
        return "(required)"
    if row.default is None:
        return "none"
    if row.key in ("pip-env", "dependencies", "values", "install", "api"):
        return "`{}`"
    value = row.default
    if isinstance(value, str) and "{name}" in value:
        return f"`\"{value.replace('{name}', '<name>')}\"`"
    return f"`{toml_value(list(value) if isinstance(value, tuple) else value)}`"


def keys_table(rows: Mapping[str, fields.Field]) -> str:
    lines = ["| key | expects | default | what it does |", "|---|---|---|---|"]
    for row in rows.values():
        lines.append(f"| `{row.key}` | {cell(row.expectation)} | {shown_default(row)} | "
                     f"{cell(row.description)} |")
    return "\n".join(lines)


def readme_blocks(action: dict[str, Any]) -> dict[str, str]:
    return {"inputs": inputs_table(action, brief=True)}


def inputs_blocks(action: dict[str, Any]) -> dict[str, str]:
    return {"inputs": inputs_table(action), "outputs": outputs_table(action)}


def usage_line(command: str, width: int = 92) -> str:
    """`rocm-deps COMMAND [--option VALUE]...`, wrapped, from the command's options."""
    words = []
    for option in front(command).OPTIONS:
        if not option.cli:
            continue
        value = "" if option.switch else " " + ("|".join(option.choices) or option.metavar)
        word = f"--{option.name}{value}"
        words.append((word if option.required else f"[{word}]")
                     + ("..." if option.repeatable else ""))
    head = f"rocm-deps {command} "
    lines, line = [], head
    for word in words:
        if len(line) + len(word) > width and line.strip() != head.strip():
            lines.append(line.rstrip())
            line = " " * len(head)
        line += word + " "
    lines.append(line.rstrip())
    return "\n".join(lines)


def command_line_block() -> str:
    return "```\n" + "\n".join([*(usage_line(command) for command in COMMANDS),
                                  "rocm-deps --version"]) + "\n```"


def configuration_blocks() -> dict[str, str]:
    return {
        "command-line": command_line_block(),
        "config:rocm": defaults_block(profiles.BUILTIN_DEFAULTS),
        "config:cuda": defaults_block(profiles.CUDA_PROFILE, complete=False),
        "config:dependencies": keys_table(fields.DEPENDENCY),
        "config:values": keys_table(fields.VALUE),
        "config:install": keys_table(fields.INSTALL),
        "config:api": keys_table(fields.API),
        "config:top-level": keys_table(fields.TOP_LEVEL),
    }


def render(text: str, blocks: Mapping[str, str], name: str) -> str:
    for block, generated in blocks.items():
        start, end = f"<!-- {block}:start -->", f"<!-- {block}:end -->"
        if start not in text or end not in text:
            raise SystemExit(f"{name} lacks the markers {start} … {end}")
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        text = f"{head}{start}\n{generated}\n{end}{tail}"
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true")
    arguments = parser.parse_args()
    try:
        import yaml
    except ModuleNotFoundError:  # the `lint` extra has it; the `test` extra alone does not
        raise SystemExit("scripts/render_docs.py needs PyYAML: "
                         "pip install -e '.[test,lint]'") from None
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    stale = []
    for path, blocks in ((ROOT / "README.md", readme_blocks(action)),
                         (ROOT / "docs" / "inputs.md", inputs_blocks(action)),
                         (ROOT / "docs" / "configuration.md", configuration_blocks())):
        current = path.read_text()
        expected = render(current, blocks, path.name)
        if current == expected:
            continue
        if arguments.check:
            stale.append(path.relative_to(ROOT))
        else:
            path.write_text(expected)
    if stale:
        print(f"{', '.join(map(str, stale))} out of date with action.yml and the configuration "
              f"rows; run: python scripts/render_docs.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
