"""The documents that cross a job boundary, one module each: `overrides` (resolve job -> GPU
job), the `resolve` and `install` reports (read again by `comment`), and the `manifest`
comment's data block (docs/architecture.md, *Command line and the documents*).

The writer and the reader of a format live in one module. Pure: no I/O, no runner, no git.
The settings that flow *into* a command live in its folder (`<command>/settings.py`).
"""
