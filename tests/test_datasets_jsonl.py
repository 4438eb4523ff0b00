"""FactReasoner and FActScore JSONL: round trips of the inputs, and the outputs of a run."""

import io
import json
import math
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.choices import Source
from annotation.factcheck.formats import factscore as fs
from annotation.models import Atom, AtomContext, Passage, Question, Verdict
from tests import factories as f

FIXTURES = Path(__file__).parent / "fixtures"


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def import_file(fmt: str, path: Path) -> str:
    return run("import_dataset", "--format", fmt, "--project", "p", "--create", str(path))


def export(fmt: str, *extra: str) -> str:
    return run("export_dataset", "--format", fmt, "--project", "p", "--output", "-", *extra)


def lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("fmt", ["factreasoner", "factscore"])
def test_round_trip(db, fmt) -> None:  # noqa: ANN001
    path = FIXTURES / f"{fmt}_sample.jsonl"
    assert "2 imported" in import_file(fmt, path)
    assert lines(export(fmt)) == lines(path.read_text(encoding="utf-8"))
    assert "0 imported, 2 already present" in import_file(fmt, path)


def test_factreasoner_import_links_contexts_in_order(db) -> None:  # noqa: ANN001
    import_file("factreasoner", FIXTURES / "factreasoner_sample.jsonl")
    atom = Atom.objects.get(external_id="a0", answer__question__text__contains="Ada")
    ranked = list(
        AtomContext.objects.filter(atom=atom).order_by("rank").values_list("passage__title", flat=True)
    )
    assert ranked == ["Ada Lovelace", "Ada Lovelace (early life)"]
    assert atom.original_text == "Ada Lovelace was English."
    wrong = Atom.objects.get(external_id="a3")
    verdict = Verdict.objects.get(atom=wrong)
    assert verdict.source == Source.HUMAN and verdict.label == "not_supported" and verdict.target is None
    assert Passage.objects.count() == 4


def test_factreasoner_output_of_a_run(db) -> None:  # noqa: ANN001
    import_file("factreasoner", FIXTURES / "factreasoner_sample.jsonl")
    question = Question.objects.get(text__contains="Ada")
    run_ = f.RunFactory(project=question.project, kind="reason", method="factreasoner", model_name="granite")
    probabilities = {"a0": 0.9, "a1": 0.5, "a2": 0.7, "a3": 0.2}
    for atom in Atom.objects.filter(answer__question=question):
        p = probabilities[atom.external_id]
        Verdict.objects.create(
            atom=atom,
            source=Source.MODEL,
            run=run_,
            probability=p,
            label="supported" if p > 0.5 else "not_supported",
        )
        AtomContext.objects.create(atom=atom, passage=Passage.objects.get(title="Note G"), rank=0, run=run_)
    [record] = lines(export("factreasoner-output", "--run", str(run_.pk)))
    assert record["num_atoms"] == 4 and record["num_true_atoms"] == 2 and record["num_false_atoms"] == 1
    assert (
        record["num_uniform_atoms"] == 1 and record["factuality_score"] == 0.5 and record["num_contexts"] == 1
    )
    assert record["gold_true_atoms"] == 3 and record["gold_factuality_score"] == 0.75
    assert (
        record["true_positive"],
        record["true_negative"],
        record["false_positive"],
        record["false_negative"],
    ) == (2, 1, 0, 1)
    assert record["predictions"] == " a0: S a1: NS a2: S a3: NS"
    assert record["references"] == " a0: S a1: S a2: S a3: NS"
    entropy = sum(-(p * math.log2(p) + (1 - p) * math.log2(1 - p)) for p in probabilities.values())
    assert record["entropy"] == pytest.approx(entropy) and record["avg_entropy"] == pytest.approx(entropy / 4)
    assert record["marginals"][0] == {"variable": "a0", "probabilities": [pytest.approx(0.1), 0.9]}
    assert record["model_name"] == "granite" and record["input"] == question.text
    with pytest.raises(CommandError, match="--run"):
        export("factreasoner-output")


def test_factscore_summary_of_a_run(db) -> None:  # noqa: ANN001
    import_file("factscore", FIXTURES / "factscore_sample.jsonl")
    ada = Question.objects.get(text__contains="Ada").answers.get()
    zyx = Question.objects.get(text__contains="Zyx").answers.get()
    run_ = f.RunFactory(
        project=ada.question.project, method="retrieve-lm", result={"abstained_answers": [zyx.pk]}
    )
    for atom in Atom.objects.filter(answer=ada):
        Verdict.objects.create(
            atom=atom,
            source=Source.MODEL,
            run=run_,
            label="not_supported" if "1816" in atom.text else "supported",
        )
    summary = json.loads(export("factscore-output", "--run", str(run_.pk)))
    assert summary["init_score"] == pytest.approx(2 / 3) and summary["respond_ratio"] == 0.5
    assert summary["score"] == pytest.approx(2 / 3 * math.exp(1 - 10 / 3))
    assert summary["num_facts_per_response"] == 3
    assert summary["decisions"][0][2] == {"atom": "Ada Lovelace was born in 1816.", "is_supported": False}
    assert summary["decisions"][1] is None


def test_factscore_summary_function_matches_the_definition() -> None:
    decisions = [[("a", True)] * 12, [("b", True), ("c", False)], None]
    out = fs.summary(decisions)
    assert out["init_score"] == pytest.approx((1 + 0.5) / 2)
    assert out["score"] == pytest.approx((1 + 0.5 * math.exp(1 - 10 / 2)) / 2)
    assert out["respond_ratio"] == pytest.approx(2 / 3) and out["num_facts_per_response"] == 7


@pytest.mark.parametrize(
    ("fmt", "content", "fragment"),
    [
        ("factreasoner", '{"input": "q", "output": "a"}\n', "row 1, column 'atoms': missing"),
        (
            "factreasoner",
            '{"input": "q", "output": "a", "atoms": [{"id": "a0", "text": "t", "label": "X"}]}\n',
            "is not S or NS",
        ),
        (
            "factreasoner",
            '{"input": "q", "output": "a", "atoms": [{"id": "a0", "text": "t", "contexts": ["c9"]}]}\n',
            "context 'c9' is not in the item's contexts",
        ),
        ("factreasoner", '[{"input": "q"}]\n', "a JSON array"),
        ("factscore", "input,output\nq,a\n", "not JSON Lines"),
        (
            "factscore",
            '{"input": "q", "output": "a", "annotations": [{"text": "s", "human-atomic-facts": '
            '[{"text": "f", "label": "maybe"}]}]}\n',
            "annotations[0].human-atomic-facts[0].label",
        ),
        ("factscore", '{"input": "q", "output": "a"}\n{"input": "q2", "output": \n', "row 2: not valid JSON"),
        ("factscore", "", "the file is empty"),
    ],
)
def test_bad_jsonl_is_named_and_nothing_is_written(db, tmp_path, fmt, content, fragment) -> None:  # noqa: ANN001
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        import_file(fmt, path)
    assert fragment in str(caught.value)
    assert not Question.objects.exists()
