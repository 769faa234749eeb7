"""Indented code: four columns of indentation outside a paragraph. Its lines are not shown
as text; they are reported, so that a directive indented by mistake can be explained."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rocm_deps.grammar.markdown.blocks import CODE_BLOCK, Block
from rocm_deps.grammar.markdown.cursor import CODE_INDENT, Cursor
from rocm_deps.grammar.markdown.shown import ShownLine

if TYPE_CHECKING:
    from rocm_deps.grammar.markdown.document import Document


class IndentedCode(Block):
    leaf = True
    verbatim = True
    closing = "</code></pre>"

    def continues(self, cursor: Cursor, document: Document, depth: int) -> bool | None:
        if cursor.indent >= CODE_INDENT:
            cursor.advance(CODE_INDENT, True)
        elif cursor.blank:
            cursor.advance_to_first_nonspace()
        else:
            return False
        return True

    def take_line(self, document: Document, number: int, cursor: Cursor) -> None:
        if not cursor.blank:
            text = cursor.line[cursor.offset:]
            shown = ShownLine(number, cursor.line, text, text, code="indented")
            document.feed(lambda: document.shown.append(shown))


def open_code(document: Document, cursor: Cursor, depth: int) -> int:
    cursor.advance(CODE_INDENT, True)
    return document.add_child(depth, IndentedCode(), CODE_BLOCK)
