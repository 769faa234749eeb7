"""Near misses (docs/architecture.md, *Directives*): a line whose key is written almost right is an
error that quotes it and says the exact line to write; a key in a sentence stays prose.

Pure: the configured keys in, a message (or None) out. `directives` asks for every shown line
that is not a directive."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rocm_deps.defaults import CONFIG_FILE
from rocm_deps.grammar.keys import RefKey, ValueKey
from rocm_deps.grammar.refs import PLACEHOLDERS, ValueProblem, classify
from rocm_deps.grammar.spelling import first_token, one_edit
from rocm_deps.grammar.values import check_value
from rocm_deps.messages import did_you_mean

Keyed = RefKey | ValueKey
UNKNOWN_KEY = re.compile(r"ci-(?P<word>.{1,64})-pr", re.IGNORECASE)

# A line whose key may be written almost right (docs/architecture.md, *Directives*, near misses):
# markers, a word of key characters, a separator (`:`, `=`, ` - ` or blanks alone), the value.
_NEAR_MISS_RE = re.compile(
    r"[ ]{0,3}(?:(?:[-*+>]|[0-9]{1,9}[.)])[ \t]+){0,16}(?P<glued>[-*+](?=[A-Za-z]))?"
    r"(?P<key>[A-Za-z][A-Za-z0-9_.-]{0,100}?)"
    r"(?P<separator>[ \t]*(?:[:=;,]|->|=>|[\u2013\u2014\u2192\u2212])[ \t]*"
    r"|[ \t]+-[ \t]*|[ \t]+|$)(?P<value>.*)")
# A value that can only be a ref: a PR number, a SHA, a URL, owner/repo#N, pull/N, refs/...
_STRONG_VALUE = re.compile(r"#[0-9]{1,10}|[0-9a-fA-F]{7,64}|https?://\S+"
                           r"|[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+#[0-9]{1,10}|pull/[0-9]{1,10}"
                           r"|refs/\S+")
# ... and the same found anywhere in a value: `(#1234)`, `[#1234](...)`, `PR #1234`.
_STRONG_ANYWHERE = re.compile(r"#[0-9]{1,10}\b|\b[0-9a-fA-F]{40}\b|https?://[^\s<>()\[\]`\"']+")
# A line that starts like `Depends-On:` written almost right: `Depends_On`, `DependsOn`,
# `Depends On` with a colon, `Depends-On` without one.
_DEPENDS_ON = re.compile(r"[ ]{0,3}(?:(?:[-*+>]|[0-9]{1,9}[.)])[ \t]+){0,16}"
                         r"(?P<key>depends(?P<join>[-_]?|[ \t]{1,4})on)"
                         r"(?P<separator>[ \t]*[:=][ \t]*|[ \t]+)(?P<value>.*)", re.IGNORECASE)
# What only a pull request reference looks like: `#49`, `owner/repo#49`, its URL.
_PULL_SHAPED = re.compile(r"(?:[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)?#[0-9]{1,9}"
                          r"|https://github\.com/\S+/pull/[0-9]{1,9}\S*")
# A word that could be a branch name, when it is all the line holds after the key.
_PLAIN_VALUE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/+-]{0,254}")
# ... and one that looks like a ref, not a word of prose: a `/`, `.`, `_` or digit inside it
# (`feature/rocm-aiter`, `core_r0.14.0`, `v0.7.0`), not at its end.
_REF_SHAPED = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/+-]{0,253}[A-Za-z0-9]")


class NearMisses:
    """The configured keys, and every spelling of them a near miss may use."""

    def __init__(self, keyed: Sequence[Keyed], names: Sequence[str]) -> None:
        self.by_key: dict[str, Keyed] = {item.directive.casefold(): item for item in keyed}
        self.names = list(names)
        # The keys written almost right: each configured key, and without `ci-` or `-pr`
        # (the name alone, `sglang:`, is prose).
        self.variants: dict[str, tuple[Keyed, str | None]] = {}
        for item in keyed:
            key = item.directive.casefold()
            for variant, dropped in ((key, None), (key.removeprefix("ci-"), "ci-"),
                                     (key.removesuffix("-pr"), "-pr")):
                if variant and variant not in self.variants:
                    self.variants[variant] = (item, dropped)

    def message(self, line: str) -> str | None:
        """Why a line whose key is written almost right is not applied, and the exact line to
        write; None for a line that is not a near miss (prose stays silent).

        How sure the rule is that the author meant a directive decides what the value must
        look like: the whole key with `_` and a colon, any value; the whole key without a
        colon, one value-shaped word ending the line; a key lacking `ci-` or `-pr`, one
        letter off, or with another separator, a value that can only be a ref (#123, a SHA, a
        URL). So `ci-sglang: passed` and `ci-sglang-pr is broken on main` stay prose."""
        depends_on = _depends_on_message(line)
        if depends_on is not None:
            return depends_on
        match = _NEAR_MISS_RE.fullmatch(line)
        if match is None:
            return None
        written = match.group("key")
        folded = written.casefold().replace("_", "-")
        dependency, dropped = self.variants.get(folded, (None, None))
        if dependency is None:
            dependency, dropped = self._one_letter_off(folded)
        separator = match.group("separator").strip(" \t")
        unknown = dependency is None and UNKNOWN_KEY.fullmatch(folded) is not None
        if (dependency is None and not unknown) or (
                dependency is not None and dropped is None and separator == ":"
                and written.casefold() == dependency.directive.casefold()
                and not match.group("glued")):
            return None
        value = match.group("value").strip(" \t")
        token, rest = first_token(value)
        whole_key = dropped is None and dependency is not None
        if separator in ("", "="):  # no colon: one value-shaped word ending the line
            sure = not rest and (_STRONG_VALUE.fullmatch(token) is not None or (
                whole_key and _PLAIN_VALUE.fullmatch(token) is not None))
            sure = sure or (separator == "=" and _STRONG_ANYWHERE.search(value) is not None)
        elif separator == ":" and whole_key:
            sure = True
        else:  # a key written almost right: a value only a ref has, or one ref-shaped word
            sure = (_STRONG_ANYWHERE.search(value) is not None or (separator == ":" and not value)
                    or (not rest and _is_ref_shaped(token)))
        if not sure and isinstance(dependency, ValueKey):
            # A tag or a number never looks like a ref: one word valid for the value's kind,
            # alone after the key, is what the author meant.
            sure = bool(token) and not rest and check_value(token, dependency.kind) is None
        if not sure:
            return None
        if dependency is None:
            return self.unknown_key_message(written)
        return self._near_miss_message(dependency, written, folded, dropped, separator,
                                       bool(match.group("glued")), token, value)

    def _near_miss_message(self, dependency: Keyed, written: str, folded: str,
                           dropped: str | None, separator: str, glued: bool,
                           token: str, value: str) -> str:
        problems = []
        if glued:
            problems.append("a list marker needs a space after it")
        if written.casefold() != folded:
            problems.append(f"`{written}` has `_` where the key has `-`" + (
                " (that is the dispatch input's name)"
                if written.casefold() == dependency.dispatch_input.casefold() else ""))
        if dropped == "typo":
            problems.append(f"`{written}` is one letter off `{dependency.directive}`")
        elif dropped is not None:
            problems.append(f"the key lacks `{dropped}`")
        if separator == "":
            problems.append("there is no `:` after the key")
        elif separator != ":":
            problems.append(f"`{separator}` stands where the key needs `:`")
        example, problem = _example(dependency, token, value)
        also = f" (and the value: {problem})" if problem else ""
        return (f"this is not applied: {'; '.join(problems)}. Write "
                f"`{dependency.directive}: {example}`{also}")

    def _one_letter_off(self, folded: str) -> tuple[Keyed | None, str | None]:
        """A configured key one edit away (a letter added, dropped, changed or two swapped)."""
        for key, dependency in self.by_key.items():
            if one_edit(folded, key):
                return dependency, "typo"
        return None, None

    def unknown_key_message(self, key: str) -> str:
        match = UNKNOWN_KEY.fullmatch(key.replace("_", "-"))
        word = match.group("word") if match else key
        keys = ", ".join(f"`{self.by_key[k].directive}`" for k in self.by_key)
        hint = did_you_mean(word.casefold(), self.names, 0.5, {
            dependency.name: dependency.directive for dependency in self.by_key.values()})
        return (f"`{key}` is not a known directive; {hint}the known directives are {keys} "
                f"(yours: {CONFIG_FILE}). An unknown key is an error so that a typo cannot "
                f"silently test the image's baseline instead")


def _depends_on_message(line: str) -> str | None:
    """A `Depends-On:` written almost right, as a `ci-*-pr` key written almost right is: the
    key joined otherwise (`Depends_On`, `DependsOn`) with a colon and any value; spaced
    (`Depends on:`) with a colon and a pull request; spelled right but without the colon
    (`Depends-On #49`) and a pull request. `Depends on #49`, with neither, is a sentence."""
    match = _DEPENDS_ON.fullmatch(line)
    if match is None:
        return None
    join, separator = match.group("join"), match.group("separator").strip(" \t")
    token, _ = first_token(match.group("value").strip(" \t"))
    pull = _PULL_SHAPED.fullmatch(token) is not None
    spaced = join.strip(" \t") != join
    if join == "-" and separator == ":":
        return None  # the key itself
    if (not separator and (spaced or not pull)) or (spaced and not pull):
        return None
    problems = []
    if join != "-":
        problems.append(f"`{match.group('key')}` is not the key `Depends-On`")
    if not separator:
        problems.append("there is no `:` after it")
    elif separator != ":":
        problems.append(f"`{separator}` stands where it needs `:`")
    return (f"this is not applied: {'; '.join(problems)}. Write `Depends-On: "
            f"{token if pull else '#1234'}` (one pull request a line) to make merge-check wait "
            f"for that pull request")


def _example(item: Keyed, token: str, value: str) -> tuple[str, str | None]:
    """The value to show in the line to write, and what is wrong with it (None: nothing)."""
    if isinstance(item, ValueKey):
        return token or "VALUE", check_value(token, item.kind) if token else None
    example = f"#{token}" if token.isdigit() else token or "#1234"
    spec = classify(example, item.repository)
    strong = _STRONG_ANYWHERE.search(value)
    if strong is not None and (isinstance(spec, ValueProblem)  # `#1234.`, `[#1234](...)`
                               or _STRONG_VALUE.fullmatch(token) is None):  # `PR #1234`
        example = strong.group()
        spec = classify(example, item.repository)
    return example, spec.message if isinstance(spec, ValueProblem) else None


# Branch names every repository has: after a key written almost right, the author named a
# branch (`sglang-pr: main`), not a state.
BRANCH_WORDS = frozenset({"main", "master", "develop", "development", "dev", "trunk",
                          "nightly", "stable"})


def _is_ref_shaped(token: str) -> bool:
    """One word that names a ref rather than saying something: `pull/21877`, a branch with a
    `/` or a `-` (`miles-main`), a tag with dots or digits, a default branch's name (`main`).
    A plain word (`passed`, `green`) stays prose."""
    return _STRONG_VALUE.fullmatch(token) is not None or (
        token.casefold() not in PLACEHOLDERS and _REF_SHAPED.fullmatch(token) is not None
        and (any(character in "/._-" or character.isdigit() for character in token)
             or token.casefold() in BRANCH_WORDS))
