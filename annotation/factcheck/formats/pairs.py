"""Preference pairs derived from answer preferences, for preference training (e.g. DPO).

``preference``: the TSV the HaluQuestQA authors derived (pandas-written: an unnamed index column, then
``source_file, question_text, preferred_response, rejected_response``). ``preference-jsonl``: one
``{"prompt", "chosen", "rejected"}`` object per line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

COLUMNS = ["", "source_file", "question_text", "preferred_response", "rejected_response"]


@dataclass
class Pair:
    source_file: str
    question: str
    chosen: str
    rejected: str


def tsv_cells(index: int, pair: Pair) -> list[str]:
    return [str(index), pair.source_file, pair.question, pair.chosen, pair.rejected]


def jsonl_line(pair: Pair) -> str:
    return (
        json.dumps(
            {"prompt": pair.question, "chosen": pair.chosen, "rejected": pair.rejected}, ensure_ascii=False
        )
        + "\n"
    )
