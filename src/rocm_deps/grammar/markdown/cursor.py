"""A position in one line, in characters and in columns (cmark's offset and column): tabs
are stops every 4 columns, and a tab may be consumed partly."""

from __future__ import annotations

TAB_STOP = 4
CODE_INDENT = 4


class Cursor:
    """A position in one line, in characters and in columns (cmark's offset and column)."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.offset = 0
        self.column = 0
        self.partial_tab = False
        self.first_nonspace = 0
        self.indent = 0
        self.blank = True

    def find_first_nonspace(self) -> None:
        line, position, column = self.line, self.offset, self.column
        to_tab = TAB_STOP - column % TAB_STOP
        while position < len(line):
            character = line[position]
            if character == " ":
                position, column, to_tab = position + 1, column + 1, to_tab - 1 or TAB_STOP
            elif character == "\t":
                position, column, to_tab = position + 1, column + to_tab, TAB_STOP
            else:
                break
        self.first_nonspace = position
        self.indent = column - self.column
        self.blank = position >= len(line)

    def advance(self, count: int, columns: bool) -> None:
        line = self.line
        while count > 0 and self.offset < len(line):
            if line[self.offset] == "\t":
                to_tab = TAB_STOP - self.column % TAB_STOP
                if columns:
                    self.partial_tab = to_tab > count
                    step = min(count, to_tab)
                    self.column += step
                    self.offset += 0 if self.partial_tab else 1
                    count -= step
                else:
                    self.partial_tab = False
                    self.column += to_tab
                    self.offset += 1
                    count -= 1
            else:
                self.partial_tab = False
                self.offset += 1
                self.column += 1
                count -= 1

    def advance_to_first_nonspace(self) -> None:
        self.advance(self.first_nonspace - self.offset, False)

    def peek(self, position: int) -> str:
        return self.line[position] if position < len(self.line) else ""
