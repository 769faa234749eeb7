"""`rocm-deps resolve`'s front end: its options, its help and its settings, built once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from rocm_deps import edge
from rocm_deps.config import Config
from rocm_deps.edge import ApiSettings, Edge, RunIdentity
from rocm_deps.errors import UsageError
from rocm_deps.messages import did_you_mean
from rocm_deps.options import (
    BODY_FILE,
    BODY_SOURCE,
    EVENT,
    REPOSITORY,
    TOOL,
    TRUSTED,
    BodySource,
    Given,
    Help,
    Option,
    OutputFormat,
    default_of,
)

# What resolve and install (which resolves the event itself without --overrides) read.
RESOLVING = (*TOOL, *EVENT, BODY_FILE, BODY_SOURCE, TRUSTED, REPOSITORY,
             Option("input", "a dispatch input such as ci_sglang_pr=#123 (repeatable)",
                    "NAME=VALUE", repeatable=True, action=False))
ACTION = True  # a step of workflows: `command: resolve`
OPTIONS = (*RESOLVING,
           Option("value", "a value directive's value, above dispatch and body, such as "
                  "image-tag=pr-123 (repeatable; action: one per line)", "NAME=VALUE",
                  repeatable=True))
HELP = Help(
    "parse and validate directives; write outputs",
    "Read the PR body (the event's, --body-file, or with a token the live one) and the "
    "dispatch inputs, check every directive as GitHub shows it, and write "
    "skip_dependency_install, the refs and the overrides document. With a token, every ref is "
    "pinned to a SHA and checked to exist.",
    ("rocm-deps resolve --body-file examples/description.md",
     "rocm-deps resolve --body-file examples/description.md --profile cuda --format json",
     "rocm-deps resolve --input ci_sglang_pr=#30421 --github-token-env GH_TOKEN"))


@dataclass(frozen=True)
class ResolveSettings:
    config: Config
    event_name: str = ""
    event_path: Path | None = None
    inputs: Mapping[str, str] = field(default_factory=dict)
    body_file: Path | None = None
    api: ApiSettings = field(default_factory=ApiSettings)
    body_source: BodySource = default_of(OPTIONS, "body-source")
    trusted_associations: tuple[str, ...] = tuple(
        default_of(OPTIONS, "trusted-associations").split(","))
    output_format: OutputFormat = default_of(OPTIONS, "format")
    values: Mapping[str, str] = field(default_factory=dict)  # --value: above everything
    run: RunIdentity = field(default_factory=RunIdentity)  # recorded in the overrides
    repository: str | None = None  # the description's when no event says (--body-file)


def build(given: Given, at: Edge) -> ResolveSettings:
    environ = at.environ
    body_file = edge.path(given.optional("body-file"))
    event_name, event_path = edge.event(given, environ, body_file)
    config = edge.config_of(given, at)
    return ResolveSettings(
        config=config, event_name=event_name, event_path=event_path,
        inputs=check_input_names(parse_inputs(given.items("input")), config),
        body_file=body_file, api=edge.api_settings(given, at),
        body_source=cast(BodySource, given.text("body-source")),
        trusted_associations=edge.associations(given), output_format=edge.output_format(given),
        values=_explicit_values(given, config) if "value" in given.options else {},
        run=RunIdentity.of(environ), repository=edge.repository(given, environ))


def _explicit_values(given: Given, config: Config) -> dict[str, str]:
    """`--value NAME=VALUE` (the action's `value` input: one per line), for configured values."""
    explicit = {}
    known = [value.name for value in config.values]
    for line in given.lines("value"):
        name, separator, text = line.partition("=")
        if not separator or name not in known:
            raise UsageError(f"{given.where('value')} {line[:80]!r}: expected NAME=VALUE with "
                             f"NAME one of {', '.join(known) or '(none)'}")
        explicit[name] = text
    return explicit


def check_input_names(inputs: dict[str, str], config: Config) -> dict[str, str]:
    """A dispatch input the configuration does not know is a typo, never silence."""
    known = [dependency.dispatch_input for dependency in config.dependencies] + [
        value.dispatch_input for value in config.values]
    for name in inputs:
        if name not in known:
            raise UsageError(f"--input {name}: not a configured dispatch input; "
                             f"{did_you_mean(name, known)}the dispatch inputs are "
                             f"{', '.join(known)}")
    return inputs


def parse_inputs(items: tuple[str, ...]) -> dict[str, str]:
    inputs = {}
    for item in items:
        name, separator, value = item.partition("=")
        if not separator or not name:
            raise UsageError(f"--input {item!r}: expected NAME=VALUE, e.g. ci_sglang_pr=#123")
        inputs[name] = value
    return inputs
