import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.factcheck.text import codepoint_to_utf16, spans_overlap, utf16_length, utf16_to_codepoint

# Emoji (astral, surrogate pairs in UTF-16), CRLF, combining marks, ZWJ sequences and plain text.
pieces = st.sampled_from(
    ["a", "Z", " ", "\r\n", "\n", "é", "e\u0301", "🌈", "👩\u200d🔬", "𝔘", "中", "\u0300"]
)
texts = st.lists(pieces, max_size=40).map("".join)


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


@given(texts)
def test_offsets_round_trip(text: str) -> None:
    assert utf16_length(text) == utf16_units(text)
    for index in range(len(text) + 1):
        units = codepoint_to_utf16(text, index)
        assert units == utf16_units(text[:index])
        assert utf16_to_codepoint(text, units) == index


@given(texts, st.data())
def test_selection_in_browser_units_gives_the_selected_text(text: str, data: st.DataObject) -> None:
    if not text:
        return
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    js_start, js_end = utf16_units(text[:start]), utf16_units(text[:end])
    assert text[utf16_to_codepoint(text, js_start) : utf16_to_codepoint(text, js_end)] == text[start:end]


def test_offset_inside_a_surrogate_pair_is_refused() -> None:
    with pytest.raises(ValueError, match="surrogate"):
        utf16_to_codepoint("a🌈b", 2)


def test_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError):
        utf16_to_codepoint("abc", 4)
    with pytest.raises(ValueError):
        codepoint_to_utf16("abc", -1)


def test_spans_overlap() -> None:
    assert spans_overlap((0, 5), (4, 8))
    assert not spans_overlap((0, 5), (5, 8))
    assert spans_overlap((2, 3), (0, 10))


def test_sentences_split_like_the_dataset_authors() -> None:
    from annotation.factcheck.text import sentence_spans, sentences

    text = "Wire speed differs. It is so... They rarely did. Not e.g. this one? Yes!"
    assert sentences(text) == [
        "Wire speed differs.",
        "It is so...",
        "They rarely did.",
        "Not e.g.",
        "this one?",
        "Yes!",
    ]
    assert all(text[s:e] == sent for (s, e), sent in zip(sentence_spans(text), sentences(text), strict=True))
    # A capitalised word that is not a common lowercase word does not start a sentence after an ellipsis.
    assert sentences("They just... Travel at the speed of light.") == [
        "They just... Travel at the speed of light."
    ]


def test_locate_exact_then_loose() -> None:
    from annotation.factcheck.text import locate

    text = "Rayleigh 🌈 scattering\r\nmakes  the SKY blue."
    assert locate(text, "scattering") == (11, 21, "exact")
    start, end, how = locate(text, "scattering makes the sky blue")
    assert how == "loose" and text[start:end] == "scattering\r\nmakes  the SKY blue"
    assert locate(text, "green") is None
    assert locate(text, "") is None


def test_segments_cut_at_every_boundary_and_list_covering_spans() -> None:
    from annotation.factcheck.text import segments

    assert segments(10, []) == [(0, 10, [])]
    assert segments(10, [(1, 2, 6), (2, 4, 8)]) == [
        (0, 2, []),
        (2, 4, [1]),
        (4, 6, [1, 2]),
        (6, 8, [2]),
        (8, 10, []),
    ]
    assert segments(5, [(7, 0, 5), (8, 1, 2)]) == [(0, 1, [7]), (1, 2, [7, 8]), (2, 5, [7])]
