"""The reviser (FactReasoner's second step): make each atom stand on its own by replacing pronouns, unknown
entities and partial names with the named entities they refer to in the response. Our own prompt."""

from __future__ import annotations

import re

from annotation.factcheck.llm import LLMRequest, LLMResponse

PROMPT = """Rewrite the atomic fact below so that it can be understood without the response it comes from:
replace pronouns, vague references ("the company", "this film") and incomplete names with the full named
entities they refer to in the response. Do not add or remove any other information. If nothing needs to
change, repeat the fact as it is. Reply with the rewritten fact only.

Response: {response}

Atomic fact: {atom}"""

_PRONOUN = re.compile(r"^(He|She|It|They|His|Her|Its|Their)\b")
_POSSESSIVE = {"His", "Her", "Its", "Their"}
_NAME = re.compile(
    r"\b([A-Z][\w'.-]*(?:\s+(?:[A-Z][\w'.-]*|of|the|de|van|von))*\s+[A-Z][\w'.-]*|[A-Z][\w'-]{2,})"
)


def request(atom: str, response: str) -> LLMRequest:
    return LLMRequest(
        messages=[{"role": "user", "content": PROMPT.format(response=response, atom=atom)}],
        task="revise",
        inputs={"atom": atom, "response": response},
    )


def parse(reply: LLMResponse, atom: str) -> str:
    """The revised atom: the reply's first non-empty line, or the atom unchanged when there is none."""
    for line in (reply.content or "").splitlines():
        line = line.strip().strip('"').strip()
        if line:
            return line
    return atom


def offline_revision(atom: str, response: str) -> str:
    """Replace a leading pronoun with the response's first named entity (a run of capitalised words)."""
    match = _PRONOUN.match(atom)
    if not match:
        return atom
    name = _NAME.search(response)
    if name is None:
        return atom
    entity = name.group(1)
    replacement = f"{entity}'s" if match.group(1) in _POSSESSIVE else entity
    return replacement + atom[match.end() :]
