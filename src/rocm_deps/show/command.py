"""`rocm-deps config`: the configuration in effect (docs/architecture.md, *Configuration*)."""

from __future__ import annotations

import json

from rocm_deps.config.loader import shown
from rocm_deps.errors import EXIT_OK
from rocm_deps.runner import Runner, neutralise
from rocm_deps.show.settings import ConfigSettings

WIDTH = 64


def run(settings: ConfigSettings, runner: Runner) -> int:
    config = settings.config
    profile_origin = config.profile_origin
    rows = shown(config)
    if settings.output_format == "json":
        print(json.dumps({"source": config.source, "profile": config.profile,
                          "profile_origin": profile_origin,
                          "values": [{"key": key, "value": value, "origin": origin}
                                     for key, value, origin in rows]}, indent=2))
        return EXIT_OK
    lines = [f"# configuration: {config.source}",
             f"# profile: {config.profile} ({profile_origin})"]
    # Values aligned up to a width, as `git config --show-origin` aligns its origins.
    lines += [f"{f'{key} = {json.dumps(value)}':<{WIDTH}}  # {origin}"
              for key, value, origin in rows]
    # A file's text reaches the log only as text, never as a workflow command.
    print(neutralise("\n".join(lines)))
    return EXIT_OK

