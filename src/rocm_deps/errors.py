"""Domain errors. Each carries its exit code (architecture §8): `main` needs no mapping table."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130


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
