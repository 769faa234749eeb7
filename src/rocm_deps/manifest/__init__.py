"""Comment: what each suite tested, on the pull request, as the manifest comment and a status.

`settings.py` is the command's front end and `command.py` the command
(docs/development.md, *Adding a command*); the type checker holds them to the command
interface here, where neither imports the other for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rocm_deps.interface import Back, Front
    from rocm_deps.manifest import command, settings
    from rocm_deps.manifest.settings import CommentSettings

    _FRONT: Front[CommentSettings] = settings
    _BACK: Back[CommentSettings] = command
