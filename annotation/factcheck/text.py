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


# --- Sentences -------------------------------------------------------------------------------------
#
# HaluQuestQA's scores count sentences with NLTK's ``sent_tokenize``, i.e. the Punkt algorithm with
# NLTK's pre-trained English model, which is a run-time data download we do not make. We run NLTK's
# Punkt implementation with parameters shipped here instead: no abbreviation list (the dataset's own
# counts split after "e.g." and "i.e." too) and an orthographic context for common English function
# words, which tells Punkt that such a word, capitalised after an ellipsis, starts a new sentence.
# On the HaluQuestQA dev file this reproduces the published sentence-based scores on 198 of 205 rows.

_LOWERCASE_WORDS = """
a about above after again against all also although always am an and another any anyone anything are
around as at be because been before being below between both but by can could did do does doing done
down during each either even ever every everyone everything few for from further had has have having he
her here hers herself him himself his how however i if in instead into is it its itself just least less
let like many may maybe me might more most much must my myself neither never no nobody none nor not
nothing now of off often on once one only or other others our ours ourselves out over own people perhaps
put rather same she should since so some someone something sometimes still such than that the their
theirs them themselves then there therefore these they this those though through thus to too under
until up upon us usually very was we well were what whatever when whenever where whether which while who
whoever whom whose why will with within without would yes yet you your yours yourself yourselves
""".split()

_punkt = None


def _tokenizer():  # noqa: ANN202
    global _punkt
    if _punkt is None:
        # Imported here: NLTK takes a moment to import and most callers never split sentences.
        from nltk.tokenize.punkt import _ORTHO_BEG_UC, _ORTHO_MID_LC, PunktParameters, PunktSentenceTokenizer

        params = PunktParameters()
        for word in _LOWERCASE_WORDS:
            params.ortho_context[word] = _ORTHO_MID_LC | _ORTHO_BEG_UC
        _punkt = PunktSentenceTokenizer(params)
    return _punkt


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The sentences of ``text`` as (start, end) code-point offsets, deterministic and offline."""
    return list(_tokenizer().span_tokenize(text))


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (see ``sentence_spans``)."""
    return [text[start:end] for start, end in sentence_spans(text)]


# --- Locating quoted text --------------------------------------------------------------------------


def _normalised(text: str) -> tuple[str, list[int]]:
    """``text`` lower-cased with whitespace runs folded to one space, and each character's origin."""
    chars: list[str] = []
    origin: list[int] = []
    in_space = False
    for index, ch in enumerate(text):
        if ch.isspace():
            if in_space:
                continue
            in_space = True
            chars.append(" ")
        else:
            in_space = False
            lowered = ch.lower()
            chars.append(lowered if len(lowered) == 1 else ch)
        origin.append(index)
    return "".join(chars), origin


def locate(text: str, quote: str) -> tuple[int, int, str] | None:
    """Find ``quote`` in ``text``: (start, end, "exact" | "loose"), or None.

    Exact match first (the first occurrence); then a match that ignores case and differences in
    whitespace, mapped back to offsets in ``text``.
    """
    if not quote:
        return None
    start = text.find(quote)
    if start >= 0:
        return start, start + len(quote), "exact"
    norm_text, origin = _normalised(text)
    norm_quote = _normalised(quote.strip())[0]
    if not norm_quote:
        return None
    start = norm_text.find(norm_quote)
    if start < 0:
        return None
    last = start + len(norm_quote) - 1
    return origin[start], origin[last] + 1, "loose"


# --- Highlighting overlapping spans ----------------------------------------------------------------


def segments(length: int, spans: list[tuple[int, int, int]]) -> list[tuple[int, int, list[int]]]:
    """Cut [0, length) at every span boundary: (start, end, ids of the spans covering it) in order.

    ``spans`` are (id, start, end); overlapping and nested spans give segments covered by several ids,
    listed in the order the spans were given.
    """
    cuts = {0, length}
    for _, start, end in spans:
        cuts.update((max(0, min(start, length)), max(0, min(end, length))))
    points = sorted(cuts)
    out = []
    for start, end in zip(points, points[1:], strict=False):
        covering = [span_id for span_id, s, e in spans if s <= start and end <= e]
        out.append((start, end, covering))
    return out
