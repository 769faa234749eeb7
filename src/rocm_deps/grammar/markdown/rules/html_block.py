"""HTML blocks: cmark-gfm's seven kinds, each with its start condition and, for kinds 1 to
5, the text that ends it (6 and 7 end at a blank line). What the block shows is what the
browser shows of its raw HTML after GitHub's tag filter (`html.Browser`); kind 7 (any
complete tag alone) cannot interrupt a paragraph."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rocm_deps.grammar.markdown.blocks import Block, Start
from rocm_deps.grammar.markdown.cursor import Cursor
from rocm_deps.grammar.markdown.html import CLOSE_TAG, OPEN_TAG, separates
from rocm_deps.grammar.markdown.inline import MARKUP_ONLY
from rocm_deps.grammar.markdown.shown import ShownLine

if TYPE_CHECKING:
    from rocm_deps.grammar.markdown.document import Document

_BLOCK_TAGS = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|"
    "details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|"
    "h1|h2|h3|h4|h5|h6|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|"
    "noframes|ol|optgroup|option|p|param|section|source|title|summary|table|tbody|td|"
    "tfoot|th|thead|title|tr|track|ul")
# The start conditions of HTML blocks 1-7 (cmark-gfm scanners.re); the number is the kind.
_STARTS = (
    (1, re.compile(r"<(?:script|pre|style|textarea)(?:[ \t\v\f\r\n>]|$)", re.IGNORECASE)),
    (2, re.compile(r"<!--")),
    (3, re.compile(r"<\?")),
    (4, re.compile(r"<![A-Z]")),
    (5, re.compile(r"<!\[CDATA\[")),
    (6, re.compile(rf"</?(?:{_BLOCK_TAGS})(?:[ \t\v\f\r\n]|/?>|$)", re.IGNORECASE)),
    (7, re.compile(rf"<(?:{OPEN_TAG}|{CLOSE_TAG})[\t\n\f ]*$")),
)
_ENDS = {
    1: re.compile(r"</(?:script|pre|style|textarea)>", re.IGNORECASE),
    2: re.compile(r"-->"),
    3: re.compile(r"\?>"),
    4: re.compile(r">"),
    5: re.compile(r"\]\]>"),
}


@dataclass
class Html(Block):
    kind: int
    # The index in Document.shown of the block's last shown line while it is still open: a
    # browser lays out the block's newlines as spaces (outside `<pre>`), so text on the next
    # source line continues it unless a tag that starts a line (`<br>`, `<div>`) comes first.
    open_line: int | None = None
    leaf = True
    verbatim = True
    closing = None

    def continues(self, cursor: Cursor, document: Document, depth: int) -> bool | None:
        return not (cursor.blank and self.kind >= 6)

    def take_line(self, document: Document, number: int, cursor: Cursor) -> None:
        line, start = cursor.line, cursor.offset

        def read() -> None:
            code: list[tuple[int, int]] = []
            struck: list[tuple[int, int]] = []
            cells: dict[int, int] = {}
            visible = document.browser.read_raw(line, start, len(line), code, struck, cells)
            line_starts = document.browser.line_starts
            # The displayed lines of the source line: a tag after which a browser starts a
            # line (`<br>`, `<div>`, `</summary>`) ends one; within one, a blank between two
            # shown parts that a separating tag (`<img>`) parts.
            # Code (`<pre>`, `<code>` content) counts as content: `<summary>CI</summary>
            # <code>ci-x-pr: #1</code>` shows the code on a line of its own.
            displayed: list[tuple[int, list[tuple[int, int]]]] = [(start, [])]
            previous, filled = start, False
            pieces = sorted([*((b, e, True) for b, e in visible),
                             *((b, e, False) for b, e in code)])
            for begin, end, shown in pieces:
                if filled and any(previous <= at < begin for at in line_starts):
                    displayed.append((previous, []))
                    filled = False
                if shown:
                    displayed[-1][1].append((begin, end))
                filled, previous = True, end
            bounds = [bound for bound, _ in displayed[1:]] + [len(line)]
            content = [(begin, end) for begin, end, _ in pieces if line[begin:end].strip(" \t")]
            continued = self.open_line if content and self.open_line == len(
                document.shown) - 1 and not any(at < content[0][0] for at in line_starts) else None
            if content or line_starts:
                self.open_line = None
            for (bound, parts), until in zip(displayed, bounds, strict=True):
                row = cells.get(parts[0][0], 0) if parts else 0
                one = _show(number, line, (bound, until), parts, code, struck, row)
                if one is not None and continued is not None:
                    one, continued = _joined(document.shown.pop(continued), one), None
                if one is not None:
                    document.shown.append(one)
            if content and not document.browser.open_code["pre"] and not any(
                    at >= content[-1][1] for at in line_starts):
                self.open_line = len(document.shown) - 1

        document.feed(read)
        end = _ENDS.get(self.kind)
        if end is not None and end.search(line, cursor.first_nonspace):
            document.close_from(len(document.open) - 1)


def _show(number: int, line: str, bounds: tuple[int, int], visible: list[tuple[int, int]],
          code: list[tuple[int, int]], struck: list[tuple[int, int]],
          row: int) -> ShownLine | None:
    """One displayed line of an HTML block's line, line[bounds[0]:bounds[1]]: its shown
    parts, and the code before them; None when it shows nothing."""
    pieces: list[str] = []
    for index, (begin, end) in enumerate(visible):
        if index and separates(line[visible[index - 1][1]:begin]):
            pieces.append(" ")
        pieces.append(line[begin:end])
    text = "".join(pieces).strip(" \t")
    # What the line shows as code before any text (markup that shows no text, such as a
    # marker shown as text, aside): `<pre>` and `<code>` content, its pieces joined as the
    # text's are (a comment inside hides, a separating tag parts).
    first_text = next((begin for begin, end in visible
                       if not MARKUP_ONLY.fullmatch(line[begin:end])), bounds[1])
    leading = [(begin, end) for begin, end in code if bounds[0] <= begin < first_text]
    lead = "".join((" " if index and separates(line[leading[index - 1][1]:begin]) else "")
                   + line[begin:end]
                   for index, (begin, end) in enumerate(leading)).strip(" \t")
    if not text and not lead:
        return None
    share = _struck_share(line, visible, struck)
    return ShownLine(number, line, text, text, code=None if text else "html", lead_code=lead,
                     raw_html=True, struck=share == "all", partly_struck=share == "part",
                     row=row)


# How much of a run-on line is kept: more than any directive's key, value and comment need.
# Without a bound, a block of many short lines would be copied once per line (quadratic).
MAX_JOINED = 2000


def _joined(first: ShownLine, then: ShownLine) -> ShownLine:
    """Two source lines a browser shows as one (the newline between them is a space). Past
    MAX_JOINED characters of text or source, what follows is no longer kept."""
    if len(first.text) + len(first.lead_code) >= MAX_JOINED or len(first.source) >= MAX_JOINED:
        return first
    text = f"{first.text} {then.text}".strip(" \t")
    lead = first.lead_code if first.text else f"{first.lead_code} {then.lead_code}".strip()
    struck = all(line.struck for line in (first, then) if line.text) and bool(text)
    partly = not struck and any(line.struck or line.partly_struck for line in (first, then))
    return ShownLine(first.number, f"{first.source} {then.source.lstrip()}", text, text,
                     code=None if text else "html", lead_code=lead, raw_html=True,
                     struck=struck, partly_struck=partly, row=first.row)


def _struck_share(line: str, visible: list[tuple[int, int]],
                  struck: list[tuple[int, int]]) -> str:
    """How much of a line's shown text is struck through: "all", "part" or ""."""
    def count(parts: list[tuple[int, int]]) -> int:
        return sum(len(line[begin:end].replace(" ", "").replace("\t", ""))
                   for begin, end in parts)

    struck_count, shown_count = count(struck), count(visible)
    if not struck_count:
        return ""
    return "all" if struck_count >= shown_count else "part"


def scan(cursor: Cursor) -> object | None:
    """The kind of HTML block the line starts, or None."""
    line, start = cursor.line, cursor.first_nonspace
    return next((kind for kind, pattern in _STARTS if pattern.match(line, start)), None)


def interrupts_paragraph(kind: object) -> bool:
    return kind != 7


def open_html(document: Document, cursor: Cursor, depth: int,
              candidate: object) -> tuple[Start, int]:
    assert isinstance(candidate, int)
    return Start.LEAF, document.add_child(depth, Html(candidate))
