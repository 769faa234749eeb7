"""The directive grammar of docs/architecture.md, *Directives*: which lines of a PR body name a
dependency ref.

What GitHub shows decides. The lines are those of GitHub's own rendering of the description
(`body_html`), or of GitHub's engine rendering it here (`page/render.py`), read as a browser
reads the HTML (`page/lines.py`): each character is text, code or struck, and may be part of
a link. A line that GitHub shows starting with a key is applied exactly, or the run fails;
the key, value and ref rules read those lines by anchored, length-bounded patterns (stdlib
`re`; Unicode character properties from `unicodedata`, see refs.is_invisible). Anything that
*looks* like a directive but is not honoured produces a warning or an error, so an author
never believes a dependency was tested when it was not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rocm_deps.grammar.keys import (
    KEY_CHARACTERS,
    RefKey,
    ValueKey,
)
from rocm_deps.grammar.near_miss import UNKNOWN_KEY, Keyed, NearMisses
from rocm_deps.grammar.parsed import (
    CodeDirective,
    Directive,
    Finding,
    Level,
    ParsedBody,
    Prerequisite,
    ValueDirective,
    quote,
    where,
)
from rocm_deps.grammar.refs import (
    RefSpec,
    ValueProblem,
    classify,
    describe_character,
    find_invisible,
    remove_invisible,
)
from rocm_deps.grammar.source import PULL_REQUEST, Locator, linked
from rocm_deps.grammar.spelling import fold, fold_separator, folded
from rocm_deps.grammar.values import check_value
from rocm_deps.page.lines import ShownLine, shown_lines
from rocm_deps.page.render import render

MAX_BODY_BYTES = 1024 * 1024

# A directive line: any mix of list/quote markers a page shows as text (`-`, `*`, `+`, `>`,
# `1.` / `1)` of up to 9 digits) each followed by whitespace, a key, ':', the value. The key
# is bounded so a pathological line stays linear. \x1c-\x1f are spelled out: `re` counts them
# as whitespace (\s), Unicode does not.
_DIRECTIVE_LINE = (r"(?P<indent>[ ]{0,3})(?P<markers>(?:(?:[-*+>]|[0-9]{1,9}[.)])[ \t]+){0,16})"
                   r"(?P<key>[^\s\x1c-\x1f:`*]{1,100})[ \t]*:(?P<rest>.*)")
# Something that reads like a directive key followed by ':' or '=' anywhere on a line.
# Its key is made of the key alphabet (grammar.keys.KEY_CHARACTERS), in any letter case.
_MENTION = (r"(?<![A-Za-z0-9-])(?:ci-[" + re.escape(KEY_CHARACTERS)
            + r"]{{1,64}}?-pr|{keys})(?![A-Za-z0-9-])"
            r"(?=[*_`\\\s\x1c-\x1f]*[:=])")
# Markers and task boxes a page shows as text before a key (`1.` in a `<div>`): the key's
# spelling is checked after them.
_SHOWN_MARKERS = re.compile(r"(?:[ \t]*(?:\[[ xX]\][ \t]+|(?:[-+*>]|[0-9]{1,9}[.)])(?:[ \t]+|$)))*"
                            r"[ \t]*")
_PR_WORD = re.compile(r"(?:pr|pull|pull request)\s*(?P<number>#[0-9]{1,10})\b.*",
                      re.IGNORECASE)
_DIRECTIVE_LINE_RE = re.compile(_DIRECTIVE_LINE)
DEPENDS_ON = "depends-on"  # the key of a prerequisite, in any letter case
# How a line is shown as code, as messages say it.
AS_BLOCK = "inside a code block (fenced, indented or `<pre>`)"
AS_CODE = "as code (a code span or `<code>`)"
AS_CELL = "as one cell of a table row with several cells"


class _PartlyCode(ValueError):
    """A value GitHub shows partly as code (`a`id`b`): the value as shown."""


def normalise(body: str | None) -> str:
    text = (body or "").replace("\r\n", "\n").replace("\r", "\n")
    return text.removeprefix("\ufeff")


def parse_body(body: str | None, dependencies: Sequence[RefKey],
               values: Sequence[ValueKey] = (), repository: str | None = None,
               html_page: str | None = None) -> ParsedBody:
    """The directives of a description as GitHub shows it: `html_page` is GitHub's own
    rendering (`body_html`), else the description is rendered here by GitHub's engine.
    `repository` (owner/repo): the description's own, which a `Depends-On:` prerequisite must
    name (None: not known here, any is taken)."""
    text = normalise(body)
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BODY_BYTES:
        return ParsedBody({}, (Finding(
            "error", f"the pull request body is {size} bytes, over the 1 MiB limit; "
                     "directives are not read from bodies this large"),))
    rendered_here = html_page is None
    if html_page is None:
        html_page = render(text) if text.strip() else ""
    # Rendered here, the author's raw HTML has not been through GitHub's sanitizer yet.
    return _Parser(dependencies, values, repository, text).parse(
        shown_lines(html_page, sanitize=rendered_here))


class _Parser:
    def __init__(self, dependencies: Sequence[RefKey], values: Sequence[ValueKey] = (),
                 repository: str | None = None, body: str = "") -> None:
        self.dependencies = dependencies
        self.repository = repository
        self.locator = Locator(body)
        self.prerequisites: list[Prerequisite] = []
        keyed: list[Keyed] = [*dependencies, *values]
        self.by_key: dict[str, Keyed] = {item.directive.casefold(): item for item in keyed}
        self.names = [dependency.name for dependency in dependencies]
        self.example_key = dependencies[0].directive if dependencies else "ci-sglang-pr"
        self.directives: dict[str, Directive] = {}
        self.values: dict[str, ValueDirective] = {}
        self.findings: list[Finding] = []
        self.in_code: list[CodeDirective] = []
        keys = "|".join(re.escape(key) for key in sorted(self.by_key, key=len, reverse=True))
        self.mention = re.compile(_MENTION.format(keys=keys), re.IGNORECASE)
        self.near_misses = NearMisses(keyed, self.names)

    def parse(self, lines: list[ShownLine]) -> ParsedBody:
        for shown in lines:
            self._line(shown)
        return ParsedBody(self.directives, tuple(self.findings), self.values,
                          tuple(self.in_code), tuple(self.prerequisites))

    def _line(self, shown: ShownLine) -> None:
        """One line as GitHub shows it: code, one cell of a row with several, struck
        through, or text that is honoured exactly, or an error."""
        text = shown.text
        number = self.locator.find(text)
        if shown.cell:
            self._code(number, text, text, AS_CELL)
            return
        lead = shown.leading_code()
        self._keys_in_code(number, shown, lead)
        if lead:
            # Code first: a directive in it (or whose key it covers, `ci-x-pr`: #1) is shown
            # as code; one after the code starts mid-line.
            after = text[lead:].lstrip(" \t")
            shown_as = AS_BLOCK if shown.block else AS_CODE
            if not self._code(number, text, text[:lead], shown_as) and text[:lead].rstrip(
                    " \t").casefold() in self.by_key:
                self._code(number, text, text, shown_as)
            if self._starts_with_key(after):
                self._add("error", number, text,
                          f"GitHub shows `{quote(after)}` after code on the same line, so the "
                          f"line does not start with it and is not applied; write the "
                          f"directive at the start of a line of its own, such as "
                          f"`{self.example_key}: #1234`")
            return
        struck = [index for index, mark in enumerate(shown.struck) if mark]
        if struck and self._starts_with_key(text):
            if len(struck) == len(text):
                self._add("warning", number, text,
                          "GitHub shows this line struck through (`~~` or `<del>`), so it is "
                          "not applied; to apply it, remove the strikethrough")
            else:
                self._add("error", number, text,
                          "GitHub shows part of this line struck through, so what it names is "
                          "unclear; write the directive without strikethrough, or strike the "
                          "whole line")
            return
        if struck and len(struck) == len(text):
            return
        prose = "".join(" " if code else character
                        for character, code in zip(text, shown.code, strict=True)
                        ) if any(shown.code) else text
        self._text(number, text, prose, shown)

    def _keys_in_code(self, number: int, shown: ShownLine, lead: int) -> None:
        """A key shown as code after other text of its code (a code span over `foo
        ci-sglang-pr: #1`, a code block's `echo ci-sglang-pr: #1`) is not applied, but never
        dropped: it is recorded as code, as one at the start of the code is (`code_findings`
        decides whether it fails the run). The line's leading code is read from its start
        by `_line`; a key at its very start is that."""
        text, code = shown.text, shown.code
        start = 0
        while start < len(text):
            if not code[start]:
                start += 1
                continue
            end = start
            while end < len(text) and code[end]:
                end += 1
            run = text[start:end]
            for mention in self.mention.finditer(run):
                if start == 0 and end == lead and without_markers(run.strip(" \t")).startswith(
                        mention.group(0)):
                    continue  # the start of the leading code: `_line` reads it
                where = AS_BLOCK if shown.block else AS_CODE
                self._code(number, text, run[mention.start():], where)
            start = end

    def _text(self, number: int, line: str, prose: str, shown: ShownLine | None) -> None:
        invisible = find_invisible(line)
        if invisible is not None:
            # Checked first: a hidden character in the key would otherwise read as a typo.
            cleaned = remove_invisible(line)
            cleaned_match = _DIRECTIVE_LINE_RE.fullmatch(cleaned) or _DIRECTIVE_LINE_RE.fullmatch(
                without_markers(cleaned))
            if (cleaned_match is not None and self._is_key(cleaned_match.group("key"))) or (
                    self.near_misses.message(cleaned) is not None):
                self._add("error", number, line,
                          f"the line contains the invisible character {invisible}; retype the "
                          f"line without it")
                return
        # After a marker or a task box GitHub shows as text, the key's spelling is checked as
        # well (the exact key there is already an error: text before the key).
        bare = without_markers(line)
        look_alike = self._look_alike(line) or (self._look_alike(bare) if bare != line
                                                else None)
        if look_alike is not None:
            self._add("error", number, line, look_alike)
            return
        match = _DIRECTIVE_LINE_RE.fullmatch(line)
        if match is not None and match.group("markers") and (
                self._is_key(match.group("key")) or match.group("key").casefold() == DEPENDS_ON):
            # A page shows list and quote markers as bullets, never as text: one in the text
            # (`1.` in a `<div>`, an escaped `\-`) stands before the key.
            self._add("error", number, line,
                      f"GitHub shows `{quote(line)}`, with `{match.group('markers').strip()}` "
                      f"as text, not a list or quote marker, so the line does not start with "
                      f"it and is not applied; write the directive at the start of a line of "
                      f"its own, such as `{self.example_key}: #1234`")
            return
        if match is not None and match.group("key").casefold() == DEPENDS_ON:
            try:
                raw, _, _ = self._value_of(number, line, match.start("rest"), shown)
            except _PartlyCode as partly:
                raw = str(partly)
            self._depends_on(number, line, raw)
            return
        if match is not None and self._is_key(match.group("key")):
            self._directive(number, line, match, shown)
            return
        near_miss = self.near_misses.message(line)
        if near_miss is None and not line.isascii():  # an en dash for `-`, a fullwidth `:`
            near_miss = self.near_misses.message(folded(bare))
        if near_miss is not None:
            self._add("error", number, line, near_miss)
            return
        mention = self._mentioned(prose)
        if mention is not None:
            self._add("error", number, line,
                      f"GitHub shows `{quote(line)}`, which names a directive but does not start "
                      f"with it, so it is not applied (`{quote(mention)}:` follows other text "
                      f"on the line); write the directive at the start of a line of its own, "
                      f"such as `{self.example_key}: #1234`")

    def _value_of(self, number: int, line: str, start: int,
                  shown: ShownLine | None) -> tuple[str, str, bool]:
        """The value after a key (from `start`), what follows it, and whether the page shows
        it as code. Where GitHub rewrote a value into a link (a URL shown as `owner/repo#N`
        or `#N`, a SHA shown short in a commit link), the value is the link's target when the
        author wrote that target on this line (`number` of the description); an autolink
        GitHub added (`#N` linked to this repository) leaves the text the author wrote."""
        position = start
        while position < len(line) and line[position] in " \t":
            position += 1
        quoted = shown is not None and position < len(line) and shown.code[position]
        end = position
        if quoted:
            assert shown is not None
            while end < len(line) and shown.code[end]:
                end += 1
        else:
            while end < len(line) and line[end] not in " \t":
                end += 1
        raw = line[position:end].strip(" \t")
        if shown is not None and end > position and shown.links[position] is not None:
            # Sentence punctuation after a link GitHub rewrote (a URL it shows as `#N`) is
            # not part of the link: the URL the author wrote, then the punctuation, as the
            # page without a token reads it (the URL's reading drops the punctuation).
            linked_end = end
            while linked_end > position + 1 and shown.links[linked_end - 1] is None and (
                    line[linked_end - 1] in ".,;:!?)"):
                linked_end -= 1
            if linked_end < end and len(set(shown.links[position:linked_end])) == 1:
                text = line[position:linked_end]
                target = linked(self.locator.source(number), text, shown.links[position])
                if target != text:
                    return target + line[linked_end:end], line[end:], False
        if shown is not None and end > position:
            links = set(shown.links[position:end])
            target = (linked(self.locator.source(number), raw, links.pop())
                      if len(links) == 1 else raw)
            if target != raw:  # GitHub's link around what the author wrote: its target
                return target, line[end:], False
        if shown is not None and not quoted and any(shown.code[position:end]):
            raise _PartlyCode(raw)
        return raw, line[end:], bool(quoted)

    def _depends_on(self, number: int, line: str, value: str) -> None:
        """`Depends-On:` one pull request: of a configured dependency's repository it is that
        dependency's directive; of the description's own repository (or `#N`) a
        prerequisite; of any other repository an error."""
        found = PULL_REQUEST.fullmatch(value)
        if found is None:
            self._add("error", number, line,
                      "`Depends-On:` takes one pull request: `#1234`, `owner/repo#1234` or its "
                      "URL; write one per line")
            return
        repository, pr = found.group("repository") or found.group("url_repository"), int(
            found.group("number") or found.group("url_number"))
        dependency = next((item for item in self.dependencies if repository is not None
                           and item.repository.casefold() == repository.casefold()), None)
        if dependency is not None:
            spec = classify(f"#{pr}", dependency.repository)
            assert isinstance(spec, RefSpec)
            self._record(self.directives, dependency.name,
                         Directive(dependency.name, "Depends-On", value, number, spec), line)
            return
        if repository is not None and self.repository is not None and (
                repository.casefold() != self.repository.casefold()):
            configured = ", ".join(f"{item.repository} ({item.directive})"
                                   for item in self.dependencies)
            self._add("error", number, line,
                      f"`{repository}` is neither this repository ({self.repository}) nor a "
                      f"configured dependency's ({configured}): a pull request there can be "
                      f"neither tested nor waited for")
            return
        self.prerequisites.append(Prerequisite(pr, repository, value, number))

    def _look_alike(self, line: str) -> str | None:
        """Why a line whose key reads as a directive key after NFKC and the confusables fold
        (Cyrillic es, fullwidth letters and colon, U+2010, combining marks, ...) is an error;
        None when the part before the value is plain."""
        if line.isascii():
            return None
        # The confusables data lacks many characters drawn as a colon (U+05C3, U+2025,
        # U+1365, ...): when the fold finds no key, any non-ASCII punctuation or symbol is
        # read as the colon it may be drawn as.
        for folding, separator in ((fold, False), (fold_separator, True)):
            match = _DIRECTIVE_LINE_RE.fullmatch(folded(line, separator))
            if match is not None and (self._is_key(match.group("key"))
                                      or match.group("key").casefold() == DEPENDS_ON):
                # Which characters were folded: up to the value, where the loop below stops.
                pieces = [(character, folding(character)) for character in line]
                break
        else:
            return None
        suspects, position, in_key, rest_from = [], 0, False, len(pieces)
        for index, (character, piece) in enumerate(pieces):
            if position >= match.start("rest"):
                rest_from = index
                break
            if character != piece:
                suspects.append(character)
                # (a combining mark that folds away belongs to the letter before it)
                in_key = in_key or position < match.end("key") or (
                    not piece and position == match.end("key"))
            position += len(piece)
        if not suspects:
            return None
        described = ", ".join(describe_character(character) for character in suspects)
        key = match.group("key")
        if not in_key:  # the key is right; what stands for its colon is not one
            value = line[rest_from:].strip(" \t")
            return (f"this is not applied: {described} stands where the key needs `:`. Write "
                    f"`{key}: {value or 'VALUE'}`")
        return (f"this reads as `{key.casefold()}:` but contains look-alike characters "
                f"({described}), so it would match nothing; retype the key in plain ASCII")

    def _code(self, number: int, line: str, text: str, where: str) -> bool:
        """GitHub shows `text` as code: a directive there is not applied, but recorded (its
        author most likely meant it: a real Miles PR put its directive in a ```text block
        under "## Usage"). Whether it fails the run is `code_findings`' to say."""
        text = without_markers(text.strip(" \t"))
        match = item = None
        # As written; else as a reader takes it: look-alike characters folded, invisible ones
        # and escapes dropped (code showing the key with a U+2010 hyphen reads as the key).
        for candidate in dict.fromkeys((text, remove_invisible(text), text.replace("\\", ""),
                                        folded(text))):
            match = _DIRECTIVE_LINE_RE.fullmatch(candidate)
            item = self.by_key.get(match.group("key").casefold()) if match else None
            if item is not None:
                break
        if match is None or item is None:
            return False
        self.in_code.append(CodeDirective(item.name, number, line,
                                          match.group(0).strip(" \t"), where,
                                          isinstance(item, ValueKey)))
        return True

    def _starts_with_key(self, text: str) -> bool:
        match = _DIRECTIVE_LINE_RE.fullmatch(text)
        return match is not None and self._is_key(match.group("key"))

    def _is_key(self, key: str) -> bool:
        folded = key.casefold()
        return folded in self.by_key or UNKNOWN_KEY.fullmatch(folded) is not None

    def _mentioned(self, line: str) -> str | None:
        """A key followed by `:` or `=` anywhere on a line that does not start with it (after
        markup, a task box, words of a sentence, another directive's value): every key the
        page shows is applied or refused, never dropped. None when there is none."""
        if ":" not in line and "=" not in line:
            return None
        mention = self.mention.search(line)
        return mention.group(0) if mention is not None else None

    def _directive(self, number: int, line: str, match: re.Match[str],
                   shown: ShownLine | None) -> None:
        key = match.group("key")
        dependency = self.by_key.get(key.casefold())
        if dependency is None:
            self._add("error", number, line, self.near_misses.unknown_key_message(key))
            return
        try:
            raw, after, quoted = self._value_of(number, line, match.start("rest"), shown if (
                shown is not None and shown.text == line) else None)
        except _PartlyCode as partly:
            self._add("error", number, line,
                      f"GitHub shows part of `{quote(str(partly))}` as code, so what it names "
                      f"is unclear; write the value alone, or all of it in back-ticks")
            return
        trailing = after.strip(" \t")
        same = shown is not None and shown.text == line
        value_end = len(line) - len(after)
        if same and shown is not None and any(shown.odd[:value_end]):
            self._add("error", number, line,
                      f"GitHub shows `{quote(line)}` with part of it not as plain text (raised "
                      f"or lowered: `<sup>`, `<sub>`, a footnote marker; an annotation: "
                      f"`<ruby>`; reordered: `<bdo>`, `dir`), so the value a reader sees is not "
                      f"the one written; write the directive as plain text, with nothing "
                      f"touching the value")
            return
        after_shown = "".join(" " if code else character for character, code in zip(
            after, shown.code[value_end:], strict=True)) if same and shown is not None else after
        second = self._mentioned(after_shown)
        if second is not None:
            self._add("error", number, line,
                      f"GitHub shows `{quote(second)}:` after the value on the same line as "
                      f"`{key}:`, so neither is applied: each directive needs a line of its "
                      f"own (on the page lines written apart can run on: raw HTML joins them); "
                      f"write `{key}: {raw}` and the next on a line each")
            return
        # Sentence punctuation ends a word only before a blank or the line's end
        # (`v0.5`.1 shows as the one word `v0.5.1`; `v0.5`. ends a sentence).
        punctuation = len(after) - len(after.lstrip(".,;:!?)"))
        glued = after[punctuation:punctuation + 1] if punctuation else after[:1]
        if quoted and glued and not glued.isspace():
            # `release/v0.5`-rc1 shows as one word: which part is the value is unclear (a
            # sentence's punctuation after the code is not part of it).
            self._add("error", number, line,
                      f"`{quote(raw)}` shown as code is followed by `{quote(trailing)}` with no "
                      f"space, so GitHub shows one word, `{quote(raw + trailing.split()[0])}`; "
                      f"put the whole value in the back-ticks, or a space after them")
            return
        if isinstance(dependency, ValueKey):
            self._value(number, line, key, dependency, raw, trailing, quoted)
            return
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
        pull = _PR_WORD.fullmatch(f"{raw} {trailing}")
        if pull is not None:  # `PR #1234`: the branch `PR` is surely not meant
            self._add("error", number, line,
                      f"`{raw} {pull.group('number')}` is not a value; write "
                      f"`{dependency.directive}: {pull.group('number')}`")
            return
        if spec.caution:
            self._add("warning", number, line, spec.caution)
        # A branch or tag name written bare cannot hold a blank: `my branch` may mean
        # something else than the branch `my`. A PR, a SHA, a URL or a quoted name cannot
        # run on, so what follows them is a comment.
        if trailing and not self._comment_after(number, line, key, raw, trailing,
                                                quoted or spec.kind != "ref"):
            return
        self._record(self.directives, dependency.name,
                     Directive(dependency.name, key, raw, number, spec), line)

    def _value(self, number: int, line: str, key: str, value: ValueKey, raw: str,
               trailing: str, quoted: bool) -> None:
        problem = check_value(raw, value.kind) if raw else (
            f"`{value.directive}:` has no value; write one or delete the line")
        if problem is not None:
            self._add("error", number, line, problem)
            return
        if trailing and not self._comment_after(number, line, key, raw, trailing, quoted,
                                                ref=False):
            return
        self._record(self.values, value.name, ValueDirective(value.name, key, raw, number), line)

    def _comment_after(self, number: int, line: str, key: str, raw: str, trailing: str,
                       ends: bool, *, ref: bool = True) -> bool:
        """Text after the value: a notice when the value `ends` (a PR, a SHA, a URL, a
        back-ticked name), else an error: the line is not applied. A branch or tag (`ref`)
        is told to write git's exact name; a value (an image tag) to stand alone."""
        if ends:
            self._add("notice", number, line, f"the text after `{raw}` (`{quote(trailing)}`) "
                                              f"is read as a comment; `{raw}` is used")
            return True
        if not ref:
            self._add("error", number, line,
                      f"`{raw}` is followed by `{quote(trailing)}`, and a value cannot hold a "
                      f"blank: write the value alone on the line; if `{raw}` is the value "
                      rf"and the rest a comment, quote it: `{key}: \`{raw}\``")
            return False
        self._add("error", number, line,
                  f"`{raw}` is followed by `{quote(trailing)}`, and a branch, tag or value "
                  f"cannot hold a blank, so the line names nothing that exists as written: "
                  f"write the name exactly as git shows it (a SHA when in doubt); only if "
                  rf"`{raw}` alone is meant and the rest is a comment, quote it: `{key}: "
                  rf"\`{raw}\``")
        return False

    def _record(self, found: dict[str, Any], name: str, directive: Directive | ValueDirective,
                line: str) -> None:
        """Keep the first line for `name`; a repeat is a warning, another value an error."""
        earlier = found.get(name)
        if earlier is None:
            found[name] = directive
        elif earlier.spec == directive.spec and earlier.key != directive.key:
            self._add("notice", directive.line, line,
                      f"`{directive.key}` names what line {earlier.line} names "
                      f"(`{earlier.key}: {earlier.raw}`)")
        elif earlier.spec == directive.spec:
            self._add("warning", directive.line, line,
                      f"`{directive.key}` is repeated (first on line {earlier.line}) with the "
                      f"same value; delete one of the lines")
        else:
            self._add("error", directive.line, line,
                      f"`{directive.key}` is given twice with different values: `{earlier.raw}` "
                      f"on line {earlier.line} and `{directive.raw}` here; keep exactly one")

    def _add(self, level: Level, number: int, line: str, message: str) -> None:
        self.findings.append(Finding(level, f"{where(number)}: `{quote(line)}` — {message}",
                                     number))


def without_markers(text: str) -> str:
    """`text` without the list markers and task boxes a page shows as text at its start."""
    return _SHOWN_MARKERS.sub("", text, count=1)
