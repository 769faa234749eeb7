"""Which lines of a PR body GitHub shows as text outside code (DESIGN §3, fidelity).

GitHub renders a body with cmark-gfm and a browser then reads the HTML. A directive counts
exactly when its line is shown as text, so this module follows both, in one pass:

- the block structure of cmark-gfm's `blocks.c`: block quotes and list items with their
  continuation rules (a fence or an HTML block ends with its quote or list item), lazy
  paragraph lines, fenced and indented code, the seven HTML block kinds and their end
  conditions, ATX and setext headings, thematic breaks, tabs as 4-column stops;
- the inline constructs that hide text inside a paragraph: code spans (which may span
  lines) and raw HTML (comments `<!-->`, `<!--->`, `<!-- … -->`, tags); back-slash escapes;
- the browser's tokenizer over raw HTML: a comment opened in an HTML block hides everything
  after it, whatever Markdown made of it, until a raw `-->` or `--!>`; text after `-->` on
  the same line is shown.

Not modelled (GitHub shows these as text; here they are plain lines): link reference
definitions, tables, footnotes, entities. Raw HTML tags are modelled within a line only.

Standard library only, and linear in the body size: each line is examined a bounded number
of times and a paragraph is scanned once, when it ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TAB_STOP = 4
CODE_INDENT = 4
# Every line walks the open quotes and list items, so nesting is bounded to keep the walk
# linear in the body size; real bodies nest a handful deep.
MAX_DEPTH = 48


class NestingTooDeep(Exception):
    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


@dataclass(frozen=True)
class ShownLine:
    """A line as GitHub shows it.

    `text` is what is shown as text, container markers (`>`, `-`, `1.`) and hidden parts
    (comments, tags, code spans that cross lines) removed; a code span that opens and
    closes on the line is kept with its back-ticks, because a directive value may be
    back-ticked. `prose` is `text` without those code spans. `code` marks a line of an
    indented code block: not shown as text, reported so that a directive indented by
    mistake can be explained. `source` is the line as written, for quoting in messages.
    """

    number: int
    source: str
    text: str
    prose: str
    code: bool = False


# --- block structure -----------------------------------------------------------------------

_ATX_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")
_OPEN_FENCE = re.compile(r"(?:`{3,}(?=[^`]*$)|~{3,})")
_CLOSE_FENCE = re.compile(r"(?:`{3,}|~{3,})(?=[ \t]*$)")
_SETEXT_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*$")
_THEMATIC_BREAK = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_BULLET = re.compile(r"[-*+](?=[ \t]|$)")
_ORDERED = re.compile(r"(?P<number>[0-9]{1,9})[.)](?=[ \t]|$)")

_BLOCK_TAGS = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|"
    "details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|"
    "h1|h2|h3|h4|h5|h6|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|"
    "noframes|ol|optgroup|option|p|param|section|source|title|summary|table|tbody|td|"
    "tfoot|th|thead|title|tr|track|ul")
_SPACE = r"[ \t\v\f\r\n]"
_ATTRIBUTE = (rf"{_SPACE}+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:{_SPACE}*={_SPACE}*"
              r"""(?:[^ \t\r\n\v\f"'=<>`]+|'[^']*'|"[^"]*"))?""")
_OPEN_TAG = rf"[A-Za-z][A-Za-z0-9-]*(?:{_ATTRIBUTE})*{_SPACE}*/?>"
_CLOSE_TAG = rf"/[A-Za-z][A-Za-z0-9-]*{_SPACE}*>"
# The start conditions of HTML blocks 1-6 (cmark-gfm scanners.re); the number is the kind.
_HTML_BLOCK_STARTS = (
    (1, re.compile(r"<(?:script|pre|style)(?:[ \t\v\f\r\n>]|$)", re.IGNORECASE)),
    (2, re.compile(r"<!--")),
    (3, re.compile(r"<\?")),
    (4, re.compile(r"<![A-Z]")),
    (5, re.compile(r"<!\[CDATA\[")),
    (6, re.compile(rf"</?(?:{_BLOCK_TAGS})(?:[ \t\v\f\r\n]|/?>|$)", re.IGNORECASE)),
)
_HTML_BLOCK_7 = re.compile(rf"<(?:{_OPEN_TAG}|{_CLOSE_TAG})[\t\n\f ]*$")
_HTML_BLOCK_ENDS = {
    1: re.compile(r"</(?:script|pre|style)>", re.IGNORECASE),
    2: re.compile(r"-->"),
    3: re.compile(r"\?>"),
    4: re.compile(r">"),
    5: re.compile(r"\]\]>"),
}


@dataclass
class _Quote:
    pass


@dataclass
class _List:
    kind: str  # the bullet (`-`, `+`, `*`) or the ordered delimiter (`.`, `)`)


@dataclass
class _Item:
    width: int  # columns of the marker and its padding: what a continuation line must indent
    has_child: bool = False


@dataclass
class _Paragraph:
    lines: list[tuple[int, str, int]] = field(default_factory=list)  # number, line, start


@dataclass
class _Fence:
    character: str
    length: int
    offset: int  # the opening fence's indentation, removed from the content lines


@dataclass
class _IndentedCode:
    pass


@dataclass
class _Html:
    kind: int


_CODE_BLOCK = "<pre><code>"
# The characters a block other than indented code can start with.
_BLOCK_STARTS = frozenset(">#`~<=-*_+0123456789")
_Block = _Quote | _List | _Item | _Paragraph | _Fence | _IndentedCode | _Html
_LEAVES = (_Paragraph, _Fence, _IndentedCode, _Html)


class _Cursor:
    """A position in one line, in characters and in columns (cmark's offset and column)."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.offset = 0
        self.column = 0
        self.partial_tab = False
        self.first_nonspace = 0
        self.indent = 0
        self.blank = True

    def find_first_nonspace(self) -> None:
        line, position, column = self.line, self.offset, self.column
        to_tab = TAB_STOP - column % TAB_STOP
        while position < len(line):
            character = line[position]
            if character == " ":
                position, column, to_tab = position + 1, column + 1, to_tab - 1 or TAB_STOP
            elif character == "\t":
                position, column, to_tab = position + 1, column + to_tab, TAB_STOP
            else:
                break
        self.first_nonspace = position
        self.indent = column - self.column
        self.blank = position >= len(line)

    def advance(self, count: int, columns: bool) -> None:
        line = self.line
        while count > 0 and self.offset < len(line):
            if line[self.offset] == "\t":
                to_tab = TAB_STOP - self.column % TAB_STOP
                if columns:
                    self.partial_tab = to_tab > count
                    step = min(count, to_tab)
                    self.column += step
                    self.offset += 0 if self.partial_tab else 1
                    count -= step
                else:
                    self.partial_tab = False
                    self.column += to_tab
                    self.offset += 1
                    count -= 1
            else:
                self.partial_tab = False
                self.offset += 1
                self.column += 1
                count -= 1

    def advance_to_first_nonspace(self) -> None:
        self.advance(self.first_nonspace - self.offset, False)

    def peek(self, position: int) -> str:
        return self.line[position] if position < len(self.line) else ""


def shown_lines(text: str) -> list[ShownLine]:
    """The lines of `text` (already normalised to `\\n` line ends) that GitHub shows.

    Raises NestingTooDeep when quotes and list items nest more than MAX_DEPTH deep."""
    return _Document().parse(text)


class _Document:
    def __init__(self) -> None:
        self.open: list[_Block] = []
        self.number = 0
        self.browser = _Browser()
        self.shown: list[ShownLine] = []

    def parse(self, text: str) -> list[ShownLine]:
        settled = False  # the last line was blank and closed nothing
        for number, line in enumerate(text.split("\n"), start=1):
            blank = not line.strip(" \t")
            if blank and settled:
                # A blank line only closes blocks; after one that closed none, the next finds
                # the same open blocks and changes nothing. Skipping it keeps a run of blank
                # lines under deep nesting from costing the depth per byte.
                continue
            depth = len(self.open)
            self._line(number, line)
            settled = blank and len(self.open) == depth
        self._close_from(0)
        return self.shown

    # cmark's S_process_line: match the open blocks, open new ones, add the line.
    def _line(self, number: int, line: str) -> None:
        self.number = number
        cursor = _Cursor(line)
        matched = self._match_open_blocks(cursor)
        if matched is None:
            return  # a closing code fence: the line is consumed
        tip = self.open[-1] if self.open else None
        maybe_lazy = isinstance(tip, _Paragraph)
        depth = self._open_new_blocks(number, cursor, matched, maybe_lazy)
        if depth is None:
            return
        self._add_line(number, cursor, matched, depth)

    def _match_open_blocks(self, cursor: _Cursor) -> int | None:
        """How many open blocks this line continues; None when it closes a fence."""
        for depth, block in enumerate(self.open):
            cursor.find_first_nonspace()
            if isinstance(block, _Quote):
                if not (cursor.indent <= 3 and cursor.peek(cursor.first_nonspace) == ">"):
                    return depth
                cursor.advance(cursor.indent + 1, True)
                if cursor.peek(cursor.offset) in (" ", "\t"):
                    cursor.advance(1, True)
            elif isinstance(block, _List):
                continue  # a list continues while an item or a new item does
            elif isinstance(block, _Item):
                if cursor.indent >= block.width:
                    cursor.advance(block.width, True)
                elif cursor.blank and block.has_child:
                    cursor.advance_to_first_nonspace()
                else:
                    return depth
            elif isinstance(block, _Fence):
                closing = None
                if cursor.indent <= 3:
                    closing = _CLOSE_FENCE.match(cursor.line, cursor.first_nonspace)
                if (closing is not None and closing.group()[0] == block.character
                        and len(closing.group()) >= block.length):
                    self._close_from(depth)
                    return None
                skip = block.offset
                while skip > 0 and cursor.peek(cursor.offset) in (" ", "\t"):
                    cursor.advance(1, True)
                    skip -= 1
            elif isinstance(block, _IndentedCode):
                if cursor.indent >= CODE_INDENT:
                    cursor.advance(CODE_INDENT, True)
                elif cursor.blank:
                    cursor.advance_to_first_nonspace()
                else:
                    return depth
            elif isinstance(block, _Html):
                if cursor.blank and block.kind >= 6:
                    return depth
            elif cursor.blank:  # a paragraph ends at a blank line
                return depth
        return len(self.open)

    def _open_new_blocks(self, number: int, cursor: _Cursor, matched: int,
                         maybe_lazy: bool) -> int | None:
        """Open the blocks that start on this line; the depth of the deepest container the
        line belongs to, or None when the line needs nothing more (a heading, a setext
        underline, a thematic break, a fence's opening line)."""
        depth = matched
        container = self.open[depth - 1] if depth else None
        while not isinstance(container, (_Fence, _IndentedCode, _Html)):
            cursor.find_first_nonspace()
            indented = cursor.indent >= CODE_INDENT
            start = cursor.first_nonspace
            line = cursor.line
            in_paragraph = isinstance(container, _Paragraph)
            if indented or cursor.peek(start) not in _BLOCK_STARTS:
                # Most lines are text: only indented code can start here.
                if indented and not maybe_lazy and not cursor.blank:
                    cursor.advance(CODE_INDENT, True)
                    depth = self._add_child(depth, _IndentedCode(), _CODE_BLOCK)
                break
            if cursor.peek(start) == ">":
                cursor.advance(start + 1 - cursor.offset, False)
                if cursor.peek(cursor.offset) in (" ", "\t"):
                    cursor.advance(1, True)
                depth = self._add_child(depth, _Quote())
            elif _ATX_HEADING.match(line, start):
                depth = self._add_child(depth, None)
                self._emit_paragraph(_Paragraph([(number, line, start)]))
                return None
            elif (fence := _OPEN_FENCE.match(line, start)):
                offset = start - cursor.offset
                language = line[fence.end():].strip(" \t").split(" ")[0].split("\t")[0]
                markup = (f'<pre lang="{escape_as_cmark(language)}"><code>' if language
                          else _CODE_BLOCK)
                depth = self._add_child(depth, _Fence(fence.group()[0], len(fence.group()),
                                                      offset), markup)
                return None  # the info string is not shown
            elif (kind := _html_block_start(line, start, in_paragraph)):
                depth = self._add_child(depth, _Html(kind))
                break
            elif in_paragraph and _SETEXT_UNDERLINE.match(line, start):
                self._close_from(depth - 1)  # the paragraph becomes a heading and ends
                return None
            elif _THEMATIC_BREAK.match(line, start):
                self._add_child(depth, None)
                return None
            elif (marker := self._list_marker(cursor, in_paragraph)):
                width, list_kind, number = marker
                if not (isinstance(container, _List) and container.kind == list_kind):
                    ordered = list_kind in ".)"
                    markup = f'<ol start="{number}">' if ordered and number != 1 else "<ul>"
                    depth = self._add_child(depth, _List(list_kind), markup)
                depth = self._add_child(depth, _Item(width))
            else:
                break
            container = self.open[depth - 1]
            maybe_lazy = False
        return depth

    def _list_marker(self, cursor: _Cursor,
                     interrupts_paragraph: bool) -> tuple[int, str, int] | None:
        """cmark's parse_list_marker and padding rule: the item's width, the list's kind
        and the item's number (0 for a bullet); None when the line starts no item."""
        start = cursor.first_nonspace
        marker = _BULLET.match(cursor.line, start) or _ORDERED.match(cursor.line, start)
        if marker is None:
            return None
        ordered = marker.re is _ORDERED
        number = int(marker.group("number")) if ordered else 0
        if interrupts_paragraph:
            if cursor.line[marker.end():].strip(" \t") == "":
                return None  # an empty item cannot interrupt a paragraph
            if ordered and number != 1:
                return None
        kind = cursor.line[marker.end() - 1]
        marker_offset = cursor.indent
        cursor.advance(marker.end() - cursor.offset, False)
        saved = (cursor.offset, cursor.column, cursor.partial_tab)
        while cursor.column - saved[1] <= 5 and cursor.peek(cursor.offset) in (" ", "\t"):
            cursor.advance(1, True)
        spaces = cursor.column - saved[1]
        length = marker.end() - start
        if spaces >= 5 or spaces < 1 or cursor.offset >= len(cursor.line):
            cursor.offset, cursor.column, cursor.partial_tab = saved
            if spaces > 0:
                cursor.advance(1, True)
            return marker_offset + length + 1, kind, number
        return marker_offset + length + spaces, kind, number

    def _add_line(self, number: int, cursor: _Cursor, matched: int, depth: int) -> None:
        cursor.find_first_nonspace()
        tip = self.open[-1] if self.open else None
        if (matched < len(self.open) and depth == matched and not cursor.blank
                and isinstance(tip, _Paragraph)):
            tip.lines.append((number, cursor.line, cursor.first_nonspace))  # lazy line
            return
        self._close_from(depth)
        container = self.open[-1] if self.open else None
        if isinstance(container, _Fence):
            return
        if isinstance(container, _IndentedCode):
            if not cursor.blank:
                text = cursor.line[cursor.offset:]
                self.shown.append(ShownLine(number, cursor.line, text, text, code=True))
            return
        if isinstance(container, _Html):
            self._html_line(number, cursor, container)
            return
        if cursor.blank:
            return
        if isinstance(container, _Paragraph):
            container.lines.append((number, cursor.line, cursor.first_nonspace))
            return
        self._add_child(depth, _Paragraph([(number, cursor.line, cursor.first_nonspace)]))

    def _html_line(self, number: int, cursor: _Cursor, block: _Html) -> None:
        line, start = cursor.line, cursor.offset
        visible = self.browser.read_raw(line, start, len(line))
        text = "".join(line[begin:end] for begin, end in visible)
        if text.strip(" \t"):
            self.shown.append(ShownLine(number, line, text.strip(" \t"), text.strip(" \t")))
        end = _HTML_BLOCK_ENDS.get(block.kind)
        if end is not None and end.search(line, cursor.first_nonspace):
            self._close_from(len(self.open) - 1)

    def _add_child(self, depth: int, block: _Block | None, markup: str = "<x>") -> int:
        """Add `block` under the container at `depth`, closing what it ends; the new depth.
        None adds a one-line leaf (heading, thematic break) that ends at once. `markup` is
        the opening tag cmark writes for it; only its quotes matter."""
        if depth and isinstance(self.open[depth - 1], _LEAVES):
            depth -= 1  # a paragraph cannot contain a block: it ends
        if depth and isinstance(self.open[depth - 1], _List) and not isinstance(block, _Item):
            depth -= 1  # a list holds only items: it ends
        self._close_from(depth)
        if depth and isinstance(self.open[depth - 1], _Item):
            item = self.open[depth - 1]
            assert isinstance(item, _Item)
            item.has_child = True
        if block is None:
            self.browser.markup()
            return depth
        if not isinstance(block, _Html):
            self.browser.markup(markup)
        if len(self.open) >= MAX_DEPTH:
            raise NestingTooDeep(self.number)
        self.open.append(block)
        return depth + 1

    def _close_from(self, depth: int) -> None:
        while len(self.open) > depth:
            block = self.open.pop()
            if isinstance(block, _Paragraph):
                self._emit_paragraph(block)
            if isinstance(block, (_Fence, _IndentedCode)):
                self.browser.markup("</code></pre>")
            elif not isinstance(block, _Html):
                self.browser.markup()  # its closing tag

    def _emit_paragraph(self, paragraph: _Paragraph) -> None:
        self.browser.markup()
        for line in _Inline(paragraph.lines, self.browser).shown():
            self.shown.append(line)


def _html_block_start(line: str, start: int, in_paragraph: bool) -> int:
    if line.startswith("<", start):
        for kind, pattern in _HTML_BLOCK_STARTS:
            if pattern.match(line, start):
                return kind
        if not in_paragraph and _HTML_BLOCK_7.match(line, start):
            return 7
    return 0


# --- inline constructs of a paragraph ------------------------------------------------------

_INLINE_SPECIAL = re.compile(r"[\\`<]")
_BACKTICKS = re.compile(r"`+")
MAX_BACKTICKS = 80
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_INLINE_TAG = re.compile(rf"<(?:{_OPEN_TAG}|{_CLOSE_TAG})")
_DECLARATION_START = re.compile(rf"<![A-Z]+{_SPACE}")
# cmark's scan_html_comment after `<!--`: at each `-` the next character decides the branch,
# so a failed match costs time linear in what it read.
_COMMENT_REST = re.compile(r"(?:[^-]|-[^-]|--[^>])*-->")


class _Inline:
    """One paragraph's code spans and raw HTML, left to right as cmark's inlines.c."""

    def __init__(self, lines: list[tuple[int, str, int]], browser: _Browser) -> None:
        self.lines = lines
        self.browser = browser
        self.content = "\n".join(line[start:] for _, line, start in lines)
        self.backticks: dict[int, int] = {}
        self.scanned_for_backticks = False
        # Where a search for a terminator found none: later searches would find none either,
        # so many unterminated openers in one paragraph stay linear.
        self.no_terminator_after: dict[str, int] = {}
        self.no_comment_end = False
        # (start, end, is_code_span): parts of the content not shown as text
        self.hidden: list[tuple[int, int, bool]] = []

    def shown(self) -> list[ShownLine]:
        self._scan()
        return self._split()

    def _scan(self) -> None:
        content, position, text_from = self.content, 0, 0
        while (special := _INLINE_SPECIAL.search(content, position)) is not None:
            position = special.start()
            character = content[position]
            if character == "\\":
                position += 2 if content[position + 1:position + 2] in _ASCII_PUNCTUATION else 1
                continue
            ticks = 0
            if character == "`":
                run = _BACKTICKS.match(content, position)
                assert run is not None
                ticks = run.end() - position
                end = self._code_span_end(position, ticks)
                if end is None:
                    position += ticks
                    continue
            else:
                end = self._raw_end(position)
                if end is None:
                    position += 1
                    continue
            self._text(text_from, position)
            if character == "`":
                shown = not self.browser.hides_text()
                self.hidden.append((position, end, shown))
                if not shown:
                    self.browser.markup("<code>")
                    self.browser.read_escaped(content[position + ticks:end - ticks])
                    self.browser.markup("</code>")
            else:
                self._raw(position, end)
            position = text_from = end
        self._text(text_from, len(content))

    def _code_span_end(self, start: int, length: int) -> int | None:
        """cmark's scan_to_closing_backticks, its cache included: the position of the last
        run of each length seen, and whether a scan reached the end. GitHub's rendering
        follows the cache where it is stale, so this does too."""
        position = start + length
        if length > MAX_BACKTICKS:
            return None
        if self.scanned_for_backticks and self.backticks.get(length, 0) <= position:
            return None
        for run in _BACKTICKS.finditer(self.content, position):
            run_length = run.end() - run.start()
            if run_length <= MAX_BACKTICKS:
                self.backticks[run_length] = run.start()
            if run_length == length:
                return run.end()
        self.scanned_for_backticks = True
        return None

    def _raw_end(self, start: int) -> int | None:
        """Where the raw HTML at `start` ends (cmark's handle_pointy_brace), None if the `<`
        is text. As in cmark, once a comment finds no end, no later `<!` in the paragraph
        starts raw HTML."""
        content = self.content
        if content.startswith("<!", start):
            if self.no_comment_end:
                return None
            if content.startswith("<!--", start):
                return self._comment_end(start)
            if content.startswith("<![CDATA[", start):
                return self._terminated(start + 9, "]]>")
            if _DECLARATION_START.match(content, start):
                return self._terminated(start + 2, ">")
            return None
        if content.startswith("<?", start):
            return self._terminated(start + 2, "?>")
        tag = _INLINE_TAG.match(content, start)
        return tag.end() if tag else None

    def _comment_end(self, start: int) -> int | None:
        content = self.content
        if content.startswith("<!-->", start):
            return start + 5
        if content.startswith("<!--->", start):
            return start + 6
        rest = _COMMENT_REST.match(content, start + 4)
        if rest is None:
            self.no_comment_end = True
            return None
        return rest.end()

    def _terminated(self, position: int, terminator: str) -> int | None:
        if position >= self.no_terminator_after.get(terminator, len(self.content) + 1):
            return None
        found = self.content.find(terminator, position)
        if found < 0:
            self.no_terminator_after[terminator] = position
            return None
        return found + len(terminator)

    def _text(self, start: int, end: int) -> None:
        if start < end and self.browser.hides_text():
            self.hidden.append((start, end, False))
            self.browser.read_escaped(self.content[start:end])

    def _raw(self, start: int, end: int) -> None:
        shown_from = start
        for begin, finish in self.browser.read_raw(self.content, start, end):
            if begin > shown_from:
                self.hidden.append((shown_from, begin, False))
            shown_from = finish
        if shown_from < end:
            self.hidden.append((shown_from, end, False))

    def _split(self) -> list[ShownLine]:
        shown, line_start, hidden = [], 0, self.hidden
        index = 0
        for number, line, start in self.lines:
            line_end = line_start + len(line) - start
            text: list[str] = []
            prose: list[str] = []
            position = line_start
            while index < len(hidden) and hidden[index][0] < line_end:
                begin, end, is_code = hidden[index]
                piece = self.content[position:max(position, begin)]
                text.append(piece)
                prose.append(piece)
                if is_code and begin >= line_start and end <= line_end:
                    text.append(self.content[begin:end])  # a code span within the line
                position = max(position, min(end, line_end))
                if end > line_end:
                    break  # continues on the next line
                index += 1
            text.append(self.content[position:line_end])
            prose.append(self.content[position:line_end])
            shown_text = "".join(text).strip(" \t")
            if shown_text:
                shown.append(ShownLine(number, line, shown_text,
                                       "".join(prose).strip(" \t")))
            line_start = line_end + 1
        return shown


# --- the browser's view of raw HTML --------------------------------------------------------

_DATA, _COMMENT, _BOGUS, _TAG, _TAG_DOUBLE_QUOTED, _TAG_SINGLE_QUOTED = range(6)
_IN_TAG = (_TAG, _TAG_DOUBLE_QUOTED, _TAG_SINGLE_QUOTED)
_COMMENT_END = re.compile(r"--!?>")
_TAG_NAME = re.compile(r"</?(?P<name>[A-Za-z][^\t\n\f />]*)")
_TAG_WHITESPACE = frozenset(" \t\n\f")


def escape_as_cmark(text: str) -> str:
    """Text as cmark writes it into HTML (houdini_escape_html0 without `secure`)."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


class _Browser:
    """The state of an HTML tokenizer (WHATWG §13.2.5) over the HTML GitHub produces, in
    document order: comments, bogus comments (`<?`, `<!x`, `</1`) and tags, whose quoted
    attribute values may run past their raw HTML. Text cmark writes is escaped, so only a
    tag left open can be changed by it; markup cmark writes (`<p>`, `</li>`, …) is taken to
    carry no quotes. Text inside raw `<pre>` or `<code>` is code, as in Markdown."""

    def __init__(self) -> None:
        self.state = _DATA
        self.after_equals = False
        self.open_code = {"pre": 0, "code": 0}  # raw <pre> and <code> not yet closed

    @property
    def in_code(self) -> bool:
        return self.open_code["pre"] > 0 or self.open_code["code"] > 0

    def hides_text(self) -> bool:
        return self.state != _DATA or self.in_code

    def markup(self, tags: str = "<x>") -> None:
        """cmark wrote tags of its own: only their quotes and `pre`/`code` names matter, so
        every other tag is written `<x>`."""
        if self.state == _DATA and "pre" not in tags and "code" not in tags:
            return  # a whole tag read in data changes nothing but the code count
        self.read_raw(tags, 0, len(tags))

    def read_escaped(self, text: str) -> None:
        """cmark wrote `text` escaped: it can only move a tag's attribute state."""
        if self.state in _IN_TAG:
            escaped = escape_as_cmark(text)
            self._tag(escaped, 0, len(escaped))

    def read_raw(self, raw: str, start: int, end: int) -> list[tuple[int, int]]:
        """Read raw[start:end]; the parts shown as text."""
        shown: list[tuple[int, int]] = []
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
                if stop > position and not self.in_code:
                    shown.append((position, stop))
                if opening < 0:
                    return shown
                position = self._markup_start(raw, stop, end, shown)
        return shown

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
            if tag in self.open_code:
                closing = name.group().startswith("</")
                self.open_code[tag] = max(0, self.open_code[tag] + (-1 if closing else 1))
            self.state, self.after_equals = _TAG, False
            return name.end()
        if rest.startswith(("<!", "<?", "</")):
            self.state = _BOGUS
            return start + 2
        if not self.in_code:
            shown.append((start, start + 1))  # a lone `<` is text
        return start + 1
