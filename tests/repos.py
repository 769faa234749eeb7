"""Tiny real repositories for the per-module tests (pre-commit's `make_repo` habit)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from rocm_deps.demo.sandbox import IDENTITY


def git(repository: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repository), *args], check=True, text=True,
                          capture_output=True, env={**os.environ, **IDENTITY}).stdout.strip()


def make_repo(path: Path, files: Mapping[str, str], message: str = "initial") -> str:
    """A repository at `path` with `files` committed on `main`; returns the commit."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    return commit(path, files, message)


def commit(path: Path, files: Mapping[str, str | None], message: str) -> str:
    for relative, text in files.items():
        target = path / relative
        if text is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", message)
    return git(path, "rev-parse", "HEAD")
