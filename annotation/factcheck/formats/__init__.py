"""Dataset formats: parse files into plain dataclasses and write them back. No Django here."""

from __future__ import annotations

import csv
from collections.abc import Iterator


class FormatError(Exception):
    """The input is not in the declared format. Says where: the row (1-based data row) and column."""

    def __init__(self, message: str, *, row: int | None = None, column: str | None = None):
        self.message = message
        self.row = row
        self.column = column
        where = []
        if row is not None:
            where.append(f"row {row}")
        if column is not None:
            where.append(f"column {column!r}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)

    def as_dict(self) -> dict[str, object]:
        return {"row": self.row, "column": self.column, "message": self.message}


def delimited_rows(reader: Iterator[list[str]], width: int) -> Iterator[tuple[int, list[str] | FormatError]]:
    """(data row number, cells) for each row after the header; a FormatError in place of a row with the
    wrong number of cells. Raises FormatError when the text cannot be read on (encoding, broken quoting)."""
    number = 0
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except UnicodeDecodeError:
            raise FormatError(f"the file is not UTF-8 text after data row {number}") from None
        except csv.Error as exc:
            raise FormatError(f"unreadable line after data row {number}: {exc}") from None
        number += 1
        if len(cells) != width:
            yield number, FormatError(f"expected {width} cells, found {len(cells)}", row=number)
        else:
            yield number, cells


def delimited_header(reader: Iterator[list[str]], *, separated: str) -> list[str]:
    """The header row; FormatError when the file is empty, not text, or not ``separated`` at all."""
    try:
        return next(reader)
    except StopIteration:
        raise FormatError("the file is empty") from None
    except UnicodeDecodeError as exc:
        raise FormatError(f"the file is not UTF-8 text (byte {exc.start} of the first line)") from None
    except csv.Error as exc:
        raise FormatError(f"not a {separated} text file: {exc}") from None
