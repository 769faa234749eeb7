"""The `recipe` step of `STEPS` (install/pipeline.py): a dependency's recipe, what its image build
did to the source tree, redone at the new commit (the reset before checkout undid it).

SGLang's (`sglang-rocm`, its built-in default) is docker/rocm.Dockerfile's pyproject swap:
`python/pyproject_other.toml` replaces `python/pyproject.toml`, so pip builds the ROCm
package rather than the CUDA one with its Rust extension. It does not redo what the image
compiled (sgl-kernel, the AOT kernels, the gateway: the rebuild check says when those
differ) nor the MI300X_VF config copies. It runs whenever the clone moved to a new commit,
whether or not pip runs, and the replay of the image's edits never replays the files it
rewrites.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rocm_deps.config.fields import RecipeName
from rocm_deps.install.job import Context, Job, StepFailed

# name -> the files it moves over others: (source, target), relative to the clone
RECIPES: Mapping[RecipeName, tuple[tuple[str, str], ...]] = {
    "sglang-rocm": (("python/pyproject_other.toml", "python/pyproject.toml"),),
}


def rewritten(recipe: RecipeName | None) -> tuple[str, ...]:
    """The files a recipe rewrites (and removes): never replayed from the image's edits."""
    swaps = RECIPES[recipe] if recipe else ()
    return tuple(path for swap in swaps for path in swap)


def _through_a_link(clone: Path, relative: str) -> bool:
    """Whether a directory on the way from the clone to `relative` is a symbolic link (the
    commit's own tree decides where it points)."""
    path = clone
    for part in Path(relative).parts[:-1]:
        path = path / part
        if path.is_symlink():
            return True
    return False


def redo(context: Context, job: Job) -> None:
    recipe = job.dependency.recipe
    if not recipe:
        return
    clone = job.git.path
    for source, target in RECIPES[recipe]:
        linked = next((path for path in (source, target) if _through_a_link(clone, path)), None)
        if linked is not None and not context.dry_run:
            raise StepFailed("recipe", f"recipe {recipe}: {linked} is reached through a "
                                       f"symbolic link at this commit, so the move would "
                                       f"write outside {clone}; refusing (check the commit's "
                                       f"`{Path(linked).parent}`)")
        if job.record is not None and not (clone / source).is_file():
            context.runner.info(f"{job.dependency.name}: recipe {recipe}: {source} is absent at "
                                f"this commit; {target} stays as the commit has it")
            continue
        if context.dry_run:
            context.runner.echo_command(("mv", source, target), dry_run=True)
            continue
        try:
            (clone / source).replace(clone / target)
        except OSError as error:
            raise StepFailed("recipe", f"recipe {recipe}: cannot move {source} to {target} in "
                                       f"{clone}: {error.strerror or error}") from None
        context.runner.info(f"{job.dependency.name}: recipe {recipe}: {source} replaces "
                            f"{target} (as the image's build did)")
