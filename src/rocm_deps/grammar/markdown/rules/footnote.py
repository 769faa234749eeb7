"""Footnote definitions (GitHub renders footnotes): `[^label]:` opens a container whose
lines continue while indented 4 columns, or empty. GitHub shows a definition only when the
document references it (`[^label]`, anywhere, in a definition too), and only the first one
of a label; the others render as nothing (cmark-gfm's process_footnotes)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rocm_deps.grammar.markdown.blocks import Block, Start
from rocm_deps.grammar.markdown.cursor import CODE_INDENT, Cursor
from rocm_deps.grammar.markdown.labels import normalise_label

if TYPE_CHECKING:
    from rocm_deps.grammar.markdown.document import Document

_DEFINITION = re.compile(r"\[\^(?P<label>[^\] \r\n\x00\t]+)\]:[ \t]*")


@dataclass(eq=False)
class FootnoteDefinition(Block):
    """GitHub renders a definition where it stands as nothing, and its content at the end of
    the document, after everything else: what its blocks would do to the browser and the
    lines they would show are kept in `events` and replayed there, if it is referenced."""

    label: str  # normalised
    events: list[Callable[[], None] | str] = field(default_factory=list)
    closing = None

    def continues(self, cursor: Cursor, document: Document, depth: int) -> bool | None:
        if cursor.indent >= CODE_INDENT:
            cursor.advance(CODE_INDENT, True)
            return True
        return cursor.line == ""  # only an empty line: one of blanks ends it (as cmark-gfm)


def scan(cursor: Cursor) -> object | None:
    return _DEFINITION.match(cursor.line, cursor.first_nonspace)


def open_definition(document: Document, cursor: Cursor, depth: int,
                    candidate: object) -> tuple[Start, int]:
    assert isinstance(candidate, re.Match)
    definition: re.Match[str] = candidate
    cursor.advance(definition.end() - cursor.offset, False)
    label = normalise_label(definition.group("label"))
    return Start.CONTAINER, document.add_child(depth, FootnoteDefinition(label))
