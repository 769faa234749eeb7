"""The documents that cross a boundary, one module each: `overrides` (resolve job -> GPU
job), the `resolve`, `install` and `merge_check` reports, the `manifest` comment's data
block, and `outputs`, the names of the action's outputs (docs/architecture.md, *Command line and
the documents*, *Action outputs*).

The writer and the reader of a format live in one module. Pure: no I/O, no runner, no git.
The settings that flow *into* a command live in `rocm_deps.settings`.
"""
