"""The block start rules, in the order cmark-gfm tries them (cmark-gfm 0.29.0.gfm.13,
blocks.c, open_new_blocks).

The table says in one place what may start where, and what may end an open paragraph:
- a block quote, an ATX heading, a fence, a thematic break, a footnote definition: always;
- an HTML block: kinds 1 to 6, not kind 7 (a lone complete tag);
- a list item: a bullet, or `1.` / `1)`, with text after the marker;
- a setext underline: only after a paragraph, which it turns into a heading;
- a table's delimiter row: only after a paragraph, whose last line becomes the header;
- indented code (not in this table, it needs no marker): never, so an indented line in a
  paragraph is a lazy continuation of it.
"""

from __future__ import annotations

from rocm_deps.grammar.markdown.blocks import BlockRule
from rocm_deps.grammar.markdown.rules import (
    fence,
    footnote,
    heading,
    html_block,
    list_item,
    quote,
    table,
    thematic_break,
)

RULES: tuple[BlockRule, ...] = (
    BlockRule("block quote", ">", quote.scan, quote.open_quote),
    BlockRule("ATX heading", "#", heading.scan_atx, heading.open_atx),
    BlockRule("fenced code", "`~", fence.scan, fence.open_fence),
    BlockRule("HTML block", "<", html_block.scan, html_block.open_html,
              interrupts_paragraph=html_block.interrupts_paragraph),
    BlockRule("setext underline", "=-", heading.scan_setext, heading.open_setext,
              needs_paragraph=True),
    BlockRule("thematic break", "-*_", thematic_break.scan, thematic_break.open_break),
    BlockRule("footnote definition", "[", footnote.scan, footnote.open_definition),
    BlockRule("list item", "-*+0123456789", list_item.scan, list_item.open_item,
              interrupts_paragraph=list_item.interrupts_paragraph),
    # GitHub's table extension, tried when nothing else starts: a delimiter row under a
    # paragraph's last line makes it a table's header.
    BlockRule("table", "|-:", table.scan, table.open_table, needs_paragraph=True),
)
# The characters a block other than indented code can start with: most lines start with
# none of them and skip the table.
FIRST_CHARACTERS = frozenset("".join(rule.first_characters for rule in RULES))
