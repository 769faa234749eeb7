"""Headings: an ATX heading (`#` to `######`) is one line of inline text; a setext
underline (`===`, `---`) turns the paragraph above it into a heading and ends it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rocm_deps.grammar.markdown.blocks import Start
from rocm_deps.grammar.markdown.cursor import Cursor
from rocm_deps.grammar.markdown.rules.paragraph import Paragraph, definitions_taken

if TYPE_CHECKING:
    from rocm_deps.grammar.markdown.document import Document

_ATX_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")
# The optional closing sequence of an ATX heading: `#`s after a blank, at the end.
_ATX_CLOSING = re.compile(r"(?:(?<=[ \t])#+)?[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*$")


def scan_atx(cursor: Cursor) -> object | None:
    return _ATX_HEADING.match(cursor.line, cursor.first_nonspace)


def open_atx(document: Document, cursor: Cursor, depth: int,
             candidate: object) -> tuple[Start, int]:
    assert isinstance(candidate, re.Match)
    depth = document.add_child(depth, None)
    # Shown: the heading's text, without its opening and closing `#`s.
    line = cursor.line
    closing = _ATX_CLOSING.search(line, candidate.end())
    text = line[:closing.start()] if closing else line
    document.emit_paragraph(Paragraph([(document.number, text, candidate.end())],
                                      heading=True), definitions=False)
    return Start.CONSUMED, depth


def scan_setext(cursor: Cursor) -> object | None:
    return _SETEXT_UNDERLINE.match(cursor.line, cursor.first_nonspace)


def open_setext(document: Document, cursor: Cursor, depth: int,
                candidate: object) -> tuple[Start, int]:
    paragraph = document.open[depth - 1]
    assert isinstance(paragraph, Paragraph)
    del paragraph.lines[:definitions_taken(paragraph, document.linked)]
    if not paragraph.lines:  # only link reference definitions: the underline is text
        return Start.LEAF, depth
    paragraph.heading = True
    document.close_from(depth - 1)  # the paragraph becomes a heading and ends
    return Start.CONSUMED, depth
