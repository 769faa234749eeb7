"""Raw HTML as GitHub's readers see it: the tag syntax cmark recognises, and the browser's
tokenizer over the HTML cmark writes (a comment opened in an HTML block hides everything
after it, whatever Markdown made of it, until a raw `-->` or `--!>`)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

SPACE = r"[ \t\v\f\r\n]"
ATTRIBUTE = (rf"{SPACE}+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:{SPACE}*={SPACE}*"
              r"""(?:[^ \t\r\n\v\f"'=<>`]+|'[^']*'|"[^"]*"))?""")
OPEN_TAG = rf"[A-Za-z][A-Za-z0-9-]*(?:{ATTRIBUTE})*{SPACE}*/?>"
CLOSE_TAG = rf"/[A-Za-z][A-Za-z0-9-]*{SPACE}*>"

_DATA, _COMMENT, _BOGUS, _TAG, _TAG_DOUBLE_QUOTED, _TAG_SINGLE_QUOTED = range(6)
_IN_TAG = (_TAG, _TAG_DOUBLE_QUOTED, _TAG_SINGLE_QUOTED)
_COMMENT_END = re.compile(r"--!?>")
_TAG_NAME = re.compile(r"</?(?P<name>[A-Za-z][^\t\n\f />]*)")
_TAG_WHITESPACE = frozenset(" \t\n\f")
# GitHub's tag filter (cmark-gfm's tagfilter extension): in raw HTML, the `<` of these tags
# is written as `&lt;`, so a browser shows them as text. A tag name at the end of a line is
# followed by the line's newline in the block's text, hence `$`.
_FILTERED_TAG = re.compile(r"</?(?:title|textarea|style|xmp|iframe|noembed|noframes|script"
                           r"|plaintext)(?:[ \t\n\v\f\r>]|/>|$)", re.IGNORECASE)


# Inline elements whose tags change how text looks, not where it is: text on both sides of
# their tags reads as one word. Every other tag (`<br>`, `<p>`, `<div>`, `<img>`,
# `<details>`, ...) separates what is before it from what is after it.
_TRANSPARENT = frozenset({"a", "abbr", "b", "big", "cite", "dfn", "em", "font", "i", "ins",
                          "kbd", "mark", "q", "samp", "small", "span", "strong", "sub",
                          "sup", "tt", "u", "var", "code", "pre", "del", "s", "strike"})


# Tags after which what follows starts a line of its own as a browser lays it out: a line
# break, and the start or end of a block-level element (the HTML standard's rendering
# section: `display: block`, `list-item`, `table`, ...). `<td>` and `<th>` are cells: side
# by side, not lines (the table rule reads them).
_LINE_STARTS = frozenset({
    "br", "p", "div", "details", "summary", "li", "ul", "ol", "dl", "dt", "dd", "blockquote",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "table", "caption", "thead", "tbody", "tfoot",
    "tr", "section", "article", "aside", "header", "footer", "nav", "main", "figure",
    "figcaption", "address", "center", "fieldset", "legend", "form", "menu", "dialog", "pre",
    "hgroup", "search"})


# Elements an HTML parser opens only from raw HTML (cmark writes none of them): their end tag
# with none open is a parse error the browser ignores (the standard's "in body" insertion
# mode), so `Deps:</div>ci-x-pr: #1` shows one line. Table parts outside a raw table are
# ignored likewise, start tag or end tag.
_RAW_ONLY = frozenset({"div", "details", "summary", "section", "article", "aside", "header",
                       "footer", "nav", "main", "figure", "figcaption", "address", "center",
                       "fieldset", "legend", "form", "menu", "dialog", "hgroup", "search", "dl",
                       "dt", "dd", "table"})
_TABLE_PARTS = frozenset({"caption", "thead", "tbody", "tfoot", "tr"})
# Start tags that close an open `<p>` (the standard's "in body" insertion mode: "close a p
# element"), the <del> opened inside it with it.
_CLOSES_P = frozenset({"address", "article", "aside", "blockquote", "center", "details",
                       "dialog", "div", "dl", "fieldset", "figcaption", "figure", "footer",
                       "header", "hgroup", "main", "menu", "nav", "ol", "p", "search",
                       "section", "summary", "ul", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
                       "table", "hr", "li", "dd", "dt", "form"})
# Names in cmark's markup the tokenizer reads: code and strikethrough. The containers' tags
# are nested without it: their end tag pops what raw HTML left open inside them
# (`<li><div></li>`: the div ends with the item, and a later `</div>` is a stray end tag).
_COUNTED_MARKUP = ("pre", "code", "del")
_CONTAINER_TAG = re.compile(r"</?(?P<name>li|blockquote)>")
# Elements without an end tag: they open nothing.
_VOID = frozenset({"br", "hr", "img", "input", "wbr", "col", "area", "source", "meta", "link"})
MAX_RAW_BLOCKS = 1000  # a bound on the stack: a body of open tags stays linear


def separates(raw: str) -> bool:
    """Whether the raw HTML `raw` holds a tag that separates the text around it."""
    return any(name.group("name").lower() not in _TRANSPARENT
               for name in _TAG_NAME.finditer(raw))


def escape_as_cmark(text: str) -> str:
    """Text as cmark writes it into HTML (houdini_escape_html0 without `secure`)."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


class Browser:
    """The state of an HTML tokenizer (the WHATWG HTML standard, *Tokenization*) over the HTML
    GitHub produces, in document order: comments, bogus comments (`<?`, `<!x`, `</1`) and tags,
    whose quoted attribute values may run past their raw HTML. Text cmark writes is escaped, so only
    a tag left open can be changed by it; markup cmark writes (`<p>`, `</li>`, …) is taken to carry
    no quotes. Text inside raw `<pre>` or `<code>` is code, as in Markdown."""

    def __init__(self) -> None:
        self.state = _DATA
        self.after_equals = False
        self.open_code = {"pre": 0, "code": 0}  # raw <pre> and <code> not yet closed
        self.open_struck = {"del": 0, "s": 0, "strike": 0}  # raw strikethrough not closed
        # Raw HTML table rows: the current row's serial number, and how many cells each row
        # opened; text read while a raw cell is open belongs to that row.
        self.row = 0
        self.row_cells: dict[int, int] = {}
        self.open_cells = 0
        # Raw elements of _RAW_ONLY not yet closed, and where the last read raw HTML started
        # a line (the start of each tag that does, in the raw text read).
        self.open_raw = dict.fromkeys(_RAW_ONLY, 0)
        self.line_starts: list[int] = []
        # Raw elements that are not inline, open, each with the <del> count before it: its
        # end tag pops what was opened inside it, a <del> too (the parser's "pop until").
        self.raw_blocks: list[tuple[str, int]] = []
        self.in_raw_blocks: dict[str, int] = {}  # how many of each name raw_blocks holds
        # Inside a block cmark writes (a paragraph): the <del> count at its start. A raw
        # block-level start tag closes the paragraph (the parser's "close a p element"),
        # and the <del> opened in it with it: <del> is not a formatting element the parser
        # reopens.
        self.block_struck: int | None = None

    @contextlib.contextmanager
    def block(self, in_p: bool = True, holds_blocks: bool = False) -> Iterator[None]:
        """Text inside one block cmark writes (a paragraph, a heading, a table cell). Its end
        tag pops every element opened inside it (the HTML parser's "pop until"), a <del> too;
        <s> and <strike> are formatting elements the browser reopens in the next block, so
        they stay. Inside a `<p>` (`in_p`; a tight list's paragraph has none) a raw block
        start tag closes it, and the <del> opened in it. A raw block element (`<div>`)
        opened inside a heading or a cell (`holds_blocks`) ends with it; one opened in a
        paragraph has closed the paragraph and stays open."""
        struck_before = self.open_struck["del"]
        self.block_struck = struck_before if in_p else None
        depth = len(self.raw_blocks)
        yield
        while holds_blocks and len(self.raw_blocks) > depth:
            self._end_raw_block()
        if self.block_struck is not None or not in_p:  # else a raw block closed the <p>
            self.open_struck["del"] = min(self.open_struck["del"], struck_before)
        self.block_struck = None

    @property
    def shows_code(self) -> bool:
        """Text read now is shown, as code (inside raw `<pre>` or `<code>`)."""
        return self.state == _DATA and self.in_code

    @property
    def in_struck(self) -> bool:
        return any(self.open_struck.values())

    @property
    def in_code(self) -> bool:
        return self.open_code["pre"] > 0 or self.open_code["code"] > 0

    def hides_text(self) -> bool:
        return self.state != _DATA or self.in_code

    def markup(self, tags: str = "<x>") -> None:
        """cmark wrote tags of its own: only their quotes and `pre`/`code` names matter, so
        every other tag is written `<x>`."""
        if self.state == _DATA:  # each is a block's start or end
            self.close_paragraph()
        if self.state == _DATA and not any(name in tags for name in _COUNTED_MARKUP):
            # Whole tags read in data change nothing but the counts and the nesting: a
            # container's, read here without the tokenizer (one per list item).
            for container in _CONTAINER_TAG.finditer(tags):
                self._nest(container.group("name"), container.group().startswith("</"))
            return
        self.read_raw(tags, 0, len(tags))

    def close_paragraph(self) -> None:
        """A raw `<p>` left open ends here, and the <del> opened inside it with it: <del> is
        not a formatting element the parser reopens."""
        if self.raw_blocks and self.raw_blocks[-1][0] == "p":
            _, before = self._pop_raw_block()
            self.open_struck["del"] = min(self.open_struck["del"], before)

    def read_escaped(self, text: str) -> None:
        """cmark wrote `text` escaped: it can only move a tag's attribute state."""
        if self.state in _IN_TAG:
            escaped = escape_as_cmark(text)
            self._tag(escaped, 0, len(escaped))

    def read_raw(self, raw: str, start: int, end: int,
                 code: list[tuple[int, int]] | None = None,
                 struck: list[tuple[int, int]] | None = None,
                 cells: dict[int, int] | None = None) -> list[tuple[int, int]]:
        """Read raw[start:end]; the parts shown as text. The parts shown as code (inside raw
        `<pre>` or `<code>`) are added to `code`, those shown struck through (inside raw
        `<del>`, `<s>`, `<strike>`) to `struck`, and the start of each part shown inside a
        raw table cell to `cells` (with its row), when they are given."""
        shown: list[tuple[int, int]] = []
        self.line_starts = []
        position = start
        while position < end:
            if self.state == _COMMENT:
                close = _COMMENT_END.search(raw, position, end)
                if close is None:
                    return shown
                position, self.state = close.end(), _DATA
            elif self.state == _BOGUS:
                greater = raw.find(">", position, end)
                if greater < 0:
                    return shown
                position, self.state = greater + 1, _DATA
            elif self.state in _IN_TAG:
                position = self._tag(raw, position, end)
            else:
                opening = raw.find("<", position, end)
                stop = end if opening < 0 else opening
                if stop > position:
                    if not self.in_code:
                        shown.append((position, stop))
                        if struck is not None and self.in_struck:
                            struck.append((position, stop))
                        if cells is not None and self.open_cells:
                            cells[position] = self.row
                    elif code is not None:
                        code.append((position, stop))
                if opening < 0:
                    return shown
                position = self._markup_start(raw, stop, end, shown)
        return shown

    def _nest(self, tag: str, closing: bool) -> None:
        if not closing and tag in _CLOSES_P:
            self.close_paragraph()
        if (tag in _TRANSPARENT and tag != "pre") or tag in _VOID:  # inline, or no content
            return
        if not closing and self.block_struck is not None and tag in _LINE_STARTS:
            self.open_struck["del"] = min(self.open_struck["del"], self.block_struck)
            self.block_struck = None  # the <p> is closed: what opens now outlives its end tag
        if not closing:
            if len(self.raw_blocks) < MAX_RAW_BLOCKS:
                self.raw_blocks.append((tag, self.open_struck["del"]))
                self.in_raw_blocks[tag] = self.in_raw_blocks.get(tag, 0) + 1
            return
        if self.in_raw_blocks.get(tag, 0) > 0:
            while self.raw_blocks[-1][0] != tag:
                self._end_raw_block()
            _, before = self._pop_raw_block()
            self.open_struck["del"] = min(self.open_struck["del"], before)

    def _pop_raw_block(self) -> tuple[str, int]:
        name, before = self.raw_blocks.pop()
        self.in_raw_blocks[name] -= 1
        return name, before

    def _end_raw_block(self) -> None:
        """The innermost raw element ends without its end tag (an ancestor's end tag pops
        it): its own end tag is stray now."""
        name, _ = self._pop_raw_block()
        if name in self.open_raw:
            self.open_raw[name] = max(0, self.open_raw[name] - 1)

    def _starts_a_line(self, tag: str, closing: bool) -> bool:
        """Whether a browser starts a new line at this tag, given what is open before it."""
        if tag not in _LINE_STARTS:
            return False
        if tag in _TABLE_PARTS:
            return self.open_raw["table"] > 0
        if closing and tag == "pre":  # raw or cmark's: counted either way
            return self.open_code["pre"] > 0
        return not closing or tag not in _RAW_ONLY or self.open_raw[tag] > 0

    def _table(self, tag: str, closing: bool) -> None:
        """Count a raw table's rows and cells (a cell outside a row opens one, as the
        browser does)."""
        if tag == "tr" or (tag in ("td", "th") and not closing and not self.row_cells):
            if not closing:
                self.row += 1
                self.row_cells[self.row] = 0
            self.open_cells = 0
        if tag in ("td", "th"):
            if closing:
                self.open_cells = max(0, self.open_cells - 1)
            else:
                self.row_cells[self.row] += 1
                self.open_cells = 1  # a cell start closes the open cell of the row

    def _tag(self, raw: str, position: int, end: int) -> int:
        """Inside a tag: where it ends (state back to data), or `end`."""
        while position < end:
            character = raw[position]
            position += 1
            if self.state == _TAG_DOUBLE_QUOTED:
                if character == '"':
                    self.state, self.after_equals = _TAG, False
            elif self.state == _TAG_SINGLE_QUOTED:
                if character == "'":
                    self.state, self.after_equals = _TAG, False
            elif character == ">":
                self.state = _DATA
                return position
            elif character in "\"'" and self.after_equals:
                self.state = _TAG_DOUBLE_QUOTED if character == '"' else _TAG_SINGLE_QUOTED
            elif character == "=":
                self.after_equals = True
            elif character not in _TAG_WHITESPACE:
                self.after_equals = False
        return position

    def _markup_start(self, raw: str, start: int, end: int,
                      shown: list[tuple[int, int]]) -> int:
        """At a `<` in data: the position after what it starts (state updated)."""
        if _FILTERED_TAG.match(raw, start, end):
            # GitHub's tag filter wrote this `<` as `&lt;`: the tag is text.
            if not self.in_code:
                shown.append((start, start + 1))
            return start + 1
        rest = raw[start:min(end, start + 6)]
        if rest.startswith("<!--"):
            if rest.startswith("<!-->"):
                return start + 5
            if rest.startswith("<!--->"):
                return start + 6
            self.state = _COMMENT
            return start + 4
        if rest.startswith("</>"):
            return start + 3
        name = _TAG_NAME.match(raw, start, end)
        if name is not None:
            tag = name.group("name").lower()
            closing = name.group().startswith("</")
            if self._starts_a_line(tag, closing):
                self.line_starts.append(start)
            if tag in self.open_raw:
                self.open_raw[tag] = max(0, self.open_raw[tag] + (-1 if closing else 1))
            self._nest(tag, closing)
            for counts in (self.open_code, self.open_struck):
                if tag in counts:
                    counts[tag] = max(0, counts[tag] + (-1 if closing else 1))
            self._table(tag, closing)
            self.state, self.after_equals = _TAG, False
            return name.end()
        if rest.startswith(("<!", "<?", "</")):
            self.state = _BOGUS
            return start + 2
        if not self.in_code:
            shown.append((start, start + 1))  # a lone `<` is text
        return start + 1
