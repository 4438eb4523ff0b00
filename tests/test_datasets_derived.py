"""Export-only formats derived from annotations: preference pairs and feedback-training data."""

import csv
import io
import json
from pathlib import Path

from django.core.management import call_command

from annotation.factcheck.formats import feedback
from annotation.models import ErrorSpan, Preference, Question
from tests import factories as f

FIXTURE = Path(__file__).parent / "fixtures" / "haluquestqa_sample.tsv"


def export(fmt: str) -> str:
    out = io.StringIO()
    call_command("export_dataset", "--format", fmt, "--project", "hq", "--output", "-", stdout=out)
    return out.getvalue()


def imported(db) -> None:  # noqa: ANN001
    call_command(
        "import_dataset",
        "--format",
        "haluquestqa",
        "--project",
        "hq",
        "--create",
        str(FIXTURE),
        stdout=io.StringIO(),
    )


def test_preference_pairs_tsv_and_jsonl(db) -> None:  # noqa: ANN001
    imported(db)
    rows = list(csv.reader(io.StringIO(export("preference"), newline=""), delimiter="\t"))
    assert rows[0] == ["", "source_file", "question_text", "preferred_response", "rejected_response"]
    assert [r[0] for r in rows[1:]] == [str(i) for i in range(11)]
    first = Preference.objects.select_related("question", "preferred_answer").get(question__external_id="1")
    rejected = first.question.answers.exclude(pk=first.preferred_answer_id).get()
    assert rows[1][1:] == [
        first.question.source_file,
        first.question.text,
        first.preferred_answer.text,
        rejected.text,
    ]
    lines = export("preference-jsonl").splitlines()
    assert len(lines) == 11
    assert json.loads(lines[0]) == {
        "prompt": first.question.text,
        "chosen": first.preferred_answer.text,
        "rejected": rejected.text,
    }


def test_preference_pairs_skip_questions_without_a_pair(db) -> None:  # noqa: ANN001
    project = f.ProjectFactory(slug="hq")
    question = f.QuestionFactory(project=project)
    only = f.AnswerFactory(question=question, position=1)
    f.PreferenceFactory(question=question, annotator=f.UserFactory(), preferred_answer=only)
    assert export("preference-jsonl") == ""


def test_feedback_training_marks_sentences_with_completeness_spans(db) -> None:  # noqa: ANN001
    imported(db)
    data = json.loads(export("feedback-training"))
    located = ErrorSpan.objects.filter(category="completeness", start__isnull=False)
    assert len(data) == located.values("answer", "annotator").distinct().count() > 0
    assert all(item["instruction"] == feedback.INSTRUCTION for item in data)
    span = (
        located.select_related("answer__question").order_by("answer__question_id", "answer__position").first()
    )
    item = data[0]
    assert item["input"].startswith(f"Question: {' '.join(span.answer.question.text.split())}\nAnswer: 1. ")
    assert f"[Incomplete] Reasons: {' '.join(span.justification.split())}" in item["output"]
    numbers = [line.split(".")[0] for line in item["output"].splitlines()]
    assert numbers == [str(i) for i in range(1, len(numbers) + 1)]


def test_feedback_example_listing_2_shape() -> None:
    answer = (
        "A trademark protects a brand's symbol or logo. A copyright protects content. "
        "So the logo is trademarked."
    )
    start = answer.index("A copyright")
    item = feedback.example(
        "Copyright vs\ntrademark?",
        answer,
        [feedback.IncompleteSpan(start, start + 10, "Misses the broader scope.")],
    )
    assert item["input"] == (
        "Question: Copyright vs trademark?\nAnswer: 1. A trademark protects a brand's symbol or logo.\n"
        "2. A copyright protects content.\n3. So the logo is trademarked."
    )
    assert (
        item["output"] == "1. [Complete]\n2. [Incomplete] Reasons: Misses the broader scope.\n3. [Complete]"
    )
    assert feedback.example("q", answer, []) is None


def test_empty_project_exports_are_valid(db) -> None:  # noqa: ANN001
    f.ProjectFactory(slug="hq")
    assert json.loads(export("feedback-training")) == []
    assert export("preference").count("\n") == 1
    assert Question.objects.count() == 0
