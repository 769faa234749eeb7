"""The directive grammar of DESIGN §3: which lines of a PR body name a dependency ref.

Pure and linear in the body size: `markdown.shown_lines` says which lines GitHub shows as
text outside code (authors put examples in code and comments), then each shown line is
matched by anchored, length-bounded patterns (stdlib `re`; Unicode character properties come
from `unicodedata`, see refs.is_invisible). Anything that *looks* like a directive but is
not honoured produces a warning or an error, so an author never believes a dependency was
tested when it was not.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rocm_deps.config import KEY_CHARACTERS, DependencyConfig
from rocm_deps.grammar.markdown import MAX_DEPTH, NestingTooDeep, ShownLine, shown_lines
from rocm_deps.grammar.refs import (
    RefSpec,
    ValueProblem,
    classify,
    describe_character,
    find_invisible,
    remove_invisible,
    show_invisible,
)

MAX_BODY_BYTES = 1024 * 1024
QUOTE_LIMIT = 160

# A directive line: up to 3 spaces, any mix of list/quote markers (`-`, `*`, `+`, `>`, and
# ordered-list markers `1.` / `1)` of up to 9 digits, as GitHub shows them) each followed by
# whitespace, a key, ':', the value. The key is bounded so a pathological line stays linear.
# \x1c-\x1f are spelled out: `re` counts them as whitespace (\s), Unicode does not.
_DIRECTIVE_LINE = (r"(?P<indent>[ ]{0,3})(?P<markers>(?:(?:[-*+>]|[0-9]{1,9}[.)])[ \t]+){0,16})"
                   r"(?P<key>[^\s\x1c-\x1f:`*]{1,100})[ \t]*:(?P<rest>.*)")
_UNKNOWN_KEY = r"ci-(?P<word>.{1,64})-pr"
# Something that reads like a directive key followed by ':' or '=' anywhere on a line.
# Its key is made of the key alphabet (config.KEY_CHARACTERS), in any letter case.
_MENTION = (r"(?<![\w-])(?:ci-[" + re.escape(KEY_CHARACTERS) + r"]{{1,64}}?-pr|{keys})(?![\w-])"
            r"(?=[*_`\s\x1c-\x1f]*[:=])")

# Patterns without Unicode-dependent classes: stdlib `re` serves every line.
_BACKTICKED = re.compile(r"[ \t]*`(?P<value>[^`]*)`(?P<trailing>.*)")
_BARE = re.compile(r"[ \t]*(?P<value>[^ \t]*)(?P<trailing>.*)")
_DIRECTIVE_LINE_RE = re.compile(_DIRECTIVE_LINE)
_UNKNOWN_KEY_RE = re.compile(_UNKNOWN_KEY, re.IGNORECASE)

Level = Literal["error", "warning"]


@dataclass(frozen=True)
class Finding:
    """An error or a warning about one line of the body (line 0: not about a line)."""

    level: Level
    message: str
    line: int = 0
    title: str = ""  # the annotation's title; empty: the default for the level

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "line": self.line or None}


@dataclass(frozen=True)
class Directive:
    dependency: str
    key: str
    raw: str
    line: int
    spec: RefSpec


@dataclass(frozen=True)
class ParsedBody:
    directives: dict[str, Directive]
    findings: tuple[Finding, ...]

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(finding for finding in self.findings if finding.level == "error")


def normalise(body: str | None) -> str:
    text = (body or "").replace("\r\n", "\n").replace("\r", "\n")
    return text.removeprefix("\ufeff")


def quote(line: str) -> str:
    """A line as it appears in a message: invisible characters made visible, length bounded."""
    shown = show_invisible(line.strip())
    return shown if len(shown) <= QUOTE_LIMIT else shown[: QUOTE_LIMIT - 1] + "…"


def parse_body(body: str | None, dependencies: Sequence[DependencyConfig]) -> ParsedBody:
    text = normalise(body)
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BODY_BYTES:
        return ParsedBody({}, (Finding(
            "error", f"the pull request body is {size} bytes, over the 1 MiB limit; "
                     "directives are not read from bodies this large"),))
    return _Parser(dependencies).parse(text)


class _Parser:
    def __init__(self, dependencies: Sequence[DependencyConfig]) -> None:
        self.by_key = {dependency.directive.casefold(): dependency for dependency in dependencies}
        self.names = [dependency.name for dependency in dependencies]
        self.directives: dict[str, Directive] = {}
        self.findings: list[Finding] = []
        keys = "|".join(re.escape(key) for key in sorted(self.by_key, key=len, reverse=True))
        self.mention = re.compile(_MENTION.format(keys=keys), re.IGNORECASE)

    def parse(self, text: str) -> ParsedBody:
        try:
            lines = shown_lines(text)
        except NestingTooDeep as too_deep:
            self.findings.append(Finding(
                "error", f"line {too_deep.line}: quotes, lists and list items nest more than "
                         f"{MAX_DEPTH} deep here; directives are not read from a body whose "
                         f"rendering cannot be followed, so flatten the nesting", too_deep.line))
            return ParsedBody({}, tuple(self.findings))
        for shown in lines:
            self._line(shown)
        return ParsedBody(self.directives, tuple(self.findings))

    def _line(self, shown: ShownLine) -> None:
        number, line, source = shown.number, shown.text, shown.source
        if shown.code:
            if self._looks_like_directive(shown.prose):
                self._add("warning", number, source,
                          "this line is indented 4 or more spaces, so Markdown shows it as code "
                          "and it is not a directive; remove the indentation to make it one")
            return
        invisible = find_invisible(line)
        if invisible is not None:
            # Checked first: a hidden character in the key would otherwise read as a typo.
            cleaned = remove_invisible(line)
            cleaned_match = _DIRECTIVE_LINE_RE.fullmatch(cleaned)
            if cleaned_match is not None and self._is_key(cleaned_match.group("key")):
                self._add("error", number, source,
                          f"the line contains the invisible character {invisible}; retype the "
                          f"line without it")
                return
        look_alike = self._look_alike(line)
        if look_alike is not None:
            self._add("error", number, source, look_alike)
            return
        match = _DIRECTIVE_LINE_RE.fullmatch(line)
        if match is not None and self._is_key(match.group("key")):
            self._directive(number, source, match)
            return
        if self._looks_like_directive(shown.prose):
            self._add("warning", number, source,
                      "this looks like a directive but is not one, so it is ignored; a directive "
                      "is a line of its own, such as `ci-sglang-pr: #1234` (a leading `-`, `*`, "
                      "`+`, `>` or `1.` marker is allowed)")

    def _look_alike(self, line: str) -> str | None:
        """Why a line whose key reads as a directive key after NFKC and the confusables fold
        (Cyrillic es, fullwidth letters and colon, U+2010, combining marks, ...) is an error;
        None when the part before the value is plain."""
        if line.isascii():
            return None
        pieces = [(character, _fold(character)) for character in line]
        folded = "".join(piece for _, piece in pieces)
        match = _DIRECTIVE_LINE_RE.fullmatch(folded)
        if match is None or not self._is_key(match.group("key")):
            return None
        suspects, position = [], 0
        for character, piece in pieces:
            if position >= match.start("rest"):
                break
            if character != piece:
                suspects.append(character)
            position += len(piece)
        if not suspects:
            return None
        described = ", ".join(describe_character(character) for character in suspects)
        return (f"this reads as `{match.group('key').casefold()}:` but contains look-alike "
                f"characters ({described}), so it would match nothing; retype the key in plain "
                f"ASCII")

    def _is_key(self, key: str) -> bool:
        folded = key.casefold()
        return folded in self.by_key or _UNKNOWN_KEY_RE.fullmatch(folded) is not None

    def _looks_like_directive(self, line: str) -> bool:
        if ":" not in line and "=" not in line:
            return False
        return self.mention.search(line) is not None

    def _directive(self, number: int, line: str, match: re.Match[str]) -> None:
        key = match.group("key")
        dependency = self.by_key.get(key.casefold())
        if dependency is None:
            self._add("error", number, line, self._unknown_key_message(key))
            return
        value_match = _BACKTICKED.fullmatch(match.group("rest")) or _BARE.fullmatch(
            match.group("rest"))
        assert value_match is not None  # _BARE matches any single line
        raw = value_match.group("value").strip(" \t")
        trailing = value_match.group("trailing").strip(" \t")
        if not raw:
            self._add("error", number, line,
                      f"`{dependency.directive}:` has no value; write a pull request number, a "
                      f"commit SHA or a branch, e.g. `{dependency.directive}: #1234`, or delete "
                      f"the line")
            return
        spec = classify(raw, dependency.repository)
        if isinstance(spec, ValueProblem):
            self._add("error", number, line, spec.message)
            return
        if trailing:
            self._add("warning", number, line,
                      f"the text after the value (`{quote(trailing)}`) is ignored; only "
                      f"`{raw}` is used")
        self._record(Directive(dependency.name, key, raw, number, spec), line)

    def _record(self, directive: Directive, line: str) -> None:
        earlier = self.directives.get(directive.dependency)
        if earlier is None:
            self.directives[directive.dependency] = directive
        elif earlier.spec == directive.spec:
            self._add("warning", directive.line, line,
                      f"`{directive.key}` is repeated (first on line {earlier.line}) with the "
                      f"same value; delete one of the lines")
        else:
            self._add("error", directive.line, line,
                      f"`{directive.key}` is given twice with different values: `{earlier.raw}` "
                      f"on line {earlier.line} and `{directive.raw}` here; keep exactly one")

    def _unknown_key_message(self, key: str) -> str:
        match = _UNKNOWN_KEY_RE.fullmatch(key)
        word = match.group("word") if match else key
        import difflib  # only on this error path

        close = difflib.get_close_matches(word.casefold(), self.names, n=1, cutoff=0.5)
        keys = ", ".join(f"`{self.by_key[k].directive}`" for k in self.by_key)
        directive = next((dependency.directive for dependency in self.by_key.values()
                          if close and dependency.name == close[0]), "")
        hint = f"did you mean `{close[0]}` (`{directive}`)? " if close else ""
        return (f"`{key}` is not a known directive; {hint}the known directives are {keys}. "
                f"An unknown key is an error so that a typo cannot silently test the image's "
                f"baseline instead")

    def _add(self, level: Level, number: int, line: str, message: str) -> None:
        self.findings.append(Finding(level, f"line {number}: `{quote(line)}` — {message}", number))


def _fold(character: str) -> str:
    """What a character of a key looks like: itself for ASCII, else its confusable ASCII
    letter, '-' or ':', else its NFKC form; combining marks vanish."""
    if character.isascii():
        return character
    from rocm_deps.grammar.look_alikes import LOOK_ALIKES  # only for lines that are not ASCII

    if character in LOOK_ALIKES:
        return LOOK_ALIKES[character]
    if unicodedata.category(character) == "Mn":
        return ""
    return unicodedata.normalize("NFKC", character)
