"""A description rendered by GitHub's engine, when GitHub's own HTML is not at hand (no token,
`--body-file`, a payload-only run): cmark-gfm through its `cmarkgfm` binding, with the
extensions and options GitHub uses for descriptions (tables, strikethrough, autolinks, the
tag filter, task lists; footnotes; raw HTML kept; a newline is a line break, as descriptions
are shown). The HTML still holds the author's raw HTML: `page/lines.py` reads it as a browser
and GitHub's sanitizer do. The action installs `cmarkgfm` for a step that needs it
(github/on_demand.py); the package depends on it."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType

from rocm_deps.errors import UsageError

# What installs cmarkgfm for this process when it cannot be imported: a command offers it
# (github/on_demand.offer_renderer), and it runs at most once, at the first render.
_installer: list[Callable[[], object]] = []


class RendererMissing(UsageError):
    """`cmarkgfm` cannot be imported here, and nothing installed it."""


def provide(installer: Callable[[], object]) -> None:
    _installer[:] = [installer]


def _engine() -> ModuleType:
    try:
        return importlib.import_module("cmarkgfm")
    except ImportError as error:
        if not _installer:
            raise RendererMissing(
                f"rendering a description as GitHub does needs the cmarkgfm package ({error}); "
                f"install rocm-deps with its dependencies, or give the step a github-token so "
                f"that GitHub's own rendering is read") from None
        _installer.pop()()
        return _engine()


def render(markdown: str) -> str:
    """The HTML GitHub's engine makes of `markdown`."""
    cmarkgfm = _engine()
    Options = cmarkgfm.Options
    options = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_HARDBREAKS | (
        Options.CMARK_OPT_FOOTNOTES)
    html: str = cmarkgfm.github_flavored_markdown_to_html(markdown, options=options)
    return html
