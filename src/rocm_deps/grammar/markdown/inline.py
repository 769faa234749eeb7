"""One paragraph's inline constructs that hide text: code spans (which may span lines), raw
HTML (comments `<!-->`, `<!--->`, `<!-- … -->`, tags) and back-slash escapes, left to right
as cmark-gfm 0.29.0.gfm.13's inlines.c reads them."""

from __future__ import annotations

import html
import re

from rocm_deps.grammar.markdown.html import (
    CLOSE_TAG,
    OPEN_TAG,
    SPACE,
    Browser,
    separates,
)
from rocm_deps.grammar.markdown.labels import normalise_label
from rocm_deps.grammar.markdown.shown import ShownLine

_INLINE_SPECIAL = re.compile(r"[\\`<]")
_BACKTICKS = re.compile(r"`+")
MAX_BACKTICKS = 80
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_INLINE_TAG = re.compile(rf"<(?:{OPEN_TAG}|{CLOSE_TAG})")
_DECLARATION_START = re.compile(rf"<![A-Z]+{SPACE}")
# cmark's scan_html_comment after `<!--`: at each `-` the next character decides the branch,
# so a failed match costs time linear in what it read.
# `[^label]` with a label cmark-gfm reads as one piece of text (no character that starts an
# inline construct), not followed by a link destination.
_FOOTNOTE_REFERENCE = re.compile(r"\[\^(?P<label>[^\]\s!&*<\[\\_`~]+)\](?!\()")
_COMMENT_REST = re.compile(r"(?:[^-]|-[^-]|--[^>])*-->")
# What a part of the content not shown as text is: hidden (a comment, a tag, text a comment
# or a tag runs over), a code span GitHub shows, text inside raw `<pre>` or `<code>`.
# SEPARATOR: a raw tag that separates the text around it (`<img>`): shown as a blank.
# LINE_START: one after which a browser starts a new line (`<br>`, `<div>`, `</summary>`):
# what follows is a line of its own, where a directive can start.
HIDDEN, CODE_SPAN, RAW_CODE, SEPARATOR, LINE_START = range(5)


class Inline:
    """One paragraph's code spans and raw HTML, left to right as cmark's inlines.c."""

    def __init__(self, lines: list[tuple[int, str, int]], browser: Browser) -> None:
        self.lines = lines
        self.browser = browser
        self.content = "\n".join(line[start:] for _, line, start in lines)
        self.backticks: dict[int, int] = {}
        self.scanned_for_backticks = False
        # Where a search for a terminator found none: later searches would find none either,
        # so many unterminated openers in one paragraph stay linear.
        self.no_terminator_after: dict[str, int] = {}
        self.no_comment_end = False
        # (start, end, HIDDEN | CODE_SPAN | RAW_CODE): parts of the content not shown as text
        self.hidden: list[tuple[int, int, int]] = []
        # (start, end): the code spans and raw HTML cmark-gfm found, whatever the browser
        # makes of them
        self.constructs: list[tuple[int, int]] = []
        # (start, end): text shown struck through (inside raw <del>, <s>, <strike>)
        self.struck: list[tuple[int, int]] = []
        self.scanned = False

    def shown(self) -> list[ShownLine]:
        self._scan()
        return self._split()

    def footnote_references(self) -> list[str]:
        """The labels of the paragraph's footnote references (`[^label]`), in order: not in
        a code span or raw HTML, not escaped, not the text of a link. cmark-gfm finds them
        whatever a browser later shows of them."""
        self._scan()
        labels = []
        for reference in _FOOTNOTE_REFERENCE.finditer(self.content):
            start, end = reference.span()
            backslashes = len(self.content[:start]) - len(self.content[:start].rstrip("\\"))
            if backslashes % 2 or any(begin < end and start < finish
                                      for begin, finish in self.constructs):
                continue
            labels.append(normalise_label(reference.group("label")))
        return labels

    def _scan(self) -> None:
        if self.scanned:
            return
        self.scanned = True
        content, position, text_from = self.content, 0, 0
        while (special := _INLINE_SPECIAL.search(content, position)) is not None:
            position = special.start()
            character = content[position]
            if character == "\\":
                if content[position + 1:position + 2] == "\n":  # a hard line break: not shown
                    self._text(text_from, position)
                    self.hidden.append((position, position + 1, HIDDEN))
                    text_from = position + 1
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
            self.constructs.append((position, end))
            if character == "`":
                shown = not self.browser.hides_text()
                # Inside raw <code> a code span is more of its code (`<code>\`x\`</code>`).
                self.hidden.append((position, end, CODE_SPAN if shown else
                                    RAW_CODE if self.browser.shows_code else HIDDEN))
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
            self.hidden.append((start, end, RAW_CODE if self.browser.shows_code else HIDDEN))
            self.browser.read_escaped(self.content[start:end])
        elif start < end and self.browser.in_struck:
            self.struck.append((start, end))

    def _raw(self, start: int, end: int) -> None:
        shown_from = start
        code: list[tuple[int, int]] = []
        for begin, finish in self.browser.read_raw(self.content, start, end, code, self.struck):
            if begin > shown_from:
                self._hide(shown_from, begin, code)
            shown_from = finish
        if shown_from < end:
            self._hide(shown_from, end, code)
        raw = self.content[start:end]
        if self.browser.line_starts:  # a tag of it starts a line, as the browser reads it
            self.hidden.append((end, end, LINE_START))
        elif separates(raw):
            self.hidden.append((end, end, SEPARATOR))

    def _hide(self, start: int, end: int, code: list[tuple[int, int]]) -> None:
        """content[start:end] is not shown as text: in order, its parts shown as code (raw
        `<pre>` or `<code>` content) and the rest hidden."""
        position = start
        for begin, finish in code:
            if finish <= start or begin >= end:
                continue
            if begin > position:
                self.hidden.append((position, begin, HIDDEN))
            self.hidden.append((max(begin, position), finish, RAW_CODE))
            position = finish
        if position < end:
            self.hidden.append((position, end, HIDDEN))

    def _split(self) -> list[ShownLine]:
        shown: list[ShownLine] = []
        line_start, hidden = 0, self.hidden
        index = 0
        for number, line, start in self.lines:
            line_end = line_start + len(line) - start
            text: list[str] = []
            prose: list[str] = []
            lead: list[str] = []  # the code shown before any text
            seen_text = False  # kept as the line grows: re-reading it would be quadratic
            position = piece_start = line_start
            while index < len(hidden) and hidden[index][0] <= line_end:
                begin, end, kind = hidden[index]
                if begin == line_end and kind != LINE_START:
                    break
                if kind == LINE_START:  # what came before is a displayed line of its own
                    text.append(self.content[position:begin])
                    prose.append(self.content[position:begin])
                    self._emit(shown, number, line, text, prose, lead, piece_start, begin)
                    text, prose, lead, seen_text = [], [], [], False
                    position = piece_start = begin
                    index += 1
                    continue
                piece = self.content[position:max(position, begin)]
                text.append(piece)
                prose.append(piece)
                # Emphasis, a task box or a link's bracket before code shows no text:
                # `*<code>ci-x-pr: #1</code>*`, `[x] \`ci-x-pr: #1\``.
                seen_text = seen_text or MARKUP_ONLY.fullmatch(piece) is None
                if kind in (CODE_SPAN, RAW_CODE) and not seen_text:
                    if lead:  # what parts two pieces of code (a blank, or nothing)
                        lead.append(piece.strip("*_"))
                    lead.append(self._code_text(begin, end, kind, line_start, line_end))
                if kind == SEPARATOR:
                    text.append(" ")
                    prose.append(" ")
                if kind == CODE_SPAN and begin >= line_start and end <= line_end:
                    text.append(self.content[begin:end])  # a code span within the line
                    seen_text = True
                position = max(position, min(end, line_end))
                if end > line_end:
                    break  # continues on the next line
                index += 1
            text.append(self.content[position:line_end])
            prose.append(self.content[position:line_end])
            self._emit(shown, number, line, text, prose, lead, piece_start, line_end)
            line_start = line_end + 1
        return shown

    def _emit(self, shown: list[ShownLine], number: int, line: str, text: list[str],
              prose: list[str], lead: list[str], start: int, end: int) -> None:
        """One displayed line, content[start:end] of source line `number`, when it shows
        anything."""
        shown_text = "".join(text).strip(" \t")
        lead_code = "".join(lead).strip(" \t")
        if not (shown_text or lead_code):
            return
        struck = sum(len(self.content[max(begin, start):min(finish, end)]
                         .replace(" ", "").replace("\t", ""))
                     for begin, finish in self.struck if begin < end and finish > start)
        visible = len("".join(prose).replace(" ", "").replace("\t", ""))
        shown.append(ShownLine(number, line, shown_text, "".join(prose).strip(" \t"),
                               lead_code=lead_code, struck=bool(struck) and struck >= visible,
                               partly_struck=bool(struck) and struck < visible))

    def _code_text(self, begin: int, end: int, kind: int, line_start: int,
                   line_end: int) -> str:
        """What a code part shows on the line from line_start to line_end: a code span's
        content without its back-ticks; the text of raw `<code>`, which cmark reads as
        Markdown (escapes, entities, emphasis and links show their text)."""
        if kind == CODE_SPAN:
            ticks = _BACKTICKS.match(self.content, begin)
            width = ticks.end() - begin if ticks else 0
            begin, end = begin + width, end - width
        text = self.content[max(begin, line_start):min(end, line_end)]
        return (text if kind == CODE_SPAN else _as_shown(text)).strip(" \t")


# What shows no text before code: emphasis, a link's bracket, a task box, or a list marker
# GitHub shows as text (`_1. \`ci-x-pr\`: #1_`), which the directive grammar reports.
MARKUP_ONLY = re.compile(r"(?:[ \t*_\[]|\[[ xX]\][ \t]|\\?(?:[-+>]|[0-9]{1,9}[.)])(?:[ \t]|$))*")
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
_EMPHASIS = re.compile(r"\*+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
_LINK_TEXT = re.compile(r"\[([^\[\]]*)\]\([^()\s]*\)")
_CODE_SPAN_TEXT = re.compile(r"(`+)(.+?)\1")  # a code span's content, without its back-ticks


def _as_shown(text: str) -> str:
    """Markdown text inside raw `<code>` as a browser shows it (a reading enough to see a
    key: the tags and comments inside are already hidden parts)."""
    text = _LINK_TEXT.sub(r"\1", _EMPHASIS.sub("", _CODE_SPAN_TEXT.sub(r"\2", text)))
    return html.unescape(_ESCAPED.sub(r"\1", text))
