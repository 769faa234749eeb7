"""What a pull request's description names now (docs/architecture.md, *Living results*): its own
directives over those it inherits from the pull requests below it in its stack, read as resolve
reads them, with the description's errors and its `Depends-On:` prerequisites. `comment`'s
status, `merge-check` and the sweep judge this, never a report of what an earlier run read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rocm_deps.config import Config
from rocm_deps.contract.status import Named, named_now
from rocm_deps.errors import FatalError
from rocm_deps.github.answers import ApiError, PullInfo
from rocm_deps.grammar.directives import parse_body
from rocm_deps.grammar.parsed import Directive, ParsedBody, Prerequisite, code_findings
from rocm_deps.resolve.stack import Inherited, StackError, below_through_api, inherited

if TYPE_CHECKING:
    from rocm_deps.github.api import GitHubApi

Below = Callable[[PullInfo], "PullInfo | None"]
Expand = Callable[[str, str], str]


@dataclass(frozen=True)
class Described:
    """One description as the verdict reads it."""

    parsed: ParsedBody
    directives: dict[str, Directive]  # its own, over those inherited
    inherited: dict[str, Inherited]
    named: list[Named]
    errors: list[str] = field(default_factory=list)  # the description's (and its stack's)

    @property
    def prerequisites(self) -> tuple[Prerequisite, ...]:
        return self.parsed.prerequisites

    @property
    def quiet(self) -> bool:
        """It names nothing, waits for nothing and has no error."""
        return not self.named and not self.errors and not self.prerequisites


def described(pull: PullInfo, config: Config, repository: str, below: Below,
              expand: Expand, trusted: Callable[[PullInfo], bool] = lambda _: True,
              parse: Callable[[PullInfo], ParsedBody] | None = None) -> Described:
    """`pull`'s description as resolve reads it: `below` finds the pull request a stacked one
    is based on (from the API, or from a list of open pull requests), `expand` the commit an
    abbreviated SHA names (it raises `ValueError` with the reason when it cannot). `parse`
    reads a pull request's description (default: `parse_body` of its text); the sweep gives
    what it parsed as it listed them."""
    parse = parse or (lambda read: parse_body(read.body, config.dependencies, config.values,
                                              repository, read.body_html))
    parsed = parse(pull)
    errors = [finding.message for finding in (*parsed.errors, *code_findings(
        parsed, {*parsed.directives, *parsed.values}, config.code_directives))
        if finding.level == "error"]
    try:
        stacked = inherited(pull, below, parse, trusted)
    except StackError as error:
        stacked, errors = {}, [*errors, str(error)]
    directives = {**{name: item.directive for name, item in stacked.items()},
                  **parsed.directives}
    named, unexpanded = named_now(directives.values(), config, expand)
    return Described(parsed, directives, stacked, named, [*errors, *unexpanded])


def described_through_api(api: GitHubApi, repository: str, pull: PullInfo,
                          config: Config) -> Described:
    """`described`, each level of the stack and each abbreviated SHA asked of the API. An API
    failure is the run's (exit 1)."""

    def expand(dependency_repository: str, abbreviation: str) -> str:
        try:
            return api.commit(dependency_repository, abbreviation)
        except ApiError as error:
            raise ValueError(str(error)) from None

    try:
        return described(pull, config, repository, below_through_api(api, repository), expand)
    except ApiError as error:
        raise FatalError(f"could not read the stack below #{pull.number}: {error}") from None
