"""`rocm-deps config`'s front end: its options, its help and its settings, built once."""

from __future__ import annotations

from dataclasses import dataclass

from rocm_deps import edge
from rocm_deps.config import Config
from rocm_deps.edge import Edge
from rocm_deps.options import EVENT, TOOL, Given, Help, OutputFormat, default_of

ACTION = False  # asked of a checkout (or of a job's step, with `rocm-deps config` in `run:`)
OPTIONS = (*TOOL, *EVENT)
HELP = Help(
    "print the configuration in effect, each value with where it comes from",
    "The configuration the other commands would read here: the file (`--config`, else "
    "`.github/rocm-deps.toml` of the working tree's repository; in a workflow as it is on the "
    "base branch), over the built-in profile, over each key's default; every value with its "
    "origin, as `git config --show-origin` shows git's.",
    ("rocm-deps config", "rocm-deps config --profile none --format json"))


@dataclass(frozen=True)
class ConfigSettings:
    config: Config
    output_format: OutputFormat = default_of(OPTIONS, "format")


def build(given: Given, at: Edge) -> ConfigSettings:
    return ConfigSettings(edge.config_of(given, at), edge.output_format(given))
