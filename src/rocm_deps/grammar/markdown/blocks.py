"""The open blocks of cmark-gfm's block parser, and the shape of a block start rule.

A line first walks the open blocks, each deciding whether the line continues it
(`Block.continues`, cmark's per-type check in S_process_line); then the start rules of
`rules.RULES` open what begins on the line; the rest of the line goes to the deepest open
block (`Block.take_line`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from rocm_deps.grammar.markdown.cursor import Cursor

if TYPE_CHECKING:
    from rocm_deps.grammar.markdown.document import Document

CODE_BLOCK = "<pre><code>"


class Waiting(Protocol):
    """A block whose content GitHub renders later: what it does waits in `events`."""

    events: list[Callable[[], None] | str]  # str: tags cmark writes


class Block:
    leaf = False  # a leaf holds lines, not blocks
    verbatim = False  # its lines start no block (code, HTML): they are all its own
    # cmark's last_line_blank: what decides whether a list is tight (rendered without <p>)
    last_line_blank = False
    # Where what the block does to the browser waits (a footnote definition, a list) until
    # GitHub's rendering reaches it; None: at once (see Document.feed).
    waits_for: Waiting | None = None
    # The closing markup cmark writes when the block ends (None: none that matters).
    closing: str | None = "<x>"

    def continues(self, cursor: Cursor, document: Document, depth: int) -> bool | None:
        """Whether the line at `cursor` continues this block (consuming its markers); None
        when the line ends it and is consumed (a closing fence)."""
        return True

    def take_line(self, document: Document, number: int, cursor: Cursor) -> None:
        """Add the rest of the line to this leaf."""


class Start(enum.Enum):
    CONTAINER = "a container opened: look for more blocks on the line"
    LEAF = "a leaf opened: the line is its first"
    CONSUMED = "the line needs nothing more (a heading, a fence's opening line, ...)"


@dataclass(frozen=True)
class BlockRule:
    """One kind of block start. `scan` looks without moving the cursor; what it returns is
    the candidate that `interrupts` judges (only while a paragraph is open) and `open`
    opens. markdown-it-py keeps its block rules the same way, one file each."""

    name: str
    first_characters: str  # a line whose first non-space character is not one of these
    scan: Callable[[Cursor], object | None]
    open: Callable[[Document, Cursor, int, object], tuple[Start, int]]
    # Whether the candidate may end an open paragraph (cmark: "can interrupt a paragraph").
    interrupts_paragraph: Callable[[object], bool] = lambda candidate: True
    needs_paragraph: bool = False  # only after a paragraph (a setext underline)
