"""docs/architecture.md describes the system as built: every file it names exists, and every
`module.name` (or `Class.method`) it names is defined there."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from rocm_deps.defaults import CONFIG_FILE

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "rocm_deps"
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
QUOTED = sorted(set(re.findall(r"`([^`\s]+)`", DOC)))
FILES = [name for name in QUOTED if re.fullmatch(r"[\w./-]+\.(?:py|md|toml|yml)", name)
         and "<" not in name and name != CONFIG_FILE]  # the user's repository holds that one
# `install/command.run`, `contract/status.judge`, `cli.execute`, `runner.neutralise`, ...
DOTTED = [name for name in QUOTED if re.fullmatch(r"[a-z_]+(?:/[a-z_]+)*\.[A-Za-z_]\w*"
                                                   r"(?:\.[A-Za-z_]\w*)?", name)
          and not re.fullmatch(r"[\w/]+\.(?:py|md|toml|yml|json|txt)", name)]
# `Installer.install_one`, `Git.layout`, `Manifest.head`: a class of the package and a member
MEMBERS = [name for name in QUOTED if re.fullmatch(r"[A-Z]\w*\.[a-z_]\w*", name)]


def _file(name: str) -> Path | None:
    """The file a name means: a path from the package, the repository or docs/; a bare file
    name (its table row names the folder) anywhere in the package or docs/."""
    for base in (PACKAGE, ROOT, ROOT / "docs"):
        if (base / name).exists():
            return base / name
    if "/" not in name:
        return next(iter((*PACKAGE.rglob(name), *(ROOT / "docs").glob(name))), None)
    return None


@pytest.mark.parametrize("name", FILES)
def test_every_file_the_architecture_names_exists(name: str) -> None:
    assert _file(name) is not None, name


def _modules(first: str) -> list[str]:
    """The package's modules a name's first part may mean: a top-level one, or (its table row
    names the folder) a module of that name in any folder."""
    found = [path.relative_to(PACKAGE.parent).with_suffix("").as_posix().replace("/", ".")
             for path in PACKAGE.rglob(f"{first}.py")]
    found += [path.relative_to(PACKAGE.parent).as_posix().replace("/", ".")
              for path in PACKAGE.rglob(first) if (path / "__init__.py").exists()]
    return found


@pytest.mark.parametrize("name", [name for name in DOTTED
                                  if _modules(name.replace("/", ".").split(".")[0])])
def test_every_module_name_the_architecture_names_is_defined(name: str) -> None:
    parts = name.replace("/", ".").split(".")
    for base in _modules(parts[0]):
        # The longest prefix that is a module; the rest are attributes.
        for split in range(len(parts), 0, -1):
            module_name = ".".join([base, *parts[1:split]])
            try:
                found: object = importlib.import_module(module_name)
            except ModuleNotFoundError:
                continue
            for attribute in parts[split:]:
                if not hasattr(found, attribute):
                    break
                found = getattr(found, attribute)
            else:
                return
            break
    pytest.fail(f"{name}: not defined in the package")


@pytest.mark.parametrize("name", MEMBERS)
def test_every_class_member_the_architecture_names_is_defined(name: str) -> None:
    cls, member = name.split(".")
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == cls:
                defined = {item.name for item in node.body
                           if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))} | {
                    target.id for item in node.body if isinstance(item, ast.AnnAssign)
                    for target in [item.target] if isinstance(target, ast.Name)}
                assert member in defined, (name, path)
                return
    pytest.fail(f"{name}: no class {cls} in the package")


def test_the_doc_names_enough_to_be_checked() -> None:
    """The patterns above still find what the document names (a change of its quoting
    would otherwise check nothing)."""
    assert {"cli.execute", "contract/status.judge", "install/command.run"} <= set(DOTTED)
    assert {"Git.layout", "Git.run", "Installer.install_one"} <= set(MEMBERS)
    assert {"contract/overrides.py", "guard/document.py", "edge.py"} <= set(FILES)


def test_the_precedence_the_architecture_lists_is_the_one_resolve_walks() -> None:
    """§3's precedence, read from the sentence, is `PRECEDENCE` (which
    `resolve/precedence.choose` walks) and then the image's copy."""
    from rocm_deps.contract.overrides import PRECEDENCE

    sentence = re.search(r"Per dependency, precedence is\s(.*?)\.\n", DOC, re.DOTALL)
    assert sentence is not None
    listed = re.findall(r"`(\w+)`\s\(", sentence.group(1))
    assert listed == [*PRECEDENCE, "image"]
