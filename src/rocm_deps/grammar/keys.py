"""The alphabet of directive keys and dispatch input names: what a configured `directive` or
`dispatch-input` may be made of, and what the look-alike table folds other characters onto.

Pure constants, below the configuration (which checks configured keys against them) and the
rest of the grammar (which reads keys in a body)."""

from __future__ import annotations

import re

# What a directive key is made of, after case folding: the look-alike table
# (scripts/generate_look_alikes.py) folds other characters onto these.
KEY_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789_.-"
DIRECTIVE_KEY = re.compile(rf"[a-z][{re.escape(KEY_CHARACTERS)}]{{0,63}}", re.IGNORECASE)
INPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
