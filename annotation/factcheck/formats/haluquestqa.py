"""HaluQuestQA (Sachdeva et al., 2024): a pandas-written, tab-separated file, one row per annotated item.

List-valued cells are Python literals (``['span', ...]``, ``[True]``) and an empty cell means an empty
list. The reader keeps every cell's value so the writer reproduces the file cell for cell; the score
columns are recomputed by ``scores`` from the spans and preference, as the dataset authors defined them.
"""

from __future__ import annotations

import ast
import csv
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO

from annotation.factcheck.formats import FormatError, delimited_header, delimited_rows
from annotation.factcheck.text import sentences

#: The dataset's error-category column prefixes, in the order the spans of a row are read.
CATEGORY_PREFIXES = ("ques_misconception", "factuality", "irrelevance", "incomplete_ans", "reference_example")

SCORE_COLUMNS = [
    "factuality_model_score",
    "factuality_human_score",
    "relevance_model_score",
    "relevance_human_score",
    "completeness_model_score",
    "completeness_human_score",
    "reference_model_score",
    "reference_human_score",
    "ans_preference_model_score",
    "ans_preference_human_score",
    "overall_model_score",
    "overall_human_score",
    "ques_misconception_model_score",
    "ques_misconception_human_score",
]

COLUMNS = [
    "",
    "source_file",
    "annotator",
    "question_text",
    "ans1_text",
    "ans2_text",
    "factuality_span",
    "factuality_reason",
    "irrelevance_span",
    "irrelevance_reason",
    "incomplete_ans_span",
    "incomplete_ans_reason",
    "ques_misconception_span",
    "ques_misconception_reason",
    "ans_preference",
    "ans_preference_reason",
    "ans1_label",
    "ans2_label",
    "ques_start",
    "ans_start",
    "reference_example_span",
    "reference_example_reason",
    "reference_example_helpful",
    "ques_misconception_label",
    "factuality_label",
    "irrelevance_label",
    "incomplete_ans_label",
    "reference_example_label",
    "category",
    *SCORE_COLUMNS,
]

ANSWER_LABELS = ("human_answer", "model_answer")
PREFERENCES = ("Answer 1", "Answer 2")
TARGETS = ("question1", "question2", "answer1", "answer2")
_WHOLE_ANSWER = re.compile(r"ANSWER([12]):?")


@dataclass
class Span:
    """One highlighted span as the file gives it."""

    category: str  # a CATEGORY_PREFIXES entry
    text: str
    reason: str
    label: str  # question1, question2, answer1 or answer2
    helpful: bool | None = None  # reference_example spans only

    @property
    def whole_answer(self) -> int | None:
        """1 or 2 when the span is the whole-answer marker ``ANSWER1`` / ``ANSWER2:``, else None."""
        match = _WHOLE_ANSWER.fullmatch(self.text.strip())
        return int(match.group(1)) if match else None

    @property
    def answer_position(self) -> int | None:
        return int(self.label[-1]) if self.label.startswith("answer") else None


@dataclass
class Row:
    index: str
    source_file: str
    annotator: str
    category: str
    question_text: str
    answer_texts: tuple[str, str]
    answer_labels: tuple[str, str]  # human_answer / model_answer for answer 1 and answer 2
    spans: list[Span] = field(default_factory=list)
    ques_start: str = ""
    ans_start: str = ""
    preference: str = ""  # "Answer 1" / "Answer 2"
    preference_reason: str = ""
    scores: dict[str, str] = field(default_factory=dict)  # as read; recomputed on export


def _literal_list(cell: str, *, row: int, column: str) -> list:
    if cell == "":
        return []
    try:
        value = ast.literal_eval(cell)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise FormatError(f"not a Python list literal: {cell[:60]!r}", row=row, column=column) from None
    if not isinstance(value, list):
        raise FormatError(f"expected a list, got {type(value).__name__}", row=row, column=column)
    return value


def _parse_row(cells: dict[str, str], number: int) -> Row:
    def need(column: str, allowed: Iterable[str]) -> str:
        value = cells[column]
        if value not in allowed:
            raise FormatError(f"{value!r} is not one of {', '.join(allowed)}", row=number, column=column)
        return value

    labels = (need("ans1_label", ANSWER_LABELS), need("ans2_label", ANSWER_LABELS))
    if labels[0] == labels[1]:
        raise FormatError(
            "ans1_label and ans2_label must name one human and one model answer",
            row=number,
            column="ans2_label",
        )
    if not cells["question_text"].strip():
        raise FormatError("the question is empty", row=number, column="question_text")
    for column in ("ans1_text", "ans2_text"):
        if not cells[column].strip():
            raise FormatError("the answer is empty", row=number, column=column)
    row = Row(
        index=cells[""],
        source_file=cells["source_file"],
        annotator=cells["annotator"],
        category=cells["category"],
        question_text=cells["question_text"],
        answer_texts=(cells["ans1_text"], cells["ans2_text"]),
        answer_labels=labels,
        ques_start=cells["ques_start"],
        ans_start=cells["ans_start"],
        preference=need("ans_preference", PREFERENCES) if cells["ans_preference"] else "",
        preference_reason=cells["ans_preference_reason"],
        scores={column: cells[column] for column in SCORE_COLUMNS},
    )
    if row.preference and not row.preference_reason.strip():
        raise FormatError("a preference needs its reason", row=number, column="ans_preference_reason")
    for prefix in CATEGORY_PREFIXES:
        texts = _literal_list(cells[f"{prefix}_span"], row=number, column=f"{prefix}_span")
        reasons = _literal_list(cells[f"{prefix}_reason"], row=number, column=f"{prefix}_reason")
        targets = _literal_list(cells[f"{prefix}_label"], row=number, column=f"{prefix}_label")
        helpful = (
            _literal_list(cells[f"{prefix}_helpful"], row=number, column=f"{prefix}_helpful")
            if prefix == "reference_example"
            else [None] * len(texts)
        )
        lengths = {len(texts), len(reasons), len(targets), len(helpful)}
        if len(lengths) != 1:
            raise FormatError(
                f"the {prefix} lists have different lengths (spans {len(texts)}, reasons {len(reasons)}, "
                f"labels {len(targets)}"
                + (f", helpful {len(helpful)})" if prefix == "reference_example" else ")"),
                row=number,
                column=f"{prefix}_label",
            )
        for i, (text, reason, target, ok) in enumerate(zip(texts, reasons, targets, helpful, strict=True), 1):
            column = f"{prefix}_span"
            if not isinstance(text, str) or not text.strip():
                raise FormatError(f"span {i} is empty or not text", row=number, column=column)
            if not isinstance(reason, str) or not reason.strip():
                raise FormatError(
                    f"span {i} has no reason (a justification is required)",
                    row=number,
                    column=f"{prefix}_reason",
                )
            if target not in TARGETS:
                raise FormatError(
                    f"span {i}: {target!r} is not one of {', '.join(TARGETS)}",
                    row=number,
                    column=f"{prefix}_label",
                )
            if prefix == "reference_example" and not isinstance(ok, bool):
                raise FormatError(
                    f"span {i}: helpful must be True or False, got {ok!r}",
                    row=number,
                    column=f"{prefix}_helpful",
                )
            span = Span(category=prefix, text=text, reason=reason, label=target, helpful=ok)
            whole = span.whole_answer
            if whole is not None and (prefix != "incomplete_ans" or span.answer_position != whole):
                raise FormatError(
                    f"span {i}: {text!r} marks a whole answer, which only an incomplete_ans span "
                    f"labelled answer{whole} can do",
                    row=number,
                    column=column,
                )
            if prefix == "ques_misconception" and not target.startswith("question"):
                raise FormatError(
                    f"span {i}: a question misconception must be on the question, not {target}",
                    row=number,
                    column=f"{prefix}_label",
                )
            if prefix != "ques_misconception" and not target.startswith("answer"):
                raise FormatError(
                    f"span {i}: a {prefix} span must be on an answer, not {target}",
                    row=number,
                    column=f"{prefix}_label",
                )
            row.spans.append(span)
    if (row.spans or row.preference) and not row.annotator.strip():
        raise FormatError(
            "spans and preferences need the annotator who made them", row=number, column="annotator"
        )
    return row


def read(stream: IO[str]) -> Iterator[Row | FormatError]:
    """Parse a HaluQuestQA file. Yields a Row per data row, or a FormatError for a bad row.

    Raises FormatError (no row) when the file as a whole is not this format: wrong delimiter, missing
    or misnamed columns. ``stream`` must be opened with ``newline=""``.
    """
    reader = csv.reader(stream, delimiter="\t")
    header = delimited_header(reader, separated="tab-separated")
    if len(header) == 1 and ("," in header[0] or header[0].lstrip().startswith(("{", "["))):
        raise FormatError(
            "the header has no tabs: this looks like a comma-separated or JSON file, and "
            "HaluQuestQA files are tab-separated"
        )
    missing = [c for c in COLUMNS[1:] if c not in header]
    unknown = [c for c in header[1:] if c not in COLUMNS]
    if missing or header[0] != "":
        problems = []
        if missing:
            problems.append(f"missing columns: {', '.join(missing)}")
        if unknown:
            problems.append(f"unexpected columns: {', '.join(unknown)}")
        if header[0] != "":
            problems.append(f"the first column must be the unnamed index, not {header[0]!r}")
        raise FormatError("; ".join(problems))
    positions = {name: header.index(name) for name in COLUMNS}
    for number, cells in delimited_rows(reader, len(header)):
        if isinstance(cells, FormatError):
            yield cells
            continue
        try:
            yield _parse_row({name: cells[i] for name, i in positions.items()}, number)
        except FormatError as exc:
            yield exc


def _list_cell(values: list) -> str:
    return repr(values) if values else ""


def cells(row: Row, scores: dict[str, str] | None = None) -> list[str]:
    """The row's cells in COLUMNS order, with ``scores`` (or the row's own) in the score columns."""
    by_category: dict[str, list[Span]] = {prefix: [] for prefix in CATEGORY_PREFIXES}
    for span in row.spans:
        by_category[span.category].append(span)
    values = {
        "": row.index,
        "source_file": row.source_file,
        "annotator": row.annotator,
        "question_text": row.question_text,
        "ans1_text": row.answer_texts[0],
        "ans2_text": row.answer_texts[1],
        "ans_preference": row.preference,
        "ans_preference_reason": row.preference_reason,
        "ans1_label": row.answer_labels[0],
        "ans2_label": row.answer_labels[1],
        "ques_start": row.ques_start,
        "ans_start": row.ans_start,
        "category": row.category,
    }
    for prefix, spans in by_category.items():
        values[f"{prefix}_span"] = _list_cell([s.text for s in spans])
        values[f"{prefix}_reason"] = _list_cell([s.reason for s in spans])
        values[f"{prefix}_label"] = _list_cell([s.label for s in spans])
        if prefix == "reference_example":
            values[f"{prefix}_helpful"] = _list_cell([s.helpful for s in spans])
    values |= scores if scores is not None else row.scores
    return [values[column] for column in COLUMNS]


def writer(stream: IO[str]) -> csv.writer:
    """A csv writer that writes as pandas' ``to_csv(sep="\\t")`` does. Write ``COLUMNS`` first."""
    return csv.writer(stream, delimiter="\t", quotechar='"', quoting=csv.QUOTE_MINIMAL, lineterminator="\n")


def write(rows: Iterable[Row], stream: IO[str], *, recompute_scores: bool = True) -> int:
    """Write ``rows`` to ``stream``; returns the number of rows written."""
    out = writer(stream)
    out.writerow(COLUMNS)
    count = 0
    for row in rows:
        out.writerow(cells(row, scores(row) if recompute_scores else None))
        count += 1
    return count


# --- Scores (the data README's definitions) ---------------------------------------------------------

_SENTENCE_SCORES = {"factuality": "factuality", "relevance": "irrelevance", "completeness": "incomplete_ans"}


def _number(value: float) -> str:
    """A float as pandas writes it, rounded to 2 places."""
    return repr(round(value, 2) + 0.0)


def scores(row: Row) -> dict[str, str]:
    """Per-answer scores: 1 - error sentences / sentences (factuality, relevance, completeness),
    references, preference, their sum, and question misconception; for the model and human answer."""
    result: dict[str, str] = {}
    has_references = any(s.category == "reference_example" for s in row.spans)
    misconception = any(s.category == "ques_misconception" for s in row.spans)
    for kind in ("model", "human"):
        position = row.answer_labels.index(f"{kind}_answer") + 1
        mine = [s for s in row.spans if s.answer_position == position]
        total = len(sentences(row.answer_texts[position - 1]))
        overall = 0.0
        for name, prefix in _SENTENCE_SCORES.items():
            errors = sum(
                total if s.whole_answer else len(sentences(s.text)) for s in mine if s.category == prefix
            )
            value = 1 - errors / total if total else 0.0
            result[f"{name}_{kind}_score"] = _number(value)
            overall += value  # the sum of unrounded parts, rounded once
        helpful = any(s.helpful for s in mine if s.category == "reference_example")
        reference = 1.0 if helpful or not has_references else 0.0
        preference = 1.0 if row.preference == f"Answer {position}" else 0.0
        result[f"reference_{kind}_score"] = _number(reference)
        result[f"ans_preference_{kind}_score"] = _number(preference)
        result[f"overall_{kind}_score"] = _number(overall + reference + preference)
        result[f"ques_misconception_{kind}_score"] = _number(0.0 if misconception else 1.0)
    return {column: result[column] for column in SCORE_COLUMNS}
