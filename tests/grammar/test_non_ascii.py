"""Non-ASCII bodies: the results recorded in tests/grammar/data/non_ascii_bodies.json.

The file was written by the parser that used the third-party `regex` module for lines that
are not ASCII (emoji, em dashes, CJK, no-break and other spaces, zero-width, bidi and other
format characters, look-alike letters). The parser now uses `re` and `unicodedata` alone and
must give the same directives and the same messages. A deliberate change of behaviour
updates the file, in the commit that makes it (look-alike keys, which the regex-based parser
ignored or called typos, are errors that name the code points since; a key in the middle of
a sentence is prose and silent; since the rule "exactly what was named, or fail", a directive
shown as code is an error unless something else names the dependency, text after a bare
branch name an error, after a PR number a notice, and a line that names a key without
starting with it an error; an unknown key says where the known ones come from).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rocm_deps.config import load_config
from rocm_deps.grammar.directives import parse_body
from rocm_deps.grammar.parsed import code_findings

RECORDED = json.loads((Path(__file__).parent / "data" / "non_ascii_bodies.json").read_text(
    encoding="utf-8"))
DEPENDENCIES = load_config(None).dependencies


@pytest.mark.parametrize("case", sorted(RECORDED), ids=sorted(RECORDED))
def test_same_result_as_recorded(case: str) -> None:
    recorded = RECORDED[case]
    assert not recorded["body"].isascii()
    parsed = parse_body(recorded["body"], DEPENDENCIES)
    assert {name: d.spec.ref for name, d in parsed.directives.items()} == recorded["refs"]
    findings = [*parsed.findings, *code_findings(parsed, set(parsed.directives))]
    assert [[f.level, f.message] for f in findings] == recorded["findings"]
