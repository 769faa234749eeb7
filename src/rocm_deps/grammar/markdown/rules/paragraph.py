"""Paragraphs: the lines no other block takes. A paragraph ends at a blank line or when a
block start interrupts it (see `rules.RULES`); a line that starts nothing and continues no
open block is a lazy continuation of it. Its inline parts are read when it ends, after the
link reference definitions at its start are taken out (`link_reference`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rocm_deps.grammar.markdown.blocks import Block
from rocm_deps.grammar.markdown.cursor import Cursor
from rocm_deps.grammar.markdown.labels import normalise_label
from rocm_deps.grammar.markdown.rules.link_reference import definitions

if TYPE_CHECKING:
    from rocm_deps.grammar.markdown.document import Document


@dataclass(eq=False)
class Paragraph(Block):
    lines: list[tuple[int, str, int]] = field(default_factory=list)  # number, line, start
    # A delimiter row under it did not match its last line: cmark-gfm never tries it again.
    table_refused: bool = False
    # The list whose item it is a block of: in a tight list it is rendered without <p>.
    in_list: Block | None = None
    heading: bool = False  # a setext underline made it a heading: rendered as one
    # The first block of a list item: GitHub's task list takes a leading `[ ]` / `[x]` off it
    # before the link reference definitions are read.
    first_in_item: bool = False

    def tagged(self) -> bool:
        """Whether cmark writes it between tags of its own (<p>, <h1>)."""
        return self.heading or not getattr(self.in_list, "tight", False)
    leaf = True

    def continues(self, cursor: Cursor, document: Document, depth: int) -> bool | None:
        return not cursor.blank

    def take_line(self, document: Document, number: int, cursor: Cursor) -> None:
        if not cursor.blank:
            self.lines.append((number, cursor.line, cursor.first_nonspace))


# A task list item's box (cmark-gfm's tasklist extension).
_TASK_BOX = re.compile(r"\[[ xX]\][ \t]+")


def definitions_taken(paragraph: Paragraph, linked: set[str]) -> int:
    """How many of the paragraph's first lines are link reference definitions (after a task
    item's box, which GitHub takes off first: `- [ ] [x]: /url "…"` defines `[x]`). The label
    of each definition that looks like a footnote's (`- [ ] [^y]: b` defines the link `[^y]`,
    and every `[^y]` is then that link, no footnote reference) goes into `linked`."""
    content = "".join(line[start:] + "\n" for _, line, start in paragraph.lines)
    box = _TASK_BOX.match(content) if paragraph.first_in_item else None
    start = box.end() if box is not None else 0
    end, labels = definitions(content[start:])
    linked.update(normalise_label(label[1:]) for label in labels if label.startswith("^"))
    return content.count("\n", 0, start + end) if end else 0
