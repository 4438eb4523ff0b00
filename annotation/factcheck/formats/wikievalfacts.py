"""WikiEvalFacts (Katranidis & Barany, 2024): WikiEval questions with three answers, the facts generated
from the ground-truth answer (``gt_facts``: one per line, each starting with ``- ``) and the human
verification of every fact against every answer (``human_evaluated_facts_*``: Python dict literals of
fact -> "True" / "False"). Comma-separated; extra columns are kept and written back.
"""

from __future__ import annotations

import ast
import csv
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

from annotation.factcheck.formats import FormatError, delimited_header, delimited_rows

ANSWER_COLUMNS = ("answer", "ungrounded_answer", "poor_answer")
HUMAN_COLUMNS = {column: f"human_evaluated_facts_{column}" for column in ANSWER_COLUMNS}
COLUMNS = ["unique_id", "question", *ANSWER_COLUMNS, "gt_facts", *HUMAN_COLUMNS.values()]
VALUES = ("True", "False")


@dataclass
class Row:
    unique_id: str
    question: str
    answers: dict[str, str]  # answer column -> text
    facts: list[str]
    human: dict[str, dict[str, str]]  # answer column -> {fact: "True" | "False"}
    extra: dict[str, str] = field(default_factory=dict)  # columns this format does not know, kept as they are
    raw: dict[str, str] = field(default_factory=dict)  # the cells as read, to write them back unchanged
    columns: list[str] = field(default_factory=list)  # the file's header, in its order


def facts_cell(facts: list[str]) -> str:
    return "\n".join(f"- {fact}" for fact in facts)


def human_cell(verdicts: dict[str, str]) -> str:
    return repr(verdicts)


def _parse_facts(cell: str, number: int) -> list[str]:
    facts = []
    for line_number, line in enumerate(cell.splitlines(), 1):
        if not line.strip():
            continue
        if not line.startswith("- "):
            raise FormatError(
                f"line {line_number} does not start with '- ': {line[:60]!r}", row=number, column="gt_facts"
            )
        facts.append(line[2:].strip())
    if not facts:
        raise FormatError("no facts", row=number, column="gt_facts")
    if len(set(facts)) != len(facts):
        raise FormatError("the same fact is listed twice", row=number, column="gt_facts")
    return facts


def _parse_human(cell: str, facts: list[str], number: int, column: str) -> dict[str, str]:
    if cell.strip() == "":
        return {}
    try:
        value = ast.literal_eval(cell)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise FormatError(f"not a Python dict literal: {cell[:60]!r}", row=number, column=column) from None
    if not isinstance(value, dict):
        raise FormatError(
            f"expected a dict of fact -> 'True'/'False', got {type(value).__name__}",
            row=number,
            column=column,
        )
    for fact, verdict in value.items():
        if fact not in facts:
            raise FormatError(
                f"{str(fact)[:60]!r} is not one of the row's gt_facts", row=number, column=column
            )
        if str(verdict) not in VALUES:
            raise FormatError(
                f"{verdict!r} for {fact[:40]!r} is not 'True' or 'False'", row=number, column=column
            )
    return {fact: str(verdict) for fact, verdict in value.items()}


def read(stream: IO[str]) -> tuple[list[str], Iterator[Row | FormatError]]:
    """The header, and a Row per data row (a FormatError for a bad one). Raises FormatError at once if
    the file is not this format."""
    reader = csv.reader(stream)
    header = delimited_header(reader, separated="comma-separated")
    if len(header) == 1 and "\t" in header[0]:
        raise FormatError("the header has no commas but tabs: WikiEvalFacts files are comma-separated")
    if len(header) == 1 and header[0].lstrip().startswith(("{", "[")):
        raise FormatError("this looks like JSON: WikiEvalFacts files are comma-separated")
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise FormatError(f"missing columns: {', '.join(missing)}")
    return header, _rows(reader, header)


def _rows(reader: Iterator[list[str]], header: list[str]) -> Iterator[Row | FormatError]:
    for number, cells in delimited_rows(reader, len(header)):
        if isinstance(cells, FormatError):
            yield cells
            continue
        row = dict(zip(header, cells, strict=True))
        try:
            if not row["unique_id"].strip():
                raise FormatError("empty id", row=number, column="unique_id")
            for column in ("question", *ANSWER_COLUMNS):
                if not row[column].strip():
                    raise FormatError("empty", row=number, column=column)
            facts = _parse_facts(row["gt_facts"], number)
            human = {a: _parse_human(row[h], facts, number, h) for a, h in HUMAN_COLUMNS.items()}
        except FormatError as exc:
            yield exc
            continue
        yield Row(
            unique_id=row["unique_id"],
            question=row["question"],
            answers={column: row[column] for column in ANSWER_COLUMNS},
            facts=facts,
            human=human,
            extra={c: v for c, v in row.items() if c not in COLUMNS},
            raw={c: row[c] for c in ("gt_facts", *HUMAN_COLUMNS.values())},
        )


def cells(row: Row, header: list[str]) -> list[str]:
    values = {"unique_id": row.unique_id, "question": row.question, **row.answers, **row.extra}
    facts = facts_cell(row.facts)
    values["gt_facts"] = (
        row.raw["gt_facts"] if _parse_facts_safe(row.raw.get("gt_facts")) == row.facts else facts
    )
    for answer, column in HUMAN_COLUMNS.items():
        raw = row.raw.get(column)
        same = raw is not None and _parse_human_safe(raw, row.facts) == row.human[answer]
        values[column] = raw if same else (human_cell(row.human[answer]) if row.human[answer] else "")
    return [values.get(column, "") for column in header]


def _parse_facts_safe(cell: str | None) -> list[str] | None:
    try:
        return _parse_facts(cell, 0) if cell is not None else None
    except FormatError:
        return None


def _parse_human_safe(cell: str, facts: list[str]) -> dict[str, str] | None:
    try:
        return _parse_human(cell, facts, 0, "")
    except FormatError:
        return None
