"""cmark-gfm's block parser over a whole body, line by line (cmark-gfm 0.29.0.gfm.13, blocks.c,
S_process_line): match the open blocks, open the blocks that start on the line (`rules.RULES`),
add the rest of the line to the deepest open block. Paragraphs are read for inline constructs
when they end.

Linear in the body size: each line is examined a bounded number of times (nesting is at most
MAX_DEPTH) and a paragraph is scanned once, when it ends."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

from rocm_deps.grammar.markdown.blocks import Block, Start
from rocm_deps.grammar.markdown.cursor import CODE_INDENT, Cursor
from rocm_deps.grammar.markdown.html import Browser
from rocm_deps.grammar.markdown.inline import Inline
from rocm_deps.grammar.markdown.rules.fence import Fence
from rocm_deps.grammar.markdown.rules.footnote import FootnoteDefinition
from rocm_deps.grammar.markdown.rules.html_block import Html
from rocm_deps.grammar.markdown.rules.indented_code import open_code
from rocm_deps.grammar.markdown.rules.list_item import Item, List
from rocm_deps.grammar.markdown.rules.paragraph import Paragraph, definitions_taken
from rocm_deps.grammar.markdown.rules.quote import Quote
from rocm_deps.grammar.markdown.rules.table import Table
from rocm_deps.grammar.markdown.shown import MAX_DEPTH, NestingTooDeep, ShownLine
from rocm_deps.grammar.markdown.starts import FIRST_CHARACTERS, RULES


class Document:
    def __init__(self) -> None:
        self.open: list[Block] = []
        self.number = 0
        self.browser = Browser()
        self.shown: list[ShownLine] = []
        # Footnotes: the labels in the order the document first references them (GitHub
        # numbers and renders them in that order), and the first definition of each label.
        self.references: dict[str, None] = {}
        self.first_definition: dict[str, FootnoteDefinition] = {}
        # Footnote labels a link reference definition took (`- [ ] [^y]: b`): no references.
        self.linked: set[str] = set()

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
        self.close_from(0)
        self._render_footnotes()
        # A raw HTML row of several cells shows them side by side: each follows the table
        # rule (known only once the row has ended).
        rows = self.browser.row_cells
        return [dataclasses.replace(shown, code="cell")
                if shown.row and rows.get(shown.row, 0) > 1 and shown.code is None else shown
                for shown in self.shown]

    def feed(self, action: Callable[[], None]) -> None:
        """Do what a block does to the browser and to the shown lines: now; inside a footnote
        definition, where GitHub renders it (the end of the document); inside a list, when
        the list ends and it is known whether it is tight."""
        waiting = self.open[-1].waits_for if self.open else None
        if waiting is None:
            action()
        else:
            waiting.events.append(action)

    def feed_markup(self, tags: str) -> None:
        """Tags cmark writes: for the browser, as feed does; tags that wait are joined to the
        ones before them (the browser reads them in one pass, and a deep list writes many)."""
        waiting = self.open[-1].waits_for if self.open else None
        if waiting is None:
            self.browser.markup(tags)
        elif waiting.events and isinstance(waiting.events[-1], str):
            waiting.events[-1] += tags
        else:
            waiting.events.append(tags)

    def _replay(self, events: list[Callable[[], None] | str]) -> None:
        for event in events:
            if isinstance(event, str):
                self.feed_markup(event)
            else:
                self.feed(event)

    def _render_footnotes(self) -> None:
        """cmark-gfm's footnotes section: each referenced definition's content, in the order
        of the first references, inside markup of its own."""
        rendered = [self.first_definition[label] for label in self.references
                    if label in self.first_definition and label not in self.linked]
        if not rendered:
            return
        self.browser.markup('<section class="footnotes" data-footnotes><ol>')
        for definition in rendered:
            self.browser.markup('<li id="fn-x">')
            self._replay(definition.events)
            self.browser.markup('<a href="#fnref-x" class="footnote-backref">')
            self.browser.markup("</li>")
        self.browser.markup("</ol></section>")

    def _line(self, number: int, line: str) -> None:
        self.number = number
        cursor = Cursor(line)
        matched = self._match_open_blocks(cursor)
        if matched is None:
            return  # a closing code fence: the line is consumed
        tip = self.open[-1] if self.open else None
        depth = self._open_new_blocks(cursor, matched, isinstance(tip, Paragraph))
        if depth is None:  # a heading, a break, a fence's opening, a table's delimiter row
            self._mark_blank(self.open[-1] if self.open else None, blank=False)
            if isinstance(tip := (self.open[-1] if self.open else None), Table):
                tip.last_line_blank = True  # as cmark-gfm: the rest of the line is blank
            return
        self._add_line(number, cursor, matched, depth)

    def _mark_blank(self, container: Block | None, *, blank: bool) -> None:
        """cmark's last_line_blank bookkeeping for the block a line ended in: what makes a
        list loose."""
        if container is None:
            return
        if blank:
            last = (container.children[-1] if isinstance(container, Item) and container.children
                    else container.items[-1] if isinstance(container, List) and container.items
                    else None)
            if last is not None:
                last.last_line_blank = True
        container.last_line_blank = blank and not (
            isinstance(container, (Quote, Fence))
            or (isinstance(container, Item) and not container.children
                and container.start_line == self.number))
        for block in self.open:
            if block is container:
                break
            block.last_line_blank = False

    def _match_open_blocks(self, cursor: Cursor) -> int | None:
        """How many open blocks this line continues; None when it closes a fence."""
        for depth, block in enumerate(self.open):
            cursor.find_first_nonspace()
            continues = block.continues(cursor, self, depth)
            if continues is None:
                return None
            if not continues:
                return depth
        return len(self.open)

    def _open_new_blocks(self, cursor: Cursor, matched: int, maybe_lazy: bool) -> int | None:
        """Open the blocks that start on this line; the depth of the deepest container the
        line belongs to, or None when the line needs nothing more."""
        depth = matched
        container = self.open[depth - 1] if depth else None
        while container is None or not container.verbatim:
            cursor.find_first_nonspace()
            indented = cursor.indent >= CODE_INDENT
            if indented or cursor.peek(cursor.first_nonspace) not in FIRST_CHARACTERS:
                if indented and not maybe_lazy and not cursor.blank:
                    depth = open_code(self, cursor, depth)  # never interrupts a paragraph
                break
            opened = self._open_one(cursor, depth, isinstance(container, Paragraph))
            if opened is None:
                break
            start, depth = opened
            if start is Start.CONSUMED:
                return None
            if start is Start.LEAF:
                break
            container = self.open[depth - 1]
            maybe_lazy = False
        return depth

    def _open_one(self, cursor: Cursor, depth: int,
                  in_paragraph: bool) -> tuple[Start, int] | None:
        """The first rule of RULES that starts a block here, opened; None when none does."""
        first = cursor.peek(cursor.first_nonspace)
        for rule in RULES:
            if first not in rule.first_characters or (rule.needs_paragraph
                                                      and not in_paragraph):
                continue
            candidate = rule.scan(cursor)
            if candidate is None or (in_paragraph
                                     and not rule.interrupts_paragraph(candidate)):
                continue
            return rule.open(self, cursor, depth, candidate)
        return None

    def _add_line(self, number: int, cursor: Cursor, matched: int, depth: int) -> None:
        cursor.find_first_nonspace()
        tip = self.open[-1] if self.open else None
        if (matched < len(self.open) and depth == matched and not cursor.blank
                and isinstance(tip, Paragraph)):
            self._mark_blank(self.open[matched - 1] if matched else None, blank=False)
            tip.lines.append((number, cursor.line, cursor.first_nonspace))  # lazy line
            return
        self.close_from(depth)
        self._mark_blank(self.open[-1] if self.open else None, blank=cursor.blank)
        container = self.open[-1] if self.open else None
        if container is not None and container.leaf:
            container.take_line(self, number, cursor)
        elif not cursor.blank:
            self.add_child(depth, Paragraph([(number, cursor.line, cursor.first_nonspace)]))

    def add_child(self, depth: int, block: Block | None, markup: str = "<x>") -> int:
        """Add `block` under the container at `depth`, closing what it ends; the new depth.
        None adds a one-line leaf (heading, thematic break) that ends at once. `markup` is
        the opening tag cmark writes for it; only its quotes matter."""
        if depth and self.open[depth - 1].leaf:
            depth -= 1  # a paragraph cannot contain a block: it ends
        if depth and isinstance(self.open[depth - 1], List) and not isinstance(block, Item):
            depth -= 1  # a list holds only items: it ends
        self.close_from(depth)
        parent = self.open[depth - 1] if depth else None
        if isinstance(parent, Item):
            parent.children.append(block or Block())  # a heading or a break counts too
            if isinstance(block, Paragraph):
                block.in_list = self.open[depth - 2]
                block.first_in_item = len(parent.children) == 1
        elif isinstance(parent, List) and isinstance(block, Item):
            parent.items.append(block)
        if block is None:
            self.feed_markup("<x>")
            return depth
        # An HTML block writes no tag of its own, a footnote definition none where it stands;
        # a paragraph writes its <p> (or none, in a tight list) when it ends.
        if not isinstance(block, (Html, FootnoteDefinition, Paragraph)):
            self.feed_markup(markup)
        if len(self.open) >= MAX_DEPTH:
            raise NestingTooDeep(self.number)
        # What the block's events wait for: its footnote definition, or the outermost list
        # inside it (a nested list is settled before the outermost one ends).
        outer = self.open[-1].waits_for if self.open else None
        if isinstance(block, FootnoteDefinition) or (isinstance(block, List)
                                                      and not isinstance(outer, List)):
            block.waits_for = block
        else:
            block.waits_for = outer
        self.open.append(block)
        return depth + 1

    def close_from(self, depth: int) -> None:
        while len(self.open) > depth:
            block = self.open.pop()
            if isinstance(block, Paragraph):
                if not self.emit_paragraph(block):
                    # Only link reference definitions: cmark-gfm removes the paragraph, and
                    # an item it was the only block of is empty again.
                    parent = self.open[-1] if self.open else None
                    if isinstance(parent, Item):
                        parent.children = [child for child in parent.children
                                           if child is not block]
                    continue
                self.feed(functools.partial(self._close_paragraph, block))
                continue
            if isinstance(block, List):
                block.settle()
                if block.waits_for is block:  # the outermost: every nested list is settled
                    self._replay(block.events)
            if block.closing is not None:
                self.feed_markup(block.closing)
            if isinstance(block, FootnoteDefinition):
                self.first_definition.setdefault(block.label, block)  # cmark-gfm: the first

    def _close_paragraph(self, paragraph: Paragraph) -> None:
        if paragraph.tagged():
            self.browser.markup()

    def emit_paragraph(self, paragraph: Paragraph, *, definitions: bool = True) -> bool:
        """Show a paragraph's text (a heading's with `definitions` False); False when link
        reference definitions took all of it."""
        lines = paragraph.lines[definitions_taken(paragraph, self.linked):] if definitions else (
            paragraph.lines)
        if not lines:
            return False
        # A reference counts wherever it is, inside a definition too (its own included), and
        # whatever the browser shows of it: read without the browser, at once.
        for label in Inline(lines, Browser()).footnote_references():
            self.references.setdefault(label)

        def emit() -> None:
            if paragraph.tagged():
                self.browser.markup()
            with self.browser.block(in_p=paragraph.tagged() and not paragraph.heading,
                                    holds_blocks=paragraph.heading):
                self.shown.extend(Inline(lines, self.browser).shown())

        self.feed(emit)
        return True


def shown_lines(text: str) -> list[ShownLine]:
    """The lines of `text` (already normalised to `\\n` line ends) that GitHub shows.

    Raises NestingTooDeep when quotes and list items nest more than MAX_DEPTH deep."""
    return Document().parse(text)
