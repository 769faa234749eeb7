"""HTML parsed as a browser parses it (docs/architecture.md, *Directives*): the WHATWG HTML
standard's tokenizer and tree construction, for what a description can hold. GitHub's own
HTML (`body_html`) is sanitized and well formed, and parses as written; HTML that cmark-gfm
renders locally keeps the author's raw HTML, which a browser reads by these rules:

- comments (`<!-- … -->`, `<!-->`, `<!--->`, `--!>`, bogus `<!x>` and `<?x>`), raw text
  (`<script>`, `<style>`, `<textarea>`, `<plaintext>`) and character references;
- implied ends: a block start closes an open `<p>`, `<li>` the previous item, a heading a
  heading, `</p>` with no paragraph open makes an empty one, `</br>` is `<br>`, a stray end
  tag of a block is ignored, a block end closes what is open inside it;
- tables: text and elements that are not table parts are fostered out, before the table; a
  cell or row is implied where the table needs one;
- formatting elements (`<code>`, `<s>`, `<b>`, …) left open are reopened in the next
  block, as the "reconstruct the active formatting elements" step does (the adoption
  agency is simplified: an end tag closes up to its element).

Pure and linear in the input; nesting is bounded (MAX_DEPTH).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, field


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


VOID = _names("area base br col embed hr img image input keygen link meta param source track wbr")
RAW_TEXT = {"script": False, "style": False, "xmp": False, "iframe": False, "noembed": False,
            "noframes": False, "textarea": True, "title": True}  # True: entities decoded
CLOSES_P = _names("address article aside blockquote center details dialog dir div dl fieldset "
                  "figcaption figure footer form header hgroup hr listing main menu nav ol p pre "
                  "search section summary table ul xmp plaintext li dd dt h1 h2 h3 h4 h5 h6")
HEADINGS = _names("h1 h2 h3 h4 h5 h6")
FORMATTING = _names("a b big code em font i nobr s small strike strong tt u")
SPECIAL = CLOSES_P | _names("applet area base body br caption col colgroup embed head html "
                            "iframe img input link marquee meta noembed noframes object param "
                            "script source style tbody td template textarea tfoot th thead "
                            "title tr track wbr")
SCOPE = _names("applet caption html table td th marquee object template")
IMPLIED_END = _names("dd dt li optgroup option p rb rp rt rtc")
TABLE_CONTEXT = _names("table tbody thead tfoot tr")
TABLE_PARTS = _names("caption col colgroup tbody td tfoot th thead tr")
MAX_DEPTH = 512  # open elements; deeper nesting is flattened (its text is kept)

_TAG_END = re.compile(r"[\s/>]")
_ATTRIBUTE = re.compile(r"""[\s/]*(?P<name>[^\s/>=][^\s/>=]*|=[^\s/>=]*)"""
                        r"""(?:\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s>]*)))?""")
_WHITESPACE = " \t\n\f\r"


@dataclass(eq=False)
class Element:
    name: str
    attributes: dict[str, str] = field(default_factory=dict)
    children: list[Element | str] = field(default_factory=list)
    parent: Element | None = field(default=None, repr=False)

    def append(self, child: Element | str, before: Element | None = None) -> None:
        index = self.children.index(before) if before is not None else len(self.children)
        if isinstance(child, str) and index and isinstance(self.children[index - 1], str):
            self.children[index - 1] += child  # type: ignore[operator]
            return
        if isinstance(child, Element):
            child.parent = self
        self.children.insert(index, child)


Token = tuple[str, str, dict[str, str], bool]  # (kind, name or text, attributes, self-closing)


def tokens(text: str) -> Iterator[Token]:
    """The tokens of `text`: ("start", name, attributes, self-closing), ("end", name, …),
    ("text", data, …); comments and doctypes are read and dropped (a browser shows none)."""
    position, size, raw = 0, len(text), ""
    while position < size:
        if raw:  # inside <script>, <textarea>, …: up to its own end tag
            closing = re.compile(rf"</{raw}(?=[\s/>])", re.IGNORECASE).search(text, position)
            stop = closing.start() if closing else size
            data = text[position:stop]
            yield "text", html.unescape(data) if RAW_TEXT[raw] else data, {}, False
            position, raw = stop, ""
            continue
        opening = text.find("<", position)
        if opening < 0:
            yield "text", html.unescape(text[position:]), {}, False
            return
        if opening > position:
            yield "text", html.unescape(text[position:opening]), {}, False
        position = opening
        following = text[position + 1:position + 3]
        if following[:1].isascii() and following[:1].isalpha():
            token, position = _tag(text, position + 1, "start")
            if token is None:
                return  # EOF inside a tag: nothing
            yield token
            if token[1] == "plaintext":
                yield "text", text[position:], {}, False
                return
            raw = token[1] if token[1] in RAW_TEXT else ""
        elif following[:1] == "/" and following[1:2].isascii() and following[1:2].isalpha():
            token, position = _tag(text, position + 2, "end")
            if token is None:
                return
            yield token
        elif following == "/>":
            position += 3
        elif text.startswith("<!--", position):
            position = _comment_end(text, position + 4)
        elif following[:1] in ("!", "?", "/") and following != "/":
            # A doctype, `<![CDATA[`, `<?…>`, `</ …>`: a bogus comment up to `>`.
            end = text.find(">", position + 2)
            position = size if end < 0 else end + 1
        else:
            yield "text", "<", {}, False
            position += 1


def _comment_end(text: str, start: int) -> int:
    """Where a comment that opened before `start` ends: `<!-->` and `<!--->` end at once, else
    the first `-->` or `--!>`, else the end of the input."""
    if text.startswith(">", start):
        return start + 1
    if text.startswith("->", start):
        return start + 2
    ends = [found for found in (text.find("-->", start), text.find("--!>", start)) if found >= 0]
    if not ends:
        return len(text)
    first = min(ends)
    return first + (3 if text.startswith("-->", first) else 4)


def _tag(text: str, start: int, kind: str) -> tuple[Token | None, int]:
    found = _TAG_END.search(text, start)
    if found is None:
        return None, len(text)
    name = text[start:found.start()].lower().replace("\0", "\ufffd")
    position, attributes = found.start(), dict[str, str]()
    while True:
        while position < len(text) and text[position] in _WHITESPACE + "/":
            if text.startswith("/>", position):
                return (kind, name, attributes, True), position + 2
            position += 1
        if position >= len(text):
            return None, len(text)
        if text[position] == ">":
            return (kind, name, attributes, False), position + 1
        attribute = _ATTRIBUTE.match(text, position)
        assert attribute is not None and attribute.end() > position
        value = attribute["dq"] if attribute["dq"] is not None else (
            attribute["sq"] if attribute["sq"] is not None else attribute["bare"] or "")
        attributes.setdefault(attribute["name"].lower(), html.unescape(value))
        position = attribute.end()


class Builder:
    """The tree of a document's body, built token by token."""

    def __init__(self) -> None:
        self.root = Element("body")
        self.stack: list[Element] = [self.root]
        self.active: list[Element | None] = []  # active formatting elements; None: a marker
        self.skip_newline = False  # after <pre>, <listing>, <textarea>

    @property
    def current(self) -> Element:
        return self.stack[-1]

    def feed(self, text: str) -> Element:
        for kind, name, attributes, _closing in tokens(text):
            if kind == "text":
                if self.skip_newline and name.startswith("\n"):
                    name = name[1:]
                self.skip_newline = False
                if name:
                    self.text(name)
            elif kind == "start":
                self.skip_newline = False
                self.start(name, attributes)
            else:
                self.end(name)
        return self.root

    # ---- insertion -----------------------------------------------------------------------

    def _in_table(self) -> bool:
        return self.current.name in TABLE_CONTEXT

    def _insert(self, element: Element, foster: bool) -> None:
        if foster and self._in_table():
            table = next(node for node in reversed(self.stack) if node.name == "table")
            assert table.parent is not None
            table.parent.append(element, before=table)
        else:
            self.current.append(element)
        if element.name not in VOID and len(self.stack) < MAX_DEPTH:
            self.stack.append(element)

    def text(self, data: str) -> None:
        if self._in_table():
            if not data.strip(_WHITESPACE):
                self.current.append(data)
                return
            self._reconstruct(foster=True)
            table = next(node for node in reversed(self.stack) if node.name == "table")
            assert table.parent is not None
            if self._in_table():
                table.parent.append(data, before=table)
            else:
                self.current.append(data)
            return
        self._reconstruct(foster=False)
        self.current.append(data)

    def _element(self, name: str, attributes: dict[str, str], foster: bool = False) -> Element:
        element = Element(name, dict(attributes))
        self._insert(element, foster)
        return element

    # ---- start tags ----------------------------------------------------------------------

    def start(self, name: str, attributes: dict[str, str]) -> None:
        if name in ("html", "body", "head", "frameset"):
            return
        if self._in_table():
            self._start_in_table(name, attributes)
            return
        if name in TABLE_PARTS and self._in_scope_any(("td", "th", "caption"), SCOPE):
            self._close_cell()  # a new cell, row or section closes the open cell
            self.start(name, attributes)
            return
        self._start_in_body(name, attributes, foster=False)

    def _start_in_body(self, name: str, attributes: dict[str, str], foster: bool) -> None:
        if name in TABLE_PARTS:
            return  # outside a table: ignored
        if name in CLOSES_P:
            self._close_p()
            if name in HEADINGS and self.current.name in HEADINGS:
                self.stack.pop()
            elif name in ("li", "dd", "dt"):
                self._close_item(("li",) if name == "li" else ("dd", "dt"))
            self._element(name, attributes, foster)
            self.skip_newline = name in ("pre", "listing")
            return
        if name in ("applet", "marquee", "object"):
            self._reconstruct(foster)
            self._element(name, attributes, foster)
            self.active.append(None)
            return
        self._reconstruct(foster)
        if name in FORMATTING:
            if name in ("a", "nobr") and self._active_named(name) is not None:
                self.end(name)
            self.active.append(self._element(name, attributes, foster))
            return
        self._element("img" if name == "image" else name, attributes, foster)
        self.skip_newline = name == "textarea"

    def _start_in_table(self, name: str, attributes: dict[str, str]) -> None:
        if name == "table":
            self._pop_until(("table",))
            self.start(name, attributes)
        elif name == "caption":
            self._clear_to(("table",))
            self._element(name, attributes)
            self.active.append(None)
        elif name in ("colgroup", "col") or name in ("tbody", "thead", "tfoot"):
            self._clear_to(("table",))
            self._element(name, attributes)
        elif name == "tr":
            self._clear_to(("tbody", "thead", "tfoot", "table"))
            if self.current.name == "table":
                self._element("tbody", {})
            self._element(name, attributes)
        elif name in ("td", "th"):
            self._clear_to(("tr", "tbody", "thead", "tfoot", "table"))
            if self.current.name == "table":
                self._element("tbody", {})
            if self.current.name != "tr":
                self._element("tr", {})
            self._element(name, attributes)
            self.active.append(None)
        elif name in ("style", "script", "template") or (
                name == "input" and attributes.get("type", "").lower() == "hidden"):
            self._element(name, attributes)
        else:  # anything else is fostered out, before the table
            self._start_in_body(name, attributes, foster=True)

    # ---- end tags ------------------------------------------------------------------------

    def end(self, name: str) -> None:
        if name in ("html", "body", "head"):
            return
        if name == "br":
            self.start("br", {})
            return
        if name == "p":
            if not self._in_scope("p", SCOPE | {"button"}):
                self._element("p", {})  # `</p>` alone: an empty paragraph
            self._close_p()
            return
        if name in ("td", "th", "caption"):
            if self._in_scope(name, frozenset({"html", "table", "template"})):
                self._pop_until((name,))
                self._clear_formatting()
            return
        if name in ("tr", "tbody", "thead", "tfoot", "table"):
            if self._in_scope(name, frozenset({"html", "table", "template"})):
                self._pop_until((name,))
            return
        if name in FORMATTING:
            element = self._active_named(name)
            if element is not None:
                self.active.remove(element)
                if element in self.stack:
                    self._pop_until_node(element)
                return
        if name in HEADINGS:
            if self._in_scope_any(tuple(HEADINGS), SCOPE):
                self._implied_ends()
                self._pop_until(tuple(HEADINGS))
            return
        boundary = SCOPE | ({"ol", "ul"} if name == "li" else set())
        if name in SPECIAL:
            if self._in_scope(name, frozenset(boundary)):
                self._implied_ends(except_=name)
                self._pop_until((name,))
                if name in ("applet", "marquee", "object"):
                    self._clear_formatting()
            return
        for node in reversed(self.stack[1:]):  # any other end tag
            if node.name == name:
                self._implied_ends(except_=name)
                self._pop_until_node(node)
                return
            if node.name in SPECIAL:
                return

    # ---- the stack and the active formatting elements ------------------------------------

    def _in_scope(self, name: str, boundary: frozenset[str]) -> bool:
        return self._in_scope_any((name,), boundary)

    def _in_scope_any(self, names: tuple[str, ...], boundary: frozenset[str]) -> bool:
        for node in reversed(self.stack):
            if node.name in names:
                return True
            if node.name in boundary:
                return False
        return False

    def _close_p(self) -> None:
        if self._in_scope("p", SCOPE | {"button"}):
            self._implied_ends(except_="p")
            self._pop_until(("p",))

    def _close_item(self, names: tuple[str, ...]) -> None:
        for node in reversed(self.stack[1:]):
            if node.name in names:
                self._implied_ends(except_=node.name)
                self._pop_until_node(node)
                return
            if node.name in SPECIAL and node.name not in ("address", "div", "p"):
                return

    def _close_cell(self) -> None:
        self._pop_until(("td", "th", "caption"))
        self._clear_formatting()

    def _implied_ends(self, except_: str = "") -> None:
        while self.current.name in IMPLIED_END and self.current.name != except_ and len(
                self.stack) > 1:
            self.stack.pop()

    def _pop_until(self, names: tuple[str, ...]) -> None:
        while len(self.stack) > 1:
            if self.stack.pop().name in names:
                return

    def _pop_until_node(self, node: Element) -> None:
        while len(self.stack) > 1 and self.stack.pop() is not node:
            pass

    def _clear_to(self, names: tuple[str, ...]) -> None:
        while self.current.name not in names and len(self.stack) > 1:
            self.stack.pop()

    def _active_named(self, name: str) -> Element | None:
        for entry in reversed(self.active):
            if entry is None:
                return None
            if entry.name == name:
                return entry
        return None

    def _clear_formatting(self) -> None:
        while self.active and self.active.pop() is not None:
            pass

    def _reconstruct(self, foster: bool) -> None:
        """Reopen the formatting elements still active but closed by a block's end."""
        if not self.active or self.active[-1] is None or self.active[-1] in self.stack:
            return
        index = len(self.active) - 1
        while index > 0 and self.active[index - 1] is not None and (
                self.active[index - 1] not in self.stack):
            index -= 1
        for position in range(index, len(self.active)):
            old = self.active[position]
            assert old is not None
            self.active[position] = self._element(old.name, old.attributes, foster)


def parse(text: str) -> Element:
    """The body of the document `text` is, as a browser builds it."""
    return Builder().feed(text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd"))
