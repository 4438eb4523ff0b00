"""WikiEvalFacts in and out: facts as reference atoms, human verdicts, a run's verdicts as added columns."""

import csv
import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.choices import AnswerKind, AtomOrigin, Source
from annotation.models import Atom, Question, Verdict
from tests import factories as f

FIXTURE = Path(__file__).parent / "fixtures" / "wikievalfacts_sample.csv"


def run_command(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def import_fixture(path: Path = FIXTURE) -> str:
    return run_command(
        "import_dataset", "--format", "wikievalfacts", "--project", "wef", "--create", str(path)
    )


def export(*extra: str) -> str:
    return run_command(
        "export_dataset", "--format", "wikievalfacts", "--project", "wef", "--output", "-", *extra
    )


def test_round_trip_is_byte_identical_and_keeps_extra_columns(db) -> None:  # noqa: ANN001
    summary = import_fixture()
    assert "3 imported" in summary and "Verdicts 24" in summary
    assert export() == FIXTURE.read_text(encoding="utf-8")


def test_import_maps_to_answers_reference_atoms_and_human_verdicts(db) -> None:  # noqa: ANN001
    import_fixture()
    question = Question.objects.get(external_id="q-002")
    kinds = [(a.position, a.kind) for a in question.answers.order_by("position")]
    assert kinds == [(1, AnswerKind.REFERENCE), (2, AnswerKind.UNGROUNDED), (3, AnswerKind.POOR)]
    atoms = list(Atom.objects.filter(answer__question=question).order_by("position"))
    assert [a.origin for a in atoms] == [AtomOrigin.REFERENCE] * 3
    assert atoms[2].text == "Michael Collins stayed in lunar orbit."
    ungrounded = question.answers.get(kind=AnswerKind.UNGROUNDED)
    verdict = Verdict.objects.get(atom=atoms[2], target=ungrounded)
    assert (
        verdict.source == Source.HUMAN and verdict.label == "not_supported" and verdict.raw_value == "False"
    )
    assert import_fixture().startswith("3 rows: 0 imported, 3 already present")


def test_an_expert_correction_shows_in_the_export(db) -> None:  # noqa: ANN001
    import_fixture()
    question = Question.objects.get(external_id="q-003")
    poor = question.answers.get(kind=AnswerKind.POOR)
    atom = Atom.objects.get(answer__question=question, position=1)
    expert = f.UserFactory(username="expert")
    Verdict.objects.create(
        atom=atom,
        target=poor,
        source=Source.HUMAN,
        annotator=expert,
        label="supported",
        raw_value="supported",
    )
    rows = list(csv.DictReader(io.StringIO(export())))
    cell = next(r for r in rows if r["unique_id"] == "q-003")["human_evaluated_facts_poor_answer"]
    assert cell == repr(
        {
            "Ice is less dense than liquid water.": "True",
            "Hydrogen bonds hold the molecules of ice in an open hexagonal lattice.": "True",
        }
    )


def test_export_with_a_run_adds_its_verdicts_in_the_dataset_shape(db) -> None:  # noqa: ANN001
    import_fixture()
    project = Question.objects.get(external_id="q-001").project
    run = f.RunFactory(project=project, method="faaf", model_name="gpt-4-turbo")
    question = Question.objects.get(external_id="q-001")
    answers = {a.kind: a for a in question.answers.all()}
    atoms = list(Atom.objects.filter(answer__question=question).order_by("position"))
    Verdict.objects.create(
        atom=atoms[0],
        target=answers["reference"],
        source=Source.MODEL,
        run=run,
        label="supported",
        raw_value="True",
    )
    Verdict.objects.create(
        atom=atoms[1],
        target=answers["reference"],
        source=Source.MODEL,
        run=run,
        label="not_supported",
        raw_value="not clear from the given passage",
    )
    Verdict.objects.create(
        atom=atoms[2],
        target=answers["reference"],
        source=Source.MODEL,
        run=run,
        valid=False,
        label=None,
        raw_value="{'broken",
    )
    text = export("--run", str(run.pk))
    rows = list(csv.DictReader(io.StringIO(text)))
    column = "faaf_evaluated_facts_gpt-4-turbo_answer"
    assert list(rows[0])[-3:] == [
        column,
        "faaf_evaluated_facts_gpt-4-turbo_ungrounded_answer",
        "faaf_evaluated_facts_gpt-4-turbo_poor_answer",
    ]
    assert rows[0][column] == repr(
        {atoms[0].text: "True", atoms[1].text: "not clear from the given passage", atoms[2].text: "N/A"}
    )
    assert rows[1][column] == ""
    with pytest.raises(CommandError, match="No run"):
        export("--run", "999999")
    with pytest.raises(CommandError, match="no place for a run"):
        run_command(
            "export_dataset",
            "--format",
            "haluquestqa",
            "--project",
            "wef",
            "--output",
            "-",
            "--run",
            str(run.pk),
        )


def edited(tmp_path: Path, old: str, new: str) -> Path:
    path = tmp_path / "bad.csv"
    text = FIXTURE.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        (
            "- The citric acid cycle produces",
            "* The citric acid cycle produces",
            "row 1, column 'gt_facts': line 2",
        ),
        (": 'False', 'NADH", ": 'Maybe', 'NADH", "is not 'True' or 'False'"),
        (
            "'Michael Collins stayed in lunar orbit.': 'False'}",
            "'Michael Collins orbited.': 'False'}",
            "row 2, column 'human_evaluated_facts_ungrounded_answer'",
        ),
        ("q-003", "q-001", "appears twice"),
        ("unique_id,", "id,", "missing columns: unique_id"),
    ],
)
def test_bad_input_is_named_and_nothing_is_written(db, tmp_path, old, new, fragment) -> None:  # noqa: ANN001
    with pytest.raises(CommandError) as caught:
        import_fixture(edited(tmp_path, old, new))
    assert fragment in str(caught.value)
    assert not Question.objects.exists()


def test_a_tab_separated_file_is_refused_clearly(db, tmp_path) -> None:  # noqa: ANN001
    path = tmp_path / "x.tsv"
    path.write_text("unique_id\tquestion\n1\tq\n")
    with pytest.raises(CommandError, match="comma-separated"):
        import_fixture(path)
