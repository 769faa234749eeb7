"""Sweep: every open pull request re-judged on a schedule.

`settings.py` is the command's front end and `command.py` the command (docs/development.md,
*Adding a command*): `cli.py` holds the two to the command interface.
"""
