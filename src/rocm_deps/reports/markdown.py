"""Markdown for job summaries: text quoted from input is escaped, so a quoted line can open no link,
image or HTML (docs/architecture.md, *Trust*)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rocm_deps.messages import CONTROL
from rocm_deps.runner import escaped_line


def markdown_cell(value: object) -> str:
    """Render a value inside a Markdown table cell without breaking the table."""
    text = "" if value is None else str(value)
    # Every control character (\r too: cmark ends a line at a lone \r) becomes a space.
    text = CONTROL.sub(" ", text)
    text = text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'")
    return f"`{text}`" if text else ""


def escape_markdown(text: str) -> str:
    """Text quoted from input, for running Markdown text: no HTML can open."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_text(text: str) -> str:
    """Text from input as wrapped running text: every ASCII punctuation character escaped
    (no emphasis, link, image, code or HTML can open), `<`, `>`, `&` as entities, each line
    a hard line break, leading blanks dropped (no line becomes an indented code block)."""
    return "<br>\n".join(escaped_line(line.strip())
                         for line in text.replace("\r", "").split("\n"))


def markdown_code_block(lines: Sequence[str]) -> str:
    """Lines shown verbatim: inside a fence longer than any run of backticks in them, no link,
    image, HTML or emphasis from the input can render."""
    flat = [line.replace("\r", " ").replace("\n", " ") for line in lines]
    longest = max((len(run) for line in flat for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return "\n".join([f"{fence}text", *flat, fence])


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
