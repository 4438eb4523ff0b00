"""FActScore (Min et al., 2023): the labelled data (JSONL, one generation per line, annotated per sentence
with atomic facts labelled S / NS / IR) and the summary its scorer writes."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from annotation.factcheck.formats import FormatError
from annotation.factcheck.formats.jsonl import parse_each, require

LABELS = ("S", "NS", "IR")


@dataclass
class Fact:
    text: str
    label: str | None = None


@dataclass
class Sentence:
    text: str
    is_relevant: Any
    model_facts: list[Fact] | None
    human_facts: list[Fact] | None


@dataclass
class Item:
    input: str
    output: str
    topic: str | None
    cat: Any
    annotations: list[Sentence] | None  # None: the generation was not annotated (e.g. it abstained)
    extra: dict[str, Any] = field(default_factory=dict)


def _facts(value: Any, *, row: int, where: str, labelled: bool) -> list[Fact] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise FormatError("expected a list", row=row, column=where)
    facts = []
    for j, fact in enumerate(value):
        if not isinstance(fact, dict):
            raise FormatError("expected an object", row=row, column=f"{where}[{j}]")
        text = require(fact, "text", str, row=row, where=f"{where}[{j}].")
        label = fact.get("label") if labelled else None
        if labelled and label not in LABELS:
            raise FormatError(f"{label!r} is not S, NS or IR", row=row, column=f"{where}[{j}].label")
        facts.append(Fact(text=text, label=label))
    return facts


def _parse(obj: dict[str, Any], row: int) -> Item:
    annotations = obj.get("annotations")
    sentences = None
    if annotations is not None:
        if not isinstance(annotations, list):
            raise FormatError("expected a list or null", row=row, column="annotations")
        sentences = []
        for i, a in enumerate(annotations):
            where = f"annotations[{i}]"
            if not isinstance(a, dict):
                raise FormatError("expected an object", row=row, column=where)
            sentences.append(
                Sentence(
                    text=require(a, "text", str, row=row, where=f"{where}."),
                    is_relevant=a.get("is-relevant"),
                    model_facts=_facts(
                        a.get("model-atomic-facts"),
                        row=row,
                        where=f"{where}.model-atomic-facts",
                        labelled=False,
                    ),
                    human_facts=_facts(
                        a.get("human-atomic-facts"),
                        row=row,
                        where=f"{where}.human-atomic-facts",
                        labelled=True,
                    ),
                )
            )
    known = {"input", "output", "topic", "cat", "annotations"}
    return Item(
        input=require(obj, "input", str, row=row),
        output=require(obj, "output", str, row=row),
        topic=obj.get("topic"),
        cat=obj.get("cat"),
        annotations=sentences,
        extra={k: v for k, v in obj.items() if k not in known},
    )


def read(stream: IO[str]) -> Iterator[Item | FormatError]:
    return parse_each(stream, kind="FActScore", parse=_parse)


def to_json(item: Item) -> dict[str, Any]:
    annotations = None
    if item.annotations is not None:
        annotations = []
        for s in item.annotations:
            sentence: dict[str, Any] = {"text": s.text, "is-relevant": s.is_relevant}
            sentence["model-atomic-facts"] = (
                None if s.model_facts is None else [{"text": f.text} for f in s.model_facts]
            )
            sentence["human-atomic-facts"] = (
                None if s.human_facts is None else [{"text": f.text, "label": f.label} for f in s.human_facts]
            )
            annotations.append(sentence)
    return {
        "input": item.input,
        "output": item.output,
        "topic": item.topic,
        "cat": item.cat,
        "annotations": annotations,
    } | item.extra


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summary(decisions: list[list[tuple[str, bool]] | None], *, gamma: int = 10) -> dict[str, Any]:
    """The FActScore summary of a set of generations.

    ``decisions``: per generation, (atomic fact, is supported) pairs, or None when it did not respond.
    ``init_score`` is the paper's FActScore: the mean, over responding generations, of the fraction of
    supported facts. ``score`` applies the factscore package's length penalty: a generation with fewer than
    ``gamma`` facts is scaled by exp(1 - gamma / #facts).
    """
    responding = [d for d in decisions if d]
    init = [sum(ok for _, ok in d) / len(d) for d in responding]
    penalised = [
        score * (1.0 if not gamma or len(d) > gamma else math.exp(1 - gamma / len(d)))
        for score, d in zip(init, responding, strict=True)
    ]
    return {
        "score": _mean(penalised),
        "init_score": _mean(init),
        "respond_ratio": len(responding) / len(decisions) if decisions else 0.0,
        "decisions": [None if not d else [{"atom": a, "is_supported": ok} for a, ok in d] for d in decisions],
        "num_facts_per_response": _mean([len(d) for d in responding]),
    }
