"""The alphabet of directive keys and dispatch input names: what a configured `directive` or
`dispatch-input` may be made of, and what the look-alike table folds other characters onto.

Pure data, below the rest of the grammar (which reads keys in a body) and the configuration
(which checks configured keys against them and builds its dependencies on `RefKey`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

# What a directive key is made of, after case folding: the look-alike table
# (scripts/generate_look_alikes.py) folds other characters onto these.
KEY_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789_.-"
DIRECTIVE_KEY = re.compile(rf"[a-z][{re.escape(KEY_CHARACTERS)}]{{0,63}}", re.IGNORECASE)
INPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
# owner/repo, as GitHub allows them: the pattern config, values and event payloads share.
REPOSITORY_NAME = r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+"

ValueKind = Literal["docker-tag", "number"]
CodeDirectives = Literal["error", "warn"]  # what a directive shown as code is


@dataclass(frozen=True)
class RefKey:
    """A dependency's directive as the grammar reads it: the keys come in as data (the
    configuration's `DependencyConfig` is one), the grammar imports nothing of the config."""

    name: str
    repository: str
    directive: str
    dispatch_input: str


@dataclass(frozen=True)
class ValueKey:
    """A value directive's key (`ci-image-tag`) and the kind of value it carries."""

    name: str
    kind: ValueKind
    directive: str
    dispatch_input: str
