"""The per-fact prompt baseline (FaaF §4, after Min et al., 2023): one call per fact."""

from __future__ import annotations

import re

from annotation.factcheck.faaf import FactResult
from annotation.factcheck.llm import LLMRequest, LLMResponse

PROMPT = "Passage: {passage}\n\nConsidering the given passage, the claim {fact} is True or False?"
_TRUE = re.compile(r"\btrue\b", re.IGNORECASE)
_FALSE = re.compile(r"\bfalse\b", re.IGNORECASE)


def request(fact: str, passage: str) -> LLMRequest:
    return LLMRequest(
        messages=[{"role": "user", "content": PROMPT.format(passage=passage, fact=fact)}],
        task="prompt",
        inputs={"fact": fact, "passage": passage},
    )


def parse(response: LLMResponse, fact: str) -> FactResult:
    """True or False as the reply says; a reply with neither (or both) is N/A."""
    text = response.content or ""
    says_true, says_false = bool(_TRUE.search(text)), bool(_FALSE.search(text))
    if says_true == says_false:
        return FactResult(fact=fact, raw=text.strip()[:200], supported=None)
    return FactResult(fact=fact, raw="True" if says_true else "False", supported=says_true)
