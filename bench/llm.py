"""LLM calls against a scripted OpenAI-compatible server on 127.0.0.1 with 200 ms latency per call.

200 answers x 6 facts at concurrency 8: FaaF (one call per answer) and per-fact prompting (one call per
fact). Reports wall time against the ideal (calls x latency / concurrency) and the calls ratio.
"""

from __future__ import annotations

import json
import os
import sys
import time

from common import ROOT, write_results

sys.path.insert(0, str(ROOT))

ANSWERS = int(os.environ.get("BENCH_ANSWERS", "200"))
FACTS = int(os.environ.get("BENCH_FACTS", "6"))
CONCURRENCY = int(os.environ.get("BENCH_CONCURRENCY", "8"))
LATENCY = float(os.environ.get("BENCH_LATENCY", "0.2"))


def main() -> None:
    from annotation.factcheck import faaf, prompting
    from annotation.factcheck.llm import Endpoint, OpenAIClient
    from tests.factcheck.scripted_server import Reply, ScriptedServer, completion

    def reply(payload: dict) -> Reply:
        if payload.get("tools"):
            names = payload["tools"][0]["function"]["parameters"]["properties"]
            return Reply(delay=LATENCY, body=completion(arguments=json.dumps(dict.fromkeys(names, "True"))))
        return Reply(delay=LATENCY, body=completion(content="True"))

    facts = [[f"Answer {a} states fact number {f}." for f in range(FACTS)] for a in range(ANSWERS)]
    passages = [f"Answer {a} is a passage that states every fact." for a in range(ANSWERS)]
    results = {
        "answers": ANSWERS,
        "facts_per_answer": FACTS,
        "concurrency": CONCURRENCY,
        "latency_s": LATENCY,
    }
    with ScriptedServer(handler=reply) as server:
        endpoint = Endpoint(
            name="scripted", base_url=server.url, model="scripted", max_concurrency=CONCURRENCY
        )
        for method in ("faaf", "prompt"):
            client = OpenAIClient(endpoint)
            if method == "faaf":
                requests = [faaf.request(fs, p) for fs, p in zip(facts, passages, strict=True)]
            else:
                requests = [
                    prompting.request(f, p) for fs, p in zip(facts, passages, strict=True) for f in fs
                ]
            before = len(server.requests)
            started = time.perf_counter()
            responses = client.complete_many(requests)
            wall = time.perf_counter() - started
            calls = len(server.requests) - before
            ideal = calls * LATENCY / CONCURRENCY
            assert all(not isinstance(r, Exception) for r in responses)
            results[method] = {
                "calls": calls,
                "wall_s": round(wall, 2),
                "ideal_s": round(ideal, 2),
                "efficiency": round(ideal / wall, 3),
                "peak_concurrency": server.peak,
            }
    results["calls_ratio_prompt_to_faaf"] = round(results["prompt"]["calls"] / results["faaf"]["calls"], 2)
    write_results("llm", results)


if __name__ == "__main__":
    main()
