"""Dataset formats: parse files into plain dataclasses and write them back. No Django here."""

from __future__ import annotations


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
