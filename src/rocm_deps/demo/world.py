"""The MI350 world in miniature, described by data: one entry per dependency (how it is
versioned, what its repository holds, what the image build did to its clone, what its pull
requests change), the ROCm patch, and the PR bodies of the demo's scenarios.

It looks like the real thing where the real thing has bitten us (docs/architecture.md, *The
problem*): SGLang takes its version from git tags and its image build edits the work tree
(docker/rocm.Dockerfile: pyproject swap, a compiled part, a copied config file); Megatron-LM has a
static version and carries the ROCm patch, applied to the file real Megatron-LM deleted upstream
later. `sandbox.build` turns this into repositories; nothing there branches on a dependency name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

from rocm_deps.demo.package import ROCM_PYPROJECT_NOTE, Package, pyproject
from rocm_deps.demo.settings import Scenario

# The file the ROCm patch targets; real Megatron-LM deleted it upstream in 2026-03.
ROCM_TARGET = "megatron/legacy/fused_kernels/__init__.py"
ROCM_MODULE = '''\
"""Fused kernels: device settings for the accelerator in use.

The ROCm patch switches these from CUDA to ROCm values.
"""

DEVICE = "cuda"
WARP_SIZE = 32


def describe():
    return f"{DEVICE}/{WARP_SIZE}"
'''
# Context lines of a unified diff start with a space; written as a list so that no source
# line ends in whitespace.
ROCM_PATCH = "\n".join([
    f"diff --git a/{ROCM_TARGET} b/{ROCM_TARGET}",
    f"--- a/{ROCM_TARGET}",
    f"+++ b/{ROCM_TARGET}",
    "@@ -3,8 +3,8 @@",
    " The ROCm patch switches these from CUDA to ROCm values.",
    ' """',
    " ",
    '-DEVICE = "cuda"',
    "-WARP_SIZE = 32",
    '+DEVICE = "hip"',
    "+WARP_SIZE = 64",
    " ",
    " ",
    " def describe():",
    "",
])
PATCH_LABEL = "docker/amd_patch/latest/megatron.patch"  # relative to the workspace

IMAGE_CONFIG_FILE = "python/sglang/srt/layers/moe/configs/MI300X_VF.json"
COMPILED_PART = "sgl-kernel/build/sgl_kernel_rocm.so"
KERNEL_SOURCE = "sgl-kernel/csrc/kernels.cu"  # SGLang's PR changes it: a rebuild warning
# The demo's workspace: the framework whose CI this is, installed after its dependencies.
WORKSPACE_PACKAGE = Package("miles", "miles", ".")


Versioning = Literal["git", "static"]


@dataclass(frozen=True)
class ImageBuild:
    """What the image build did to a baked clone, uncommitted: files moved over others (the
    pyproject swap), files written (compiled parts, copied configs) and workspace patches
    applied."""

    moves: tuple[tuple[str, str], ...] = ()
    writes: Mapping[str, bytes] = field(default_factory=dict)
    patches: tuple[str, ...] = ()


@dataclass(frozen=True)
class Dependency:
    """One dependency of the world. Its origin gets: a layout commit, releases v0.1.0 and
    v0.2.0, the base of an old pull request, the image's commit, two commits merged after
    the image, then release v0.3.0 and the pull requests `pr_number` (off main) and
    `pr_number + 1` (off the old base); with a `patch_target`, `pr_number + 2` deletes it."""

    name: str  # the dependency's name in the configuration
    package: Package
    location: str  # where the image keeps the clone, relative to the image's root
    pr_number: int
    versioning: Versioning  # setuptools-scm from tags, or a version file
    files: Mapping[str, str] = field(default_factory=dict)  # the repository's other files
    image_build: ImageBuild = ImageBuild()
    pr_appends: Mapping[str, str] = field(default_factory=dict)  # what the PRs add to files
    patch_target: str | None = None  # the file the ROCm patch changes
    # A branch off main, after the image, where a release is tagged that main never gets
    # (SGLang tags its releases on release branches).
    release_branch: str | None = None


SGLANG = Dependency(
    "sglang", Package("sglang", "sglang", "python"), "sgl-workspace/sglang", 101, "git",
    files={
        # The pyproject the ROCm image swaps in (pip builds the ROCm package from it).
        "python/pyproject_other.toml": ROCM_PYPROJECT_NOTE + pyproject(scm=True),
        KERNEL_SOURCE: "// kernels\n",
        "sgl-model-gateway/Cargo.toml": '[package]\nname = "sgl-model-gateway"\n',
    },
    image_build=ImageBuild(
        moves=(("python/pyproject_other.toml", "python/pyproject.toml"),),
        writes={COMPILED_PART: b"\x7fELF compiled by the image build\n",  # ignored output
                IMAGE_CONFIG_FILE: b'{"1": {"BLOCK_SIZE_M": 16}}\n'}),  # untracked copy
    pr_appends={KERNEL_SOURCE: "// a faster kernel\n"},
    release_branch="release/v0.3",
)
MEGATRON = Dependency(
    "megatron", Package("megatron-core", "megatron", "."), "root/Megatron-LM", 202, "static",
    files={ROCM_TARGET: ROCM_MODULE, "megatron/legacy/__init__.py": ""},
    image_build=ImageBuild(patches=(PATCH_LABEL,)),
    patch_target=ROCM_TARGET,
)
DEPENDENCIES: tuple[Dependency, ...] = (SGLANG, MEGATRON)
WORKSPACE_FILES: Mapping[str, str] = {PATCH_LABEL: ROCM_PATCH}

# ---- the demo's scenarios: a PR body each -------------------------------------------------

SCENARIOS: Mapping[Scenario, str] = {
    "pull-requests": f"""\
## Summary

Test the ROCm suite against the unmerged SGLang and Megatron-LM changes.

- ci-sglang-pr: #{SGLANG.pr_number}
- ci-megatron-pr: #{MEGATRON.pr_number + 1}

Examples in code blocks are not directives:

```
ci-sglang-pr: #1234
```
""",
    "missing-target": f"""\
Megatron-LM removed the legacy fused kernels; does our CI still hold?

ci-megatron-pr: #{MEGATRON.pr_number + 2}
""",
}
assert tuple(SCENARIOS) == get_args(Scenario)  # the first is the default of --scenario
