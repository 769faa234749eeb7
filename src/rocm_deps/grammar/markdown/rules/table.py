"""Tables (GitHub's table extension): a paragraph's last line, then a delimiter row with as
many cells, make a table; the paragraph's earlier lines stay a paragraph. Every following
line is a row until a blank line or a block start (an indented line is code); a row shows
as many cells as the header has, each cell's inlines read on their own."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rocm_deps.grammar.markdown.blocks import Block, Start
from rocm_deps.grammar.markdown.cursor import Cursor
from rocm_deps.grammar.markdown.html import Browser
from rocm_deps.grammar.markdown.inline import Inline
from rocm_deps.grammar.markdown.rules.paragraph import Paragraph
from rocm_deps.grammar.markdown.shown import ShownLine

if TYPE_CHECKING:
    from rocm_deps.grammar.markdown.document import Document

_SPACE = r"[ \t\v\f]"
_MARKER = rf"{_SPACE}*:?-+:?{_SPACE}*"
_DELIMITER_ROW = re.compile(rf"\|?{_MARKER}(?:\|{_MARKER})*\|?{_SPACE}*\n")
_CELL = re.compile(r"(?:\\[|!\"#$%&'()*+,./:;<=>?@\[\\\]^_`{}~-]|[^|\r\n])+")
_CELL_END = re.compile(rf"\|{_SPACE}*")
_ROW_END = re.compile(rf"{_SPACE}*\r?\n")


def cells_of(text: str) -> list[str] | None:
    """The cells of a row (cmark-gfm's row_from_string); over several lines, the last
    line's. None when the text is no row (no cell at all)."""
    text += "\n"
    cells: list[str] = []
    position = _end(_CELL_END, text, 0)
    more = True
    while position < len(text) and more:
        cell = _end(_CELL, text, position) - position
        pipe = _end(_CELL_END, text, position + cell) - position - cell
        if cell or pipe:
            cells.append(text[position:position + cell].replace("\\|", "|").strip(" \t\n\v\f\r"))
        position += cell + pipe
        if pipe:
            continue
        row_end = _end(_ROW_END, text, position) - position
        position += row_end
        more = bool(row_end) and position != len(text)
        if more:  # a line before the row: part of the paragraph above the table
            cells = []
            position = _end(_CELL_END, text, position)
    return cells if position == len(text) and cells else None


def _end(pattern: re.Pattern[str], text: str, position: int) -> int:
    match = pattern.match(text, position)
    return match.end() if match else position


@dataclass
class Table(Block):
    columns: int
    leaf = True
    closing = "</table>"

    def continues(self, cursor: Cursor, document: Document, depth: int) -> bool | None:
        return not cursor.blank and cells_of(cursor.line[cursor.first_nonspace:]) is not None

    def take_line(self, document: Document, number: int, cursor: Cursor) -> None:
        cells = cells_of(cursor.line[cursor.first_nonspace:]) or []
        show_row(document, number, cursor.line, cells[:self.columns])


@dataclass(frozen=True)
class Header:
    columns: int


def scan(cursor: Cursor) -> object | None:
    """A delimiter row: its column count (the header is checked when the table opens)."""
    row = cursor.line[cursor.first_nonspace:] + "\n"
    if not _DELIMITER_ROW.fullmatch(row):
        return None
    cells = cells_of(cursor.line[cursor.first_nonspace:])
    return Header(len(cells)) if cells else None


def open_table(document: Document, cursor: Cursor, depth: int,
               candidate: object) -> tuple[Start, int]:
    assert isinstance(candidate, Header)
    paragraph = document.open[depth - 1]
    assert isinstance(paragraph, Paragraph)
    number, line, start = paragraph.lines[-1]
    header = cells_of(line[start:])
    if paragraph.table_refused or header is None or len(header) != candidate.columns:
        paragraph.table_refused = True
        return Start.LEAF, depth  # not a table: the line continues the paragraph
    document.open.pop()  # the paragraph: its earlier lines stay one, the last is the header
    before = Paragraph(paragraph.lines[:-1], in_list=paragraph.in_list)
    if before.lines and document.emit_paragraph(before):
        document.feed(lambda: document.browser.markup() if before.tagged() else None)
    depth = document.add_child(depth - 1, Table(candidate.columns), "<table>")
    show_row(document, number, line, header)
    return Start.CONSUMED, depth


def show_row(document: Document, number: int, source: str, cells: list[str]) -> None:
    """A row's cells, each read on its own, shown as one line: `| a | b |`."""
    for cell in cells:
        for label in Inline([(number, cell, 0)], Browser()).footnote_references():
            document.references.setdefault(label)

    def show() -> None:
        texts, proses, leads, lines = [], [], [], []
        for cell in cells:
            document.browser.markup("<td>")
            with document.browser.block(in_p=False, holds_blocks=True):
                shown = Inline([(number, cell, 0)], document.browser).shown()
            texts.append(" ".join(piece.text for piece in shown))
            proses.append(" ".join(piece.prose for piece in shown))
            leads.append(shown[0].lead_code if shown else "")
            lines.append(shown)
            document.browser.markup("</td>")
        filled = [shown for shown in lines if shown]
        if len(filled) == 1:  # one cell: its displayed lines (a `<br>` starts one), as lines
            document.shown.extend(dataclasses.replace(piece, source=source)
                                  for piece in filled[0])
        elif any(texts) or any(leads):  # each displayed line of each cell (a `<br>` starts one)
            document.shown.append(ShownLine(number, source, f"| {' | '.join(texts)} |",
                                            f"| {' | '.join(proses)} |",
                                            cells=tuple((piece.text, piece.prose, piece.lead_code)
                                                        for shown in lines for piece in shown)))

    document.feed(show)
