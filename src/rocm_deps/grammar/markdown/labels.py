"""How cmark-gfm compares labels (of footnotes and link references)."""

from __future__ import annotations


def normalise_label(label: str) -> str:
    """Labels match case-insensitively, with runs of white space as one space."""
    return " ".join(label.split()).casefold()
