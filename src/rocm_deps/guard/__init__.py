"""Merge-check: the merge guard.

`settings.py` is the command's front end and `command.py` the command (docs/development.md,
*Adding a command*): `cli.py` holds the two to the command interface.
"""
