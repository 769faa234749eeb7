"""Miles' ROCm install step against what the migration makes of it, in a container shaped like
the MI350 image (tests/container/miles_step.py): from one image state, both end in the same
state, with the same exit status, for every case the step meets."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_deps.demo import sandbox
from tests.container.miles_step import (
    SGLANG,
    already_patched,
    old_refs,
    overrides_for,
    run_side,
    side_script,
    steps,
    toolchain_stubs,
    wheelhouse,
)
from tests.container.test_image import image

pytestmark = [pytest.mark.container, pytest.mark.xdist_group("container")]
__all__ = ["image"]

# (the description, whether resolve says to skip the install, what both must end with)
CASES = {
    "sglang-named": ("ci-sglang-pr: #101\n", False, 0),
    "megatron-patch-applies": ("ci-megatron-pr: #202\n", False, 0),
    "megatron-patch-present": ("ci-megatron-pr: #205\n", False, 0),
    "megatron-incompatible": ("ci-megatron-pr: #204\n", False, 1),
    "nothing-named": ("A refactor of the rollout loop.\n", True, 0),
}


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return wheelhouse(tmp_path_factory.mktemp("wheels"))


@pytest.mark.parametrize("case", list(CASES))
def test_the_migrated_step_ends_where_miles_bash_ends(
        image: str, box: sandbox.Sandbox, wheels: Path, tmp_path: Path, case: str) -> None:
    body, skip, code = CASES[case]
    sandbox.add_workspace_package(box)
    patched = already_patched(box)
    job = steps(tmp_path / "steps")
    stubs = toolchain_stubs(tmp_path / "stubs")
    overrides = overrides_for(body, tmp_path)
    states = {}
    for migrated in (False, True):
        copy = sandbox.copy(box, tmp_path / f"box-{migrated}")
        states[migrated], _ = run_side(
            image, copy, tmp_path / f"io-{migrated}", stubs, wheels,
            side_script(job, migrated, skip, old_refs(body)), overrides)
    bash, tool = states[False], states[True]
    assert tool == bash
    assert bash["exit"] == code
    commits = box.commits
    assert (bash["sglang"], bash["megatron"]) == {
        "sglang-named": (commits["sglang"]["pr"], commits["megatron"]["baked"]),
        "megatron-patch-applies": (commits["sglang"]["baked"], commits["megatron"]["pr"]),
        "megatron-patch-present": (commits["sglang"]["baked"], patched),
        "megatron-incompatible": (commits["sglang"]["baked"],
                                  commits["megatron"]["pr_target_deleted"]),
        "nothing-named": (commits["sglang"]["baked"], commits["megatron"]["baked"]),
    }[case]
    assert bash["patch"] == ("neither" if case == "megatron-incompatible" else "applied")
    imports = bash["imports"]
    assert imports["sglang"] == f"{SGLANG}/python/sglang/__init__.py"
    assert imports["miles"] == "/workspace/miles/__init__.py"
    # The suite's packages: installed unless the install failed before them.
    assert (imports["polars"] is None) is (code != 0)
