"""FactReasoner (Marinescu et al., 2025) JSONL: its input (a response with atoms and retrieved contexts,
optionally labelled S / NS) and its output (per-response posterior marginals and summary counts)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from annotation.factcheck.formats import FormatError
from annotation.factcheck.formats.jsonl import parse_each, require

LABELS = ("S", "NS")


@dataclass
class Atom:
    id: str
    text: str
    original: str
    label: str | None = None
    contexts: list[str] = field(default_factory=list)


@dataclass
class Context:
    id: str
    title: str
    text: str
    snippet: str | None = None
    link: str | None = None


@dataclass
class Item:
    input: str
    output: str
    topic: str | None
    atoms: list[Atom]
    contexts: list[Context]
    extra: dict[str, Any] = field(default_factory=dict)  # fields this format does not name, kept


def _parse(obj: dict[str, Any], row: int) -> Item:
    text = require(obj, "input", str, row=row)
    output = require(obj, "output", str, row=row)
    topic = obj.get("topic")
    if topic is not None and not isinstance(topic, str):
        raise FormatError("expected a string", row=row, column="topic")
    contexts = []
    for i, c in enumerate(require(obj, "contexts", list, row=row) if "contexts" in obj else []):
        where = f"contexts[{i}]."
        if not isinstance(c, dict):
            raise FormatError("expected an object", row=row, column=f"contexts[{i}]")
        contexts.append(
            Context(
                id=str(require(c, "id", (str, int), row=row, where=where)),
                title=c.get("title") or "",
                text=require(c, "text", str, row=row, where=where),
                snippet=c.get("snippet"),
                link=c.get("link"),
            )
        )
    ids = {c.id for c in contexts}
    if len(ids) != len(contexts):
        raise FormatError("two contexts have the same id", row=row, column="contexts")
    atoms = []
    for i, a in enumerate(require(obj, "atoms", list, row=row)):
        where = f"atoms[{i}]."
        if not isinstance(a, dict):
            raise FormatError("expected an object", row=row, column=f"atoms[{i}]")
        atom = Atom(
            id=str(require(a, "id", (str, int), row=row, where=where)),
            text=require(a, "text", str, row=row, where=where),
            original=a.get("original")
            if isinstance(a.get("original"), str)
            else require(a, "text", str, row=row),
            label=a.get("label"),
            contexts=[str(c) for c in a.get("contexts") or []],
        )
        if atom.label is not None and atom.label not in LABELS:
            raise FormatError(f"{atom.label!r} is not S or NS", row=row, column=f"{where}label")
        unknown = [c for c in atom.contexts if c not in ids]
        if unknown:
            raise FormatError(
                f"context {unknown[0]!r} is not in the item's contexts", row=row, column=f"{where}contexts"
            )
        atoms.append(atom)
    if len({a.id for a in atoms}) != len(atoms):
        raise FormatError("two atoms have the same id", row=row, column="atoms")
    known = {"input", "output", "topic", "atoms", "contexts"}
    return Item(
        input=text,
        output=output,
        topic=topic,
        atoms=atoms,
        contexts=contexts,
        extra={k: v for k, v in obj.items() if k not in known},
    )


def read(stream: IO[str]) -> Iterator[Item | FormatError]:
    return parse_each(stream, kind="FactReasoner", parse=_parse)


def to_json(item: Item) -> dict[str, Any]:
    atoms = []
    for a in item.atoms:
        atom: dict[str, Any] = {"id": a.id, "text": a.text, "original": a.original}
        if a.label is not None:
            atom["label"] = a.label
        atom["contexts"] = a.contexts
        atoms.append(atom)
    contexts = []
    for c in item.contexts:
        context: dict[str, Any] = {"id": c.id, "title": c.title}
        if c.snippet is not None:
            context["snippet"] = c.snippet
        if c.link is not None:
            context["link"] = c.link
        context["text"] = c.text
        contexts.append(context)
    head: dict[str, Any] = {"input": item.input, "output": item.output}
    if item.topic is not None:
        head["topic"] = item.topic
    return head | {"atoms": atoms, "contexts": contexts} | item.extra


def _entropy(p: float) -> float:
    return -sum(x * math.log2(x) for x in (p, 1 - p) if x > 0)


def output(
    *, input: str, atoms: list[tuple[str, float, str | None]], num_contexts: int, model_name: str
) -> dict[str, Any]:
    """FactReasoner's output record for one response.

    ``atoms``: (id, P(atom is true), gold label S/NS or None). An atom is true when P > 0.5, false when
    P < 0.5, undecided ("uniform") when P == 0.5; the factuality score is true atoms / atoms.
    """
    n = len(atoms)
    true = [a for a in atoms if a[1] > 0.5]
    false = [a for a in atoms if a[1] < 0.5]
    entropy = sum(_entropy(p) for _, p, _ in atoms)
    record: dict[str, Any] = {
        "factuality_score": len(true) / n if n else 0.0,
        "num_atoms": n,
        "num_contexts": num_contexts,
        "num_true_atoms": len(true),
        "num_false_atoms": len(false),
        "num_uniform_atoms": n - len(true) - len(false),
        "entropy": entropy,
        "avg_entropy": entropy / n if n else 0.0,
    }
    ordered = sorted(atoms, key=lambda a: a[0])  # as FactReasoner lists them: a0 a1 a10 a11 ... a2
    labelled = [a for a in atoms if a[2] is not None]
    if labelled:
        gold_true = sum(1 for a in labelled if a[2] == "S")
        predicted = {a[0]: a[1] > 0.5 for a in atoms}
        record |= {
            "gold_factuality_score": gold_true / len(labelled),
            "gold_true_atoms": gold_true,
            "true_positive": sum(1 for a in labelled if predicted[a[0]] and a[2] == "S"),
            "true_negative": sum(1 for a in labelled if not predicted[a[0]] and a[2] == "NS"),
            "false_positive": sum(1 for a in labelled if predicted[a[0]] and a[2] == "NS"),
            "false_negative": sum(1 for a in labelled if not predicted[a[0]] and a[2] == "S"),
        }
    record["predictions"] = "".join(f" {i}: {'S' if p > 0.5 else 'NS'}" for i, p, _ in ordered)
    if labelled:
        record["references"] = "".join(f" {i}: {g}" for i, _, g in ordered if g is not None)
    record["input"] = input
    record["marginals"] = [{"variable": i, "probabilities": [1 - p, p]} for i, p, _ in atoms]
    record["model_name"] = model_name
    return record
