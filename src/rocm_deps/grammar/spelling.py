"""How a directive's key and value are spelled, letter by letter: one edit away, folded to
what a character looks like, the value's first word. Pure string functions."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from rocm_deps.grammar.keys import KEY_CHARACTERS


def one_edit(written: str, key: str) -> bool:
    """Whether `written` is `key` with one letter added, dropped or changed, or two adjacent
    letters swapped."""
    if written == key or abs(len(written) - len(key)) > 1:
        return False
    if len(written) == len(key):
        differ = [index for index, (a, b) in enumerate(zip(written, key, strict=True))
                  if a != b]
        return len(differ) == 1 or (len(differ) == 2 and differ[1] == differ[0] + 1
                                    and written[differ[0]] == key[differ[1]]
                                    and written[differ[1]] == key[differ[0]])
    shorter, longer = sorted((written, key), key=len)
    return any(longer[:index] + longer[index + 1:] == shorter for index in range(len(longer)))


def first_token(value: str) -> tuple[str, str]:
    """The value's first token (back-ticks removed) and what follows it."""
    if value.startswith("`"):
        end = value.find("`", 1)
        if end > 0:
            return value[1:end].strip(" \t"), value[end + 1:].strip(" \t")
    token, _, rest = value.partition(" ")
    return token.strip("`\t"), rest.strip(" \t")


def fold(character: str) -> str:
    """What a character of a key looks like: itself for ASCII, else its confusable ASCII
    letter, '-' or ':', else its NFKC form; combining marks vanish."""
    if character.isascii():
        return character
    from rocm_deps.grammar.look_alikes import LOOK_ALIKES  # only for lines that are not ASCII

    if character in LOOK_ALIKES:
        return LOOK_ALIKES[character]
    if unicodedata.category(character) == "Mn":
        return ""
    return unicodedata.normalize("NFKC", character)


def fold_separator(character: str) -> str:
    """`fold`, with every other non-ASCII punctuation mark or symbol read as `:`: where a
    key's colon belongs, a character drawn as two dots is the colon the author meant."""
    folded = fold(character)
    if character.isascii() or unicodedata.category(character)[0] not in "PS" or (
            len(folded) == 1 and folded in KEY_CHARACTERS):
        return folded
    return ":"


class _Folds(dict[int, str]):
    """One of the folds above, cached per code point, as a `str.translate` table: a line of
    a 64 KiB description folds at C speed, each character computed once."""

    def __init__(self, one: Callable[[str], str]) -> None:
        super().__init__()
        self.one = one

    def __missing__(self, code: int) -> str:
        value = self[code] = self.one(chr(code))
        return value


_FOLD, _FOLD_SEPARATOR = _Folds(fold), _Folds(fold_separator)


def folded(text: str, separator: bool = False) -> str:
    """`text` with every character folded (`fold`, or `fold_separator`)."""
    if text.isascii():
        return text
    return text.translate(_FOLD_SEPARATOR if separator else _FOLD)
