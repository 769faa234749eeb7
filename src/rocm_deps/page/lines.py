"""The lines a description's page displays (docs/architecture.md, *Directives*), from its HTML:
GitHub's `body_html`, or what GitHub's engine renders locally (`page/render.py`), parsed as a
browser parses it (`page/tree.py`).

A block element or `<br>` starts a line; white space collapses, except in `<pre>`, whose
newlines start lines. Each character carries what the page shows it as: code (`<code>`,
`<pre>`, `<tt>`, `<kbd>`, `<samp>`), struck (`<del>`, `<s>`, `<strike>`), and the link it is
part of (its target). The cells of a table row with several cells are each a line of their
own, marked as such. What the page hides is not read: comments (the parser drops them),
`<script>` and `<style>` contents, text a screen reader alone gets (GitHub's own `sr-only`),
ruby's fallback parentheses (`<rp>`), a footnote's back-link (its `↩`), and what GitHub's
sanitizer removes; an element the sanitizer does not allow is unwrapped (its text stays, on
the line it is on), as GitHub unwraps it. HTML rendered here goes through GitHub's sanitizer
first (`page/sanitize.py`): an author's own `class="sr-only"` is no longer GitHub's, and
shows. A character is also marked when the page does not show it as plain text on the line:
raised or lowered (`<sup>`, `<sub>`, a footnote marker), an annotation (`<ruby>`, `<rt>`), or
reordered (`<bdo>`, a `dir` other than `auto` or `ltr`). Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rocm_deps.page.sanitize import sanitized
from rocm_deps.page.tree import Element, parse


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# What GitHub's sanitizer keeps (html-pipeline's allowlist, and what its own filters add
# after it: heading anchors, footnotes, task boxes); any other element is unwrapped.
ALLOWED = _names("a abbr b bdo blockquote br caption cite code dd del details dfn div dl dt em "
                 "figcaption figure g-emoji h1 h2 h3 h4 h5 h6 hr i img input ins kbd li mark ol p "
                 "picture pre q rp rt ruby s samp section small source span strike strong sub "
                 "summary sup table tbody td tfoot th thead time tr tt ul var wbr")
BLOCK = _names("blockquote caption dd details div dl dt figcaption figure h1 h2 h3 h4 h5 h6 hr li "
               "ol p pre section summary table tbody tfoot thead tr ul")
CODE = _names("code kbd pre samp tt")
STRUCK = _names("del s strike")
HIDDEN = _names("head iframe noembed noframes noscript rp script style svg template textarea "
                "title xmp")
# Not shown as plain text on its line: raised, lowered, annotated (`<bdo>` and `dir` below).
ODD = _names("sup sub ruby rt bdo")
# A footnote's back-link as GitHub (`#user-content-fnref-…`) and its engine (`#fnref-…`)
# write it: an arrow, with the reference's number when it is referenced more than once.
_BACKLINK = re.compile(r"#(?:user-content-)?fnref-\S*")
_ARROW = re.compile(r"\s*\u21a9(?:\s*[0-9]+)?\s*")
_SPACES = re.compile(r"[ \t\n\f\r]+")


@dataclass(frozen=True)
class ShownLine:
    """One displayed line: its text, and per character whether it is code, struck, and the
    link it is part of. `cell`: one cell of a table row with several cells."""

    text: str
    code: tuple[bool, ...]
    struck: tuple[bool, ...]
    links: tuple[str | None, ...]
    cell: bool = False
    block: bool = False  # a line of a code block (`<pre>`): all of it code
    # Per character: not shown as plain text (raised, lowered, annotated, reordered).
    odd: tuple[bool, ...] = ()

    def all_code(self, start: int = 0, end: int | None = None) -> bool:
        part = self.code[start:len(self.text) if end is None else end]
        return bool(part) and all(part)

    def leading_code(self) -> int:
        """Where the code the line starts with ends (0: it starts with text)."""
        index = 0
        while index < len(self.text) and self.code[index]:
            index += 1
        return index


@dataclass
class _Context:
    code: int = 0
    struck: int = 0
    pre: int = 0
    link: str | None = None
    cell: bool = False
    odd: int = 0


class _Lines:
    def __init__(self) -> None:
        self.lines: list[ShownLine] = []
        self.chars: list[str] = []
        self.marks: list[tuple[bool, bool, str | None, bool]] = []
        self.cell = False
        self.block = True

    def add(self, text: str, context: _Context) -> None:
        if context.pre:
            first, *rest = text.split("\n")
            self._append(first, context)
            for part in rest:
                self.flush()
                self._append(part, context)
            return
        text = _SPACES.sub(" ", text)
        if text.startswith(" ") and (not self.chars or self.chars[-1] == " "):
            text = text[1:]
        self._append(text, context)

    def _append(self, text: str, context: _Context) -> None:
        if not text:
            return
        self.cell = self.cell or context.cell
        self.block = self.block and context.pre > 0
        self.chars.extend(text)
        mark = (context.code > 0, context.struck > 0, context.link, context.odd > 0)
        self.marks.extend([mark] * len(text))

    def flush(self) -> None:
        text = "".join(self.chars)
        start, end = len(text) - len(text.lstrip(" ")), len(text.rstrip(" "))
        if start < end:
            code, struck, links, odd = zip(*self.marks[start:end], strict=True)  # in C
            self.lines.append(ShownLine(text[start:end], code, struck, links, self.cell,
                                        self.block, odd))
        self.chars, self.marks, self.cell, self.block = [], [], False, True


def shown_lines(page: str, sanitize: bool = False) -> list[ShownLine]:
    """The lines the HTML `page` displays, in order; `sanitize`: HTML rendered here, which
    GitHub's sanitizer has not seen yet."""
    lines = _Lines()
    root = sanitized(parse(page)) if sanitize else parse(page)
    # Iterative: (node, context) to enter, or the marker of an element to leave.
    todo: list[tuple[Element | str | None, _Context, str]] = [(root, _Context(), "")]
    while todo:
        node, context, leaving = todo.pop()
        if node is None:  # leaving an element
            if leaving in BLOCK or leaving in ("td", "th", "br"):
                lines.flush()
            elif leaving == "q":
                lines.add("\u201d", context)
            continue
        if isinstance(node, str):
            lines.add(node, context)
            continue
        name = node.name
        if name in HIDDEN or "sr-only" in node.attributes.get("class", "").split() or (
                _backlink(node)):
            continue  # hidden, or a footnote's back-link (an icon)
        shown = name in ALLOWED or name == "body"
        if name == "br" and shown:
            lines.flush()
            continue
        if name == "img" and shown:  # a picture between words: a word of its own
            lines.add(" ", context)
            continue
        inner = _Context(context.code, context.struck, context.pre, context.link, context.cell,
                         context.odd)
        if shown:
            inner.odd += name in ODD or node.attributes.get("dir", "auto").strip().lower() not in (
                "auto", "ltr")
            inner.code += name in CODE
            inner.struck += name in STRUCK
            inner.pre += name == "pre"
            if name == "a" and "href" in node.attributes:
                inner.link = node.attributes["href"]
            if name == "tr":
                cells = sum(1 for child in node.children if isinstance(child, Element)
                            and child.name in ("td", "th"))
                inner.cell = cells > 1
            if name in BLOCK or name in ("td", "th"):
                lines.flush()
            if name == "q":
                lines.add("\u201c", context)
        todo.append((None, context, name if shown else ""))
        todo.extend((child, inner, "") for child in reversed(node.children))
    lines.flush()
    return lines.lines


def _backlink(node: Element) -> bool:
    """A footnote's back-link: its target and its arrow (never an author's text)."""
    if node.name != "a" or not _BACKLINK.fullmatch(node.attributes.get("href", "")):
        return False
    return bool(_ARROW.fullmatch(_text_of(node)))


def _text_of(node: Element) -> str:
    return "".join(child if isinstance(child, str) else _text_of(child)
                   for child in node.children)
