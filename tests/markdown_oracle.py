"""What GitHub shows of a body, according to GitHub's own engine.

cmark-gfm (the `cmarkgfm` package) turns the body into HTML with GitHub's options
(`render`), raw HTML passed through as GitHub passes it to its sanitizer; then the HTML is read as a browser reads it: an HTML
tokenizer written from the WHATWG rules for comments (`<!-->`, `<!--->`, `--!>`), bogus
comments (`<?`, `<!x`, `</1`) and tags with quoted attributes. Text inside `<code>` or
`<pre>` is code, not text. This module is deliberately independent of rocm_deps.page:
it is the oracle that module is held against.
"""

from __future__ import annotations

import html
import re

import cmarkgfm
from cmarkgfm.cmark import Options

_TAG_NAME = re.compile(r"</?([A-Za-z][^\t\n\f />]*)")


def render(body: str, *, hard_breaks: bool = False) -> str:
    """GitHub's rendering: the GFM extensions (table, autolink, tagfilter, strikethrough,
    tasklist) and footnotes; raw HTML passed through, as GitHub passes it to its sanitizer.
    `hard_breaks`: a paragraph's newline written `<br />`, as GitHub shows a description."""
    options = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES
    return cmarkgfm.github_flavored_markdown_to_html(
        body, options=options | (Options.CMARK_OPT_HARDBREAKS if hard_breaks else 0))


def shown_text(body: str) -> str:
    """The text a reader sees, code excluded; block boundaries and tags become newlines."""
    return "".join(_Reader(render(body)).text())


class _Reader:
    def __init__(self, document: str) -> None:
        self.document = document
        self.open = {"pre": 0, "code": 0}  # <pre> and <code> elements not yet closed

    def text(self) -> list[str]:
        document, position, pieces = self.document, 0, []
        while position < len(document):
            if document[position] != "<":
                end = document.find("<", position)
                end = len(document) if end < 0 else end
                if not (self.open["pre"] or self.open["code"]):
                    pieces.append(html.unescape(document[position:end]))
                position = end
                continue
            end = self._markup(position)
            if end is None:  # a `<` that starts nothing is text
                if not (self.open["pre"] or self.open["code"]):
                    pieces.append("<")
                position += 1
            else:
                pieces.append("\n")
                position = end
        return pieces

    def _markup(self, start: int) -> int | None:
        """Where the markup at `start` (a `<`) ends; None when the `<` is text."""
        document = self.document
        if document.startswith("<!--", start):
            if document.startswith(">", start + 4):
                return start + 5
            if document.startswith("->", start + 4):
                return start + 6
            return self._comment_end(start + 4)
        following = document[start + 1:start + 2]
        if following in ("!", "?"):
            return self._bogus_end(start + 1)
        if following == "/":
            name = document[start + 2:start + 3]
            if name == ">":
                return start + 3
            if not (name.isascii() and name.isalpha()):
                return self._bogus_end(start + 2)
        elif not (following.isascii() and following.isalpha()):
            return None
        return self._tag_end(start)

    def _comment_end(self, position: int) -> int:
        document = self.document
        ends = [index for index in (document.find("-->", position),
                                     document.find("--!>", position)) if index >= 0]
        if not ends:
            return len(document)
        end = min(ends)
        return end + (3 if document.startswith("-->", end) else 4)

    def _bogus_end(self, position: int) -> int:
        end = self.document.find(">", position)
        return len(self.document) if end < 0 else end + 1

    def _tag_end(self, start: int) -> int:
        document, position, quote = self.document, start + 1, ""
        after_equals = False
        while position < len(document):
            character = document[position]
            if quote:
                if character == quote:
                    quote = ""
            elif character == ">":
                break
            elif character in "\"'" and after_equals:
                quote = character
            if not quote:
                if character == "=":
                    after_equals = True
                elif character not in " \t\n\f":
                    after_equals = False
            position += 1
        tag = document[start:position + 1]
        name = _TAG_NAME.match(tag)
        tag_name = name.group(1).lower() if name else ""
        if tag_name in self.open:  # an end tag with no open element is ignored
            self.open[tag_name] = max(0, self.open[tag_name] + (-1 if tag.startswith("</") else 1))
        return position + 1


# Inline elements: their tags do not break the line of text. <del> (strikethrough) hides its
# text here: the author struck it out.
_INLINE = frozenset({"strong", "em", "del", "s", "strike", "a", "span", "input", "b", "i",
                     "sup", "sub", "ins", "kbd", "mark", "q", "small", "u", "code"})
# Elements without an end tag: they open nothing.
_VOID = frozenset({"br", "hr", "img", "input", "wbr", "col", "area", "source", "meta", "link"})
_CLOSES_P = frozenset({"address", "article", "aside", "blockquote", "center", "details",
                       "dialog", "div", "dl", "fieldset", "figcaption", "figure", "footer",
                       "header", "hgroup", "main", "menu", "nav", "ol", "p", "search",
                       "section", "summary", "ul", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
                       "table", "hr", "li", "dd", "dt", "form"})
_TABLE_PARTS = frozenset({"caption", "thead", "tbody", "tfoot", "tr", "td", "th", "col",
                          "colgroup"})
# An image sits in the line but is no text: what is on either side are two words.
_APART = frozenset({"img"})


def shown_text_lines(body: str) -> list[str]:
    """The lines of text a reader sees, as GitHub lays them out: block elements start a new
    line, inline ones (emphasis, links, a task list's box) do not; code and struck-through
    text are left out. A newline of the HTML is a space to a browser: a paragraph's line
    breaks are the `<br />` GitHub writes, and the lines of a raw HTML block run on."""
    document = _without_rows_of_several_cells(render(body, hard_breaks=True))
    pieces: list[str] = []
    position, struck = 0, {"del": 0, "s": 0, "strike": 0}
    blocks: list[tuple[str, int]] = []  # open block elements, with the <del> count before
    reader = _Reader(document)
    while position < len(document):
        if document[position] != "<":
            end = document.find("<", position)
            end = len(document) if end < 0 else end
            if not (reader.open["pre"] or reader.open["code"] or any(struck.values())):
                pieces.append(html.unescape(document[position:end]).replace("\n", " "))
            position = end
            continue
        end = reader._markup(position)
        if end is None:
            if not (reader.open["pre"] or reader.open["code"] or any(struck.values())):
                pieces.append("<")
            position += 1
            continue
        tag = _TAG_NAME.match(document, position)
        name = tag.group(1).lower() if tag else ""
        closing = document.startswith("</", position)
        # The HTML parser ignores an end tag with no open element of its name (but `</p>` and
        # `</br>`, which make one) and table parts outside a table: no line starts there.
        ignored = bool(name) and name not in _INLINE and (
            (name in _TABLE_PARTS and not any(open_name == "table" for open_name, _ in blocks))
            or (closing and name not in ("p", "br")
                and not any(open_name == name for open_name, _ in blocks)))
        if name in struck:
            # an end tag with no open element of its name is ignored, as the browser does
            struck[name] = max(0, struck[name] + (-1 if closing else 1))
        elif ignored:
            pass
        elif name and name not in _INLINE and name not in _VOID:
            # A block's end tag pops what was opened inside it (the HTML parser's "pop until"),
            # a struck-out <del> too; <s> and <strike> are formatting elements, which the
            # browser reopens in the next block, so they stay.
            if not closing:
                # A block's start tag closes an open <p> (the parser's "close a p element"),
                # and a <del> opened in it: <del> is no formatting element it reopens.
                if name in _CLOSES_P and blocks and blocks[-1][0] == "p":
                    struck["del"] = min(struck["del"], blocks.pop()[1])
                blocks.append((name, struck["del"]))
            elif any(open_name == name for open_name, _ in blocks):
                while blocks:
                    open_name, before = blocks.pop()
                    if open_name == name:
                        struck["del"] = min(struck["del"], before)
                        break
        if name in _APART or ignored:
            pieces.append(" " if name in _APART else "")
        elif name not in _INLINE:
            pieces.append("\n")
        position = end
    return [line.strip() for line in "".join(pieces).split("\n") if line.strip()]


_ROW = re.compile(r"<tr\b[^>]*>.*?</tr>", re.DOTALL | re.IGNORECASE)
_CELL = re.compile(r"<t[dh]\b[^>]*>(.*?)(?=<t[dh]\b|</tr>)", re.DOTALL | re.IGNORECASE)


def _without_rows_of_several_cells(document: str) -> str:
    """The table rule (docs/directives.md): the cells of a row with several that show
    something are side by side, not lines a directive can start; a row with one such cell
    (a line written under a table fills only the first) reads as its line."""
    def filled(row: str) -> int:
        return sum(1 for cell in _CELL.findall(row)
                   if re.sub(r"<[^>]*>", "", cell).strip())

    return _ROW.sub(lambda row: "<tr></tr>" if filled(row.group()) > 1 else row.group(),
                    document)
