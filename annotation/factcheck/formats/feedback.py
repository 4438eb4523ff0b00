"""Training data for the completeness feedback model (HaluQuestQA §4.1, Appendix B.2, Listing 2).

Each example is one answer with expert completeness spans: the answer split into sentences, each sentence
tagged ``[Complete]`` or ``[Incomplete] Reasons: <justification>``.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotation.factcheck.text import sentence_spans, spans_overlap

INSTRUCTION = (
    "When given a question and answer statements, evaluate whether each given statement provides "
    "sufficient information for answering the question. Use the '[Incomplete]' tag to indicate answer "
    "incompleteness, and '[Complete]' tag to indicate completeness, with reasons. Please note that the "
    "answer can have single, multiple or no incomplete statements."
)


@dataclass
class IncompleteSpan:
    start: int
    end: int
    reason: str


def _one_line(text: str) -> str:
    return " ".join(text.split())


def example(question: str, answer: str, spans: list[IncompleteSpan]) -> dict[str, str] | None:
    """The training example for ``answer``, or None when no span falls on a sentence of it.

    A sentence is [Incomplete] when a completeness span overlaps it; its reasons are the justifications of
    those spans, in order.
    """
    sentences = sentence_spans(answer)
    lines_in, lines_out, any_incomplete = [], [], False
    for number, (start, end) in enumerate(sentences, 1):
        reasons = [_one_line(s.reason) for s in spans if spans_overlap((start, end), (s.start, s.end))]
        lines_in.append(f"{number}. {_one_line(answer[start:end])}")
        if reasons:
            any_incomplete = True
            lines_out.append(f"{number}. [Incomplete] Reasons: {' '.join(reasons)}")
        else:
            lines_out.append(f"{number}. [Complete]")
    if not any_incomplete:
        return None
    return {
        "instruction": INSTRUCTION,
        "input": f"Question: {_one_line(question)}\nAnswer: " + "\n".join(lines_in),
        "output": "\n".join(lines_out),
    }
