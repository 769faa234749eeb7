"""Which lines of a PR body GitHub shows as text outside code (docs/architecture.md, *Directives*,
fidelity).

GitHub renders a body with cmark-gfm and a browser then reads the HTML. A directive counts
exactly when its line is shown as text, so this module follows both, in one pass:

- the block structure of cmark-gfm's `blocks.c`: block quotes and list items with their
  continuation rules (a fence or an HTML block ends with its quote or list item), lazy
  paragraph lines, fenced and indented code, the seven HTML block kinds and their end
  conditions, ATX and setext headings, thematic breaks, tabs as 4-column stops;
- the inline constructs that hide text inside a paragraph: code spans (which may span
  lines) and raw HTML (comments `<!-->`, `<!--->`, `<!-- … -->`, tags); back-slash escapes;
- the browser's tokenizer over raw HTML: a comment opened in an HTML block hides everything
  after it, whatever Markdown made of it, until a raw `-->` or `--!>`; text after `-->` on
  the same line is shown.

GitHub's extensions and options are modelled too: tables (a delimiter row under a
paragraph line), footnote definitions (hidden unless referenced), link reference definitions
(hidden, their titles across lines). Raw HTML tags are modelled within a line only.

Standard library only, and linear in the body size. The modules: `document` (the line loop),
`blocks`, `rules/` (one file per block kind) and `starts` (the table of block starts), `inline`
(a paragraph's code spans and raw HTML), `html` (tag syntax and the browser's tokenizer),
`cursor` (columns and tabs), `shown` (what comes out).
"""

from __future__ import annotations

from rocm_deps.grammar.markdown.document import shown_lines
from rocm_deps.grammar.markdown.shown import MAX_DEPTH, NestingTooDeep, ShownLine

__all__ = ["MAX_DEPTH", "NestingTooDeep", "ShownLine", "shown_lines"]

