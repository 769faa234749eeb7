"""The description as its author wrote it, beside the page GitHub shows: which line a shown
line comes from (`Locator`, for messages), and whether a value GitHub shows shortened in a
link was written in full on the directive's own line (`linked`). Pure.
"""

from __future__ import annotations

import html
import re

from rocm_deps.grammar.keys import REPOSITORY_NAME

# What `Depends-On:` takes: `#N`, `owner/repo#N`, or a pull request's URL (any page of it).
PULL_REQUEST = re.compile(
    rf"(?:(?P<repository>{REPOSITORY_NAME})?#(?P<number>[0-9]{{1,9}})|https://github\.com/"
    rf"(?P<url_repository>{REPOSITORY_NAME})/pull/(?P<url_number>[0-9]{{1,9}})"
    rf"(?:[/#?][^\s]*)?)")
# A pull request's or an issue's page: GitHub shows a link to either as `#N` or
# `owner/repo#N`, alike.
_NUMBERED_PAGE = re.compile(rf"https://github\.com/(?P<repository>{REPOSITORY_NAME})/"
                            rf"(?:pull|issues)/(?P<number>[0-9]{{1,9}})(?:[/#?][^\s]*)?")
# The target of a commit link GitHub put around a SHA it shows short.
_COMMIT_LINK = re.compile(r"https://github\.com/[^/]+/[^/]+/commit/(?P<sha>[0-9a-f]{40}|"
                          r"[0-9a-f]{64})")
_TOKEN_WINDOW = 4096
# What comes right before a link's destination: `](`, `](<`, a reference definition's
# `]: `, an attribute `href=` / `src=` (quoted or not).
_DESTINATION_BEFORE = re.compile(r"(?:\]\(\s*<?|\]:[ \t]*<?|(?i:\b(?:href|src))\s*=\s*[\"']?)$")
_SIMPLIFIED = re.compile(r"<!--.*?-->|<[A-Za-z/][^>]*>|\]\([^()\s]*\)|[\\`*_~<>\[\]()|]+")
_BLANKS = re.compile(r"\s+")


def written_as_text(source: str, written: str) -> bool:
    """Whether `written` occurs in `source`, the directive's own line of the description, as
    text GitHub shows (so GitHub may show it shortened), not only inside a link's destination
    (`](…)`, `[label]: …`, an `href=` or `src=`) that the reader never sees. Elsewhere in the
    description it says nothing of this line's value. Each look back is bounded (a ref or URL
    value is far shorter than `_TOKEN_WINDOW`), so a long line costs linear time."""
    start = source.find(written)
    while start >= 0:
        window = max(0, start - _TOKEN_WINDOW)
        token = max(source.rfind(character, window, start) for character in " \t\n(<\"'=[")
        token = window if token < 0 else token + 1
        if not _DESTINATION_BEFORE.search(source[max(0, token - 40):token]):
            return True
        start = source.find(written, start + 1)
    return False


def linked(source: str, text: str, target: str | None) -> str:
    """The link's target only where GitHub rewrote what the author wrote: the text is
    GitHub's short form of the target (`owner/repo#N` or `#N` for a pull request URL,
    `[owner/repo@]abc1234` for a commit) and the author wrote the target as text, not as
    a link's destination, on the directive's `source` line. A link the author wrote
    (`[#1](…/pull/2)`, `<a href>`) shows its text, and the text is what the author
    named."""
    if target is None or target == text:
        return text
    page = _NUMBERED_PAGE.fullmatch(target)
    if (page is not None and text.casefold() in (f"#{page.group('number')}", (
            f"{page.group('repository')}#{page.group('number')}").casefold())
            and written_as_text(source, target)):
        # The author wrote the URL (a pull request's, or an issue's: GitHub shows both
        # shorter, alike); it is what they named.
        return target
    commit = _COMMIT_LINK.fullmatch(target)
    if commit is not None:
        sha = commit.group("sha")
        short = text.rpartition("@")[2]
        if len(short) >= 7 and sha.startswith(short):
            if written_as_text(source, target):
                return target
            if written_as_text(source, sha):
                return sha  # the author wrote the SHA; GitHub shows it short
    return text


def simplified(text: str) -> str:
    """A line reduced to what both its source and its rendering show: markup characters
    and back-slashes dropped, entities decoded, blanks collapsed, case folded."""
    return _BLANKS.sub(" ", _SIMPLIFIED.sub("", html.unescape(text))).strip().casefold()


class Locator:
    """The line of the description a shown line comes from, for messages: the next source
    line (within WINDOW) that holds its text with markup dropped, else its text from the
    word before its first `:` (the key, when a line of raw HTML ran on from the one before),
    else its start up to that `:`; 0 when none does (GitHub rewrote it, a link shown
    shorter)."""

    WINDOW = 200

    def __init__(self, text: str) -> None:
        self.raw = text.split("\n")
        self.lines = [simplified(line) for line in self.raw]
        self.next = 0

    def source(self, number: int) -> str:
        """Line `number` of the description as written ("" for 0: not found)."""
        return self.raw[number - 1] if 0 < number <= len(self.raw) else ""

    def find(self, shown: str) -> int:
        wanted = simplified(shown)
        # From the line after the last one found; then that line again (it may show several
        # lines: the cells of a row, lines joined by `<br>`).
        order: list[int] = [*range(self.next, min(len(self.lines), self.next + self.WINDOW)),
                            *([self.next - 1] if self.next else [])]
        before, colon, _ = wanted.partition(":")
        keyed = wanted[len(before) - len(before.split(" ")[-1]):] if colon else wanted
        for probe in dict.fromkeys((wanted, keyed, " ".join(keyed.split(" ")[:2]),
                                    before + colon)):
            for index in order:
                if probe and probe in self.lines[index]:
                    self.next = index + 1
                    return index + 1
        return 0
