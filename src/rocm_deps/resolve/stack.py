"""Stacks (docs/architecture.md, *Directives*): a pull request whose base branch is the head
branch of another open pull request of the same repository inherits that one's directives
for every dependency it does not name itself, down the stack. resolve walks it through the
API (one request per level), the sweep through the list of open pull requests it already
has; both with `inherited`, so they read one stack alike."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rocm_deps.config import Config
from rocm_deps.errors import FatalError
from rocm_deps.github.answers import ApiError, PullInfo
from rocm_deps.grammar.directives import parse_body
from rocm_deps.grammar.parsed import Directive, ParsedBody

if TYPE_CHECKING:
    from rocm_deps.github.api import GitHubApi

MAX_DEPTH = 10  # pull requests below this one that are read; a deeper stack is an error


@dataclass(frozen=True)
class Inherited:
    directive: Directive
    via: int  # the pull request whose description named it


class StackError(Exception):
    """The stack cannot be read as one: a cycle of bases, too deep, a pull request below
    that is not trusted or whose description has errors. The message says which."""


def inherited(pull: PullInfo, below: Callable[[PullInfo], PullInfo | None],
              parse: Callable[[PullInfo], ParsedBody],
              trusted: Callable[[PullInfo], bool] = lambda _: True) -> dict[str, Inherited]:
    """Dependency -> the nearest directive for it in the descriptions of the pull requests
    below `pull` (`below` finds the open one right below a pull request in its stack, None at
    the bottom: `below_through_api`, or the sweep's list)."""
    found: dict[str, Inherited] = {}
    chain, current = [pull.number], pull
    for _ in range(MAX_DEPTH):
        lower = below(current)
        if lower is None:
            return found
        if lower.number in chain:
            cycle = " → ".join(f"#{number}" for number in [*chain, lower.number])
            raise StackError(f"the pull requests' bases form a cycle ({cycle}): each is based "
                             f"on the next one's branch; rebase one of them onto the default "
                             f"branch")
        chain.append(lower.number)
        if not trusted(lower):
            raise StackError(f"#{lower.number}, below #{pull.number} in its stack, is by an "
                             f"author whose association ({lower.author_association or 'NONE'}) "
                             f"is not in trusted-associations: its directives are not taken")
        parsed = parse(lower)
        if parsed.errors:
            raise StackError(f"the description of #{lower.number}, below #{pull.number} in its "
                             f"stack, has {len(parsed.errors)} error(s) (first: "
                             f"{parsed.errors[0].message[:200]}); fix it there")
        for name, directive in parsed.directives.items():
            found.setdefault(name, Inherited(directive, lower.number))
        current = lower
    if below(current) is not None:
        raise StackError(f"#{pull.number}'s stack is deeper than {MAX_DEPTH} pull requests: "
                         f"only so many are read")
    return found


def read_through_api(api: GitHubApi, repository: str, pull: PullInfo, config: Config,
                     trusted: Callable[[PullInfo], bool] = lambda _: True
                     ) -> dict[str, Inherited]:
    """resolve's and merge-check's reading: each level asked of the API (the open pull
    request of the repository whose head branch is the base), each description read as
    resolve reads it. An API failure is the run's (exit 1); a StackError is the caller's to
    report."""
    try:
        return inherited(pull, below_through_api(api, repository),
                         lambda lower: parse_body(lower.body, config.dependencies,
                                                  config.values, repository,
                                                  lower.body_html), trusted)
    except ApiError as error:
        raise FatalError(f"could not read the stack below #{pull.number}: {error}") from None


def below_through_api(api: GitHubApi, repository: str) -> Callable[[PullInfo], PullInfo | None]:
    """The pull request right below one in its stack, asked of the API: the open pull request
    of the repository whose head branch is its base. One based on its repository's default
    branch is at the bottom: nothing is asked."""
    return lambda upper: (None if upper.base_ref == upper.default_branch
                          else api.pull_with_head(repository, upper.base_ref))


def unread_stack(payload: Mapping[str, Any]) -> str | None:
    """Without a token: the notice that a pull request based on another branch than the
    default may be stacked, and its stack was not read (None when it is not)."""
    pull, repository = payload.get("pull_request"), payload.get("repository")
    base = pull.get("base") if isinstance(pull, Mapping) else None
    base_ref = base.get("ref") if isinstance(base, Mapping) else None
    default = repository.get("default_branch") if isinstance(repository, Mapping) else None
    if not (isinstance(base_ref, str) and isinstance(default, str) and base_ref != default):
        return None
    return (f"this pull request is based on `{base_ref[:100]}`, not on `{default[:100]}`: if "
            f"that is another pull request's branch, its directives are inherited only with a "
            f"token (the stack cannot be read without one); this description alone is resolved")
