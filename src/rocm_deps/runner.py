"""The one module that speaks the GitHub Actions runner protocol.

Workflow commands (`::error …::`), step outputs (`$GITHUB_OUTPUT`, heredoc form) and the job
summary (`$GITHUB_STEP_SUMMARY`). Everything goes to stderr so that stdout stays free for the
machine-readable report (`--format json`); the runner reads commands from both streams.
Outside a runner (`github_actions=False`) the same calls print plain readable lines and
outputs go nowhere.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TextIO

from rocm_deps.environment import token_forms
from rocm_deps.files import without_lone_surrogates
from rocm_deps.messages import show_controls

AnnotationLevel = Literal["error", "warning", "notice"]
OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# GitHub refuses a step summary over 1 MiB (and every explanation in it would be lost).
MAX_SUMMARY_BYTES = 1024 * 1024 - 16 * 1024


# A NUL or an escape sequence quoted from the PR body or a clone's file names must not reach
# the log or the summary as a raw byte; tab and the line ends are the text's own layout.
_LAYOUT = "\t\n\r"


# Every line break a reader or a runner may honour: CR, LF, NEL, the line and paragraph
# separators.
_LINE_BREAK = re.compile("\r\n?|[\n\x85\u2028\u2029]")
# What the runner reads as a command: `::name …` at a line's start after any Unicode
# whitespace (actions/runner trims it all before it looks), and the legacy `##[name]`
# anywhere in a line.
_COMMAND_START = re.compile(r"^([^\S\n]*)::", re.MULTILINE)
_LEGACY_COMMAND = re.compile(r"##\[")


def neutralise(text: str) -> str:
    """Text that is not ours (commit subjects, git's and pip's messages, versions, file
    names) as the log may show it: every line break (CR, NEL, U+2028, U+2029) starts a line,
    as a runner may read it; a line that would start with `::` after whitespace of any kind
    starts with `> ::`, and `##[` is written `## [`, so none of it can be read as a workflow
    command."""
    text = _LINE_BREAK.sub("\n", text)
    return _LEGACY_COMMAND.sub("## [", _COMMAND_START.sub(r"\1> ::", text))


def escape_data(value: str) -> str:
    """Escape the message part of a workflow command (same rules as actions/toolkit)."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a property value; `:` and `,` would otherwise end the property early."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def format_command(command: str, message: str, properties: dict[str, str] | None = None) -> str:
    props = ",".join(
        f"{key}={escape_property(value)}" for key, value in (properties or {}).items() if value
    )
    return f"::{command}{' ' + props if props else ''}::{escape_data(message)}"


def format_output(name: str, value: str, delimiter: str) -> str:
    """One step output in the multi-line heredoc form the runner parses."""
    if not OUTPUT_NAME.fullmatch(name):
        raise ValueError(f"invalid output name {name!r}")
    if delimiter in value or delimiter in name:
        # The value could end the heredoc early and inject further outputs.
        raise ValueError(f"output {name!r} contains the heredoc delimiter; refusing to write it")
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


@dataclass
class Runner:
    """Writes annotations, groups, outputs and the job summary for one step."""

    github_actions: bool = False
    output_path: Path | None = None
    summary_path: Path | None = None
    stream: TextIO = field(default_factory=lambda: sys.stderr)
    secrets_to_hide: list[str] = field(default_factory=list)
    _wrapped_forms: list[str] = field(default_factory=list, repr=False)
    _wrapped: re.Pattern[str] | None = field(default=None, repr=False)

    def hide(self, text: str) -> str:
        """`text` with every registered secret replaced, and ready for a UTF-8 channel (a
        lone surrogate from hostile JSON becomes U+FFFD): applied to every channel."""
        text = without_lone_surrogates(text)
        for secret in self.secrets_to_hide:
            text = text.replace(secret, "***")
        if self._wrapped is not None:  # an encoding of a secret, wrapped over lines
            text = self._wrapped.sub("***", text)
        return text

    def _print(self, line: str) -> None:
        print(show_controls(self.hide(line), _LAYOUT), file=self.stream, flush=True)

    def report(self, text: str) -> None:
        """The machine- or human-readable report, on stdout (logs go to `stream`)."""
        print(self.hide(text), flush=True)

    def mask(self, secret: str) -> None:
        """Hide a secret in the runner log and in everything this object prints, the job
        summary's escaped text included (`ghp\\_…` is the token too)."""
        if not secret:
            return
        forms = token_forms(secret)
        # The whole token first, as it is and as the summary escapes it (`ghp\_…`), then the
        # forms that are pieces of it: a piece replaced first would leave the rest shown.
        whole = [secret, *((escaped_line(secret),) if escaped_line(secret) != secret else ())]
        self.secrets_to_hide[:0] = [form for form in whole if form not in self.secrets_to_hide]
        self.secrets_to_hide += [form for form in forms if form not in self.secrets_to_hide]
        if self.github_actions:
            for form in dict.fromkeys((secret, *forms)):
                print(f"::add-mask::{escape_data(form)}", file=self.stream, flush=True)
        self._wrapped_forms += [r"\s*".join(map(re.escape, form)) for form in forms]
        if self._wrapped_forms:
            self._wrapped = re.compile("|".join(self._wrapped_forms))

    def annotate(
        self, level: AnnotationLevel, message: str, *, title: str = "", line: int | None = None,
        file: str = "",
    ) -> None:
        if self.github_actions:
            properties = {"title": title, "file": file, "line": str(line) if line else ""}
            self._print(format_command(level, message, properties))
            return
        # Locally: one readable line; messages about the body already start with "line N:".
        self._print(f"{level}: {title + ': ' if title else ''}{message}")

    def error(self, message: str, *, title: str = "", line: int | None = None) -> None:
        self.annotate("error", message, title=title, line=line)

    def warning(self, message: str, *, title: str = "", line: int | None = None) -> None:
        self.annotate("warning", message, title=title, line=line)

    def notice(self, message: str, *, title: str = "", line: int | None = None) -> None:
        self.annotate("notice", message, title=title, line=line)

    def info(self, message: str) -> None:
        """A line (or lines) of the log; never a workflow command, whatever it quotes."""
        self._print(neutralise(message))

    @contextlib.contextmanager
    def commands_stopped(self) -> Iterator[None]:
        """While a child writes straight to the log (git's progress, a pip build): the
        runner reads no workflow command from it (`::stop-commands::` with a token no child
        can guess, then the token to resume)."""
        if not self.github_actions:
            yield
            return
        token = f"rocm-deps-{os.urandom(16).hex()}"
        print(f"::stop-commands::{token}", file=self.stream, flush=True)
        try:
            yield
        finally:
            print(f"::{token}::", file=self.stream, flush=True)

    def echo_command(self, argv: Sequence[str], *, dry_run: bool = False) -> None:
        """Every external command is shown before it runs, the way a shell with `set -x` would;
        in a dry run it is shown instead of run."""
        prefix = "[dry-run] + " if dry_run else "+ "
        argv = [neutralise(arg) for arg in argv]
        self._print(prefix + " ".join(_shell_quote(arg) for arg in argv))

    @contextlib.contextmanager
    def group(self, title: str) -> Iterator[None]:
        if self.github_actions:
            self._print(f"::group::{escape_data(title)}")
        else:
            self._print(f"== {title}")
        try:
            yield
        finally:
            if self.github_actions:
                self._print("::endgroup::")

    def set_outputs(self, outputs: dict[str, str]) -> None:
        if self.output_path is None:
            return
        delimiter = f"ghadelimiter_{os.urandom(16).hex()}"  # unguessable per call
        text = "".join(format_output(name, self.hide(value), delimiter)
                       for name, value in outputs.items())
        with self.output_path.open("a", encoding="utf-8") as handle:
            handle.write(text)

    def add_summary(self, markdown: str) -> None:
        if self.summary_path is None:
            return
        markdown = show_controls(self.hide(markdown), _LAYOUT)
        if len(markdown.encode("utf-8")) > MAX_SUMMARY_BYTES:
            cut = markdown.encode("utf-8")[:MAX_SUMMARY_BYTES].decode("utf-8", "ignore")
            markdown = cut[:cut.rfind("\n") + 1] + (
                "\n*(summary cut here: GitHub shows at most 1 MiB; the `report` output and the "
                "log hold the rest)*\n")
        with self.summary_path.open("a", encoding="utf-8") as handle:
            handle.write(markdown.rstrip("\n") + "\n\n")


_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def escaped_line(line: str) -> str:
    """A line of text from input as Markdown running text shows it: every ASCII punctuation
    character escaped, `&`, `<`, `>` as entities (the summary's escaping, defined here
    because the masking of secrets must know it)."""
    line = _PUNCTUATION.sub(r"\\\1", line)
    return line.replace("\\&", "&amp;").replace("\\<", "&lt;").replace("\\>", "&gt;")


def _shell_quote(arg: str) -> str:
    # Display only: the argv is never given to a shell.
    if arg and re.fullmatch(r"[\w@%+=:,./-]+", arg, flags=re.ASCII):
        return arg
    return "'" + arg.replace("'", "'\"'\"'") + "'"


def parse_outputs(text: str) -> dict[str, str]:
    """Read back a `$GITHUB_OUTPUT` file (heredoc and `name=value` forms), as the runner does."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            while index < len(lines) and lines[index] != delimiter:
                body.append(lines[index])
                index += 1
            if index == len(lines):
                raise ValueError(f"output {name!r}: missing closing delimiter")
            index += 1
            values[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
    return values
