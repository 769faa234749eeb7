"""What a shown line displays, letter by letter (docs/architecture.md, *Directives*): a directive is
recognised by the text a reader sees, not by the Markdown written.

The Markdown model (`markdown`) has already removed container markers, heading markers and
hidden parts; what is left here is inline: a task list's box, emphasis and strong markers
around the key or the line, strikethrough, and HTML entities decoded as GitHub decodes them
(`ci&#45;sglang-pr:` shows as `ci-sglang-pr:`). Pure string functions, linear in the line.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

_TASK_BOX = re.compile(r"\[[ xX]\][ \t]+")
_DELIMITER_RUN = re.compile(r"\*{1,3}|_{1,3}")
_STRIKE_RUN = re.compile(r"~~?(?!~)")
# cmark's entities: decimal (1 to 7 digits), hexadecimal (1 to 6), named; always with `;`,
# never after a back-slash, never inside a code span.
_ENTITY = re.compile(r"(?<!\\)&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
# An inline link shows its text, an image its picture (no text): `[ci-sglang-pr](x): #1`
# shows `ci-sglang-pr: #1`. Destinations without blanks or parentheses, as links here are.
_LINK = re.compile(r"(?<![\\!])\[(?P<text>[^\[\]`]*)\]\((?:[^()\s]*)(?:\s+\"[^\"]*\")?\)")
_IMAGE = re.compile(r"(?<!\\)!\[[^\[\]]*\]\((?:[^()\s]*)(?:\s+\"[^\"]*\")?\)")
_BLANKS = str.maketrans("\n\r\t\f\v", "     ")
MAX_LAYERS = 4  # `- [x] **~~ci-sglang-pr: #1~~**`: box, strong, strike; bounded


@dataclass(frozen=True)
class Display:
    """A line's displayed text, and whether GitHub shows it struck through."""

    text: str
    struck: bool = False


def display(text: str, *, markdown: bool = True, task_box: bool = False) -> Display:
    """`text` as GitHub displays it: the task box of a task item (`task_box`), emphasis and
    strikethrough around the line or its key removed, entities decoded. Raw HTML (`markdown`
    False) has its entities decoded, nothing else: a browser shows `**` there as it is."""
    if not markdown:
        return Display(decode_entities(text))
    struck = False
    if "](" in text:
        text = _LINK.sub(lambda link: link.group("text"), _IMAGE.sub("", text))
    box = _TASK_BOX.match(text) if task_box else None
    if box is not None:
        text = text[box.end():]
    for _ in range(MAX_LAYERS):
        before = text
        text = without_delimiters(text, _DELIMITER_RUN)
        unstruck = without_delimiters(text, _STRIKE_RUN)
        struck = struck or unstruck != text
        text = unstruck.strip(" \t")
        if text == before:
            break
    return Display(decode_entities(text), struck)


def without_delimiters(text: str, run: re.Pattern[str]) -> str:
    """`text` without the delimiter run it starts with and the run that closes it (`**key:**
    value`, `*the line*`, `~~struck~~`): an opener followed by a non-blank, a closer of the
    same length after a non-blank and before the end, a blank, the colon or a back-tick
    (anything else and cmark may pair the runs otherwise: then the text is left as it is,
    and a line left starting with a marker is not read as a directive). Unchanged when the
    run opens nothing."""
    opener = run.match(text)
    if opener is None or opener.end() >= len(text) or text[opener.end()] in " \t":
        return text
    delimiter = opener.group()
    position = opener.end()
    while (close := text.find(delimiter, position)) >= 0:
        after = close + len(delimiter)
        position = close + 1
        if text[close - 1] in " \t" or (after < len(text) and text[after] == delimiter[0]):
            continue  # not right-flanking, or part of a longer run
        if close > 0 and text[close - 1] == delimiter[0]:
            continue
        if after < len(text) and text[after] not in " \t:`":
            # a closer here is followed by the line's end, a blank, the colon or a code span
            # (`**ci-x-pr:**\`#1\`` shows the key in bold, then the value as code)
            continue
        return text[opener.end():close] + text[after:]
    return text


def decode_entities(text: str) -> str:
    """HTML entities decoded as cmark decodes them, outside code spans; a decoded line break
    or tab shows as a blank."""
    if "&" not in text:
        return text
    pieces, position = [], 0
    for span in _CODE_SPAN.finditer(text):
        pieces.append(_decode(text[position:span.start()]))
        pieces.append(span.group())
        position = span.end()
    pieces.append(_decode(text[position:]))
    return "".join(pieces)


def _decode(text: str) -> str:
    return _ENTITY.sub(lambda entity: html.unescape(entity.group()).translate(_BLANKS), text)
