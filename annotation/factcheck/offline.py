"""The offline backend: deterministic heuristics in place of an LLM, no network.

It answers the same requests an endpoint would (see ``LLMRequest.task``), so every method runs unchanged:

- ``faaf`` / ``prompt`` (verify facts against a passage): lexical support. A fact is **True** when at least
  80 % of its content words occur in one sentence of the passage (words compared lower-cased, with a
  trailing plural "s" dropped), every number in it occurs there, and negation agrees (both or neither say
  "not", "never", "no", ...); **False** when the words are there but a number or the negation disagrees;
  otherwise **not clear** (or False where "not clear" is not allowed). The score is the word overlap.
- ``facts`` (reference facts): the sentences of the reference answer.
- ``atomize``: a sentence split into clauses at ";" and ", and" / ", but" / ", which".
- ``revise``: a leading pronoun replaced with the response's first named entity.

Every response names the model ``offline``, so every verdict it leads to says where it came from.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from annotation.factcheck.llm import OFFLINE_MODEL, LLMRequest, LLMResponse
from annotation.factcheck.revise import offline_revision
from annotation.factcheck.text import sentences

NOT_CLEAR = "not clear from the given passage"
STOPWORDS = frozenset(
    """
a an the of to in on at by for with from as and or but if then than that this these those it its is are
was were be been being has have had do does did which who whom whose what when where why how there their
they them he she his her we our you your i me my can could would should will may might must also into
about over under after before
""".split()
)
NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "cannot", "without", "neither", "n't"})
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*")


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in _WORD.findall(text.replace("n't", " not"))]


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _content(tokens: list[str]) -> set[str]:
    return {_stem(t) for t in tokens if t not in STOPWORDS and t not in NEGATIONS and not t[0].isdigit()}


def _numbers(tokens: list[str]) -> set[str]:
    return {t.replace(",", "") for t in tokens if t[0].isdigit()}


def support(fact: str, passage: str) -> tuple[str, float]:
    """("True" | "False" | NOT_CLEAR, score in [0, 1]) for ``fact`` against ``passage``."""
    fact_tokens = _tokens(fact)
    words, numbers = _content(fact_tokens), _numbers(fact_tokens)
    negated = bool(NEGATIONS & set(fact_tokens))
    if not words and not numbers:
        return NOT_CLEAR, 0.0
    best: tuple[float, list[str]] = (-1.0, [])
    for sentence in sentences(passage) or [passage]:
        tokens = _tokens(sentence)
        overlap = len(words & _content(tokens)) / len(words) if words else 1.0
        if overlap > best[0]:
            best = (overlap, tokens)
    score, tokens = best
    if score < 0.5:
        return NOT_CLEAR, round(score, 3)
    numbers_agree = numbers <= _numbers(tokens)
    negation_agrees = negated == bool(NEGATIONS & set(tokens))
    if not numbers_agree or not negation_agrees:
        return "False", round(score, 3)
    return ("True" if score >= 0.8 else NOT_CLEAR), round(score, 3)


def _clauses(sentence: str) -> list[str]:
    parts = re.split(r";\s+|,\s+(?:and|but|which|while|whereas)\s+", sentence.strip())
    clauses = [p.strip().rstrip(".") + "." for p in parts if len(p.split()) >= 3]
    return clauses or [sentence.strip()]


class OfflineBackend:
    """An ``LLMClient`` that answers from heuristics. Counts calls like an endpoint, costs nothing."""

    model = OFFLINE_MODEL

    def complete(self, request: LLMRequest) -> LLMResponse:
        inputs = request.inputs
        content = tool_arguments = None
        if request.task == "faaf":
            args: dict[str, str] = {}
            for i, fact in enumerate(inputs["facts"]):
                value, _ = support(fact, inputs["passage"])
                if value == NOT_CLEAR and inputs.get("variant") != "tfn":
                    value = "False"
                if inputs.get("citation"):
                    args[f"citation_{i}"] = _citation(fact, inputs["passage"]) if value == "True" else ""
                args[f"fact_{i}"] = value
            if request.tools:
                tool_arguments = json.dumps(args)
            else:  # asked for JSON in the message, as for an endpoint without tools
                content = json.dumps(args)
        elif request.task == "prompt":
            value, _ = support(inputs["fact"], inputs["passage"])
            content = "True" if value == "True" else "False"
        elif request.task == "facts":
            content = "\n".join(f"- {s.strip()}" for s in sentences(inputs["answer"]) if s.strip())
        elif request.task == "atomize":
            content = "\n".join(f"- {c}" for c in _clauses(inputs["sentence"]))
        elif request.task == "revise":
            content = offline_revision(inputs["atom"], inputs["response"])
        else:
            raise ValueError(f"the offline backend cannot answer a {request.task!r} request")
        return LLMResponse(content=content, tool_arguments=tool_arguments, model=OFFLINE_MODEL)

    def complete_many(self, requests: Iterable[LLMRequest]) -> list[LLMResponse]:
        """One after another: nothing here waits on a network."""
        return [self.complete(request) for request in requests]


def _citation(fact: str, passage: str) -> str:
    words = _content(_tokens(fact))
    ranked = sorted(sentences(passage) or [passage], key=lambda s: -len(words & _content(_tokens(s))))
    return ranked[0].strip() if ranked else ""
