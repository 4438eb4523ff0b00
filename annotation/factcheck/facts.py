"""Reference facts from a question and its reference answer (FaaF §4, "Fact generation")."""

from __future__ import annotations

from annotation.factcheck.llm import LLMRequest, LLMResponse

PROMPT = """Convert the given passage into a list of short facts which specifically answer the given question.
Make sure that the facts can be found in the given passage.
The facts should be coherent and succinct sentences with clear and simple syntax.
Do not use pronouns as the subject or object in the syntax of each fact.
The facts should be independent to each other.
Do not create facts from the passage which are not answering the given question
Add a "-" before each fact.

Question: {question}

Passage: {answer}"""


def request(question: str, answer: str) -> LLMRequest:
    return LLMRequest(
        messages=[{"role": "user", "content": PROMPT.format(question=question, answer=answer)}],
        task="facts",
        inputs={"question": question, "answer": answer},
    )


def parse(response: LLMResponse) -> list[str]:
    """The facts: one per line starting with "-" (other lines are the model talking, not facts)."""
    facts = []
    for line in (response.content or "").splitlines():
        line = line.strip()
        if line.startswith("-"):
            fact = line.lstrip("-").strip()
            if fact and fact not in facts:
                facts.append(fact)
    return facts
