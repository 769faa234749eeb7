"""The interface every command keeps (docs/development.md, *Adding a command*): its front end,
`<feature>/settings.py`, is a `Front` (its options, help, whether it is a step of the action,
and `build`), and its `<feature>/command.py` is a `Back` (`run`). Each settings module holds
itself and its command to them for the type checker; `cli.front` and `cli.back` give them to
the callers typed, so nothing asks whether an attribute is there."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from rocm_deps.edge import Edge
from rocm_deps.options import Given, Help, Option
from rocm_deps.runner import Runner

Built = TypeVar("Built", covariant=True)
Taken = TypeVar("Taken", contravariant=True)


class Front(Protocol[Built]):
    """`<feature>/settings.py`."""

    @property
    def OPTIONS(self) -> Sequence[Option]: ...

    @property
    def HELP(self) -> Help: ...

    @property
    def ACTION(self) -> bool: ...

    def build(self, given: Given, at: Edge) -> Built: ...


class Back(Protocol[Taken]):
    """`<feature>/command.py`: the exit code."""

    def run(self, settings: Taken, runner: Runner) -> int: ...
