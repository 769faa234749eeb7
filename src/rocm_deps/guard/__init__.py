"""Merge-check: the merge guard.

`settings.py` is the command's front end and `command.py` the command
(docs/development.md, *Adding a command*); the type checker holds them to the command
interface here, where neither imports the other for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rocm_deps.guard import command, settings
    from rocm_deps.guard.settings import MergeCheckSettings
    from rocm_deps.interface import Back, Front

    _FRONT: Front[MergeCheckSettings] = settings
    _BACK: Back[MergeCheckSettings] = command
