"""Reading JSON Lines with errors that say which line and what is wrong."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import IO, Any

from annotation.factcheck.formats import FormatError


def read_objects(stream: IO[str], *, kind: str) -> Iterator[tuple[int, dict[str, Any] | FormatError]]:
    """(line number, object) per non-blank line; a FormatError in place of a line that is not a JSON
    object. Raises FormatError when the file as a whole is not JSON Lines (e.g. a CSV or a JSON array)."""
    number = 0
    seen_any = False
    while True:
        try:
            line = stream.readline()
        except UnicodeDecodeError:
            raise FormatError(f"the file is not UTF-8 text (after line {number})") from None
        if not line:
            break
        number += 1
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            if not seen_any:
                stripped = line.lstrip()
                hint = (
                    "a JSON array, not JSON Lines (one object per line)"
                    if stripped.startswith("[")
                    else "not JSON Lines (one JSON object per line)"
                )
                raise FormatError(f"this is {hint}: {kind} files have one JSON object per line") from None
            yield number, FormatError(f"not valid JSON: {exc.msg} at column {exc.colno}", row=number)
            continue
        if not seen_any and isinstance(value, list):
            raise FormatError(
                f"this is a JSON array, not JSON Lines: {kind} files have one JSON object per line"
            )
        seen_any = True
        if not isinstance(value, dict):
            yield number, FormatError(f"expected a JSON object, got {type(value).__name__}", row=number)
            continue
        yield number, value
    if not seen_any:
        raise FormatError("the file is empty")


def require(
    obj: dict[str, Any], key: str, kind: type | tuple[type, ...], *, row: int, where: str = ""
) -> Any:
    """``obj[key]``, checked to be present and of ``kind``; FormatError naming the field otherwise."""
    field = f"{where}{key}"
    if key not in obj:
        raise FormatError("missing", row=row, column=field)
    value = obj[key]
    if not isinstance(value, kind):
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise FormatError(f"expected {names}, got {type(value).__name__}", row=row, column=field)
    return value


def parse_each(stream: IO[str], *, kind: str, parse: Callable[[dict[str, Any], int], Any]) -> Iterator[Any]:
    """``parse(object, line)`` for each line, or the FormatError that line gave."""
    for row, obj in read_objects(stream, kind=kind):
        if isinstance(obj, FormatError):
            yield obj
            continue
        try:
            yield parse(obj, row)
        except FormatError as exc:
            yield exc
