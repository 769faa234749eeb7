"""Block quotes: `>` and an optional space; a line continues one only with its `>`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rocm_deps.grammar.markdown.blocks import Block, Start
from rocm_deps.grammar.markdown.cursor import Cursor

if TYPE_CHECKING:
    from rocm_deps.grammar.markdown.document import Document


class Quote(Block):
    closing = "</blockquote>"  # pops what raw HTML left open inside it (Browser.markup)

    def continues(self, cursor: Cursor, document: Document, depth: int) -> bool | None:
        if not (cursor.indent <= 3 and cursor.peek(cursor.first_nonspace) == ">"):
            return False
        cursor.advance(cursor.indent + 1, True)
        _optional_space(cursor)
        return True


def scan(cursor: Cursor) -> object | None:
    return True if cursor.peek(cursor.first_nonspace) == ">" else None


def open_quote(document: Document, cursor: Cursor, depth: int,
               candidate: object) -> tuple[Start, int]:
    cursor.advance(cursor.first_nonspace + 1 - cursor.offset, False)
    _optional_space(cursor)
    return Start.CONTAINER, document.add_child(depth, Quote(), "<blockquote>")


def _optional_space(cursor: Cursor) -> None:
    if cursor.peek(cursor.offset) in (" ", "\t"):
        cursor.advance(1, True)
