"""Link reference definitions (`[label]: destination 'title'`): when a paragraph ends, or
turns out to be a setext heading, the definitions at its start are taken out of it and
GitHub renders them as nothing. A label, the destination and a title may each be on lines
of their own; a title may span lines. As cmark-gfm's cmark_parse_reference_inline."""

from __future__ import annotations

import re

MAX_LABEL = 999
_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_SPACE = frozenset(" \t\n\v\f\r")  # cmark_isspace
_ESCAPED = r"\\[!-/:-@\[-`{-~]"
_TITLE = re.compile(rf'"(?:{_ESCAPED}|[^"\x00])*"|\'(?:{_ESCAPED}|[^\'\x00])*\''
                    rf"|\((?:{_ESCAPED}|[^()\x00])*\)")


def definitions(content: str) -> tuple[int, list[str]]:
    """How much of a paragraph's content (its lines, each ending in a newline) the link
    reference definitions at its start take (whole lines, or nothing), and their labels as
    written."""
    position, labels = 0, []
    while position < len(content) and content[position] == "[":
        end = _definition(content, position)
        if end is None:
            break
        label_end = _label_end(content, position)
        assert label_end is not None  # a definition starts with its label
        labels.append(content[position + 1:label_end - 1])
        position = end
    return position, labels


def _definition(text: str, start: int) -> int | None:
    position = _label_end(text, start)
    if position is None or not text.startswith(":", position):
        return None
    position = _spaces_and_a_newline(text, position + 1)
    destination_end = _destination_end(text, position)
    if destination_end is None:
        return None
    before_title = destination_end
    title_start = _spaces_and_a_newline(text, before_title)
    title = _TITLE.match(text, title_start) if title_start != before_title else None
    position = title.end() if title else before_title
    end = _line_end(text, _spaces(text, position))
    if end is None and title:  # the title must end its line; else the line before it is it
        end = _line_end(text, _spaces(text, before_title))
    return end


def _label_end(text: str, start: int) -> int | None:
    """After `[label]` (a label of up to 999 characters, not all blank), or None."""
    position, length = start + 1, 0
    while position < len(text) and text[position] not in "[]":
        step = 2 if (text[position] == "\\" and position + 1 < len(text)
                     and text[position + 1] in _PUNCTUATION) else 1
        position += step
        length += step
        if length > MAX_LABEL:
            return None
    if position >= len(text) or text[position] != "]":
        return None
    if not text[start + 1:position].strip(" \t\n\v\f\r"):
        return None
    return position + 1


def _destination_end(text: str, start: int) -> int | None:
    """After the destination: `<...>` on one line, or a run without blanks with balanced
    parentheses. It cannot reach the end of the content (which ends in a newline)."""
    position = start
    if text.startswith("<", position):
        position += 1
        while position < len(text):
            character = text[position]
            if character == ">":
                position += 1
                break
            if character == "\\":
                position += 2
            elif character in "\n<":
                return None
            else:
                position += 1
        return position if position < len(text) else None
    depth = 0
    while position < len(text):
        character = text[position]
        if character == "\\" and position + 1 < len(text) and text[position + 1] in _PUNCTUATION:
            position += 2
        elif character == "(":
            depth += 1
            position += 1
            if depth > 32:
                return None
        elif character == ")":
            if depth == 0:
                break
            depth -= 1
            position += 1
        elif character in _SPACE:
            if position == start:
                return None
            break
        else:
            position += 1
    return position if position < len(text) else None


def _spaces(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t":
        position += 1
    return position


def _line_end(text: str, position: int) -> int | None:
    """After a line end at `position`, or the end of the text; None for anything else."""
    if text.startswith("\r", position):
        position += 1
        if text.startswith("\n", position):
            position += 1
        return position
    if text.startswith("\n", position):
        return position + 1
    return position if position >= len(text) else None


def _spaces_and_a_newline(text: str, position: int) -> int:
    position = _spaces(text, position)
    after = _line_end(text, position)
    if after is not None and after != position:
        position = _spaces(text, after)
    return position
