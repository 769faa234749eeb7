"""Markup GitHub shows no text for at the start of a line (emphasis, a link's bracket, a task
box, a list marker shown as text), and what a line shows when code comes first."""

from __future__ import annotations

import re

_LEADING_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
# A task box after list markers, in code (`- [x] ci-x-pr: #1` in a fenced block).
_CODE_TASK_BOX = re.compile(r"^((?:(?:[-*+>]|[0-9]{1,9}[.)])[ \t]+)*)\[[ xX]\][ \t]+")
MAX_CODE_BOXES = 4  # `- [ ] - [ ] ci-x-pr: #1` in code: each box dropped, bounded
_MARKUP_PREFIX = re.compile(r"(?:[ \t]*(?:\[[ xX]\][ \t]+|\*{1,3}|_{1,3}|\["
                            r"|\\?(?:[-+*>]|[0-9]{1,9}\\?[.)])(?:[ \t]+|$)))*[ \t]*")
_TEXT_MARKERS = re.compile(r"(?:\\?(?:[-+*>]|[0-9]{1,9}[.)])[ \t]+|\[[ xX]\][ \t]+){1,16}")


def without_markup(text: str) -> str:
    """`text` without the markup at its start that shows no text."""
    return _MARKUP_PREFIX.sub("", text, count=1)


def without_text_markers(text: str) -> str:
    """`text` without the list markers and task boxes at its start (shown as text there)."""
    return _TEXT_MARKERS.sub("", text, count=1)


def without_code_boxes(text: str) -> str:
    """A code line's text with the task boxes after its list markers dropped, as a reader
    reads past them (`- [ ] ci-x-pr: #1` in a fenced block reads `- ci-x-pr: #1`)."""
    for _ in range(MAX_CODE_BOXES):
        text, boxes = _CODE_TASK_BOX.subn(r"\1", text, count=1)
        if not boxes:
            break
    return text


def code_first(text: str, lead: str, raw_html: bool) -> tuple[str, str]:
    """What a line shows when it starts with code (`lead`, "" when text comes first): the
    code over the whole directive or over its key (`ci-x-pr`: #1), after markup that shows
    no text, then the text after it; and that text alone. ("", "") when text comes first.
    Raw HTML's `text` leaves its code out already."""
    if not lead:
        return "", ""
    rest = without_markup(text)
    after = (_LEADING_CODE_SPAN.sub("", rest, count=1) if rest.startswith("`") and not raw_html
             else rest).lstrip("*_")
    return lead + after, after
