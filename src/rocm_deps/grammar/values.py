"""Value kinds: what a value directive (`ci-image-tag: nightly`) may carry, by its configured
`kind`. A closed set: each kind is a pattern and the rule a refused value is told."""

from __future__ import annotations

import re

from rocm_deps.grammar.keys import ValueKind

# Docker's tag grammar; a full image name (`rocm/sgl-dev:latest`) is refused, as the Miles
# workflows refuse it.
DOCKER_TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
NUMBER = re.compile(r"[0-9]{1,9}")
RULES: dict[ValueKind, tuple[re.Pattern[str], str]] = {
    "docker-tag": (DOCKER_TAG, "must be a Docker tag (letters, digits, `_`, `.`, `-`, at most "
                               "128, not starting with `.` or `-`), not a full image name"),
    "number": (NUMBER, "must be a number of 1 to 9 digits"),
}


def check_value(raw: str, kind: ValueKind) -> str | None:
    """Why `raw` is not a valid value of `kind`, or None when it is."""
    pattern, rule = RULES[kind]
    if pattern.fullmatch(raw):
        return None
    return f"`{raw[:80]}` {rule}"
