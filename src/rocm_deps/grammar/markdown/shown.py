"""What the Markdown model reports: the lines GitHub shows, and the one way it gives up."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Every line walks the open quotes and list items, so nesting is bounded to keep the walk
# linear in the body size; real bodies nest a handful deep.
MAX_DEPTH = 48


class NestingTooDeep(Exception):
    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


CodeKind = Literal["indented", "fenced"]


@dataclass(frozen=True)
class ShownLine:
    """A line as GitHub shows it.

    `text` is what is shown as text, container markers (`>`, `-`, `1.`) and hidden parts
    (comments, tags, code spans that cross lines) removed; a code span that opens and
    closes on the line is kept with its back-ticks, because a directive value may be
    back-ticked. `prose` is `text` without those code spans. `code` marks a line of an
    indented code block: not shown as text, reported so that a directive indented by
    mistake can be explained; so does `fenced`, a line of a fenced code block. `source` is
    the line as written, for quoting in messages.
    """

    number: int
    source: str
    text: str
    prose: str
    code: CodeKind | None = None
