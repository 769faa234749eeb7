"""The names of the action's step outputs (docs/architecture.md, *Action outputs*): the fixed ones,
and those the configuration adds per dependency and per value. The commands' reports write them, the
configuration keeps a value from taking another output's name, and a test holds `action.yml`'s
outputs to `action_outputs` of the built-in configuration."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rocm_deps.config.model import Config

SKIP = "skip_dependency_install"
NAMED_BY = "named_by"
OVERRIDES = "overrides"
PATCHES = "patches"
REPORT = "report"
COMMENT = "comment"
DISPATCH_INPUTS = "dispatch_inputs"
# The outputs that are not a dependency's or a value's, in action.yml's order around them.
FIXED_OUTPUTS = frozenset({SKIP, NAMED_BY, OVERRIDES, DISPATCH_INPUTS, PATCHES, REPORT,
                           COMMENT})


def ref_output(dependency: str) -> str:
    return f"{dependency.replace('-', '_')}_ref"


def sha_output(dependency: str) -> str:
    return f"{dependency.replace('-', '_')}_sha"


def repository_output(dependency: str) -> str:
    return f"{dependency.replace('-', '_')}_repository"


def dependency_outputs(dependency: str) -> tuple[str, str, str]:
    return ref_output(dependency), sha_output(dependency), repository_output(dependency)


def action_outputs(config: Config) -> tuple[str, ...]:
    """Every output a step of the action can write with `config`, in action.yml's order."""
    return (SKIP, NAMED_BY, OVERRIDES,
            *(name for dependency in config.dependencies
              for name in dependency_outputs(dependency.name)),
            *(value.output for value in config.values), DISPATCH_INPUTS, PATCHES, REPORT,
            COMMENT)
