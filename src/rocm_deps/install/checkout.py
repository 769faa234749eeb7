"""The `fetch`, `checkout` and `submodules` steps of `STEPS` (install/pipeline.py): fetch (retried
when the failure looks transient), check out and verify, update submodules."""

from __future__ import annotations

from rocm_deps.install.git import FETCHED_REF, GitError, is_permanent_fetch_failure
from rocm_deps.install.job import Context, Job, StepFailed


def fetch(context: Context, job: Job) -> None:
    dependency, override, git = job.dependency, job.override, job.git
    target = override.sha or override.ref
    if job.restoring and job.record is not None and git.commit_of(target) == target:
        context.runner.info(f"{dependency.name}: the image's commit {target} is in the clone; "
                            f"nothing to fetch")
        return
    depth = dependency.fetch_depth
    if depth == 0 and job.record is not None and git.is_shallow():
        depth = 1  # deepening a shallow clone to full history is not what it was made for
    try:
        job.report.fetch_attempts = git.fetch(dependency.remote, target, depth, dependency.tags,
                                              dependency.fetch_filter, context.retry)
        if dependency.fetch_filter and not context.dry_run:
            git.fetch_missing_contents(dependency.remote, override.sha or FETCHED_REF,
                                       context.retry)
    except GitError as error:
        url = git.remote_url(dependency.remote) or "(no such remote)"
        stderr = error.result.stderr if error.result else ""
        if is_permanent_fetch_failure(stderr) and "remote ref" in stderr:
            fix = (f"check the value `{override.raw}` ({override.source}"
                   f"{f', line {override.line}' if override.line else ''}): does that pull "
                   f"request, branch or commit exist in {dependency.repository}?")
        else:
            fix = "check the network and the remote's URL, then re-run the job"
        raise StepFailed("fetch", f"could not fetch `{target}` from remote "
                                  f"`{dependency.remote}` ({url}): {error.message}\nFix: "
                                  f"{fix}") from None


def checkout(context: Context, job: Job) -> None:
    git, override = job.git, job.override
    if context.dry_run:
        commit = override.sha or FETCHED_REF
    else:
        fetched = git.commit_of(f"{FETCHED_REF}^{{commit}}")
        if fetched is None:
            raise StepFailed("checkout", f"git fetch succeeded but {FETCHED_REF} names no "
                                         f"commit")
        commit = override.sha or fetched
    try:
        # `commit` is a verified hex SHA (or our own ref name), never text from the PR body.
        git.checkout_detached(commit)
    except GitError as error:
        raise StepFailed("checkout", error.message) from None
    job.report.commit = override.sha if context.dry_run else commit
    if context.dry_run:
        return
    head = git.commit_of("HEAD")
    if head != commit:
        raise StepFailed("verify", f"HEAD is {head} after checking out {commit}; refusing to "
                                   f"test a commit other than the one asked for")
    _verify_merge(job, commit)
    context.runner.info(git.describe_head())


def _verify_merge(job: Job, commit: str) -> None:
    """A pull request merged onto its base is tested only as the merge of the head and the
    base the manifest records: GitHub computes its merge in the background, and right after
    a push the API may still answer the merge of the previous head."""
    override = job.override
    if not override.merge or override.head is None:
        return
    parents = (job.git.commit_of(f"{commit}^1"), job.git.commit_of(f"{commit}^2"))
    wanted = (override.base, override.head)
    if parents[1] != override.head or (override.base is not None and parents[0] != override.base):
        raise StepFailed("verify", f"{commit} is GitHub's merge of {parents[1]} onto "
                                   f"{parents[0]}, but pull request #{override.pr} is head "
                                   f"{wanted[1]} on base {wanted[0]}: GitHub has not yet merged "
                                   f"the new head. Re-run the suite in a minute, when its "
                                   f"merge is computed (resolve pins the new one)")


def update_submodules(context: Context, job: Job) -> None:
    """With the clone, only when it has submodules; without it, .gitmodules cannot be looked
    at, so the plan shows the update whenever the config asks for submodules."""
    if not job.dependency.submodules:
        return
    if job.record is not None and not (job.git.path / ".gitmodules").is_file():
        return
    try:
        job.git.update_submodules(context.retry)
    except GitError as error:
        raise StepFailed("submodules", error.message) from None
