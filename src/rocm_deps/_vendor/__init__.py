"""Third-party code carried in the source tree, unchanged, so the tool needs nothing installed.

- tomli 2.5.0 (MIT, see tomli/LICENSE): the TOML parser that became `tomllib` in Python
  3.11. Used only on Python 3.10, only when a configuration file is given.
"""
