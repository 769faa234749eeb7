"""Merge queues (docs/architecture.md, *Every path a suite runs along*): a `merge_group` event
carries no description, only the group's commits (`base_sha`, `head_sha`) and its queue branch
(`head_ref`, `gh-readonly-queue/<base>/pr-<N>-<sha>`). The group's pull requests are found from
those: the queue branch names the last one, the commits that merge the others name them. Their
descriptions together say what the group names; two that name different commits of one
dependency are an error naming both. resolve, comment and merge-check read a group here alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from rocm_deps.config import Config
from rocm_deps.errors import FatalError
from rocm_deps.github.answers import HISTORY_PAGES, ApiError, PullInfo
from rocm_deps.grammar.directives import parse_body
from rocm_deps.grammar.parsed import Finding, Prerequisite, ValueDirective, code_findings
from rocm_deps.grammar.refs import FULL_SHA_ANY_CASE
from rocm_deps.resolve.stack import Inherited

if TYPE_CHECKING:
    from rocm_deps.github.api import GitHubApi

# gh-readonly-queue/<base>/pr-<number>-<sha>: the queue branch of the group's last PR.
QUEUE_REF = re.compile(r"(?:refs/heads/)?gh-readonly-queue/.+/pr-(?P<number>[0-9]{1,9})-[0-9a-f]+")
# How GitHub writes the pull request a queue commit merges into its title: a merge commit,
# or a squash commit's suffix. Only the queue branch's first parents are read this way: the
# merged branches' own commits may carry any title (a cherry-picked `Revert x (#50)`).
MERGED_PR = re.compile(r"Merge pull request #(?P<merge>[0-9]{1,9}) from \S+|"
                       r".*\(#(?P<squash>[0-9]{1,9})\)")
MAX_GROUP = 100  # a merge group holds at most 100 pull requests (GitHub's limit)
T = TypeVar("T")


@dataclass(frozen=True)
class Group:
    """A merge group as its payload gives it."""

    head_sha: str | None  # the group's commit: where the queue's required checks look
    numbers: tuple[int, ...]  # its pull requests, oldest first; () when none is named
    unseen: str | None  # why some of its pull requests may be missing (None: all named)


def group_of(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    group = payload.get("merge_group")
    return group if isinstance(group, Mapping) else {}


def read_group(api: GitHubApi, repository: str, payload: Mapping[str, Any]) -> Group:
    """The group's pull requests, oldest first, and why some may be missing. The queue
    branch's first parents from head back to base are the commits that merge them: each
    must name its pull request the way GitHub's merge and squash commits do, and the newest
    one the queue branch's."""
    group = group_of(payload)
    head_ref, base, head = (group.get(key) for key in ("head_ref", "base_sha", "head_sha"))
    head = head.lower() if isinstance(head, str) and FULL_SHA_ANY_CASE.fullmatch(head) else None
    match = QUEUE_REF.fullmatch(head_ref) if isinstance(head_ref, str) else None
    if match is None:
        return Group(head, (), None)
    last = int(match.group("number"))
    if not (isinstance(base, str) and FULL_SHA_ANY_CASE.fullmatch(base) and head):
        return Group(head, (last,), "the event payload gives no base and head commits of the "
                                     "group")
    try:
        chain = api.first_parents(repository, base.lower(), head)
    except ApiError as error:
        raise FatalError(f"could not list the merge group's commits: {error}") from None
    if chain is None:
        return Group(head, (last,), f"its commits back to its base {base[:12]} are more than "
                                    f"the {HISTORY_PAGES * 100} newest of its history")
    numbers: list[int] = []
    unnamed = 0
    for commit in chain:  # newest first
        # The whole title: a squash of a PR titled "Merge pull request #7 from x/y" is #41's.
        found = MERGED_PR.fullmatch(commit.message.split("\n", 1)[0])
        if found is None:
            unnamed += 1
        else:
            numbers.insert(0, int(found.group("merge") or found.group("squash")))
    if unnamed:
        return Group(head, (last,), f"{unnamed} of the commits that merge it name no pull "
                                    f"request (a rebase merge writes the pull requests' own "
                                    f"commits)")
    if not numbers or numbers[-1] != last:
        return Group(head, (last,), f"its newest commit does not name #{last}, the pull "
                                    f"request of its queue branch")
    if len(set(numbers)) > MAX_GROUP:
        return Group(head, (last,), f"it names more than {MAX_GROUP} pull requests")
    earlier = [number for index, number in enumerate(numbers)
               if number != last and number not in numbers[:index]]
    return Group(head, (*earlier, last), None)


UNSEEN_FIX = (f"Use the merge or squash method for the merge queue (their commits name the "
              f"pull request they merge) and at most {MAX_GROUP} pull requests a group")


def unidentified(group: Group) -> str:
    """What to say when a group's pull requests cannot all be named."""
    last = f"#{group.numbers[-1]}" if group.numbers else "none"
    return (f"the merge group's pull requests cannot all be identified: {group.unseen}. Only "
            f"{last} (the queue branch's) is checked")


def joined(named: Sequence[tuple[int, Mapping[str, T]]], same: Callable[[T, T], bool],
           show: Callable[[T], str]) -> tuple[dict[str, tuple[int, T]], list[str]]:
    """What the group's pull requests name together: each name with the first pull request
    that names it; a name two of them give different values is an error naming both (the
    group's run would test one of them for both)."""
    found: dict[str, tuple[int, T]] = {}
    errors: list[str] = []
    for number, items in named:
        for name, item in items.items():
            earlier = found.get(name)
            if earlier is None:
                found[name] = (number, item)
            elif not same(earlier[1], item):
                errors.append(f"{name}: #{earlier[0]} names {show(earlier[1])} and #{number} "
                              f"names {show(item)}; one run of the merge group cannot test "
                              f"both: merge one of them first, or name the same commit in both")
    return found, errors


@dataclass
class Queued:
    """What a merge group's pull requests name together, read as resolve reads a description:
    each dependency and value with the pull request that names it, every finding (prefixed
    with its pull request; its line is that description's, so it carries none), and the
    prerequisites."""

    group: Group
    pulls: list[PullInfo] = field(default_factory=list)
    directives: dict[str, Inherited] = field(default_factory=dict)
    values: dict[str, ValueDirective] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    prerequisites: list[Prerequisite] = field(default_factory=list)

    @property
    def origin(self) -> str:
        return (f"the merge group's pull requests "
                f"({', '.join(f'#{pull.number}' for pull in self.pulls)}), read from the API")


def read_queued(api: GitHubApi, repository: str, payload: Mapping[str, Any],
                config: Config) -> Queued:
    """The group's pull requests and what their descriptions name together. A group whose
    pull requests cannot all be named is an error: one it cannot see could name a
    dependency the run would then not test."""
    group = read_group(api, repository, payload)
    if not group.numbers:
        raise FatalError("the `merge_group` payload names no pull request (its head_ref is not "
                         "a gh-readonly-queue/<base>/pr-<number>-<sha> branch)")
    queued = Queued(group)
    if group.unseen:
        queued.findings.append(Finding("error", f"{unidentified(group)}: a pull request it "
                                                f"cannot see could name a dependency this run "
                                                f"would not test. {UNSEEN_FIX}",
                                       title="rocm-deps: merge group not identified"))
    directives, values = [], []
    for number in group.numbers:
        try:
            pull = api.pull(repository, number)
        except ApiError as error:
            raise FatalError(f"could not read pull request #{number} of the merge group: "
                             f"{error}") from None
        queued.pulls.append(pull)
        parsed = parse_body(pull.body, config.dependencies, config.values, repository,
                            pull.body_html)
        for finding in (*parsed.findings, *code_findings(
                parsed, {*parsed.directives, *parsed.values}, config.code_directives)):
            queued.findings.append(Finding(finding.level, f"pull request #{number}: "
                                                          f"{finding.message}",
                                           title=finding.title))
        directives.append((number, parsed.directives))
        values.append((number, parsed.values))
        queued.prerequisites += parsed.prerequisites
    found, errors = joined(directives, lambda first, second: first.spec == second.spec,
                           lambda item: f"`{item.key}: {item.raw}`")
    named_values, value_errors = joined(values, lambda first, second: first.raw == second.raw,
                                        lambda item: f"`{item.key}: {item.raw}`")
    queued.findings += [Finding("error", error, title="rocm-deps: merge group")
                        for error in (*errors, *value_errors)]
    queued.directives = {name: Inherited(directive, number)
                         for name, (number, directive) in found.items()}
    queued.values = {name: value for name, (_, value) in named_values.items()}
    return queued
