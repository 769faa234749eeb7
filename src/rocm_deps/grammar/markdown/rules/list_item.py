"""Lists and list items: a bullet (`-`, `+`, `*`) or an ordered marker (`1.`, `1)`, up to 9
digits) and its padding; a line continues an item when it is indented to the item's
content. An empty item, or an ordered one not numbered 1, cannot interrupt a paragraph."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rocm_deps.grammar.markdown.blocks import Block, Start
from rocm_deps.grammar.markdown.cursor import Cursor

if TYPE_CHECKING:
    from rocm_deps.grammar.markdown.document import Document

_BULLET = re.compile(r"[-*+](?=[ \t]|$)")
_ORDERED = re.compile(r"(?P<number>[0-9]{1,9})[.)](?=[ \t]|$)")


@dataclass(eq=False)
class List(Block):
    """A list. Whether it is tight (its items' paragraphs rendered without <p>) is known only
    when it ends, so what its blocks do to the browser waits in `events` until then."""

    kind: str  # the bullet (`-`, `+`, `*`) or the ordered delimiter (`.`, `)`)
    items: list[Item] = field(default_factory=list)
    events: list[Callable[[], None] | str] = field(default_factory=list)
    tight: bool = True

    def settle(self) -> None:
        """cmark's finalize of a list: loose when an item but the last ends with a blank
        line, or a block of an item that is followed by another does."""
        for index, item in enumerate(self.items):
            followed = index + 1 < len(self.items)
            if item.last_line_blank and followed:
                self.tight = False
                return
            for position, child in enumerate(item.children):
                if (followed or position + 1 < len(item.children)) and ends_blank(child):
                    self.tight = False
                    return

    def continues(self, cursor: Cursor, document: Document, depth: int) -> bool | None:
        return True  # a list continues while an item or a new item does


@dataclass(eq=False)
class Item(Block):
    closing = "</li>"  # pops what raw HTML left open inside it (Browser.markup)
    width: int  # columns of the marker and its padding: what a continuation line must indent
    start_line: int = 0
    # Its blocks (a paragraph of link reference definitions alone is removed again).
    children: list[Block] = field(default_factory=list)

    def continues(self, cursor: Cursor, document: Document, depth: int) -> bool | None:
        if cursor.indent >= self.width:
            cursor.advance(self.width, True)
        elif cursor.blank and self.children:
            cursor.advance_to_first_nonspace()
        else:
            return False
        return True


def ends_blank(block: Block | None) -> bool:
    """cmark's S_ends_with_blank_line: through the last item of lists and the last block of
    items."""
    while block is not None:
        if block.last_line_blank:
            return True
        if isinstance(block, List):
            block = block.items[-1] if block.items else None
        elif isinstance(block, Item):
            block = block.children[-1] if block.children else None
        else:
            block = None
    return False


@dataclass(frozen=True)
class Marker:
    match: re.Match[str]
    ordered: bool
    number: int  # 0 for a bullet
    empty: bool  # nothing after the marker


def scan(cursor: Cursor) -> object | None:
    line, start = cursor.line, cursor.first_nonspace
    marker = _BULLET.match(line, start) or _ORDERED.match(line, start)
    if marker is None:
        return None
    ordered = marker.re is _ORDERED
    return Marker(marker, ordered, int(marker.group("number")) if ordered else 0,
                  line[marker.end():].strip(" \t") == "")


def interrupts_paragraph(candidate: object) -> bool:
    assert isinstance(candidate, Marker)
    return not candidate.empty and (not candidate.ordered or candidate.number == 1)


def open_item(document: Document, cursor: Cursor, depth: int,
              candidate: object) -> tuple[Start, int]:
    assert isinstance(candidate, Marker)
    width, kind = _width(cursor, candidate)
    container = document.open[depth - 1] if depth else None
    if not (isinstance(container, List) and container.kind == kind):
        number = candidate.number
        markup = f'<ol start="{number}">' if candidate.ordered and number != 1 else "<ul>"
        depth = document.add_child(depth, List(kind), markup)
    return Start.CONTAINER, document.add_child(depth, Item(width, document.number), "<li>")


def _width(cursor: Cursor, candidate: Marker) -> tuple[int, str]:
    """cmark's padding rule: the item's width and the list's kind, the cursor moved past the
    marker and its padding."""
    marker = candidate.match
    kind = cursor.line[marker.end() - 1]
    marker_offset = cursor.indent
    cursor.advance(marker.end() - cursor.offset, False)
    saved = (cursor.offset, cursor.column, cursor.partial_tab)
    while cursor.column - saved[1] <= 5 and cursor.peek(cursor.offset) in (" ", "\t"):
        cursor.advance(1, True)
    spaces = cursor.column - saved[1]
    length = marker.end() - cursor.first_nonspace
    if spaces >= 5 or spaces < 1 or cursor.offset >= len(cursor.line):
        cursor.offset, cursor.column, cursor.partial_tab = saved
        if spaces > 0:
            cursor.advance(1, True)
        return marker_offset + length + 1, kind
    return marker_offset + length + spaces, kind
