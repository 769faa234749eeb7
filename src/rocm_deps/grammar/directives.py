"""The directive grammar of docs/architecture.md, *Directives*: which lines of a PR body name a
dependency ref.

Pure and linear in the body size: `markdown.shown_lines` says which lines GitHub shows as
text outside code (authors put examples in code and comments), then each shown line is
matched by anchored, length-bounded patterns (stdlib `re`; Unicode character properties come
from `unicodedata`, see refs.is_invisible). Anything that *looks* like a directive but is
not honoured produces a warning or an error, so an author never believes a dependency was
tested when it was not.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

from rocm_deps.grammar.display import display
from rocm_deps.grammar.keys import (
    KEY_CHARACTERS,
    REPOSITORY_NAME,
    RefKey,
    ValueKey,
)
from rocm_deps.grammar.markdown import MAX_DEPTH, NestingTooDeep, ShownLine, shown_lines
from rocm_deps.grammar.markup import (
    code_first,
    without_code_boxes,
    without_markup,
    without_text_markers,
)
from rocm_deps.grammar.near_miss import UNKNOWN_KEY, Keyed, NearMisses
from rocm_deps.grammar.parsed import (
    CODE_BLOCKS,
    CodeDirective,
    Directive,
    Finding,
    Level,
    ParsedBody,
    Prerequisite,
    ValueDirective,
    quote,
)
from rocm_deps.grammar.refs import (
    RefSpec,
    ValueProblem,
    classify,
    describe_character,
    find_invisible,
    remove_invisible,
)
from rocm_deps.grammar.spelling import fold, fold_separator
from rocm_deps.grammar.values import check_value

MAX_BODY_BYTES = 1024 * 1024

# A directive line: up to 3 spaces, any mix of list/quote markers (`-`, `*`, `+`, `>`, and
# ordered-list markers `1.` / `1)` of up to 9 digits, as GitHub shows them) each followed by
# whitespace, a key, ':', the value. The key is bounded so a pathological line stays linear.
# \x1c-\x1f are spelled out: `re` counts them as whitespace (\s), Unicode does not.
_DIRECTIVE_LINE = (r"(?P<indent>[ ]{0,3})(?P<markers>(?:(?:[-*+>]|[0-9]{1,9}[.)])[ \t]+){0,16})"
                   r"(?P<key>[^\s\x1c-\x1f:`*]{1,100})[ \t]*:(?P<rest>.*)")
# Something that reads like a directive key followed by ':' or '=' anywhere on a line.
# Its key is made of the key alphabet (grammar.keys.KEY_CHARACTERS), in any letter case.
# (`_` may stand beside it: emphasis written with underscores, `___ci-sglang-pr:__ #1_`.)
_MENTION = (r"(?<![A-Za-z0-9-])(?:ci-[" + re.escape(KEY_CHARACTERS)
            + r"]{{1,64}}?-pr|{keys})(?![A-Za-z0-9-])"
            r"(?=[*_`\\\s\x1c-\x1f]*[:=])")

_TASK_BOX = re.compile(r"\[[ xX]\]")
# A source line whose task box GitHub shows as a checkbox: cmark-gfm's tasklist extension
# scans the line from its first column for one list marker and the box, so a box after a
# quote's `>` or a second marker (`- - [ ] x`) is text.
_TASK_ITEM = re.compile(r"[ \t]*(?:[-+*]|[0-9]{1,9}[.)])[ \t]+\[[ xX]\](?:[ \t]|$)")
_ESCAPED_PUNCTUATION = re.compile(r"\\([!-/:-@\[-`{-~])")
_PR_WORD = re.compile(r"(?:pr|pull|pull request)\s*(?P<number>#[0-9]{1,10})\b.*",
                      re.IGNORECASE)
_BACKTICKED = re.compile(r"[ \t]*`(?P<value>[^`]*)`(?P<trailing>.*)")
# An angle autolink (CommonMark): GitHub shows the URL between the brackets, as a link.
_AUTOLINK = re.compile(r"<(?P<url>https?://[^\s<>\x00-\x1f]*)>(?=\s|$)")
# A value wrapped in one emphasis run, the same on both sides, nothing else inside.
_WRAPPED_VALUE = re.compile(r"(?P<run>\*{1,3}|_{1,3})(?P<value>[^*_\s`]+)(?P=run)(?=[ \t]|$)")
_BARE = re.compile(r"[ \t]*(?P<value>[^ \t]*)(?P<trailing>.*)")
_DIRECTIVE_LINE_RE = re.compile(_DIRECTIVE_LINE)
DEPENDS_ON = "depends-on"  # the key of a prerequisite, in any letter case
# What `Depends-On:` takes: `#N`, `owner/repo#N`, or a pull request's URL (any page of it).
_PULL_REQUEST = re.compile(
    rf"(?:(?P<repository>{REPOSITORY_NAME})?#(?P<number>[0-9]{{1,9}})|https://github\.com/"
    rf"(?P<url_repository>{REPOSITORY_NAME})/pull/(?P<url_number>[0-9]{{1,9}})"
    rf"(?:[/#?][^\s]*)?)")

def normalise(body: str | None) -> str:
    text = (body or "").replace("\r\n", "\n").replace("\r", "\n")
    return text.removeprefix("\ufeff")


def parse_body(body: str | None, dependencies: Sequence[RefKey],
               values: Sequence[ValueKey] = (), repository: str | None = None) -> ParsedBody:
    """The directives of a description. `repository` (owner/repo): the description's own, which
    a `Depends-On:` prerequisite must name (None: not known here, any is taken)."""
    text = normalise(body)
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BODY_BYTES:
        return ParsedBody({}, (Finding(
            "error", f"the pull request body is {size} bytes, over the 1 MiB limit; "
                     "directives are not read from bodies this large"),))
    return _Parser(dependencies, values, repository).parse(text)



class _Parser:
    def __init__(self, dependencies: Sequence[RefKey], values: Sequence[ValueKey] = (),
                 repository: str | None = None) -> None:
        self.dependencies = dependencies
        self.repository = repository
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
        return ParsedBody(self.directives, tuple(self.findings), self.values,
                          tuple(self.in_code), tuple(self.prerequisites))

    def _line(self, shown: ShownLine) -> None:
        """One line as GitHub shows it: code, one cell of a row with several, struck
        through, or text that is honoured exactly, or an error."""
        if shown.code:
            opened = f" that opens on line {shown.code_from}" if shown.code_from else ""
            self._code(shown, shown.text or shown.lead_code, CODE_BLOCKS[shown.code] + opened)
            return
        text, prose, lead = shown.text, shown.prose, shown.lead_code
        if shown.cells:
            filled = [cell for cell in shown.cells if cell[0] or cell[2]]
            if len(filled) > 1:
                for cell_text, _, cell_lead in filled:
                    where = "as one cell of a table row with several cells"
                    if not self._code(shown, code_first(cell_text, cell_lead, raw_html=False)[0]
                                      or display(cell_text).text, where):
                        # after a marker or a box shown as text: `| - *ci-x-pr: #1* | x |`
                        self._code(shown, display(without_text_markers(cell_text)).text, where)
                return
            text, prose, lead = filled[0]  # a one-cell row: shown as that line
        leading, after = code_first(text, lead, raw_html=shown.raw_html)
        if leading and self._code(shown, leading, "as code (a code span or `<code>`)"):
            shown_after = display(after, markdown=not shown.raw_html).text
            if self._starts_with_key(shown_after):  # a directive after the code is mid-line
                self._add("error", shown.number, shown.source,
                          f"GitHub shows `{quote(shown_after)}` after code on the same line, "
                          f"so the line does not start with it and is not applied; write "
                          f"the directive at the start of a line of its own, such as "
                          f"`{self.example_key}: #1234`")
            return
        task = _TASK_ITEM.match(shown.source) is not None
        displayed = display(text, markdown=not shown.raw_html, task_box=task)
        if shown.partly_struck and self._starts_with_key(displayed.text):
            self._add("error", shown.number, shown.source,
                      "GitHub shows part of this line struck through, so what it names is "
                      "unclear; write the directive without strikethrough, or strike the "
                      "whole line")
            return
        if displayed.struck or shown.struck:
            if self._starts_with_key(displayed.text):
                self._add("warning", shown.number, shown.source,
                          "GitHub shows this line struck through (`~~` or `<del>`), so it is "
                          "not applied; to apply it, remove the strikethrough")
            return
        self._text(shown.number, displayed.text,
                   display(prose, markdown=not shown.raw_html, task_box=task).text, shown.source,
                   shown.raw_html)

    def _text(self, number: int, line: str, prose: str, source: str, raw_html: bool) -> None:
        invisible = find_invisible(line)
        if invisible is not None:
            # Checked first: a hidden character in the key would otherwise read as a typo.
            cleaned = remove_invisible(line)
            # (after a marker or a task box GitHub shows as text too)
            cleaned_match = _DIRECTIVE_LINE_RE.fullmatch(cleaned) or _DIRECTIVE_LINE_RE.fullmatch(
                without_markup(cleaned))
            if (cleaned_match is not None and self._is_key(cleaned_match.group("key"))) or (
                    self.near_misses.message(cleaned) is not None):
                self._add("error", number, source,
                          f"the line contains the invisible character {invisible}; retype the "
                          f"line without it")
                return
        # After a marker or a task box GitHub shows as text, the key's spelling is checked as
        # well (the exact key there is already an error: text before the key).
        bare = without_markup(line)
        look_alike = self._look_alike(line) or (self._look_alike(bare) if bare != line
                                                else None)
        if look_alike is not None:
            self._add("error", number, source, look_alike)
            return
        match = _DIRECTIVE_LINE_RE.fullmatch(line)
        if match is not None and match.group("markers") and (
                self._is_key(match.group("key")) or match.group("key").casefold() == DEPENDS_ON):
            # The Markdown model removed every marker that makes a list or a quote: one left
            # is text GitHub shows before the key (`1.` in a `<div>`, `- ` in emphasis).
            self._add("error", number, source,
                      f"GitHub shows `{quote(line)}`, with `{match.group('markers').strip()}` "
                      f"as text, not a list or quote marker, so the line does not start with "
                      f"it and is not applied; write the directive at the start of a line of "
                      f"its own, such as `{self.example_key}: #1234`")
            return
        if match is not None and match.group("key").casefold() == DEPENDS_ON:
            self._depends_on(number, source, match.group("rest"))
            return
        if match is not None and self._is_key(match.group("key")):
            self._directive(number, source, match, markdown=not raw_html)
            return
        near_miss = self.near_misses.message(line)
        if near_miss is None and not line.isascii():  # an en dash for `-`, a fullwidth `:`
            near_miss = self.near_misses.message("".join(fold(character) for character in bare))
        if near_miss is not None:
            self._add("error", number, source, near_miss)
            return
        if "\\" in line:
            escaped = self._escaped_key(line)
            if escaped is not None:
                self._add("error", number, source, escaped)
                return
        if self._looks_like_directive(prose):
            self._add("error", number, source,
                      f"GitHub shows `{quote(line)}`, which names a directive but does not start "
                      f"with it, so it is not applied; write the directive at the start of a "
                      f"line of its own, such as `{self.example_key}: #1234`")

    def _depends_on(self, number: int, line: str, rest: str) -> None:
        """`Depends-On:` one pull request: of a configured dependency's repository it is that
        dependency's directive; of the description's own repository (or `#N`) a
        prerequisite; of any other repository an error."""
        value = rest.strip(" \t").strip("`")
        found = _PULL_REQUEST.fullmatch(value)
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

    def _escaped_key(self, line: str) -> str | None:
        """Back-slashes GitHub removes (`ci\\_sglang\\_pr`, `ci\\-sglang\\-pr\\:`): the line
        shows as a directive, or a near miss, that this tool does not read as one."""
        shown = _ESCAPED_PUNCTUATION.sub(r"\1", line)
        match = _DIRECTIVE_LINE_RE.fullmatch(shown)
        if (match is None or match.group("key").casefold() not in self.by_key) and (
                self.near_misses.message(shown) is None):
            return None
        return (f"GitHub shows this line as `{quote(shown)}`, but it is not applied because of "
                f"the back-slashes; write it without them")

    def _look_alike(self, line: str) -> str | None:
        """Why a line whose key reads as a directive key after NFKC and the confusables fold
        (Cyrillic es, fullwidth letters and colon, U+2010, combining marks, ...) is an error;
        None when the part before the value is plain."""
        if line.isascii():
            return None
        # The confusables data lacks many characters drawn as a colon (U+05C3, U+2025,
        # U+1365, ...): when the fold finds no key, any non-ASCII punctuation or symbol is
        # read as the colon it may be drawn as.
        for folding in (fold, fold_separator):
            pieces = [(character, folding(character)) for character in line]
            match = _DIRECTIVE_LINE_RE.fullmatch("".join(piece for _, piece in pieces))
            if match is not None and (self._is_key(match.group("key"))
                                      or match.group("key").casefold() == DEPENDS_ON):
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

    def _code(self, shown: ShownLine, text: str, where: str) -> bool:
        """GitHub shows `text` as code: a directive there is not applied, but recorded (its
        author most likely meant it: a real Miles PR put its directive in a ```text block
        under "## Usage"). Whether it fails the run is `code_findings`' to say."""
        if shown.raw_html:  # a browser decodes raw HTML's entities: `ci&#45;…` shows `ci-…`
            text = html.unescape(text)
        text = without_code_boxes(text.strip(" \t"))
        match = item = None
        # As written; else as a reader takes it: look-alike characters folded, invisible ones
        # and escapes dropped (code showing the key with a U+2010 hyphen reads as the key).
        for candidate in dict.fromkeys((text, remove_invisible(text), text.replace("\\", ""),
                                        "".join(fold(character) for character in text))):
            match = _DIRECTIVE_LINE_RE.fullmatch(candidate)
            item = self.by_key.get(match.group("key").casefold()) if match else None
            if item is not None:
                break
        if match is None or item is None:
            return False
        self.in_code.append(CodeDirective(item.name, shown.number, shown.source,
                                          match.group(0).strip(" \t"), where,
                                          isinstance(item, ValueKey)))
        return True

    def _starts_with_key(self, text: str) -> bool:
        match = _DIRECTIVE_LINE_RE.fullmatch(text)
        return match is not None and self._is_key(match.group("key"))

    def _is_key(self, key: str) -> bool:
        folded = key.casefold()
        return folded in self.by_key or UNKNOWN_KEY.fullmatch(folded) is not None

    def _looks_like_directive(self, line: str) -> bool:
        """A key followed by `:` or `=` with only markup before it (emphasis, a task box, a
        number); a key in the middle of a sentence is prose and stays silent."""
        if ":" not in line and "=" not in line:
            return False
        mention = self.mention.search(line)
        if mention is None:
            return False
        before = _TASK_BOX.sub("", line[:mention.start()])
        return not any(character.isalpha() for character in before)

    def _directive(self, number: int, line: str, match: re.Match[str], *,
                   markdown: bool = True) -> None:
        key = match.group("key")
        dependency = self.by_key.get(key.casefold())
        if dependency is None:
            self._add("error", number, line, self.near_misses.unknown_key_message(key))
            return
        rest = match.group("rest").strip(" \t")
        if markdown:
            autolink = _AUTOLINK.match(rest)  # `<https://…>` shows as the URL, linked
            if autolink is not None:
                rest = autolink.group("url") + rest[autolink.end():]
            wrapped = _WRAPPED_VALUE.match(rest)  # `**#1**` shows as `#1`
            if wrapped is not None and wrapped.group("run") + wrapped.group("value") not in line:
                wrapped = None  # the run came from an entity (`&#95;x_`): shown as written
            if wrapped is not None:
                rest = wrapped.group("value") + rest[wrapped.end():]
            elif rest[:1] in ("*", "_"):
                # Emphasis cmark pairs differently (`__x_` shows `_x`): not read as a value.
                self._add("error", number, line,
                          f"`{quote(rest)}` starts with emphasis markers GitHub may show or "
                          f"hide, so the value is unclear; write it alone, in back-ticks: "
                          rf"`{key}: \`VALUE\``")
                return
        quoted = _BACKTICKED.fullmatch(rest)
        value_match = quoted or _BARE.fullmatch(rest)
        assert value_match is not None  # _BARE matches any single line
        raw = value_match.group("value").strip(" \t")
        trailing = value_match.group("trailing").strip(" \t")
        after = value_match.group("trailing")
        # Sentence punctuation ends a word only before a blank or the line's end
        # (`v0.5`.1 shows as the one word `v0.5.1`; `v0.5`. ends a sentence).
        punctuation = len(after) - len(after.lstrip(".,;:!?)"))
        glued = after[punctuation:punctuation + 1] if punctuation else after[:1]
        if quoted is not None and glued and not glued.isspace():
            # `release/v0.5`-rc1 shows as one word: which part is the value is unclear (a
            # sentence's punctuation after the back-ticks is not part of it).
            self._add("error", number, line,
                      f"`{quote(raw)}` in back-ticks is followed by `{quote(trailing)}` with no "
                      f"space, so GitHub shows one word, `{quote(raw + trailing.split()[0])}`; "
                      f"put the whole value in the back-ticks, or a space after them")
            return
        if markdown and quoted is None and raw.endswith("_"):
            # The closer of emphasis opened earlier (`_Note<br>ci-x-pr: main_` shows `main`;
            # a `*` is no ref character, so the value's own check says so).
            self._add("error", number, line,
                      f"`{quote(raw)}` ends with emphasis markers GitHub may show or hide, so "
                      f"the value is unclear; write it alone, in back-ticks: "
                      rf"`{key}: \`VALUE\``")
            return
        if isinstance(dependency, ValueKey):
            self._value(number, line, key, dependency, raw, trailing, quoted is not None)
            return
        if not raw:
            self._add("error", number, line,
                      f"`{dependency.directive}:` has no value; write a pull request number, a "
                      f"commit SHA or a branch, e.g. `{dependency.directive}: #1234`, or delete "
                      f"the line" + (" (a template's example in an HTML comment leaves the "
                                     "value empty: put the whole line inside the comment)"
                                     if "<!--" in line else ""))
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
                                                quoted is not None or spec.kind != "ref"):
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
        if trailing and not self._comment_after(number, line, key, raw, trailing, quoted):
            return
        self._record(self.values, value.name, ValueDirective(value.name, key, raw, number), line)

    def _comment_after(self, number: int, line: str, key: str, raw: str, trailing: str,
                       ends: bool) -> bool:
        """Text after the value: a notice when the value `ends` (a PR, a SHA, a URL, a
        back-ticked name), else an error: the line is not applied."""
        if ends:
            self._add("notice", number, line, f"the text after `{raw}` (`{quote(trailing)}`) "
                                              f"is read as a comment; `{raw}` is used")
            return True
        self._add("error", number, line,
                  f"`{raw}` is followed by `{quote(trailing)}`, and a branch, tag or value "
                  f"cannot hold a blank, so this may name something else; to use `{raw}`, "
                  rf"quote it alone: `{key}: \`{raw}\``, with any comment after the closing "
                  f"back-tick or on a line of its own")
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
        self.findings.append(Finding(level, f"line {number}: `{quote(line)}` — {message}", number))
