"""Fenced code: three or more back-ticks or tildes; closed by the same character at least as
long, or by the end of the quote or list item it is in. Its lines are code, never shown as
text (they are reported as code); its info string is not shown either."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rocm_deps.grammar.markdown.blocks import CODE_BLOCK, Block, Start
from rocm_deps.grammar.markdown.cursor import Cursor
from rocm_deps.grammar.markdown.html import escape_as_cmark
from rocm_deps.grammar.markdown.shown import ShownLine

if TYPE_CHECKING:
    from rocm_deps.grammar.markdown.document import Document

_OPEN_FENCE = re.compile(r"(?:`{3,}(?=[^`]*$)|~{3,})")
_CLOSE_FENCE = re.compile(r"(?:`{3,}|~{3,})(?=[ \t]*$)")


@dataclass
class Fence(Block):
    character: str
    length: int
    offset: int  # the opening fence's indentation, removed from the content lines
    opened: int  # the line of the opening fence
    leaf = True
    verbatim = True
    closing = "</code></pre>"

    def continues(self, cursor: Cursor, document: Document, depth: int) -> bool | None:
        closing = None
        if cursor.indent <= 3:
            closing = _CLOSE_FENCE.match(cursor.line, cursor.first_nonspace)
        if (closing is not None and closing.group()[0] == self.character
                and len(closing.group()) >= self.length):
            document.close_from(depth)
            return None
        skip = self.offset
        while skip > 0 and cursor.peek(cursor.offset) in (" ", "\t"):
            cursor.advance(1, True)
            skip -= 1
        return True

    def take_line(self, document: Document, number: int, cursor: Cursor) -> None:
        """Code, reported so that a directive written inside a fence can be explained."""
        text = cursor.line[cursor.offset:]
        if text.strip(" \t"):
            shown = ShownLine(number, cursor.line, text, text, code="fenced",
                              code_from=self.opened)
            document.feed(lambda: document.shown.append(shown))


def scan(cursor: Cursor) -> object | None:
    return _OPEN_FENCE.match(cursor.line, cursor.first_nonspace)


def open_fence(document: Document, cursor: Cursor, depth: int,
               candidate: object) -> tuple[Start, int]:
    assert isinstance(candidate, re.Match)
    fence: re.Match[str] = candidate
    line = cursor.line
    offset = cursor.first_nonspace - cursor.offset
    language = line[fence.end():].strip(" \t").split(" ")[0].split("\t")[0]
    markup = f'<pre lang="{escape_as_cmark(language)}"><code>' if language else CODE_BLOCK
    depth = document.add_child(depth, Fence(fence.group()[0], len(fence.group()), offset,
                                            document.number), markup)
    return Start.CONSUMED, depth  # the info string is not shown
