"""Look-alike keys are errors that name the code points (architecture §3), held against Unicode's
confusables data through the `confusable-homoglyphs` package."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from confusable_homoglyphs import confusables

from rocm_deps.config import load_config
from rocm_deps.grammar.directives import parse_body
from rocm_deps.grammar.look_alikes import LOOK_ALIKES
from tests.conftest import ROOT

DEPENDENCIES = load_config(None).dependencies
KEY = "ci-sglang-pr:"


def test_the_committed_table_is_what_the_generator_writes() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import generate_look_alikes
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert (ROOT / "src" / "rocm_deps" / "grammar" / "look_alikes.py").read_text(encoding="utf-8") == (
        generate_look_alikes.source())
    # Every letter of the alphabet and ':' has look-alikes folded onto it.
    assert set("abcdefghijklmnopqrstuvwxyz:-") <= set(LOOK_ALIKES.values())


@pytest.mark.parametrize(("line", "code_points"), [
    ("\u0441i-sglang-pr: #12", ["U+0441 CYRILLIC SMALL LETTER ES"]),
    ("ci-sglang-\u0440r: #12", ["U+0440 CYRILLIC SMALL LETTER ER"]),
    ("ci\u2010sglang-pr: #12", ["U+2010 HYPHEN"]),
    ("\uff43\uff49-sglang-pr: #12", ["U+FF43 FULLWIDTH LATIN SMALL LETTER C",
                                    "U+FF49 FULLWIDTH LATIN SMALL LETTER I"]),
    ("- ci-meg\u0430tron-pr: main", ["U+0430 CYRILLIC SMALL LETTER A"]),
], ids=["cyrillic-es", "cyrillic-er", "u2010", "fullwidth-letters", "in-a-bullet"])
def test_the_reported_look_alikes(line: str, code_points: list[str]) -> None:
    parsed = parse_body(line, DEPENDENCIES)
    assert parsed.directives == {}
    [finding] = parsed.findings
    assert finding.level == "error"
    assert f"contains look-alike characters ({', '.join(code_points)})" in finding.message


def oracle_look_alikes() -> list[tuple[str, str]]:
    """(character, the key character it looks like), for every character of KEY, from the
    confusables data itself (not from our table)."""
    wanted = set(KEY)
    found = []
    for character, entries in confusables.confusables_data.items():
        if len(character) != 1 or character.isascii() or unicodedata.category(character) == "Mn":
            continue
        for entry in entries:
            if entry["c"] in wanted or (entry["c"].lower() in wanted and entry["c"].isalpha()):
                found.append((character, entry["c"].lower()))
    return sorted(set(found))


ORACLE = oracle_look_alikes()


def test_every_look_alike_of_every_key_character_is_an_error() -> None:
    # The confusables data has look-alikes of every character of the key, so each is tried.
    assert {plain for _, plain in ORACLE} == set(KEY)
    silent = []
    for character, plain in ORACLE:
        line = KEY.replace(plain, character, 1) + " #12"
        parsed = parse_body(line, DEPENDENCIES)
        messages = " ".join(finding.message for finding in parsed.findings
                            if finding.level == "error")
        if parsed.directives or f"U+{ord(character):04X}" not in messages:
            silent.append((f"U+{ord(character):04X}", plain, messages[:80]))
    assert silent == []


def colon_like_characters() -> list[str]:
    """Every punctuation mark or symbol whose Unicode name says it is a colon or two dots:
    found by name here, independently of the rule the grammar applies."""
    found = []
    for code in range(0x80, 0x30000):
        character = chr(code)
        name = unicodedata.name(character, "")
        if unicodedata.category(character)[0] in "PS" and any(
                word in name for word in ("COLON", "TWO DOT", "RATIO")):
            found.append(character)
    return found


COLON_LIKE = colon_like_characters()


def test_the_colon_like_characters_are_many() -> None:
    assert len(COLON_LIKE) > 30  # the rule is held to dozens, not to three examples


@pytest.mark.parametrize("separator", [
    "\u05c3", "\u2025", "\u1365", "\u0589", "\ua789", "\ufe13", "\ufe55", "\uff1a", "\u2236",
    "\u1361", *COLON_LIKE])
def test_a_character_drawn_as_a_colon_after_a_key_is_an_error_never_silence(
        separator: str) -> None:
    parsed = parse_body(f"ci-sglang-pr{separator} #12", DEPENDENCIES)
    assert parsed.directives == {}
    errors = [finding for finding in parsed.findings if finding.level == "error"]
    assert len(errors) == 1, parsed.findings
    # The key is right: the message names the character that stands for the colon.
    assert f"this is not applied: U+{ord(separator):04X} " in errors[0].message
    assert errors[0].message.endswith("stands where the key needs `:`. Write "
                                      "`ci-sglang-pr: #12`")
