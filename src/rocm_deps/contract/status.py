"""A suite's commit status on a pull request's head (docs/architecture.md, *Living results*):
whether what the suite tested is still what the description names, as `success`, `failure` or
`pending` with one line of why. `comment` writes it when it posts the manifest; `sweep`
re-judges it while the dependency pull requests move. Pure: the callers read the API.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from rocm_deps.contract.manifest import SUITE, Manifest, ManifestEntry
from rocm_deps.grammar.refs import is_merge_ref

State = Literal["success", "failure", "pending"]
CONTEXT_PREFIX = "rocm-deps: "
MAX_DESCRIPTION = 140  # GitHub refuses a longer status description
NOTHING_NAMED = "nothing named"
RERUN_REQUESTED = "; re-run requested"
RERUN_REFUSED = "; re-run refused"
# What a failure's description starts with when a named pull request moved since it was
# tested: the sweep re-runs the suite for those (`--rerun moved`).
MOVED = "moved"


def context(suite: str) -> str:
    return f"{CONTEXT_PREFIX}{suite}"


def suite_of(status_context: str) -> str | None:
    """The suite a status context of ours names; None for any other context."""
    suite = status_context.removeprefix(CONTEXT_PREFIX)
    return suite if status_context.startswith(CONTEXT_PREFIX) and SUITE.fullmatch(
        suite) else None


@dataclass(frozen=True)
class Named:
    """One dependency the description names, as the status reads it."""

    dependency: str
    repository: str
    kind: Literal["pr", "commit", "ref"]
    raw: str  # as written, for the description
    pr: int | None = None
    sha: str | None = None  # a commit's full SHA (an abbreviation expanded), else None
    merge: bool = False  # the pull request merged onto its base, not its head


def named_kind(pr: int | None, kind: str) -> Literal["pr", "commit", "ref"]:
    """How the status reads a named ref: a commit (a full SHA, an abbreviation, or one
    commit of a pull request by its URL), a pull request (its head, or its merge), else a
    branch or tag, even when pinned to a SHA."""
    if kind in ("commit", "short-commit"):
        return "commit"
    return "pr" if pr is not None else "ref"


@dataclass(frozen=True)
class Head:
    """A named dependency pull request as it is now."""

    sha: str
    merged: bool


@dataclass(frozen=True)
class Judgement:
    state: State
    description: str
    moved: tuple[str, ...] = ()  # `repo#N` of each named pull request that moved

    def __post_init__(self) -> None:
        assert len(self.description) <= MAX_DESCRIPTION


def judge(named: Sequence[Named], manifest: Manifest | None,
          heads: Mapping[tuple[str, int], Head], errors: Sequence[str] = (),
          head: str | None = None) -> Judgement:
    """What `manifest` (the suite's section; None: the suite has not reported) says of the
    description's `named` dependencies, with each named pull request's head now (`heads`, by
    (repository lowercased, number)) and the pull request's own head now (`head`, where the
    status goes). `errors`: the description's own errors."""
    if errors:
        return Judgement("failure", fit(f"the description has {len(errors)} error"
                                        f"{'s' if len(errors) > 1 else ''}: {errors[0]}"))
    if manifest is not None and head is not None and manifest.head != head:
        if not named and not _dropped(named, manifest):
            return Judgement("success", NOTHING_NAMED)
        return Judgement("pending", fit(
            f"this suite has not reported on {_short(head)} yet" + (
                f" (it tested {_short(manifest.head)})" if manifest.head
                else " (its manifest names no commit: re-run it)")))
    branches = [item for item in named if item.kind == "ref"]
    if branches:
        return Judgement("failure", fit(
            f"{_name(branches[0])} names a branch or tag, which moves without a trace: name "
            f"the pull request or the commit"))
    if manifest is None:
        if not named:
            return Judgement("success", NOTHING_NAMED)
        return Judgement("pending", fit(f"{', '.join(_name(item) for item in named)} named; "
                                        f"not reported by this suite yet"))
    problems: list[str] = []
    moved: list[str] = []
    tested_texts: list[str] = []
    for item in named:
        tested = manifest.tested.get(item.dependency)
        same_repository = tested is not None and (
            tested.repository.lower() == item.repository.lower())
        if item.kind == "commit" and item.sha is None:
            problems.append(f"{_name(item)} was never expanded to a full SHA (resolve ran "
                            f"without a token)")
            continue
        if item.kind == "commit":
            if tested is None or not same_repository or tested.sha != item.sha:
                problems.append(f"{_name(item)} not tested (tested "
                                f"{_short(tested.sha) if tested else 'none'})")
            else:
                tested_texts.append(f"{item.dependency} {_short(item.sha)}")
            continue
        assert item.pr is not None
        target = f"{item.dependency}#{item.pr}"
        pull = heads.get((item.repository.lower(), item.pr))
        if tested is None or not same_repository or tested.pr != item.pr or tested.sha is None:
            problems.append(f"{target} not tested by this run")
            continue
        if is_merge_ref(tested.ref) != item.merge:
            problems.append(f"{target} {'merged onto its base' if item.merge else 'head'} "
                            f"named, its {'head' if item.merge else 'merge'} tested")
            continue
        if is_merge_ref(tested.ref) and tested.head is None:
            problems.append(f"{target} merge tested without its head (no token)")
            continue
        tested_head = tested.head or tested.sha
        if pull is None:
            problems.append(f"{target} could not be read")
        elif pull.sha != tested_head:
            moved.append(target)
            problems.insert(len(moved) - 1, f"{target} {MOVED} {_short(tested_head)}→"
                                            f"{_short(pull.sha)} since tested")
        else:
            tested_texts.append(f"{target} {'merged at' if pull.merged else 'at'} "
                                f"{_short(tested_head)}")
    problems += [f"{name} tested at {_short(entry.sha)}, no longer named"
                 for name, entry in _dropped(named, manifest)]
    if problems:
        return Judgement("failure", fit("; ".join(problems)), tuple(moved))
    if not named:
        return Judgement("success", NOTHING_NAMED)
    return Judgement("success", fit(f"tested {', '.join(tested_texts)}"))


def _dropped(named: Sequence[Named], manifest: Manifest) -> list[tuple[str, ManifestEntry]]:
    """What the suite tested because the author named it, and the description names no
    more: the run tested something other than what the description now asks for."""
    names = {item.dependency for item in named}
    return [(name, entry) for name, entry in manifest.tested.items()
            if name not in names and entry.named]


def with_rerun(judgement: Judgement, refused: bool = False) -> Judgement:
    """The judgement, saying that the suite's run was re-run for it (or that GitHub refused
    the re-run: a run older than 30 days, say; it is not asked again for this move)."""
    suffix = RERUN_REFUSED if refused else RERUN_REQUESTED
    return Judgement(judgement.state,
                     fit(judgement.description, MAX_DESCRIPTION - len(suffix)) + suffix,
                     judgement.moved)


def fit(text: str, limit: int = MAX_DESCRIPTION) -> str:
    """`text` as a status description: at most `limit` characters, and only printable ones
    (as the API adapter reads a description back, so an unchanged status compares equal)."""
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _name(item: Named) -> str:
    if item.kind == "pr":
        return f"{item.dependency}#{item.pr}"
    return f"{item.dependency} {_short(item.sha) if item.sha else item.raw[:40]}"


def _short(sha: str | None) -> str:
    return sha[:7] if sha else "none"
