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


# How a line is shown as code: an indented or fenced code block, or raw HTML `<pre>` /
# `<code>` (an HTML block's line, or a paragraph's).
# "cell": one cell of a raw HTML table row with several cells (the table rule).
CodeKind = Literal["indented", "fenced", "html", "cell"]


@dataclass(frozen=True)
class ShownLine:
    """A line as GitHub shows it.

    `text` is what is shown as text, container markers (`>`, `-`, `1.`) and hidden parts
    (comments, tags, code spans that cross lines) removed; a code span that opens and
    closes on the line is kept with its back-ticks, because a directive value may be
    back-ticked. `prose` is `text` without those code spans. `code` marks a line shown as
    code as a whole (`indented`, `fenced`, `html`): not text, reported so that a directive
    written there can be explained. `lead_code` is what the line shows as code before any
    text (a code span's content, raw `<code>` or `<pre>` text), "" when it starts with text.
    `cells` are the cells of a table row, each (text, prose, lead_code). `source` is the line as
    written, for quoting in messages.
    """

    number: int
    source: str
    text: str
    prose: str
    code: CodeKind | None = None
    lead_code: str = ""
    cells: tuple[tuple[str, str, str], ...] = ()
    code_from: int = 0  # the line a fenced code block that holds this line opens on
    raw_html: bool = False  # a line of an HTML block: no Markdown inside, only entities
    struck: bool = False  # shown inside raw `<del>`, `<s>` or `<strike>`, all of it
    partly_struck: bool = False  # some of its text is, some is not
    row: int = 0  # the raw HTML table row its text is a cell of (Browser.row), 0: none
