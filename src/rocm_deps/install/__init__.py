"""Install: the named commits into the container's interpreter.

`settings.py` is the command's front end and `command.py` the command (docs/development.md,
*Adding a command*): `cli.py` holds the two to the command interface.
"""
