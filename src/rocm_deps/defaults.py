"""The closed sets and defaults that the option rows, the settings, the configuration and the
contract share, each written once (docs/development.md, *One home per fact*). The rows in
`options.py` take their choices from these `Literal` types and their defaults from here; the
settings dataclasses take their defaults from the rows (`options.default_of`).
"""

from __future__ import annotations

from typing import Literal, get_args

# The built-in settings (config/profiles.py), named for whose they are: Miles' ROCm suite
# (the default), Miles' CUDA suite, or none of Miles' (only what the configuration file says).
Profile = Literal["miles-rocm", "miles-cuda", "none"]
DEFAULT_PROFILE: Profile = get_args(Profile)[0]
# Their names before 1.2, still taken: Miles' workflows say `profile: cuda`.
PROFILE_ALIASES: dict[str, Profile] = dict(zip(("rocm", "cuda"), get_args(Profile), strict=False))
# The configuration file every command reads by convention (convention.py), from the top of
# the repository.
CONFIG_FILE = ".github/rocm-deps.toml"
OutputFormat = Literal["text", "json"]
# auto: the live body (the API) when there is a token, else the event's.
BodySource = Literal["auto", "event", "api"]
# The merge guard's policy (contract/guard.py): the first is the default.
Policy = Literal["require-merged", "forbid-overrides", "warn"]
DEFAULT_TRUSTED = "OWNER,MEMBER,COLLABORATOR"
DEFAULT_BOT = "github-actions[bot]"  # who writes a comment with the job's GITHUB_TOKEN
GUARD_CONTEXT = "rocm-deps: merge guard"  # the merge guard's commit status
