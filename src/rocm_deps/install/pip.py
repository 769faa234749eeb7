"""How pip is called (architecture §6 step 9): one argv and one environment for every install.

`PIP_BREAK_SYSTEM_PACKAGES=1` goes in the environment rather than as a flag, because older
pips reject the flag and the container's pip is whatever the image has.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from rocm_deps.config.fields import UNSAFE_PYTHON_VARIABLES

PIP_ENVIRONMENT = {
    "PIP_BREAK_SYSTEM_PACKAGES": "1",  # the container's interpreter is "externally managed"
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    "PIP_NO_INPUT": "1",  # never wait for a prompt in CI
}


def editable_install_argv(python: str, directory: Path, pip_args: Sequence[str]) -> list[str]:
    """`pip install -e` of one directory, without dependencies: the image has them."""
    return [python, "-I", "-m", "pip", "install", "-e", str(directory), "--no-deps", *pip_args]


def pip_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """Without the variables an earlier step (or the checked-out pull request, through
    $GITHUB_ENV) could set to run its own code inside pip or a build backend; pip also runs
    with -I, so the working directory cannot shadow a module either."""
    safe = {key: value for key, value in environ.items() if key not in UNSAFE_PYTHON_VARIABLES}
    return {**safe, **PIP_ENVIRONMENT}


# Run by the interpreter under test after `pip install -e DIR`: which distribution is
# installed editable from DIR, and its version (pip records it in direct_url.json). An exit
# code of 0 from pip proves nothing: `--python /bin/true` "succeeds" too.
EDITABLE_FROM_PROBE = """\
import json, sys, urllib.parse
from importlib.metadata import distributions
from pathlib import Path
target = Path(sys.argv[1]).resolve()
for distribution in distributions():
    try:
        document = json.loads(distribution.read_text("direct_url.json") or "null")
    except ValueError:
        continue
    if not isinstance(document, dict) or not document.get("dir_info", {}).get("editable"):
        continue
    url = urllib.parse.urlparse(document.get("url", ""))
    if url.scheme == "file" and Path(urllib.parse.unquote(url.path)).resolve() == target:
        print(json.dumps([distribution.metadata["Name"], distribution.version]))
        break
"""


def editable_probe_argv(python: str, directory: Path) -> list[str]:
    return [python, "-I", "-c", EDITABLE_FROM_PROBE, str(directory)]
