"""How pip is called: one argv for every install (a clone's `pip install -e`, a git package's
`pip install git+<url>@<sha>`, the workspace's); its environment comes from
`environment.pip_environment`. The build requirements a commit declares, and the probe that
asks the interpreter whether it has them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rocm_deps.errors import UsageError
from rocm_deps.files import read_bounded, toml_parser

NO_ISOLATION = "--no-build-isolation"


def install_argv(python: str, target: str, pip_args: Sequence[str], *, editable: bool = False,
                 reinstall: bool = False) -> list[str]:
    """`pip install` of one target, without dependencies (the image has them). `reinstall`:
    even when the installed distribution has the version the target builds (a pull request
    almost never bumps it, and pip keeps a same-version install whatever commit
    `git+<url>@<sha>` names); with `--no-deps` only that distribution is reinstalled."""
    return [python, "-I", "-m", "pip", "install", *(("-e",) if editable else ()), target,
            "--no-deps", *(("--force-reinstall",) if reinstall else ()), *pip_args]


# The start of every probe below that the interpreter under test runs: the distributions on
# its sys.path as `importlib.metadata` finds them (each directory of sys.path in order, its
# `*.dist-info` and `*.egg-info` entries by the normalised name before the first "-"; the
# metadata from METADATA, else PKG-INFO, else an `.egg-info` file itself; the first header of a
# name), with the standard library's lightest modules: importing `importlib.metadata` alone
# costs 40 ms of an interpreter start on the image's 3.11, and a job asks several times. Not
# seen: a distribution inside a zip file or an `.egg` directory on sys.path, which pip never
# installs; counted as absent, which makes a build isolated and an install checked again.
DISTRIBUTIONS = """\
import json, os, sys
def normal(name):
    out = []
    for char in name.lower():
        if char in "-_.":
            if not out or out[-1] != "_":
                out.append("_")
        else:
            out.append(char)
    return "".join(out)
def distributions(wanted=None):
    for entry in sys.path:
        directory = entry or "."
        try:
            children = os.listdir(directory)
        except OSError:
            continue
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")) and (
                    wanted is None or normal(low.rpartition(".")[0].partition("-")[0]) == wanted):
                yield os.path.join(directory, child)
def first(name):
    return next(distributions(normal(name)), None)
def read(info, name):
    try:
        with open(os.path.join(info, name) if name else info, encoding="utf-8") as file:
            return file.read()
    except (OSError, UnicodeDecodeError, ValueError):
        return None
def metadata(info):
    headers = {}
    text = read(info, "METADATA") or read(info, "PKG-INFO") or read(info, "") or ""
    for line in text.splitlines():
        if not line.strip():
            break
        key, colon, value = line.partition(":")
        if colon:
            headers.setdefault(key.strip().lower(), value.strip())
    return headers
"""

# Run by the interpreter under test after `pip install -e DIR`: which distribution is
# installed editable from DIR, its version (pip records it in direct_url.json), and where each
# of its top-level modules is found (`find_spec`: the module is located as `import` would,
# without running it). An exit code of 0 from pip proves nothing: `--python /bin/true`
# "succeeds" too; and a `.pth` file or an earlier entry of sys.path can make `import` find
# another copy than DIR's.
EDITABLE_FROM_PROBE = DISTRIBUTIONS + """\
import importlib.util, urllib.parse
target = os.path.realpath(sys.argv[1])
def where(top):
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError) as error:
        return "error: " + type(error).__name__ + ": " + str(error)[:200]
    if spec is None:
        return "error: nothing on sys.path provides it"
    if spec.origin not in (None, "namespace"):
        return spec.origin
    return next(iter(spec.submodule_search_locations or ()), "error: no location")
for info in distributions():
    try:
        document = json.loads(read(info, "direct_url.json") or "null")
    except ValueError:
        continue
    if not isinstance(document, dict) or not isinstance(document.get("dir_info"), dict) \\
            or not document["dir_info"].get("editable"):
        continue
    url = urllib.parse.urlparse(str(document.get("url", "")))
    if url.scheme == "file" and os.path.realpath(urllib.parse.unquote(url.path)) == target:
        found = metadata(info)
        name = found.get("name") or ""
        tops = (read(info, "top_level.txt") or "").split()
        if not tops:  # no top_level.txt: the distribution's name as a module, when DIR has it
            guess = name.replace("-", "_")
            tops = [guess] if os.path.isdir(os.path.join(target, guess)) or os.path.isfile(
                os.path.join(target, guess + ".py")) else []
        print(json.dumps([name, found.get("version"),
                          {top: where(top) for top in tops if top.isidentifier()}]))
        break
"""


def editable_probe_argv(python: str, directory: Path) -> list[str]:
    return [python, "-I", "-c", EDITABLE_FROM_PROBE, str(directory)]


# pip's own default for a project that declares no build system (setup.py alone).
LEGACY_BUILD_REQUIREMENTS = ("setuptools>=40.8.0",)
MAX_PYPROJECT = 1024 * 1024


def build_requirements(directory: Path) -> tuple[tuple[str, ...] | None, str]:
    """What building `directory` needs, from its pyproject.toml's `[build-system] requires`
    (pip's legacy default without one); None and why when that cannot be read."""
    pyproject = directory / "pyproject.toml"
    if not pyproject.is_file():
        return LEGACY_BUILD_REQUIREMENTS, "no pyproject.toml: pip's default for setup.py"
    try:
        text = read_bounded(pyproject, MAX_PYPROJECT, "pyproject.toml")
    except UsageError as error:
        return None, f"{pyproject} cannot be read ({str(error)[:200]})"
    return declared_build_requirements(text, str(pyproject))


def declared_build_requirements(text: str | None,
                                pyproject: str) -> tuple[tuple[str, ...] | None, str]:
    """`[build-system] requires` of a pyproject.toml's `text` (None: the commit has none: pip's
    legacy default); None and why when it cannot be read."""
    if text is None:
        return LEGACY_BUILD_REQUIREMENTS, "no pyproject.toml: pip's default for setup.py"
    try:
        document = toml_parser().loads(text[:MAX_PYPROJECT])
    except (ValueError, RecursionError) as error:
        return None, f"{pyproject} cannot be read ({str(error)[:200]})"
    system = document.get("build-system")
    if system is None:
        return LEGACY_BUILD_REQUIREMENTS, "no [build-system]: pip's default for setup.py"
    requires = system.get("requires") if isinstance(system, dict) else None
    if not isinstance(requires, list) or not all(isinstance(item, str) for item in requires):
        return None, f"{pyproject}: [build-system] requires is not a list of strings"
    return tuple(requires[:100]), f"{pyproject} [build-system] requires"


# Run by the interpreter under test, the requirements (JSON) on stdin: the ones it does not
# satisfy, as JSON. A requirement without a marker whose distribution is absent is missing
# whatever its version says: when there is one, they are the answer (one is enough to build
# isolated), and `packaging` is never imported (on the image's pip it costs 60 ms). Otherwise
# `packaging` reads them (the interpreter's own, else the copy pip carries); without either
# nothing can be checked, so everything counts as missing.
BUILD_REQUIREMENTS_PROBE = DISTRIBUTIONS + """\
NAME = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
requirements = json.loads(sys.stdin.read())
absent = []
for text in requirements:
    plain = text.strip()
    name = plain[:next((at for at, char in enumerate(plain) if char not in NAME), len(plain))]
    if name and ";" not in plain and "@" not in plain and first(name) is None:
        absent.append(text)
if absent:
    print(json.dumps(absent))
    raise SystemExit(0)
try:
    from packaging.requirements import Requirement
except ImportError:
    try:
        from pip._vendor.packaging.requirements import Requirement
    except ImportError:
        Requirement = None
missing = []
for text in requirements:
    if Requirement is None:
        missing.append(text + " (no packaging module to read it)")
        continue
    try:
        requirement = Requirement(text)
    except Exception:
        missing.append(text + " (not a requirement pip reads)")
        continue
    if requirement.marker is not None and not requirement.marker.evaluate():
        continue
    found = first(requirement.name)
    installed = metadata(found).get("version") if found else None
    if installed is None:
        missing.append(text)
        continue
    if requirement.specifier and not requirement.specifier.contains(installed, prereleases=True):
        missing.append(text + " (" + installed + " installed)")
print(json.dumps(missing))
"""


def build_requirements_probe_argv(python: str) -> list[str]:
    return [python, "-I", "-c", BUILD_REQUIREMENTS_PROBE]
