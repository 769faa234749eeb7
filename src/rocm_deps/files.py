"""Reading input files: bounded before they are read (docs/architecture.md, *Trust*).

An event payload, a body file, a lock file or a configuration can be anything a workflow
author points at, `/dev/zero` included: each is read up to a limit and no further, decoded as
UTF-8, and every failure is a usage error that names the file and what it was for.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rocm_deps.errors import UsageError

KIB = 1024
MIB = 1024 * KIB
EVENT_LIMIT = 25 * MIB      # GitHub's own limit for a webhook payload
CONFIG_LIMIT = 1 * MIB
LOCK_FILE_LIMIT = 1 * MIB
OVERRIDES_LIMIT = 1 * MIB


def read_bounded(path: Path, limit: int, what: str) -> str:
    """The text of `path`, refused when it is larger than `limit` bytes."""
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except FileNotFoundError:
        raise UsageError(f"{what} {path} does not exist") from None
    except OSError as error:
        raise UsageError(f"cannot read {what} {path}: {error.strerror or error}") from None
    if len(data) > limit:
        raise UsageError(f"{what} {path} is larger than {limit // KIB:,} KiB; refusing to read it")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"cannot read {what} {path}: not UTF-8 ({error})") from None


def without_lone_surrogates(text: str) -> str:
    """JSON may encode a lone surrogate (`"\\ud800"`), which no UTF-8 file can hold: such a
    character becomes U+FFFD before the text is used anywhere."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def parse_json(text: str, where: str) -> object:
    """JSON from input; malformed or absurdly nested text is a usage error naming `where`."""
    try:
        return json.loads(text)
    except ValueError as error:  # JSONDecodeError, and an integer of more than 4300 digits
        raise UsageError(f"{where}: not valid JSON ({error})") from None
    except RecursionError:
        raise UsageError(f"{where}: not valid JSON (nested too deeply)") from None


def toml_parser() -> Any:
    """The TOML parser: the standard library's (3.11+), else the same one carried in the
    source tree (Python 3.10, the MI350 image's). Imported on use: most runs parse no TOML."""
    import sys

    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    from rocm_deps._vendor import tomli

    return tomli
