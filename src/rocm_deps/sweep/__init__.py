"""Sweep: every open pull request re-judged on a schedule.

`settings.py` is the command's front end and `command.py` the command
(docs/development.md, *Adding a command*); the type checker holds them to the command
interface here, where neither imports the other for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rocm_deps.interface import Back, Front
    from rocm_deps.sweep import command, settings
    from rocm_deps.sweep.settings import SweepSettings

    _FRONT: Front[SweepSettings] = settings
    _BACK: Back[SweepSettings] = command
