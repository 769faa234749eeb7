"""The install record (the up-to-date check of install/pipeline.py): what an earlier `install` put
into a clone.

A JSON file in the clone's git directory (never in the work tree, so it cannot show up as a
local change). It names what was asked for (ref, interpreter, install directory, pip
arguments, patch files) and what resulted (commit, patch states, a fingerprint of the work
tree). When everything asked for now equals what was recorded, and the clone still looks
the way it was left, the install is skipped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from rocm_deps.contract.install import ALREADY_PRESENT, APPLIED, PatchOutcome, PatchState
from rocm_deps.install.git import Git

RECORD_NAME = "rocm-deps-state.json"


@dataclass(frozen=True)
class Request:
    """What an install is asked to do; equal requests give equal results."""

    tool: str
    ref: str
    python: str
    install_dir: str
    pip_args: tuple[str, ...]
    patch_files: tuple[tuple[str, str], ...]  # (label, sha256)
    pip_env: tuple[tuple[str, str], ...] = ()
    prepare: tuple[tuple[str, ...], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "ref": self.ref, "python": self.python,
                "install_dir": self.install_dir, "pip_args": list(self.pip_args),
                "patch_files": [list(pair) for pair in self.patch_files],
                "pip_env": [list(pair) for pair in self.pip_env],
                "prepare": [list(argv) for argv in self.prepare]}


@dataclass(frozen=True)
class Record:
    request: dict[str, Any]
    commit: str
    fingerprint: str
    patches: tuple[PatchOutcome, ...]
    # The outcome of the workspace install that followed: {"path": ..., "state": ...}.
    workspace: dict[str, str] | None = None
    # What the install left beyond HEAD (its patches, the recipe's files, what its build
    # wrote): path -> the content's hash (DELETED for a file it removed). A later reset that
    # finds a file still as left undoes the tool's own work, not the user's.
    left: dict[str, str] = field(default_factory=dict)

    def own(self, git: Git, names: Sequence[str]) -> set[str]:
        """The names among `names` whose content is still what this install left."""
        return {name for name in names if name in self.left
                and content_hash(git.path / name) == self.left[name]}

    def workspace_installed(self, workspace: Path) -> bool:
        return self.workspace == {"path": str(workspace), "state": "installed"}

    def satisfies(self, request: Request) -> bool:
        return self.request == request.to_json()

    @property
    def present_patches(self) -> set[str]:
        """Labels of the patches this install left in the work tree."""
        return {o.patch for o in self.patches if o.state in (APPLIED, ALREADY_PRESENT)}


class RecordFile:
    def __init__(self, git_dir: Path) -> None:
        self.path = git_dir / RECORD_NAME

    def load(self) -> Record | None:
        """The record, or None when there is none or it cannot be read (then: reinstall)."""
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
            return Record(
                request={key: document[key] for key in Request.__dataclass_fields__},
                commit=str(document["commit"]), fingerprint=str(document["fingerprint"]),
                patches=tuple(PatchOutcome(str(label), cast(PatchState, str(state)), str(digest))
                              for label, digest, state in document["patches"]),
                workspace=document.get("workspace"),
                left={str(name): str(digest)
                      for name, digest in dict(document.get("left") or {}).items()})
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def forget(self) -> None:
        """Called before the clone changes: a half-done install must not look installed."""
        self.path.unlink(missing_ok=True)

    def save(self, request: Request, commit: str, fingerprint: str,
             patches: Sequence[PatchOutcome], left: dict[str, str] | None = None) -> None:
        document = {**request.to_json(), "commit": commit, "fingerprint": fingerprint,
                    "patches": [[o.patch, o.sha256, o.state] for o in patches],
                    "left": left or {}}
        self.path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")

    def mark_workspace(self, workspace: Path, state: str) -> None:
        """Remember how the workspace install after this dependency's went: a failed one is
        retried by the next run even when every dependency is up to date."""
        document = json.loads(self.path.read_text(encoding="utf-8"))
        document["workspace"] = {"path": str(workspace), "state": state}
        self.path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


IMAGE_STATE_NAME = "rocm-deps-image.json"
IMAGE_CHANGES_NAME = "rocm-deps-image-changes.patch"


@dataclass(frozen=True)
class ImageState:
    """The clone as the image left it, captured the first time this tool resets it (later
    runs find their own earlier install there): its commit, and its tracked edits as a
    binary patch beside this file (None when there were none)."""

    commit: str
    changes: Path | None


class ImageStateFile:
    def __init__(self, git_dir: Path) -> None:
        self.path = git_dir / IMAGE_STATE_NAME
        self.changes = git_dir / IMAGE_CHANGES_NAME

    def load(self) -> ImageState | None:
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
            commit = str(document["commit"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return ImageState(commit, self.changes if document.get("changes") else None)

    def capture(self, commit: str, diff: str) -> ImageState:
        if diff:
            self.changes.write_text(diff, encoding="utf-8", errors="surrogateescape")
        self.path.write_text(json.dumps({"commit": commit, "changes": bool(diff)}) + "\n",
                             encoding="utf-8")
        return ImageState(commit, self.changes if diff else None)


BUILD_NAME = "rocm-deps-build.json"


@dataclass(frozen=True)
class Build:
    """What the clone's compiled extension files were built from, for one interpreter
    environment (install/compiled.py): the commit, each `compile-inputs` file as it was on
    disk then (patches applied: path -> sha256, `""` for one that did not exist), and each
    extension file's own hash as the build left it."""

    commit: str
    inputs: dict[str, str]
    files: dict[str, str]  # path relative to the clone -> sha256


class BuildFile:
    """The builds the tool knows of, by interpreter environment, in the clone's git
    directory (never in the work tree)."""

    def __init__(self, git_dir: Path) -> None:
        self.path = git_dir / BUILD_NAME

    def _all(self) -> dict[str, Any]:
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return document if isinstance(document, dict) else {}

    def load(self, environment: str) -> Build | None:
        """The build for `environment`; None when none is known or it cannot be read."""
        entry = self._all().get(environment)
        if not isinstance(entry, dict):
            return None
        try:
            build = Build(str(entry["commit"]), dict(entry["inputs"]), dict(entry["files"]))
        except (TypeError, KeyError, ValueError):
            return None
        if not all(isinstance(value, str) for value in (*build.inputs.values(),
                                                        *build.files.values())):
            return None
        return build

    def save(self, environment: str, build: Build) -> None:
        document = self._all()
        document[environment] = {"commit": build.commit, "inputs": build.inputs,
                                 "files": build.files}
        self.path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n",
                             encoding="utf-8")

    def forget(self, environment: str) -> None:
        """Before pip runs: a build that stops half-way must not be trusted after."""
        document = self._all()
        if document.pop(environment, None) is not None:
            self.path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n",
                                 encoding="utf-8")


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


DELETED = "-"


def content_hash(path: Path) -> str:
    """A work-tree path's content as git would compare it: a link's target, a file's bytes;
    DELETED when there is nothing there."""
    if path.is_symlink():
        return f"link:{path.readlink()}"
    return sha256_of(path) if path.is_file() else DELETED


def left_by_install(git: Git) -> dict[str, str]:
    """Every path the work tree holds beyond HEAD, with its content's hash."""
    changes = git.local_changes()
    return {name: content_hash(git.path / name)
            for name in (*changes.modified, *changes.untracked, *changes.deleted)}


def tree_fingerprint(git: Git) -> str:
    """What the work tree holds beyond HEAD: the binary diff and the untracked file names."""
    text = f"{git.diff_against_head()}\0\0{git.untracked_files()}"
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
