"""Facts as a Function (Katranidis & Barany, 2024): all facts of an answer verified in one function call.

``request`` builds the function object (one argument per fact, an enum of True / False, or True / False /
"not clear from the given passage"; with citations, an evidence argument before each fact argument) and the
paper's prompt; ``parse`` validates the call the model made. Any missing argument, value outside the enum,
null, invalid JSON, or a reply that is not a tool call makes every fact of that call N/A — never a guess.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from annotation.factcheck.llm import LLMRequest, LLMResponse
from annotation.factcheck.offline import NOT_CLEAR

FUNCTION_NAME = "fact_checker"
PROMPT = (
    "Consider the given passage and assign the correct values in the fact checker function.\n\n"
    "Passage: {passage}"
)
RETRY = (
    "Your reply could not be used ({reason}). Call the function again with a valid value for every argument."
)
VARIANTS = {"tf": ["True", "False"], "tfn": ["True", "False", NOT_CLEAR]}


@dataclass
class FactResult:
    fact: str
    raw: str  # the value as the model gave it ("" when N/A)
    supported: bool | None  # None: N/A
    citation: str = ""

    @property
    def valid(self) -> bool:
        return self.supported is not None


def function(facts: list[str], *, variant: str = "tf", citation: bool = False) -> dict:
    """The tool (OpenAI function) for ``facts``."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown FaaF variant {variant!r}; use one of {', '.join(VARIANTS)}")
    properties: dict[str, dict] = {}
    for i, fact in enumerate(facts):
        if citation:
            properties[f"citation_{i}"] = {
                "type": "string",
                "description": "An exact excerpt from the passage which directly supports the statement: "
                f"{fact} Leave empty if there is none.",
            }
        properties[f"fact_{i}"] = {
            "type": "string",
            "enum": VARIANTS[variant],
            "description": f"It is clear from the passage that {fact}",
        }
    return {
        "type": "function",
        "function": {
            "name": FUNCTION_NAME,
            "description": "Assign the verification result of every statement about the passage.",
            "parameters": {"type": "object", "properties": properties, "required": list(properties)},
        },
    }


JSON_INSTRUCTION = (
    "\n\nReply with only a JSON object (no prose, no code fences) holding the arguments of this function:\n"
    "{schema}"
)


def request(
    facts: list[str], passage: str, *, variant: str = "tf", citation: bool = False, use_tools: bool = True
) -> LLMRequest:
    """One request for all ``facts`` against ``passage``: the function call forced, or, for endpoints
    without tools, the function's JSON schema in the message and a JSON object asked for."""
    tool = function(facts, variant=variant, citation=citation)
    content = PROMPT.format(passage=passage)
    if not use_tools:
        content += JSON_INSTRUCTION.format(schema=json.dumps(tool["function"], ensure_ascii=False))
    return LLMRequest(
        messages=[{"role": "user", "content": content}],
        tools=[tool] if use_tools else None,
        tool_choice={"type": "function", "function": {"name": FUNCTION_NAME}} if use_tools else None,
        task="faaf",
        inputs={"facts": facts, "passage": passage, "variant": variant, "citation": citation},
    )


def _json_from_content(content: str | None) -> str | None:
    """The JSON object in a plain reply (code fences tolerated), as text; None when there is none."""
    if not content:
        return None
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    return text if text.startswith("{") else None


def parse(
    response: LLMResponse,
    facts: list[str],
    *,
    variant: str = "tf",
    citation: bool = False,
    use_tools: bool = True,
) -> tuple[list[FactResult], str]:
    """The verdict on each fact, and "" or why the whole call is N/A."""

    def not_applicable(reason: str) -> tuple[list[FactResult], str]:
        return [FactResult(fact=f, raw="", supported=None) for f in facts], reason

    arguments = response.tool_arguments
    if arguments is None and use_tools:
        return not_applicable("the reply is not a function call")
    if arguments is None:
        arguments = _json_from_content(response.content)
        if arguments is None:
            return not_applicable("the reply is not a JSON object")
    try:
        args = json.loads(arguments)
    except json.JSONDecodeError as exc:
        return not_applicable(f"the function arguments are not valid JSON ({exc.msg})")
    if not isinstance(args, dict):
        return not_applicable("the function arguments are not an object")
    results = []
    for i, fact in enumerate(facts):
        value = args.get(f"fact_{i}")
        if value is None:
            return not_applicable(f"fact_{i} is missing or null")
        if value not in VARIANTS[variant]:
            return not_applicable(f"fact_{i} is {value!r}, not one of {VARIANTS[variant]}")
        quote = args.get(f"citation_{i}") if citation else ""
        if citation and quote is not None and not isinstance(quote, str):
            return not_applicable(f"citation_{i} is not text")
        # "not clear" counts as not supported (the paper maps it to False), keeping its raw value.
        results.append(FactResult(fact=fact, raw=value, supported=value == "True", citation=quote or ""))
    return results, ""
