"""`body_html` as GitHub's API answers it (media type `application/vnd.github.full+json`), for the
local API stand-in: GitHub's engine (cmark-gfm, GitHub's options), then what GitHub's pipeline
does after it, in the shapes its real answers have:

- comments removed (the sanitizer); `dir="auto"` on paragraphs, lists, quotes and headings;
- headings wrapped in `<div class="markdown-heading">` with an anchor and its `<svg>`;
- code blocks in `<div class="snippet-clipboard-content notranslate …"><pre class="notranslate">`,
  code spans `<code class="notranslate">`;
- task items `<li class="task-list-item"><input type="checkbox" … class="task-list-item-checkbox">`;
- footnotes in `<section data-footnotes class="footnotes">` with a hidden heading
  (`sr-only`) and back-links;
- `#N` of the body's own repository linked as an issue link (`#N` shown); a pull request URL
  shown as `owner/repo#N` (`#N` for the body's own repository); a full SHA of the body's own
  repository, or a commit URL, shown as a commit link around the short SHA in `<tt>`.

Hand-written, from GitHub's documented and observed output: a fixture's shape, not a copy of
the tool's reader.
"""

from __future__ import annotations

import functools
import html
import re

import cmarkgfm
from cmarkgfm.cmark import Options

from rocm_deps.page.tree import Element, parse

SVG = ('<svg class="octicon octicon-link" viewBox="0 0 16 16" version="1.1" width="16" '
       'height="16" aria-hidden="true"><path d="m7.775 3.275 1.25-1.25a3.5 3.5 0 1 1 4.95 '
       '4.95l-2.5 2.5a3.5 3.5 0 0 1-4.95 0"></path></svg>')
_TEXT = re.compile(r"(?s)(<pre.*?</pre>|<code.*?</code>|<a\b.*?</a>|<[^>]+>)|([^<]+)")
_PULL_URL = re.compile(r'<a href="https://github\.com/(?P<repo>[\w.-]+/[\w.-]+)/(?:pull|issues)/'
                       r'(?P<number>[0-9]+)[^"]*">https://github\.com/[^<]*</a>')
_COMMIT_URL = re.compile(r'<a href="https://github\.com/(?P<repo>[\w.-]+/[\w.-]+)/commit/'
                         r'(?P<sha>[0-9a-f]{40})">https://github\.com/[^<]*</a>')


@functools.lru_cache(maxsize=2048)  # the fake answers one description many times
def body_html(body: str | None, repository: str) -> str | None:
    if body is None:
        return None
    options = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_HARDBREAKS | Options.CMARK_OPT_FOOTNOTES
    page = cmarkgfm.github_flavored_markdown_to_html(body, options=options)
    page = sanitized(page)  # comments go with it
    page = _PULL_URL.sub(lambda found: _issue_link(found["repo"], found["number"], repository,
                                                   found.group(0).split('"')[1]), page)
    page = _COMMIT_URL.sub(lambda found: _commit_link(found["repo"], found["sha"], repository),
                           page)
    page = "".join(_linked(text, repository) if text else markup
                   for markup, text in _TEXT.findall(page))
    for tag in ("p", "ul", "ol", "blockquote", "table"):
        page = re.sub(rf"<{tag}(?=[ >])", f'<{tag} dir="auto"', page)
    page = re.sub(r"<h([1-6])>(.*?)</h\1>", _heading, page)
    page = re.sub(r"<pre>(<code[^>]*>)", r'<div class="snippet-clipboard-content notranslate '
                  r'position-relative overflow-auto"><pre class="notranslate">\1', page)
    page = page.replace("</code></pre>", "</code></pre></div>")
    page = re.sub(r"<code>(?![^<]*</code></pre>)", '<code class="notranslate">', page)
    page = page.replace('<li><input type="checkbox" disabled="" />',
                        '<li class="task-list-item"><input type="checkbox" id="" disabled="" '
                        'class="task-list-item-checkbox">')
    page = page.replace('<input type="checkbox" checked="" disabled="" />',
                        '<input type="checkbox" id="" checked="" disabled="" '
                        'class="task-list-item-checkbox">')
    page = page.replace('<section class="footnotes" data-footnotes>',
                        '<section data-footnotes="" class="footnotes"><h2 id="footnote-label" '
                        'class="sr-only" dir="auto">Footnotes</h2>')
    return re.sub(r'class="footnote-backref" data-footnote-backref[^>]*>↩',
                  'class="data-footnote-backref" aria-label="Back to reference 1">'
                  '<g-emoji class="g-emoji" alias="leftwards_arrow_with_hook">↩</g-emoji>', page)


# GitHub's sanitizer (html-pipeline's SanitizationFilter allowlist), for the author's raw HTML:
# written here from html-pipeline's published allowlist, apart from the tool's own sanitizer
# (page/sanitize.py). What GitHub's engine itself writes (footnotes, task boxes) keeps the
# attributes GitHub's page shows it with.
ALLOWED = set(["h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "br", "b", "i", "strong", "em", "a", "pre", "code", "img", "tt", "div", "ins", "del", "sup", "sub", "p", "ol", "ul", "table", "thead", "tbody", "tfoot", "blockquote", "dl", "dt", "dd", "kbd", "q", "samp", "var", "hr", "ruby", "rt", "rp", "li", "tr", "td", "th", "s", "strike", "summary", "details", "caption", "figure", "figcaption", "abbr", "bdo", "cite", "dfn", "mark", "small", "span", "time", "wbr"])
EVERYWHERE = set(["abbr", "accept", "accept-charset", "accesskey", "action", "align", "alt", "aria-describedby", "aria-hidden", "aria-label", "aria-labelledby", "axis", "border", "cellpadding", "cellspacing", "char", "charoff", "charset", "checked", "clear", "cols", "colspan", "color", "compact", "coords", "datetime", "dir", "disabled", "enctype", "for", "frame", "headers", "height", "hreflang", "hspace", "ismap", "label", "lang", "maxlength", "media", "method", "multiple", "name", "nohref", "noshade", "nowrap", "open", "progress", "prompt", "readonly", "rel", "rev", "role", "rows", "rowspan", "rules", "scope", "selected", "shape", "size", "span", "start", "summary", "tabindex", "target", "title", "type", "usemap", "valign", "value", "vspace", "width", "itemprop"])
PER_ELEMENT = {"a": {"href"}, "img": {"src", "longdesc"}, "div": {"itemscope", "itemtype"},
               "blockquote": {"cite"}, "del": {"cite"}, "ins": {"cite"}, "q": {"cite"}}
BLANK_WHEN_REMOVED = set(["address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "li", "nav", "ol", "p", "pre", "section", "ul"])
SCHEMES = ("http:", "https:", "mailto:", "xmpp:", "github-windows:", "github-mac:", "irc:",
           "ircs:")
# The engine's own markup: footnotes and task boxes, as cmark-gfm writes them.
ENGINE = re.compile(r'<section class="footnotes" data-footnotes>|<sup class="footnote-ref">|'
                    r'<a href="#fn-[^"]*" id="fnref-[^"]*" data-footnote-ref>|<li id="fn-[^"]*">|'
                    r'<a href="#fnref-[^"]*" class="footnote-backref"[^>]*>|'
                    r'<input type="checkbox"( checked="")? disabled="" />')


def sanitized(page: str) -> str:
    """The page as GitHub's sanitizer leaves it: parsed by the HTML standard's rules (as
    GitHub's sanitizer parses it, HTML5), then filtered and written out again here."""
    return "".join(_kept(child, lists=0, tables=0) for child in parse(page).children)


def _kept(node: Element | str, lists: int, tables: int) -> str:
    if isinstance(node, str):
        return html.escape(node, quote=False)
    name = node.name
    if name == "script":
        return ""
    inner_lists, inner_tables = lists + (name in ("ul", "ol")), tables + (name == "table")
    inside = "".join(_kept(child, inner_lists, inner_tables) for child in node.children)
    written = _start_tag(node)
    if ENGINE.fullmatch(written):
        return f"{written}{inside}{'' if name == 'input' else f'</{name}>'}"
    outside = (name == "li" and not lists) or (
        name in ("tr", "td", "th", "thead", "tbody", "tfoot") and not tables)
    if name not in ALLOWED or outside:
        blank = " " if name in BLANK_WHEN_REMOVED else ""
        return f"{blank}{inside}{blank}"
    kept = ""
    for attribute, value in node.attributes.items():
        if attribute not in EVERYWHERE and attribute not in PER_ELEMENT.get(name, ()):
            continue
        if attribute == "href" and ":" in value.split("/", 1)[0] and (
                not value.strip().lower().startswith(SCHEMES)):
            continue
        kept += f' {attribute}="{html.escape(value)}"'
    if name in ("br", "hr", "img", "wbr"):
        return f"<{name}{kept}>"
    return f"<{name}{kept}>{inside}</{name}>"


def _start_tag(node: Element) -> str:
    """The start tag as cmark-gfm writes it (attributes in their order; a bare one bare)."""
    attributes = "".join(f" {key}" if value == "" and key.startswith("data-footnote")
                         else f' {key}="{value}"' for key, value in node.attributes.items())
    close = " />" if node.name == "input" else ">"
    return f"<{node.name}{attributes}{close}"


def _heading(found: re.Match[str]) -> str:
    level, inner = found.group(1), found.group(2)
    slug = re.sub(r"[^\w\- ]", "", html.unescape(re.sub(r"<[^>]+>", "", inner))).strip()
    slug = slug.lower().replace(" ", "-")
    return (f'<div class="markdown-heading" dir="auto"><h{level} tabindex="-1" '
            f'class="heading-element" dir="auto">{inner}</h{level}><a id="user-content-{slug}" '
            f'class="anchor" aria-label="Permalink: {html.escape(inner)}" href="#{slug}">'
            f"{SVG}</a></div>")


def _issue_link(repo: str, number: str, repository: str, href: str) -> str:
    shown = f"#{number}" if repo.lower() == repository.lower() else f"{repo}#{number}"
    return (f'<a class="issue-link js-issue-link" data-error-text="Failed to load title" '
            f'data-permission-text="Title is private" data-url="{href}" '
            f'data-hovercard-type="pull_request" href="{href}">{shown}</a>')


def _commit_link(repo: str, sha: str, repository: str) -> str:
    href = f"https://github.com/{repo}/commit/{sha}"
    prefix = "" if repo.lower() == repository.lower() else f"{repo}@"
    return (f'<a class="commit-link" data-hovercard-type="commit" '
            f'data-hovercard-url="{href}/hovercard" href="{href}">{prefix}<tt>{sha[:7]}</tt></a>')


def _linked(text: str, repository: str) -> str:
    """What GitHub links in text: `#N` to the body's own repository, a full SHA to its commit
    (GitHub links a SHA only where the commit exists; the stand-in takes every one)."""
    text = re.sub(r"(?<![\w/&])#([0-9]+)\b", lambda found: _issue_link(
        repository, found.group(1), repository,
        f"https://github.com/{repository}/issues/{found.group(1)}"), text)
    return re.sub(r"(?<![\w/])([0-9a-f]{40})\b",
                  lambda found: _commit_link(repository, found.group(1), repository), text)
