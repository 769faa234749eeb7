"""What every child process may see: the tool's most security-relevant policy, in one place.

Git, pip, `prepare` commands, the workspace install and the PyGithub install all start from
`child_environment` (built once, with the settings) and add only what their own kind of
program needs through `git_environment` or `pip_environment`. Code the tool does not own (pip
builds, prepare commands, git hooks and helpers) never gets the token, by name or by value;
programs are found through absolute PATH entries only; nothing an earlier step exported can
point git at another repository or run its own code inside pip.
"""

from __future__ import annotations

import base64
import os
import re
import urllib.parse
from collections.abc import Mapping
from pathlib import Path

# Variables that hold a GitHub token by convention (and the action's input).
TOKEN_VARIABLES = frozenset({"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN",
                             "GITHUB_ENTERPRISE_TOKEN", "INPUT_GITHUB_TOKEN",
                             "INPUT_GITHUB-TOKEN", "ACTIONS_RUNTIME_TOKEN",
                             "ACTIONS_ID_TOKEN_REQUEST_TOKEN"})

# Variables that would make git operate on a different repository, index or object store
# than the dependency path it was given.
GIT_REDIRECTING_VARIABLES = frozenset({
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX",
    "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_QUARANTINE_PATH",
})

# Variables an earlier step (or the checked-out pull request, through $GITHUB_ENV) could set
# to run its own code inside pip or a build backend. pip runs without them, and with -I, so
# the working directory (the workspace) cannot shadow a module either.
UNSAFE_PYTHON_VARIABLES = frozenset({"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP",
                                     "PYTHONUSERBASE", "PYTHONINSPECT", "PYTHONBREAKPOINT",
                                     "PYTHONEXECUTABLE"})
# Never set through a config's `pip-env`: they would bring back what the child environment
# leaves out.
PROTECTED_VARIABLES = UNSAFE_PYTHON_VARIABLES | {"PATH"}

PIP_ENVIRONMENT = {
    "PIP_BREAK_SYSTEM_PACKAGES": "1",  # the container's interpreter is "externally managed"
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    "PIP_NO_INPUT": "1",  # never wait for a prompt in CI
}


def absolute_search_path(environ: Mapping[str, str]) -> str:
    """PATH without its relative and empty entries: a program is never found in the working
    directory (the checked-out pull request)."""
    return os.pathsep.join(entry for entry in environ.get("PATH", os.defpath).split(os.pathsep)
                           if Path(entry).is_absolute())


# A token's kind prefix (ghp_, ghs_, gho_, ghu_, ghr_, github_pat_): the rest is the secret.
_TOKEN_PREFIX = re.compile(r"[a-z]+(?:_pat)?_")
MIN_FORM = 8  # shorter pieces of an encoding would hide ordinary text


def token_forms(token: str) -> tuple[str, ...]:
    """Every form in which the token (or the token without its kind prefix) may appear in an
    environment value or an echoed message: as it is, URL-encoded, hex-encoded in either case,
    and base64-encoded (standard or URL-safe) after any prefix (actions/checkout's
    `AUTHORIZATION: basic base64(x-access-token:TOKEN)` extraheader): the part of the
    encoding that only the token's bytes decide, at each of the three alignments. Wrapped
    base64 (a line break every 64 or 76 characters) is found by `carries`."""
    found = _TOKEN_PREFIX.match(token)
    secrets = {token, *((token[found.end():],) if found and
                        len(token) - found.end() >= 2 * MIN_FORM else ())}
    forms = set()
    for secret in secrets:
        raw = secret.encode()
        forms |= {secret, urllib.parse.quote(secret, safe=""), raw.hex(), raw.hex().upper()}
        for offset in range(3):
            encoded = base64.b64encode(b"\0" * offset + raw).decode()
            core = encoded[(4 * offset + 2) // 3 + 1:-4]
            forms |= {core, core.replace("+", "-").replace("/", "_")}
    return tuple(sorted((form for form in forms if len(form) >= MIN_FORM), key=len,
                        reverse=True))


def carries(value: str, forms: tuple[str, ...]) -> bool:
    """Whether `value` holds one of the token's `forms`, also across the line breaks of a
    wrapped encoding."""
    unwrapped = "".join(value.split())
    return any(form in value or form in unwrapped for form in forms)


def child_environment(environ: Mapping[str, str], token: str | None) -> dict[str, str]:
    """The one environment every child process starts from: no token variable, no value that
    carries the token in any form (`token_forms`), PATH with absolute entries only."""
    forms = token_forms(token) if token else ()
    environment = {name: value for name, value in environ.items()
                   if name.upper() not in TOKEN_VARIABLES and not carries(value, forms)}
    environment["PATH"] = absolute_search_path(environ)
    return environment


def git_environment(child: Mapping[str, str]) -> dict[str, str]:
    """git's: non-interactive, bound to the repository it is given, in English (failures are
    classified by git's messages)."""
    env = {key: value for key, value in child.items() if key not in GIT_REDIRECTING_VARIABLES}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GCM_INTERACTIVE"] = "never"
    env.setdefault("LC_ALL", "C")
    return env


def pip_environment(child: Mapping[str, str],
                    configured: Mapping[str, str] | None = None) -> dict[str, str]:
    """pip's (and every Python child's: prepare, probes): without the variables that would run
    someone else's code, plus pip's non-interactive settings and the dependency's configured
    `pip-env` (which the config loader keeps off PROTECTED_VARIABLES)."""
    safe = {key: value for key, value in child.items() if key not in UNSAFE_PYTHON_VARIABLES}
    return {**safe, **PIP_ENVIRONMENT, **dict(configured or {})}
