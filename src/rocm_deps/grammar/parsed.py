"""What a description's parse gives: the directives it applies, the lines shown as code, the
prerequisites, and the findings, each quoting its line; and what the lines shown as code mean
for a run (`code_findings`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from rocm_deps.grammar.keys import CodeDirectives
from rocm_deps.grammar.refs import RefSpec, show_invisible

QUOTE_LIMIT = 160

Level = Literal["error", "warning", "notice"]
@dataclass(frozen=True)
class Finding:
    """An error, a warning or a notice about one line of the body (line 0: not about a
    line)."""

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
class ValueDirective:
    """A value directive's line (`ci-image-tag: nightly`), valid for its kind."""

    name: str
    key: str
    raw: str
    line: int

    @property
    def spec(self) -> str:
        """What makes two lines the same: the value itself."""
        return self.raw


@dataclass(frozen=True)
class CodeDirective:
    """A directive line GitHub shows as code: not applied. Whether that is an error depends
    on whether something else names the same dependency or value (`code_findings`)."""

    name: str  # the dependency's or the value's
    line: int
    source: str  # the line as GitHub shows it
    shown: str  # the directive on it
    where: str  # how it is shown as code (directives.AS_CODE, AS_CELL)
    value: bool = False  # a value directive's (ci-image-tag), not a dependency's


@dataclass(frozen=True)
class Prerequisite:
    """`Depends-On: #N` (or the pull request's URL, `owner/repo#N`): a pull request of the
    description's own repository that must merge first. `repository` None: written `#N`."""

    number: int
    repository: str | None
    raw: str
    line: int


@dataclass(frozen=True)
class ParsedBody:
    directives: dict[str, Directive]
    findings: tuple[Finding, ...]
    values: dict[str, ValueDirective] = field(default_factory=dict)
    in_code: tuple[CodeDirective, ...] = ()
    prerequisites: tuple[Prerequisite, ...] = ()

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(finding for finding in self.findings if finding.level == "error")


def where(line: int) -> str:
    """How a message names a line of the description: its number, when it was found."""
    return f"line {line}" if line else "a line"


def quote(line: str) -> str:
    """A line as it appears in a message: invisible characters made visible, length bounded."""
    # Cut before the invisible characters are spelled out: a line can be a whole body long.
    shown = show_invisible(line.strip()[:QUOTE_LIMIT + 1])
    return shown if len(shown) <= QUOTE_LIMIT else shown[: QUOTE_LIMIT - 1] + "…"


def code_findings(parsed: ParsedBody, named: set[str],
                  policy: CodeDirectives = "error") -> list[Finding]:
    """What the directives GitHub shows as code mean for the run: a notice when something
    else (another line, a dispatch input) names the same dependency or value, so the code line
    was an example; else an error (a warning with `code-directives = "warn"`), because the run
    would test the baseline while the author believes the dependency was tested."""
    findings = []
    for code in parsed.in_code:
        if code.name in named:
            findings.append(Finding("notice", f"{where(code.line)}: `{quote(code.shown)}` is "
                                              f"shown {code.where}: an example, not applied "
                                              f"({code.name} is named elsewhere)", code.line))
            continue
        stays = "would keep its default" if code.value else "would stay at the image's copy"
        findings.append(Finding(
            "error" if policy == "error" else "warning",
            f"{where(code.line)}: `{quote(code.source)}` — GitHub shows this {code.where}, so it "
            f"is not applied and {code.name} {stays}; to apply it, "
            f"write `{quote(code.shown)}` on a line of its own outside code (after a blank "
            f"line), or delete it", code.line, title="rocm-deps: directive shown as code"))
    return findings
