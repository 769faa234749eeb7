"""Texts that more than one place emits, defined once, so they cannot drift apart."""

from __future__ import annotations

from collections.abc import Iterable

# Where a command that needs the GitHub API takes its token from (the action, then the CLI).
GIVE_API_ACCESS = "set the `github-token` input (CLI: --github-token-env VAR)"


def needs_token(why: str, permission: str = "", empty_variable: str | None = None) -> str:
    """`why` (what the API is needed for), then how to give the token it needs; and, when
    --github-token-env named a variable that holds nothing, that variable."""
    empty = (f" (--github-token-env names {empty_variable}, which is unset or empty here)"
             if empty_variable else "")
    return f"{why}: {GIVE_API_ACCESS}{f' with `{permission}`' if permission else ''}{empty}"


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


def did_you_mean(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> str:
    """"did you mean `x`? " for the closest candidate, or "" when none is close."""
    close = closest(word, candidates, cutoff)
    return f"did you mean `{close}`? " if close else ""
