"""The merge guard's verdict (docs/architecture.md, *The GitHub API and the merge guard*): may a
pull request merge, given what its description names and waits for? `merge-check` gives it when
it runs and writes it as a commit status; the sweep recomputes it with this same function when a
named dependency pull request or a prerequisite merges, closes or moves, so the status turns
green with no push and no re-run. Pure: the callers read the API.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from rocm_deps.contract.status import Judgement, fit
from rocm_deps.defaults import GUARD_CONTEXT as GUARD_CONTEXT
from rocm_deps.defaults import Policy as Policy

if TYPE_CHECKING:
    from rocm_deps.config import Config
    from rocm_deps.grammar.parsed import Directive, Prerequisite

Verdict = Literal["pass", "fail", "warn"]
# What the guard found of a named dependency pull request or a prerequisite. "merged into
# another branch": merged into a branch other than its repository's default (a pull request
# merged into another pull request's branch, a stack): it has not landed. "not asked": the
# policy refuses every directive, so no API call is made.
PullState = Literal["merged", "merged into another branch", "open", "closed (unmerged)",
                    "not a PR", "not asked"]


def state_of(merged: bool, state: str, base_ref: str, default_branch: str | None) -> PullState:
    """A pull request's state as the guard reads it: merged only into its repository's
    default branch (an answer that does not say which that is is not believed)."""
    if merged:
        return "merged" if default_branch is not None and base_ref == default_branch else (
            "merged into another branch")
    return "open" if state == "open" else "closed (unmerged)"


PREREQUISITE = "(prerequisite)"  # what a `Depends-On:` line stands for among dependencies


@dataclass(frozen=True)
class Waited:
    """One thing a description makes the merge wait for, and the policy's verdict on it."""

    dependency: str  # the dependency's name, or PREREQUISITE
    raw: str  # the value as written
    line: int
    label: str  # `sglang#30421`, `#49`, `radixark/miles#3194`: as a status shows it
    state: PullState
    verdict: Verdict
    reason: str  # the whole sentence, for the log


# (repository, number) -> the pull request's state and its base branch, as the caller read it
Lookup = Callable[[str, int], tuple[PullState, str]]


def waited_for(directives: Mapping[str, Directive], prerequisites: Sequence[Prerequisite],
               config: Config, policy: Policy, repository: str | None,
               lookup: Lookup) -> list[Waited]:
    """What a description makes its merge wait for: each named dependency and each
    `Depends-On:` prerequisite (a pull request of `repository`, the description's own, unless
    it names another), with the policy's verdict. `forbid-overrides` refuses every directive
    without asking; a prerequisite is judged as `require-merged` (it names no dependency)."""
    found = []
    for directive in directives.values():
        dependency = config.dependency(directive.dependency)
        number = directive.spec.pr
        state: PullState
        if number is None:
            state, base = "not a PR", ""
        elif policy == "forbid-overrides":
            state, base = "not asked", ""
        else:
            state, base = lookup(dependency.repository, number)
        verdict, reason = policy_verdict(policy, directive.key, directive.raw, state,
                                         dependency.repository, number, base)
        label = (f"{directive.dependency}#{number}" if number is not None
                 else f"{directive.dependency} {directive.raw[:40]}")
        found.append(Waited(directive.dependency, directive.raw, directive.line, label, state,
                            verdict, reason))
    for prerequisite in prerequisites:
        target = prerequisite.repository or repository
        if target is None:
            raise ValueError(f"`Depends-On: {prerequisite.raw}` names a pull request of this "
                             f"repository, and no event or --repository says which that is")
        state, base = lookup(target, prerequisite.number)
        verdict, reason = policy_verdict("warn" if policy == "warn" else "require-merged",
                                         "Depends-On", prerequisite.raw, state, target,
                                         prerequisite.number, base, prerequisite=True)
        label = (f"#{prerequisite.number}" if prerequisite.repository is None
                 else f"{prerequisite.repository}#{prerequisite.number}")
        found.append(Waited(PREREQUISITE, prerequisite.raw, prerequisite.line, label, state,
                            verdict, reason))
    return found


def policy_verdict(policy: Policy, key: str, raw: str, state: PullState, repository: str,
                   number: int | None, base_ref: str = "", *,
                   prerequisite: bool = False) -> tuple[Verdict, str]:
    """The policy's verdict on one directive, or on a `Depends-On:` `prerequisite`, and why."""
    named = f"`{key}: {raw}`"
    if policy == "forbid-overrides":
        return "fail", (f"{named} is still in the description; the forbid-overrides policy "
                        f"merges only pull requests that test the image's baseline: delete "
                        f"the line")
    if number is None:
        return "pass", f"{named} names no pull request ({state}); nothing to wait for"
    target = f"{repository}#{number}"
    if state == "merged":
        return "pass", f"{named}: {target} is merged"
    if state == "open" and prerequisite:
        reason = (f"{named}: {target} is still open, and this pull request says it merges "
                  f"after it: merge {target} first, or delete the line")
    elif state == "open":
        reason = (f"{named}: {target} is still open. Merged now, this change would leave the "
                  f"default branch testing the image's baseline without it: merge {target} "
                  f"first (then delete the line), or drop the directive")
    elif state == "merged into another branch":
        reason = (f"{named}: {target} was merged into `{base_ref or '?'}`, not into its "
                  f"repository's default branch, so it has not landed: wait until the branch "
                  f"it was merged into is merged, and name that pull request")
    else:
        reason = (f"{named}: {target} was closed without being merged; the change this pull "
                  f"request was tested against will not land. Delete the line, or name its "
                  f"replacement")
    return ("warn" if policy == "warn" else "fail"), reason


def guard_judgement(waited: Sequence[Waited], errors: Sequence[str] = (),
                    suites: Sequence[tuple[str, Judgement]] = ()) -> Judgement:
    """The guard's status: `failure` while anything it waits for blocks (or the description
    has errors, or a suite checked with `--require-tested` failed), `pending` while such a
    suite has not reported, else `success`."""
    if errors:
        return Judgement("failure", fit(f"the description has {len(errors)} error"
                                        f"{'s' if len(errors) > 1 else ''}: {errors[0]}"))
    blocking = [item for item in waited if item.verdict == "fail"]
    if blocking:
        return Judgement("failure", fit("waits for " + ", ".join(
            f"{item.label} ({_short_state(item.state)})" for item in blocking)))
    for state in ("failure", "pending"):
        for suite, judgement in suites:
            if judgement.state == state:
                return Judgement(state, fit(f"suite {suite}: {judgement.description}"))
    landed = [item.label for item in waited if item.state == "merged"]
    if landed:
        return Judgement("success", fit(f"{', '.join(landed)} merged"))
    unmerged = [item.label for item in waited if item.verdict == "warn"]
    if unmerged:
        return Judgement("success", fit(f"warn policy: {', '.join(unmerged)} not merged"))
    return Judgement("success", "nothing to wait for")


def _short_state(state: PullState) -> str:
    return {"merged into another branch": "merged elsewhere",
            "closed (unmerged)": "closed unmerged"}.get(state, state)
