"""The real openai client against a scripted server on 127.0.0.1: FaaF, per-fact prompts, retries, cache."""

import json
import time

import pytest

from annotation.factcheck import faaf, prompting
from annotation.factcheck.llm import Endpoint, LLMError, OpenAIClient, cache_key
from annotation.factcheck.offline import NOT_CLEAR, OfflineBackend, support
from tests.factcheck.scripted_server import Reply, ScriptedServer, completion

FACTS = ["Paris is the capital of France.", "Paris has 2 million inhabitants.", "Paris is in Spain."]
PASSAGE = "Paris is the capital of France. About 2 million people live in Paris."


class DictCache:
    def __init__(self) -> None:
        self.data: dict[str, dict] = {}

    def get(self, key: str) -> dict | None:
        return self.data.get(key)

    def put(self, key: str, request: dict, response: dict, latency_ms: int) -> None:
        self.data[key] = response


def client(server: ScriptedServer, **overrides) -> tuple[OpenAIClient, list]:  # noqa: ANN003
    calls: list = []
    sleeps: list = overrides.pop("sleeps", [])
    endpoint = Endpoint(
        name="scripted",
        base_url=server.url,
        model="scripted-model",
        timeout=overrides.pop("timeout", 5.0),
        max_retries=overrides.pop("max_retries", 3),
        max_concurrency=overrides.pop("concurrency", 4),
    )
    c = OpenAIClient(
        endpoint, recorder=lambda *a: calls.append(a), sleep=sleeps.append, backoff_base=0.01, **overrides
    )
    return c, calls


def args(*values: str, citations: list[str] | None = None) -> str:
    out = {}
    for i, v in enumerate(values):
        if citations is not None:
            out[f"citation_{i}"] = citations[i]
        out[f"fact_{i}"] = v
    return json.dumps(out)


def test_faaf_one_call_for_all_facts_with_tokens() -> None:
    reply = Reply(
        body=completion(arguments=args("True", "True", "False"), prompt_tokens=321, completion_tokens=17)
    )
    with ScriptedServer([reply]) as server:
        c, calls = client(server)
        response = c.complete(faaf.request(FACTS, PASSAGE))
        results, failure = faaf.parse(response, FACTS)
    assert failure == "" and [r.supported for r in results] == [True, True, False]
    assert len(server.requests) == 1 and response.prompt_tokens == 321 and response.completion_tokens == 17
    sent = server.requests[0]
    tool = sent["tools"][0]["function"]
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "fact_checker"}}
    assert sent["temperature"] == 0 and "Passage: " + PASSAGE in sent["messages"][0]["content"]
    assert list(tool["parameters"]["properties"]) == ["fact_0", "fact_1", "fact_2"]
    assert (
        tool["parameters"]["properties"]["fact_2"]["description"]
        == "It is clear from the passage that " + FACTS[2]
    )
    assert tool["parameters"]["properties"]["fact_0"]["enum"] == ["True", "False"]
    assert len(calls) == 1 and calls[0][4] is False  # recorded, not from the cache


def test_faaf_citations_come_before_each_fact_and_not_clear_is_not_supported() -> None:
    reply = Reply(
        body=completion(
            arguments=args("True", NOT_CLEAR, "False", citations=["Paris is the capital", "", ""])
        )
    )
    with ScriptedServer([reply]) as server:
        c, _ = client(server)
        response = c.complete(faaf.request(FACTS, PASSAGE, variant="tfn", citation=True))
        results, failure = faaf.parse(response, FACTS, variant="tfn", citation=True)
    properties = list(server.requests[0]["tools"][0]["function"]["parameters"]["properties"])
    assert properties == ["citation_0", "fact_0", "citation_1", "fact_1", "citation_2", "fact_2"]
    assert failure == "" and [r.supported for r in results] == [True, False, False]
    assert results[1].raw == NOT_CLEAR and results[0].citation == "Paris is the capital"


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (completion(arguments=args("True", "True")), "fact_2 is missing"),
        (completion(arguments=args("True", "Maybe", "False")), "fact_1 is 'Maybe'"),
        (
            completion(arguments=json.dumps({"fact_0": "True", "fact_1": None, "fact_2": "True"})),
            "fact_1 is missing or null",
        ),
        (completion(content="All three facts are true."), "not a function call"),
        (completion(arguments='{"fact_0": "True", '), "not valid JSON"),
    ],
    ids=["missing", "enum", "null", "prose", "bad-json"],
)
def test_malformed_calls_make_every_fact_na(body, reason) -> None:  # noqa: ANN001
    with ScriptedServer([Reply(body=body)]) as server:
        c, _ = client(server)
        results, failure = faaf.parse(c.complete(faaf.request(FACTS, PASSAGE)), FACTS)
    assert reason in failure and all(r.supported is None and not r.valid for r in results)
    assert len(server.requests) == 1  # no retry for a bad answer: the paper allows one attempt


def test_429_honours_retry_after_then_succeeds() -> None:
    script = [
        Reply(status=429, body={"error": {"message": "slow down"}}, headers={"retry-after": "1.5"}),
        Reply(body=completion(arguments=args("True", "True", "True"))),
    ]
    sleeps: list = []
    with ScriptedServer(script) as server:
        c, calls = client(server, sleeps=sleeps)
        results, _ = faaf.parse(c.complete(faaf.request(FACTS, PASSAGE)), FACTS)
    assert sleeps == [1.5] and len(server.requests) == 2 and all(r.supported for r in results)


def test_5xx_is_retried_with_backoff_and_gives_up_eventually() -> None:
    sleeps: list = []
    with ScriptedServer(default=Reply(status=500, body={"error": {"message": "boom"}})) as server:
        c, calls = client(server, sleeps=sleeps, max_retries=3)
        with pytest.raises(LLMError) as caught:
            c.complete(faaf.request(FACTS, PASSAGE))
    assert caught.value.transient and len(server.requests) == 4 and len(sleeps) == 3
    assert calls[-1][3] is caught.value  # the failure is recorded too


def test_other_4xx_is_not_retried() -> None:
    with ScriptedServer(default=Reply(status=400, body={"error": {"message": "bad tools"}})) as server:
        c, _ = client(server)
        with pytest.raises(LLMError) as caught:
            c.complete(faaf.request(FACTS, PASSAGE))
    assert not caught.value.transient and caught.value.status == 400 and len(server.requests) == 1


def test_a_timeout_is_retried() -> None:
    script = [Reply(delay=1.5, body=completion(content="True")), Reply(body=completion(content="True"))]
    with ScriptedServer(script) as server:
        c, _ = client(server, timeout=0.5)
        response = c.complete(prompting.request(FACTS[0], PASSAGE))
    assert response.content == "True" and len(server.requests) == 2


def test_cache_makes_a_rerun_free_and_identical() -> None:
    cache = DictCache()
    reply = Reply(body=completion(arguments=args("True", "False", "False")))
    with ScriptedServer([reply]) as server:
        c, calls = client(server, cache=cache)
        first = c.complete(faaf.request(FACTS, PASSAGE))
        second = c.complete(faaf.request(FACTS, PASSAGE))
    assert len(server.requests) == 1 and not first.cached and second.cached
    assert second.tool_arguments == first.tool_arguments and [call[4] for call in calls] == [False, True]
    other = faaf.request(FACTS, PASSAGE, variant="tfn")
    assert cache_key("scripted-model", other) != cache_key("scripted-model", faaf.request(FACTS, PASSAGE))


def test_per_fact_prompting_makes_one_call_per_fact() -> None:
    replies = [
        Reply(body=completion(content="True.")),
        Reply(body=completion(content="False")),
        Reply(body=completion(content="I cannot tell.")),
    ]
    with ScriptedServer(replies) as server:
        c, _ = client(server, concurrency=1)
        responses = c.complete_many(prompting.request(f, PASSAGE) for f in FACTS)
        results = [prompting.parse(r, f) for r, f in zip(responses, FACTS, strict=True)]
    assert len(server.requests) == 3 and [r.supported for r in results] == [True, False, None]
    assert (
        "Considering the given passage, the claim Paris is in Spain. is True or False?"
        in (server.requests[2]["messages"][0]["content"])
    )


def test_concurrency_is_bounded() -> None:
    with ScriptedServer(default=Reply(delay=0.2, body=completion(content="True"))) as server:
        c, _ = client(server, concurrency=2)
        started = time.monotonic()
        c.complete_many(prompting.request(f"Fact {i}.", PASSAGE) for i in range(6))
        elapsed = time.monotonic() - started
    assert server.peak == 2 and len(server.requests) == 6
    assert elapsed >= 0.55  # three waves of 0.2 s: never more than two at once


def test_offline_backend_heuristics() -> None:
    assert support("Paris is the capital of France.", PASSAGE)[0] == "True"
    assert support("Paris is not the capital of France.", PASSAGE)[0] == "False"  # negation disagrees
    assert support("About 3 million people live in Paris.", PASSAGE)[0] == "False"  # the number disagrees
    assert support("The Louvre holds the Mona Lisa.", PASSAGE)[0] == NOT_CLEAR
    backend = OfflineBackend()
    results, failure = faaf.parse(backend.complete(faaf.request(FACTS, PASSAGE)), FACTS)
    assert failure == "" and [r.supported for r in results] == [True, False, False]
    results, _ = faaf.parse(
        backend.complete(faaf.request(FACTS, PASSAGE, variant="tfn")), FACTS, variant="tfn"
    )
    assert results[2].raw == NOT_CLEAR
    assert backend.complete(faaf.request(FACTS, PASSAGE)).model == "offline"


@pytest.mark.parametrize(
    ("content", "supported", "reason"),
    [
        (args("True", "False", "True"), [True, False, True], ""),
        ("```json\n" + args("True", "True", "False") + "\n```", [True, True, False], ""),
        ("They are all true.", [None, None, None], "not a JSON object"),
        (args("True", "yes", "True"), [None, None, None], "fact_1 is 'yes'"),
    ],
)
def test_endpoints_without_tools_get_the_schema_and_answer_json(content, supported, reason) -> None:  # noqa: ANN001
    with ScriptedServer([Reply(body=completion(content=content))]) as server:
        c, _ = client(server)
        request = faaf.request(FACTS, PASSAGE, use_tools=False)
        results, failure = faaf.parse(c.complete(request), FACTS, use_tools=False)
    sent = server.requests[0]
    assert "tools" not in sent and '"fact_0"' in sent["messages"][0]["content"]
    assert [r.supported for r in results] == supported and reason in failure
