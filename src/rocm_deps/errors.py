"""Domain errors. Each carries its exit code (docs/architecture.md, *Command line and the
documents*): `main` needs no mapping table."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130
# What each exit code means, as `--help` and the README say it.
EXIT_CODES = ((EXIT_OK, "success (also: nothing named)"),
              (EXIT_FAILURE, "a failure to fix: an invalid directive, a missing ref, a patch "
                             "that does not apply, a GitHub API that cannot be reached"),
              (EXIT_USAGE, "usage or configuration error"),
              (EXIT_INTERNAL, "internal error (a bug: please report it)"),
              (EXIT_INTERRUPTED, "cancelled (SIGTERM or SIGINT)"))


class FatalError(Exception):
    """A failure the user must fix: an invalid directive, a missing ref, a patch that no
    longer applies, a pip failure. The message says what failed and how to fix it."""

    exit_code = EXIT_FAILURE

    def __init__(self, message: str, *, title: str = "rocm-deps") -> None:
        super().__init__(message)
        self.message = message
        self.title = title


class UsageError(FatalError):
    """Bad command line, bad configuration file, unreadable event payload."""

    exit_code = EXIT_USAGE


class Interrupted(FatalError):
    """SIGTERM/SIGINT (a cancelled job): the running child was stopped."""

    exit_code = EXIT_INTERRUPTED
