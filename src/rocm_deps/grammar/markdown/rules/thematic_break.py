"""Thematic breaks: three or more `*`, `-` or `_`, spaces allowed between them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rocm_deps.grammar.markdown.blocks import Start
from rocm_deps.grammar.markdown.cursor import Cursor

if TYPE_CHECKING:
    from rocm_deps.grammar.markdown.document import Document

_THEMATIC_BREAK = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")


def scan(cursor: Cursor) -> object | None:
    return _THEMATIC_BREAK.match(cursor.line, cursor.first_nonspace)


def open_break(document: Document, cursor: Cursor, depth: int,
               candidate: object) -> tuple[Start, int]:
    return Start.CONSUMED, document.add_child(depth, None)
