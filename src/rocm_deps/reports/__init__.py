"""How the reports are shown: step outputs (docs/architecture.md, *Action outputs*), job summaries,
annotations and the text printed on stdout, one module per command (`resolve`, `install`,
`merge_check`) and the Markdown they share (`markdown`). Data in, strings out; the commands decide
when to write them, through `output.publish`.
"""
