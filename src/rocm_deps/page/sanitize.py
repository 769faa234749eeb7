"""GitHub's sanitizer, for HTML rendered here (docs/architecture.md, *Directives*): what GitHub
does to a description's raw HTML before it shows the page, so that the page read without a
token is the page GitHub shows. GitHub's markup builds on html-pipeline's SanitizationFilter
(its ALLOWLIST, html-pipeline 2.14): only the listed elements stay, the others are unwrapped
(their text stays; `<script>` goes with its text); only the listed attributes stay, `href`
only with the listed schemes; a list item outside a list and a table part outside a table
are unwrapped. GitHub's own HTML (`body_html`) has been through it already. Pure.
"""

from __future__ import annotations

import re

from rocm_deps.page.tree import Element


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


ELEMENTS = _names("h1 h2 h3 h4 h5 h6 h7 h8 br b i strong em a pre code img tt div ins del sup "
                  "sub p ol ul table thead tbody tfoot blockquote dl dt dd kbd q samp var hr "
                  "ruby rt rp li tr td th s strike summary details caption figure figcaption "
                  "abbr bdo cite dfn mark small span time wbr")
REMOVE_CONTENTS = _names("script")
ATTRIBUTES = {"a": _names("href"), "img": _names("src longdesc"),
              "div": _names("itemscope itemtype"), "blockquote": _names("cite"),
              "del": _names("cite"), "ins": _names("cite"), "q": _names("cite")}
ALL = _names("abbr accept accept-charset accesskey action align alt aria-describedby "
             "aria-hidden aria-label aria-labelledby axis border cellpadding cellspacing char "
             "charoff charset checked clear cols colspan color compact coords datetime dir "
             "disabled enctype for frame headers height hreflang hspace ismap label lang "
             "maxlength media method multiple name nohref noshade nowrap open progress prompt "
             "readonly rel rev role rows rowspan rules scope selected shape size span start "
             "summary tabindex target title type usemap valign value vspace width itemprop")
ANCHOR_SCHEMES = _names("http https mailto xmpp github-windows github-mac irc ircs")
# The Sanitize library puts a blank where it removes one of these (its `whitespace_elements`):
# their text runs on with what is around it, on one line.
WHITESPACE = _names("address article aside blockquote br dd div dl dt footer h1 h2 h3 h4 h5 h6 "
                    "header hgroup hr li nav ol p pre section ul")
LISTS = _names("ul ol")
TABLE_PARTS = _names("tr td th thead tbody tfoot")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")


def sanitized(root: Element) -> Element:
    """`root` as GitHub's sanitizer leaves it (a new tree)."""
    clean = Element(root.name, {})
    _children(root, clean, lists=0, tables=0)
    return clean


def _children(source: Element, target: Element, lists: int, tables: int) -> None:
    for child in source.children:
        if isinstance(child, str):
            target.append(child)
            continue
        name = child.name
        if name in REMOVE_CONTENTS:
            continue
        inner_lists, inner_tables = lists + (name in LISTS), tables + (name == "table")
        kept = name in ELEMENTS and not (name == "li" and not lists) and not (
            name in TABLE_PARTS and not tables)
        if not kept:  # unwrapped: its children take its place
            blank = name in WHITESPACE
            if blank:
                target.append(" ")
            _children(child, target, inner_lists, inner_tables)
            if blank:
                target.append(" ")
            continue
        element = Element(name, _attributes(name, child.attributes))
        target.append(element)
        _children(child, element, inner_lists, inner_tables)


def _attributes(name: str, attributes: dict[str, str]) -> dict[str, str]:
    allowed = ATTRIBUTES.get(name, frozenset()) | ALL
    kept = {key: value for key, value in attributes.items() if key in allowed}
    if "href" in kept:
        scheme = _SCHEME.match(kept["href"].strip())
        if scheme is not None and scheme.group(1).lower() not in ANCHOR_SCHEMES:
            del kept["href"]  # a `javascript:` link is no link
    return kept
