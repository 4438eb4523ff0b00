# ruff: noqa: E501 - the demonstrations are quoted as the paper gives them
"""Atomic facts of an answer, as FActScore makes them (Min et al., 2023, §3 and Table 16): per sentence,
"Please breakdown the following sentence into independent facts:" after the paper's demonstrations."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.factcheck.llm import LLMRequest, LLMResponse
from annotation.factcheck.text import locate, sentence_spans

INSTRUCTION = "Please breakdown the following sentence into independent facts: "

#: The demonstrations of FActScore's Table 16.
DEMONSTRATIONS: list[tuple[str, list[str]]] = [
    (
        "He made his acting debut in the film The Moon is the Sun’s Dream (1992), and continued to appear in small "
        "and supporting roles throughout the 1990s.",
        [
            "He made his acting debut in the film.",
            "He made his acting debut in The Moon is the Sun’s Dream.",
            "The Moon is the Sun’s Dream is a film.",
            "The Moon is the Sun’s Dream was released in 1992.",
            "After his acting debut, he appeared in small and supporting roles.",
            "After his acting debut, he appeared in small and supporting roles throughout the 1990s.",
        ],
    ),
    (
        "He is also a successful producer and engineer, having worked with a wide variety of artists, including "
        "Willie Nelson, Tim McGraw, and Taylor Swift.",
        [
            "He is successful.",
            "He is a producer.",
            "He is a engineer.",
            "He has worked with a wide variety of artists.",
            "Willie Nelson is an artist.",
            "He has worked with Willie Nelson.",
            "Tim McGraw is an artist.",
            "He has worked with Tim McGraw.",
            "Taylor Swift is an artist.",
            "He has worked with Taylor Swift.",
        ],
    ),
    (
        "In 1963, Collins became one of the third group of astronauts selected by NASA and he served as the back-up "
        "Command Module Pilot for the Gemini 7 mission.",
        [
            "Collins became an astronaut.",
            "Collins became one of the third group of astronauts.",
            "Collins became one of the third group of astronauts selected.",
            "Collins became one of the third group of astronauts selected by NASA.",
            "Collins became one of the third group of astronauts selected by NASA in 1963.",
            "He served as the Command Module Pilot.",
            "He served as the back-up Command Module Pilot.",
            "He served as the Command Module Pilot for the Gemini 7 mission.",
        ],
    ),
    (
        "In addition to his acting roles, Bateman has written and directed two short films and is currently in "
        "development on his feature debut.",
        [
            "Bateman has acting roles.",
            "Bateman has written two short films.",
            "Bateman has directed two short films.",
            "Bateman has written and directed two short films.",
            "Bateman is currently in development on his feature debut.",
        ],
    ),
    (
        "Michael Collins (born October 31, 1930) is a retired American astronaut and test pilot who was the Command "
        "Module Pilot for the Apollo 11 mission in 1969.",
        [
            "Michael Collins was born on October 31, 1930.",
            "Michael Collins is retired.",
            "Michael Collins is an American.",
            "Michael Collins was an astronaut.",
            "Michael Collins was a test pilot.",
            "Michael Collins was the Command Module Pilot.",
            "Michael Collins was the Command Module Pilot for the Apollo 11 mission.",
            "Michael Collins was the Command Module Pilot for the Apollo 11 mission in 1969.",
        ],
    ),
    (
        "He was an American composer, conductor, and musical director.",
        ["He was an American.", "He was a composer.", "He was a conductor.", "He was a musical director."],
    ),
    (
        "She currently stars in the romantic comedy series, Love and Destiny, which premiered in 2019.",
        [
            "She currently stars in Love and Destiny.",
            "Love and Destiny is a romantic comedy series.",
            "Love and Destiny premiered in 2019.",
        ],
    ),
    (
        "During his professional career, McCoy played for the Broncos, the San Diego Chargers, the Minnesota Vikings, "
        "and the Jacksonville Jaguars.",
        [
            "McCoy played for the Broncos.",
            "McCoy played for the Broncos during his professional career.",
            "McCoy played for the San Diego Chargers.",
            "McCoy played for the San Diego Chargers during his professional career.",
            "McCoy played for the Minnesota Vikings.",
            "McCoy played for the Minnesota Vikings during his professional career.",
            "McCoy played for the Jacksonville Jaguars.",
            "McCoy played for the Jacksonville Jaguars during his professional career.",
        ],
    ),
]


@dataclass
class AtomicFact:
    text: str
    start: int | None  # code points into the answer: the fact's own words where found, else its sentence
    end: int | None


def request(sentence: str) -> LLMRequest:
    shots = "\n\n".join(
        INSTRUCTION + s + "\n" + "\n".join(f"- {f}" for f in facts) for s, facts in DEMONSTRATIONS
    )
    prompt = f"{shots}\n\n{INSTRUCTION}{sentence}\n"
    return LLMRequest(
        messages=[{"role": "user", "content": prompt}], task="atomize", inputs={"sentence": sentence}
    )


def parse(response: LLMResponse) -> list[str]:
    facts = []
    for line in (response.content or "").splitlines():
        line = line.strip()
        if line.startswith("- ") and line[2:].strip() not in facts:
            facts.append(line[2:].strip())
    return facts


def atomic_facts(answer: str, complete) -> list[AtomicFact]:  # noqa: ANN001 - complete: LLMRequest -> LLMResponse
    """The atomic facts of every sentence of ``answer``, each with offsets into it."""
    out = []
    for start, end in sentence_spans(answer):
        sentence = answer[start:end]
        for fact in parse(complete(request(sentence))):
            found = locate(sentence, fact)
            if found is not None:
                out.append(AtomicFact(fact, start + found[0], start + found[1]))
            else:
                out.append(AtomicFact(fact, start, end))
    return out
