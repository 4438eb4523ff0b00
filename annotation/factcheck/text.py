"""Text positions. Offsets everywhere are Unicode code points (Python ``str`` indices).

Browsers count UTF-16 code units; characters outside the Basic Multilingual Plane (emoji, many CJK
extensions) take two units there and one code point here. Convert at the boundary with these helpers.
"""

from __future__ import annotations

from bisect import bisect_right


def utf16_length(text: str) -> int:
    """The length of ``text`` in UTF-16 code units."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _astral_positions(text: str) -> list[int]:
    return [i for i, ch in enumerate(text) if ord(ch) > 0xFFFF]


def utf16_to_codepoint(text: str, offset: int) -> int:
    """Convert a UTF-16 code-unit offset into ``text`` to a code-point offset.

    Raises ``ValueError`` if the offset is out of range or falls inside a surrogate pair.
    """
    if offset < 0 or offset > utf16_length(text):
        raise ValueError(f"UTF-16 offset {offset} is outside the text (0..{utf16_length(text)})")
    units = 0
    for index, ch in enumerate(text):
        if units == offset:
            return index
        units += 2 if ord(ch) > 0xFFFF else 1
        if units > offset:
            raise ValueError(f"UTF-16 offset {offset} splits a surrogate pair at code point {index}")
    return len(text)


def codepoint_to_utf16(text: str, offset: int) -> int:
    """Convert a code-point offset into ``text`` to a UTF-16 code-unit offset."""
    if offset < 0 or offset > len(text):
        raise ValueError(f"code-point offset {offset} is outside the text (0..{len(text)})")
    return offset + bisect_right(_astral_positions(text), offset - 1)


def spans_overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether two half-open ranges [start, end) share at least one position."""
    return a[0] < b[1] and b[0] < a[1]
