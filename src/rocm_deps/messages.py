"""Texts that more than one place emits, defined once, so they cannot drift apart."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

# Where a command that needs the GitHub API takes its token from (the action, then the CLI).
GIVE_API_ACCESS = "set the `github-token` input (CLI: --github-token-env VAR)"


def needs_token(why: str, permission: str = "", empty_variable: str | None = None) -> str:
    """`why` (what the API is needed for), then how to give the token it needs; and, when
    --github-token-env named a variable that holds nothing, that variable."""
    empty = (f" (--github-token-env names {empty_variable}, which is unset or empty here)"
             if empty_variable else "")
    return f"{why}: {GIVE_API_ACCESS}{f' with `{permission}`' if permission else ''}{empty}"


def without_token(variable: str) -> str:
    """What resolve (and install resolving the event) says when the token's variable is empty:
    it goes on, pinning nothing."""
    return (f"--github-token-env {variable}: the variable is unset or empty; continuing "
            f"without a token (no SHA pinning, no API checks)")


def full_sha_hint(value: str = "") -> str:
    """How to turn an abbreviated commit `value` into what the tool needs."""
    return "give the full 40-digit SHA" + (f" (`git rev-parse {value}` prints it)" if value
                                           else "")


def closest(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The candidate `word` is most likely a misspelling of, or None. A word that begins a
    candidate is taken as its abbreviation first (`repo` is `repository`, not `remote`)."""
    import difflib  # only on an error path: it costs start-up time

    listed = list(candidates)
    if len(word) >= 3:
        starting = sorted((candidate for candidate in listed if candidate.startswith(word)
                           and candidate != word), key=len)
        if starting:
            return starting[0]
    close = difflib.get_close_matches(word, listed, n=1, cutoff=cutoff)
    return close[0] if close else None


def did_you_mean(word: str, candidates: Iterable[str], cutoff: float = 0.6,
                 aside: Mapping[str, str] | None = None) -> str:
    """"did you mean `x`? " for the closest candidate, or "" when none is close; `aside` adds
    what the candidate is written as ("did you mean `sglang` (`ci-sglang-pr`)? ")."""
    close = closest(word, candidates, cutoff)
    if close is None:
        return ""
    written = f" (`{aside[close]}`)" if aside and close in aside else ""
    return f"did you mean `{close}`{written}? "


def invalid_value(where: str, value: object, expected: str) -> str:
    """The one "has invalid value" text: an option, an action input or a config key (`where`
    names it as the user wrote it), the value quoted back safely, what it must be."""
    shown = show_controls(value[:100]) if isinstance(value, str) else value
    return f"{where} has invalid value {shown!r}. Expected {expected}."


# A control character: Unicode's category Cc (C0, DEL and C1). The one definition, for the
# log, the job summary, the values of directives and every message that quotes text back.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def code_point(character: str) -> str:
    """How every message names a character: U+XXXX."""
    return f"U+{ord(character):04X}"


def show_controls(text: str, keep: str = "") -> str:
    """`text` with each control character (but those in `keep`) written as <U+XXXX>."""
    return CONTROL.sub(lambda match: match.group() if match.group() in keep
                       else f"<{code_point(match.group())}>", text)
