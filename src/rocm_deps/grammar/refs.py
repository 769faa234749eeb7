"""Classify a directive value into what `git fetch` will be asked for (docs/architecture.md,
*Directives* value table).

Pure: strings in, a `RefSpec` or a `ValueProblem` out. Every ref it emits passes
`check_ref_format` (git's rules plus ours: ASCII, at most 255 bytes, no leading `-`,
so a value can never become an option of git).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Literal, get_args

from rocm_deps.grammar.keys import REPOSITORY_NAME
from rocm_deps.messages import CONTROL, code_point, full_sha_hint, show_controls

# A full commit SHA (SHA-1 or SHA-256). Canonical form is lowercase; input may be either case.
FULL_SHA_SOURCE = r"[0-9a-f]{40}|[0-9a-f]{64}"
FULL_SHA = re.compile(FULL_SHA_SOURCE)
FULL_SHA_ANY_CASE = re.compile(FULL_SHA_SOURCE, re.IGNORECASE)

Kind = Literal["pr", "commit", "short-commit", "ref"]
KINDS: tuple[Kind, ...] = get_args(Kind)

MAX_PR_NUMBER_DIGITS = 10


# ---- what a ref may be (every ref in the contract passes this) ------------------------------

MAX_REF_BYTES = 255
_REF_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")


def describe_character(character: str) -> str:
    return f"{code_point(character)} {unicodedata.name(character, 'unnamed character')}"


def check_ref_format(ref: str) -> str | None:
    """The reason `ref` is not a valid ref name, or None. Same rules as
    `git check-ref-format --allow-onelevel`, plus ours (ASCII, length, no leading '-')."""
    if not ref:
        return "it is empty"
    if not ref.isascii():
        bad = next(character for character in ref if not character.isascii())
        return f"it contains the non-ASCII character {describe_character(bad)}"
    if len(ref.encode()) > MAX_REF_BYTES:
        return f"it is longer than {MAX_REF_BYTES} bytes"
    if ref.startswith("-"):
        return "it starts with '-' (git would read it as an option)"
    forbidden = _REF_FORBIDDEN.search(ref)
    if forbidden:
        character = forbidden.group()
        shown = repr(character) if character.isprintable() and character != " " else (
            "a space" if character == " " else f"control character {code_point(character)}")
        return f"it contains {shown}, which git does not allow in a ref name"
    if ref == "@":
        return "'@' alone is not a ref name"
    for sequence, why in (("..", "'..'"), ("@{", "'@{'"), ("//", "'//'")):
        if sequence in ref:
            return f"it contains {why}, which git does not allow in a ref name"
    if ref.startswith("/") or ref.endswith("/"):
        return "it starts or ends with '/'"
    if ref.endswith("."):
        return "it ends with '.'"
    for component in ref.split("/"):
        if component.startswith("."):
            return f"the component {component!r} starts with '.'"
        if component.endswith(".lock"):
            return f"the component {component!r} ends with '.lock'"
    return None



# Invisible or format characters: they make `ci-sglang-pr:` look right while matching nothing,
# or make a value look like another (bidi controls). The categories Cf (BOM, zero-width, bidi
# controls), Zl and Zp, and the characters below that render as nothing or as a blank.
INVISIBLE_CATEGORIES = frozenset({"Cf", "Zl", "Zp"})
INVISIBLE_CHARACTERS = frozenset(
    "\u034f\u115f\u1160\u3164\uffa0\u180b\u180c\u180d\u2800"
    + "".join(chr(code) for code in range(0xFE00, 0xFE10))       # variation selectors
    + "".join(chr(code) for code in range(0xE0100, 0xE01F0)))    # variation selectors supplement


def check_output_ref(ref: str) -> str | None:
    """Why `ref` may not be written to an output (git's rules, then shell-safety: the outputs
    end up in other people's `run:` scripts), or None."""
    problem = check_ref_format(ref)
    if problem is not None:
        return problem
    unsafe = _unsafe_character(ref)
    if unsafe is not None:
        return (f"contains {unsafe!r}: a ref here may use only letters, digits and . _ / + - "
                f"(it is copied into outputs that other workflows' scripts use)")
    return None


def _unsafe_character(ref: str) -> str | None:
    """The first character of `ref` outside the shell-safe set, or None."""
    return next((character for character in ref
                 if not _SHELL_SAFE_REF.fullmatch(character)), None)


def is_invisible(character: str) -> bool:
    return (not character.isascii()
            and (character in INVISIBLE_CHARACTERS
                 or unicodedata.category(character) in INVISIBLE_CATEGORIES))


# Value shapes are ASCII by definition (non-ASCII values are refused first): stdlib `re`.
_HEX = re.compile(r"[0-9a-fA-F]+")
_DIGITS = re.compile(r"[0-9]+")
_PR_SHORT = re.compile(r"(?:#|pull/)([0-9]+)")
_PR_REF = re.compile(r"(?:refs/)?pull/([0-9]+)/head")
# Pull request N merged onto its base: GitHub's test-merge ref.
_PR_MERGE = re.compile(r"(?:refs/)?pull/([0-9]+)/merge")
# git reads `pull/N/…` as `refs/pull/N/…` (its ref DWIM): never a branch name here.
_PULL_NAMESPACE = re.compile(r"(?:refs/)?pull/.*")
_PR_CROSS = re.compile(rf"({REPOSITORY_NAME})#([0-9]+)")
# A URL's tail (`/files`, `?w=1`, `#discussion_r1`) may use only these characters: the value
# is copied into outputs that end up in other people's scripts.
_URL_TAIL = r"(?:[/?#][A-Za-z0-9._~/?#=%+-]*)?"
# A page of one of a pull request's commits (`/commits/<sha>`, `/changes/<sha>`,
# `/files/<sha>`): that commit, not the PR's head; what follows the segment is read by
# _pull_commit, never taken as the PR.
_PULL_COMMIT = re.compile(rf"https?://(?:www\.)?github\.com/({REPOSITORY_NAME})/pull/([0-9]+)/"
                          r"(?:commits|changes|files)/(.+)")
_COMMIT_AND_TAIL = re.compile(r"([0-9a-fA-F]{7,64})(?:[?#][A-Za-z0-9._~/?#=%+-]*)?")
# What GitHub's autolinker leaves out of the end of a URL: sentence punctuation.
_TRAILING_PUNCTUATION = ".,:;!?"
# A pull request's page: the PR (its conversation, `/files`, `/commits`, a comment's anchor).
_URL = re.compile(
    rf"https?://(?:www\.)?github\.com/({REPOSITORY_NAME})/"
    rf"(?:pull/([0-9]+)(?!/(?:commits|changes|files)/){_URL_TAIL}"
    rf"|commit/([0-9a-fA-F]+){_URL_TAIL}"
    r"|tree/([^?#]+)(?:[?#][A-Za-z0-9._~/?#=%+-]*)?)"
)
# Pages that name no one commit to test, and what to write instead.
_OTHER_PAGE = re.compile(rf"https?://(?:www\.)?github\.com/({REPOSITORY_NAME})/"
                         r"(compare|blob|commits|tags|releases|pulls|issues)(?:[/?#]\S*)?")
_PAGES = {"compare": "a comparison page", "blob": "a file page", "commits": "a commit list",
          "tags": "a tag list", "releases": "a release page", "pulls": "a pull request list",
          "issues": "an issue page"}
# owner/repo/pull/N and the like: a GitHub page's path without its host.
_PAGE = re.compile(rf"{REPOSITORY_NAME}/(?:pull|commit|tree|compare|blob)/\S+")
# Values that mean "nothing here" in a template: never a branch anyone meant.
PLACEHOLDERS = frozenset({"none", "n/a", "na", "tbd", "todo", "null", "nil", "false", "no"})
# Beyond git's rules, a branch or tag name may use only these (docs/architecture.md, *Directives*):
# shell-safe.
_SHELL_SAFE_REF = re.compile(r"[A-Za-z0-9._/+-]+")


@dataclass(frozen=True)
class RefSpec:
    """What to fetch. `kind` is `pr`, `commit`, `short-commit` or `ref`."""

    kind: Kind
    ref: str
    pr: int | None = None
    sha: str | None = None
    # Accepted, but the author may have meant something else: said as a warning.
    caution: str | None = None


@dataclass(frozen=True)
class ValueProblem:
    """Why a value was refused, written for the PR author: what is wrong and how to write it."""

    message: str


def find_invisible(text: str) -> str | None:
    """The first invisible or format character in `text`, described, or None."""
    if text.isascii():
        return None
    # Each distinct character is asked once (a line of a 64 KiB description holds few).
    invisible = [character for character in set(text) if is_invisible(character)]
    if not invisible:
        return None
    return describe_character(min(invisible, key=text.index))


def remove_invisible(text: str) -> str:
    if text.isascii():
        return text
    return "".join(character for character in text if not is_invisible(character))


def show_invisible(text: str) -> str:
    """`text` with each invisible or control character (but the tab) written as <U+XXXX>, for
    quoting in messages: each would reach a log, an annotation or the summary as a raw byte."""
    if not text.isascii():
        text = "".join(f"<{code_point(character)}>" if is_invisible(character) else character
                       for character in text)
    return show_controls(text, "\t")


def classify(value: str, repository: str) -> RefSpec | ValueProblem:
    """Turn one trimmed directive value into a fetch target for `repository` (owner/repo)."""
    if not value:
        return ValueProblem("the value is empty; write a PR number, a commit SHA or a branch, "
                            "e.g. `#1234`")
    control = CONTROL.search(value)
    if control:
        return ValueProblem(f"the value contains the control character "
                            f"{code_point(control.group())}; retype it")
    invisible = find_invisible(value)
    if invisible:
        return ValueProblem(f"the value contains the invisible character {invisible}; "
                            "retype it without copying from a formatted page")
    if not value.isascii():
        character = next(character for character in value if not character.isascii())
        return ValueProblem(f"`{value}` contains the non-ASCII character "
                            f"{describe_character(character)}; refs, PR numbers and SHAs are "
                            f"plain ASCII: retype the value")
    if FULL_SHA_ANY_CASE.fullmatch(value):
        return RefSpec("commit", value.lower(), sha=value.lower())
    if value.casefold() in PLACEHOLDERS:
        return ValueProblem(f"`{value}` reads as a placeholder, not a ref: delete the line to "
                            f"test the image's copy, or write a pull request (`#1234`), a "
                            f"commit SHA or a branch")
    if value.startswith(("github.com/", "www.github.com/")) or _PAGE.fullmatch(value):
        # The address without https:// (github.com/o/r/pull/1), or o/r/pull/1.
        url = value if value.startswith(("github.com/", "www.")) else f"github.com/{value}"
        return _classify_url(f"https://{url}", repository)
    if "://" in value:
        return _classify_url(value, repository)
    for pattern in (_PR_SHORT, _PR_REF):
        match = pattern.fullmatch(value)
        if match:
            return _pull_request(match.group(1), value)
    merge = _PR_MERGE.fullmatch(value)
    if merge:
        return merged_onto_base(_pull_request(merge.group(1), value))
    cross = _PR_CROSS.fullmatch(value)
    if cross:
        problem = _other_repository(cross.group(1), repository, value)
        return problem or _pull_request(cross.group(2), value)
    if _DIGITS.fullmatch(value):
        return ValueProblem(f"`{value}` is a bare number; did you mean `#{value}` "
                            f"(pull request {value} of {repository})?")
    if _HEX.fullmatch(value) and len(value) >= 7:
        if len(value) < 40:
            return RefSpec("short-commit", value.lower())
        return ValueProblem(f"`{value}` looks like a commit SHA but has {len(value)} hex digits; "
                            "a full SHA has 40 (or 64)")
    if value.startswith("refs/") and not value.startswith(("refs/heads/", "refs/tags/")):
        return ValueProblem(f"`{value}` is not a supported ref; use `refs/heads/<branch>`, "
                            "`refs/tags/<tag>`, `#<number>` or a full commit SHA")
    if _PULL_NAMESPACE.fullmatch(value):
        return ValueProblem(f"`{value}` is not a form of a pull request that is supported: "
                            f"write `#1234` (its head) for a pull request of {repository}")
    if "#" in value and not value.startswith(("refs/heads/", "refs/tags/")):
        return ValueProblem(f"`{value}` is not a recognised form; write `#1234` for a pull "
                            f"request of {repository}")
    reason = check_ref_format(value)
    if reason:
        return ValueProblem(f"`{value}` is not a valid branch or tag name: {reason}")
    unsafe = _unsafe_character(value)
    if unsafe is not None:
        return ValueProblem(f"`{value}` contains {unsafe!r}: a branch or tag name here may use "
                            f"only letters, digits and . _ / + - (the name is copied into "
                            f"outputs that other workflows' scripts use); give the branch's "
                            f"commit SHA instead")
    return RefSpec("ref", value, caution=_looks_like_a_short_commit(value))


def _looks_like_a_short_commit(value: str) -> str | None:
    """4 to 6 hex digits with a digit and a letter (`123abc`, not `1234`, not `cafe`) are
    taken as a branch name; the author probably meant a commit."""
    if (4 <= len(value) <= 6 and _HEX.fullmatch(value) and any(c.isdigit() for c in value)
            and any(c.isalpha() for c in value)):
        return f"`{value}` is read as a branch name; if you meant a commit, {full_sha_hint(value)}"
    return None


def _pull_request(digits: str, value: str) -> RefSpec | ValueProblem:
    number = int(digits[:MAX_PR_NUMBER_DIGITS + 1])
    if len(digits) > MAX_PR_NUMBER_DIGITS or number < 1:
        return ValueProblem(f"`{value}` is not a valid pull request number")
    return RefSpec("pr", f"refs/pull/{number}/head", pr=number)


def merged_onto_base(spec: RefSpec | ValueProblem) -> RefSpec | ValueProblem:
    """A pull request's spec as its merge onto its base (`refs/pull/N/merge`): still pull
    request N for the guard and the manifest."""
    if isinstance(spec, ValueProblem) or spec.kind != "pr" or spec.pr is None:
        return spec
    return replace(spec, ref=f"refs/pull/{spec.pr}/merge")


def is_merge_ref(ref: str) -> bool:
    return _PR_MERGE.fullmatch(ref) is not None


def _other_repository(named: str, repository: str, value: str) -> ValueProblem | None:
    if named.casefold() == repository.casefold():
        return None
    return ValueProblem(f"`{value}` points at {named}, but this dependency is fetched from "
                        f"{repository}; only its own pull requests and commits can be tested "
                        f"(if the image's clone is of {named}, set the dependency's "
                        f"`repository` in the config)")


def _autolink_end(value: str) -> str:
    """The URL as GitHub's autolinker ends it: trailing sentence punctuation, and a closing
    parenthesis without an opening one, are not part of it."""
    while value and (value[-1] in _TRAILING_PUNCTUATION or (
            value[-1] == ")" and value.count(")") > value.count("("))):
        value = value[:-1]
    return value


def _classify_url(value: str, repository: str) -> RefSpec | ValueProblem:
    linked = _autolink_end(value)
    spec = _classify_linked_url(linked, repository)
    if linked != value and isinstance(spec, RefSpec):
        return replace(spec, caution=f"`{value}`: read as the link GitHub makes of it, "
                                     f"{linked} (the URL ends before `{value[len(linked):]}`)")
    return spec


def _pull_commit(value: str, repository: str) -> RefSpec | ValueProblem | None:
    """A page of one commit of a pull request: that commit exactly, or an error; never the
    pull request's moving head. None when `value` is no such page."""
    match = _PULL_COMMIT.fullmatch(value)
    if match is None:
        return None
    named, digits, rest = match.groups()
    problem = _other_repository(named, repository, value)
    if problem:
        return problem
    pull = _pull_request(digits, value)
    if isinstance(pull, ValueProblem):
        return pull
    commit = _COMMIT_AND_TAIL.fullmatch(rest)
    if commit is None:
        return ValueProblem(f"`{value}` names a commit of pull request #{pull.pr} with "
                            f"something glued to it (`{rest[:60]}`); write the commit's full "
                            f"SHA alone, or `#{pull.pr}` for the pull request's head")
    sha = commit.group(1)
    if not FULL_SHA_ANY_CASE.fullmatch(sha):
        return ValueProblem(f"`{value}` names an abbreviated commit of pull request "
                            f"#{pull.pr}; {full_sha_hint(sha)}")
    # That commit, not the pull request's moving head; `pr` says where it is from.
    return RefSpec("commit", sha.lower(), pr=pull.pr, sha=sha.lower())


def _classify_linked_url(value: str, repository: str) -> RefSpec | ValueProblem:
    pull_commit = _pull_commit(value, repository)
    if pull_commit is not None:
        return pull_commit
    match = _URL.fullmatch(value)
    other = _OTHER_PAGE.fullmatch(value) if not match else None
    if other is not None and _other_repository(other.group(1), repository, value) is None:
        return ValueProblem(f"`{value}` is {_PAGES[other.group(2)]}, which names no one commit "
                            f"to test; write the pull request (`#1234`), the commit "
                            f"(https://github.com/{repository}/commit/<full sha>) or the branch")
    if not match:
        return ValueProblem(f"`{value}` is not a supported URL; use "
                            f"https://github.com/{repository}/pull/<number>, "
                            f"https://github.com/{repository}/commit/<full sha> or "
                            f"https://github.com/{repository}/tree/<branch>")
    named, pr_digits, sha, tree = match.groups()
    problem = _other_repository(named, repository, value)
    if problem:
        return problem
    if pr_digits is not None:
        return _pull_request(pr_digits, value)
    if tree is not None:  # the branch, tag, commit or PR head the page shows: as if written alone
        return classify(tree, repository)
    if not FULL_SHA_ANY_CASE.fullmatch(sha):
        return ValueProblem(f"`{value}` names an abbreviated commit; {full_sha_hint(sha)}")
    return RefSpec("commit", sha.lower(), sha=sha.lower())
