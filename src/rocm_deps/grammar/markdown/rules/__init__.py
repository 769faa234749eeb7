"""cmark-gfm's block rules, one module each; `markdown.starts` is the table of which may
start where and what may end a paragraph."""
