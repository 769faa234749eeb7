"""The built-in settings, as named profiles (docs/architecture.md, *Configuration*), and the closed
set of value kinds.

`miles-rocm` is Miles' MI350 suite (the default); `miles-cuda` is Miles' CUDA suite; `none`
brings nothing of Miles': only what the configuration file declares. A config file overrides
any field of either Miles profile. The kinds are the only rules a value directive can have: a
config never brings a regular expression of its own.
"""

from __future__ import annotations

from typing import Any

from rocm_deps.defaults import PROFILE_ALIASES
from rocm_deps.defaults import Profile as Profile

BUILTIN_DEFAULTS: dict[str, Any] = {
    "dependencies": {
        "sglang": {
            "repository": "sgl-project/sglang",
            "path": "/sgl-workspace/sglang",
            "remote": "origin",
            "install-dir": "python",
            "patches": [],
            # docker/rocm.Dockerfile's pyproject swap, redone at the new commit.
            "recipe": "sglang-rocm",
            # Compiled by the image build; `pip install -e --no-deps` does not rebuild them.
            "rebuild-paths": ["sgl-kernel/", "python/sglang/kernels/aot/",
                              "sgl-model-gateway/"],
        },
        "megatron": {
            "repository": "radixark/Megatron-LM",
            "path": "/root/Megatron-LM",
            "remote": "origin",
            "install-dir": ".",
            "patches": ["docker/amd_patch/latest/megatron.patch"],
            "submodules": True,
            # Measured on the real history (docs: install on real history): a blob-less fetch
            # halves the first run here; on SGLang's history it is slower, so not there.
            "fetch-filter": "blob:none",
            # What helpers_cpp is compiled from: 9 of 3,604 miles-main commits changed it.
            "compile-inputs": ["megatron/core/datasets/helpers.cpp",
                               "megatron/core/datasets/Makefile", "setup.py",
                               "pyproject.toml [build-system]"],
        },
        # No clone in the image: both Miles Dockerfiles run `pip install
        # git+https://github.com/radixark/Megatron-Bridge.git@<sha> --no-deps
        # --no-build-isolation` (its build requires torch, which the image has).
        "megatron-bridge": {
            "repository": "radixark/Megatron-Bridge",
            "distribution": "megatron-bridge",
            "build-isolation": "never",
        },
    },
    "install": {"workspace-install": True, "pip-args": []},
    # Miles' body tags name CUDA images, so the ROCm suite takes its image from dispatch.
    "values": {"image-tag": {"kind": "docker-tag", "from-body": False,
                             "default": "miles-rocm720-mi35x"}},
}
# The CUDA suite of Miles (_run-ci.yml): the same clones, its default branches, the release
# lock file when there is one, no ROCm patch or recipe, no pip install (the sources go on
# PYTHONPATH), and the image tag from the body too.
CUDA_PROFILE: dict[str, Any] = {
    "dependencies": {
        "sglang": {"default": "sglang-miles", "recipe": "", "install-dir": "",
                   "rebuild-paths": []},
        "megatron": {"default": "miles-main", "patches": [], "install-dir": ""},
    },
    "install": {"workspace-install": False},
    "lock-file": "release-lock.json",
    "lock-file-required": False,
    "values": {"image-tag": {"from-body": True, "default": "dev"}},
}


def _merged(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        merged[key] = (_merged(merged[key], value) if isinstance(value, dict)
                       and isinstance(merged.get(key), dict) else value)
    return merged


PROFILES: dict[Profile, dict[str, Any]] = {
    "miles-rocm": BUILTIN_DEFAULTS, "miles-cuda": _merged(BUILTIN_DEFAULTS, CUDA_PROFILE),
    "none": {}}


def profile_named(name: str) -> Profile | None:
    """A profile by its name or an older one (`rocm`, `cuda`); None when there is none."""
    name = PROFILE_ALIASES.get(name, name)
    return name if name in PROFILES else None
