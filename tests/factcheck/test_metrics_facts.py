import pytest

from annotation.factcheck import facts, metrics
from annotation.factcheck.llm import LLMResponse
from annotation.factcheck.offline import OfflineBackend


def test_agreement_error_rate_and_f1_on_not_supported() -> None:
    pairs = [(True, True), (True, False), (False, False), (False, True), (False, False), (True, None)]
    result = metrics.agreement(pairs)
    assert (result.facts, result.valid, result.na, result.mismatches) == (6, 5, 1, 2)
    assert result.error_rate == pytest.approx(2 / 5)
    # not supported as the positive class: tp 2, fp 1, fn 1
    assert result.f1_not_supported == pytest.approx(2 * 2 / (2 * 2 + 1 + 1))
    assert metrics.agreement([(True, True)]).f1_not_supported is None
    assert metrics.agreement([]).error_rate is None


def test_factual_recall() -> None:
    assert metrics.factual_recall([True, False, None, True]) == 0.5
    assert metrics.factual_recall([]) is None


def test_fact_generation_prompt_and_parse() -> None:
    request = facts.request("Who?", "Ada wrote it.")
    assert 'Add a "-" before each fact.' in request.messages[0]["content"]
    response = LLMResponse(
        content="Here are the facts:\n- Ada wrote the program.\n- Ada was English.\n- Ada was English.",
        tool_arguments=None,
    )
    assert facts.parse(response) == ["Ada wrote the program.", "Ada was English."]
    offline = OfflineBackend().complete(facts.request("Who?", "Ada wrote it. She was English."))
    assert facts.parse(offline) == ["Ada wrote it.", "She was English."]
