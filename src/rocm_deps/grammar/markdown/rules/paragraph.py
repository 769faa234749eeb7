"""Paragraphs: the lines no other block takes. A paragraph ends at a blank line or when a
block start interrupts it (see `rules.RULES`); a line that starts nothing and continues no
open block is a lazy continuation of it. Its inline parts are read when it ends."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rocm_deps.grammar.markdown.blocks import Block
from rocm_deps.grammar.markdown.cursor import Cursor

if TYPE_CHECKING:
    from rocm_deps.grammar.markdown.document import Document


@dataclass
class Paragraph(Block):
    lines: list[tuple[int, str, int]] = field(default_factory=list)  # number, line, start
    leaf = True

    def continues(self, cursor: Cursor, document: Document, depth: int) -> bool | None:
        return not cursor.blank

    def take_line(self, document: Document, number: int, cursor: Cursor) -> None:
        if not cursor.blank:
            self.lines.append((number, cursor.line, cursor.first_nonspace))
