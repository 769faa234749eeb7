"""Pull request refs pinned to GitHub's test merge onto the base (`merge-with-base`)."""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING

from rocm_deps.contract.overrides import Override
from rocm_deps.contract.resolve import ResolveReport
from rocm_deps.github.answers import ApiError

if TYPE_CHECKING:
    from rocm_deps.github.api import GitHubApi


def merge_of_pull(api: GitHubApi, repository: str, override: Override,
                  report: ResolveReport) -> Override:
    """Pull request `pr` merged onto its base: pinned to GitHub's test-merge commit, so every
    job tests one commit (the merge ref moves whenever the base does)."""

    pull = api.pull(repository, override.pr or 0)
    parents: tuple[str, ...] = ()
    # GitHub computes a pull request's test merge in the background: `mergeable` is null until
    # it has. Asked again as any API request is retried (retry.RetryPolicy, the config's [api]).
    policy = api.retry
    for attempt in range(1, policy.attempts + 1):
        if pull.state != "open" or pull.mergeable is False:
            break
        if pull.mergeable and pull.merge_commit_sha is not None and pull.base_sha is not None:
            # The merge GitHub names can still be of an earlier head (or base) until it has
            # recomputed it: install would refuse it, so it is asked again like `mergeable`.
            parents = api.parents(repository, pull.merge_commit_sha)
            if parents == (pull.base_sha, pull.head_sha):
                break
        if attempt < policy.attempts:
            time.sleep(policy.wait(attempt))
            pull = api.pull(repository, override.pr or 0)
    target = f"{repository}#{pull.number}"
    if pull.state != "open":
        raise ApiError(f"{target} is {'merged' if pull.merged else 'closed'}: it has no merge "
                       f"onto its base to test; name its head with `#{pull.number}`, or the "
                       f"commit")
    if pull.mergeable is False:
        raise ApiError(f"{target} does not merge cleanly onto {pull.base_ref}: rebase it, or "
                       f"name its head with `#{pull.number}`")
    if pull.mergeable is None or pull.merge_commit_sha is None or pull.base_sha is None:
        raise ApiError(f"GitHub has not computed the merge of {target} onto {pull.base_ref} "
                       f"after {policy.attempts} attempts; re-run the job")
    if parents != (pull.base_sha, pull.head_sha):
        raise ApiError(f"GitHub's merge commit {pull.merge_commit_sha} of {target} merges "
                       f"{' and '.join(parent[:12] for parent in parents) or 'nothing'}, not "
                       f"the base {pull.base_sha[:12]} and the head {pull.head_sha[:12]} after "
                       f"{policy.attempts} attempts: it is of an earlier push; re-run the "
                       f"job once GitHub has recomputed it")
    report.notices.append(f"{override.name}: #{pull.number} ({pull.head_label}) merged onto "
                          f"{pull.base_ref} at {pull.base_sha[:12]}: testing the merge commit "
                          f"{pull.merge_commit_sha} (head {pull.head_sha[:12]})")
    return dataclasses.replace(override, sha=pull.merge_commit_sha, head=pull.head_sha,
                               base=pull.base_sha)
