"""HaluQuestQA in and out: cell-for-cell round trips, recomputed scores, and bad input."""

import csv
import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.choices import SpanLocation
from annotation.factcheck.formats import haluquestqa as hq
from annotation.models import AuditEvent, ErrorSpan, Preference, Project, Question
from annotation.services.datasets import ImportFailed, haluquestqa_export, haluquestqa_import
from tests import factories as f

FIXTURE = Path(__file__).parent / "fixtures" / "haluquestqa_sample.tsv"
DEV = Path(__file__).resolve().parents[2] / "shared" / "data" / "haluquestqa" / "HaluQuestQA.dev.csv"
SCORE = set(hq.SCORE_COLUMNS)


def table(text: str) -> list[list[str]]:
    csv.field_size_limit(10**9)
    return list(csv.reader(io.StringIO(text, newline=""), delimiter="\t"))


def round_trip(path: Path, tmp_path: Path) -> tuple[list[list[str]], list[list[str]]]:
    call_command(
        "import_dataset",
        "--format",
        "haluquestqa",
        "--project",
        "hq",
        "--create",
        str(path),
        stdout=io.StringIO(),
    )
    out = tmp_path / "out.tsv"
    call_command(
        "export_dataset",
        "--format",
        "haluquestqa",
        "--project",
        "hq",
        "--output",
        str(out),
        stdout=io.StringIO(),
    )
    return table(path.read_text(encoding="utf-8")), table(out.read_text(encoding="utf-8"))


def compare(original: list[list[str]], exported: list[list[str]]) -> tuple[list[str], list[str]]:
    """(rows whose non-score cells differ, rows whose score cells differ), by index."""
    header = original[0]
    assert exported[0] == header and len(exported) == len(original)
    cells, scores = [], []
    for a, b in zip(original[1:], exported[1:], strict=True):
        differ = {header[i] for i in range(len(header)) if a[i] != b[i]}
        if differ - SCORE:
            cells.append(a[0])
        if differ & SCORE:
            scores.append(a[0])
    return cells, scores


def test_fixture_round_trips_cell_for_cell(db, tmp_path) -> None:  # noqa: ANN001
    original, exported = round_trip(FIXTURE, tmp_path)
    cells, scores = compare(original, exported)
    assert cells == []
    # Published scores that no count of the stored spans gives: row 92 claims 4 error sentences in a
    # 3-sentence answer from one 1-sentence span; row 12 claims 5 irrelevant sentences from spans of 3.
    assert scores == ["12", "92"]


@pytest.mark.skipif(not DEV.exists(), reason="../shared/data is not beside this checkout")
def test_dev_file_round_trips_and_scores_match(db, tmp_path) -> None:  # noqa: ANN001
    original, exported = round_trip(DEV, tmp_path)
    cells, scores = compare(original, exported)
    assert cells == []
    matching = (len(original) - 1 - len(scores)) / (len(original) - 1)
    assert matching >= 0.95, scores
    assert sorted(scores, key=int) == ["12", "92", "333", "552", "567", "580", "584"]


def test_import_maps_rows_to_models(db) -> None:  # noqa: ANN001
    project = f.ProjectFactory(slug="hq")
    with FIXTURE.open(encoding="utf-8", newline="") as stream:
        report = haluquestqa_import(project=project, stream=stream)
    assert report.rows == report.imported == 11
    assert report.spans_unlocated >= 1 and report.spans_whole_answer >= 2 and report.preferences == 11
    question = Question.objects.get(project=project, external_id="1")
    assert question.category == "technology" and question.metadata["ques_start"] == "[0, 1448]"
    kinds = [(a.position, a.kind) for a in question.answers.order_by("position")]
    assert kinds == [(1, "model"), (2, "human")]
    misconception = ErrorSpan.objects.get(question=question)
    assert (
        misconception.quote == "Where's the reason for a timer?"
        and misconception.category == "question_misconception"
    )
    assert question.text[misconception.start : misconception.end] == misconception.quote
    reference = ErrorSpan.objects.get(answer__question=question, category="references")
    assert reference.helpful is True and reference.annotator.username == "kwrgq4M0bY2l3J8r4P7brg@haluquestqa"
    assert not reference.annotator.has_usable_password()
    for span in ErrorSpan.objects.filter(
        answer__question__project=project, location=SpanLocation.EXACT, whole_answer=False
    ):
        assert span.answer.text[span.start : span.end] == span.quote
    unlocated = ErrorSpan.objects.filter(location=SpanLocation.UNLOCATED)
    assert unlocated.exists() and all(s.start is None and s.quote for s in unlocated)
    whole = ErrorSpan.objects.filter(whole_answer=True)
    assert all(s.category == "completeness" and s.start is None for s in whole)
    assert Preference.objects.get(question=question).preferred_answer.position == 1
    assert AuditEvent.objects.filter(action="dataset.import", project=project).count() == 1


def test_importing_twice_adds_nothing(db) -> None:  # noqa: ANN001
    project = f.ProjectFactory(slug="hq")
    for _ in range(2):
        with FIXTURE.open(encoding="utf-8", newline="") as stream:
            report = haluquestqa_import(project=project, stream=stream)
    assert report.imported == 0 and report.already_present == 11
    assert Question.objects.filter(project=project).count() == 11
    assert Preference.objects.filter(question__project=project).count() == 11


def bad_file(tmp_path: Path, edit) -> Path:  # noqa: ANN001
    rows = table(FIXTURE.read_text(encoding="utf-8"))
    edit(rows)
    path = tmp_path / "bad.tsv"
    with path.open("w", encoding="utf-8", newline="") as out:
        hq.writer(out).writerows(rows)
    return path


def set_cell(rows: list[list[str]], row: int, column: str, value: str) -> None:
    rows[row][rows[0].index(column)] = value


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (
            lambda rows: set_cell(rows, 3, "factuality_span", "['unterminated"),
            "row 3, column 'factuality_span'",
        ),
        (lambda rows: set_cell(rows, 2, "ans1_label", "robot_answer"), "row 2, column 'ans1_label'"),
        (lambda rows: set_cell(rows, 4, "irrelevance_reason", "['a', 'b', 'c', 'd']"), "different lengths"),
        (
            lambda rows: set_cell(rows, 1, "ques_misconception_label", "['answer1']"),
            "must be on the question",
        ),
        (lambda rows: set_cell(rows, 5, "ans_preference", "Answer 3"), "row 5, column 'ans_preference'"),
        (
            lambda rows: set_cell(rows, 2, "reference_example_helpful", "['yes']"),
            "helpful must be True or False",
        ),
        (lambda rows: rows[6].pop(), "row 6: expected 43 cells, found 42"),
        (lambda rows: set_cell(rows, 7, "", rows[1][0]), "appears twice"),
    ],
)
def test_a_bad_row_is_named_and_nothing_is_written(db, tmp_path, edit, fragment) -> None:  # noqa: ANN001
    path = bad_file(tmp_path, edit)
    with pytest.raises(CommandError, match="Nothing was imported") as caught:
        call_command(
            "import_dataset",
            "--format",
            "haluquestqa",
            "--project",
            "hq",
            "--create",
            str(path),
            stdout=io.StringIO(),
        )
    assert fragment in str(caught.value)
    assert not Question.objects.exists() and not ErrorSpan.objects.exists()


def test_skip_bad_rows_imports_the_rest_and_reports(db, tmp_path) -> None:  # noqa: ANN001
    path = bad_file(tmp_path, lambda rows: set_cell(rows, 3, "factuality_label", "['answer9']"))
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "import_dataset",
        "--format",
        "haluquestqa",
        "--project",
        "hq",
        "--create",
        "--skip-bad-rows",
        str(path),
        stdout=out,
        stderr=err,
    )
    assert "skipped row 3 (column 'factuality_label')" in err.getvalue()
    assert "10 imported" in out.getvalue() and "1 skipped" in out.getvalue()
    assert Question.objects.count() == 10


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"", "the file is empty"),
        (b"a,b,c\n1,2,3\n", "comma-separated"),
        (b'[{"input": "x"}]\n', "JSON"),
        (b"\tsource_file\tannotator\n0\tx\ty\n", "missing columns: question_text"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", "not UTF-8"),
    ],
)
def test_files_in_another_format_get_a_clear_error(db, tmp_path, content, fragment) -> None:  # noqa: ANN001
    path = tmp_path / "input.tsv"
    path.write_bytes(content)
    with pytest.raises(CommandError) as caught:
        call_command(
            "import_dataset",
            "--format",
            "haluquestqa",
            "--project",
            "hq",
            "--create",
            str(path),
            stdout=io.StringIO(),
        )
    assert fragment in str(caught.value)
    assert not Question.objects.exists()


def test_missing_file_and_project(db, tmp_path) -> None:  # noqa: ANN001
    with pytest.raises(CommandError, match="Cannot read"):
        call_command(
            "import_dataset",
            "--format",
            "haluquestqa",
            "--project",
            "hq",
            "--create",
            str(tmp_path / "nope.tsv"),
            stdout=io.StringIO(),
        )
    with pytest.raises(CommandError, match="--create"):
        call_command("import_dataset", "--format", "haluquestqa", "--project", "zzz", str(FIXTURE))
    with pytest.raises(CommandError, match="No project"):
        call_command("export_dataset", "--format", "haluquestqa", "--project", "zzz", "--output", "-")


def test_export_streams_row_by_row_and_reflects_new_annotations(db) -> None:  # noqa: ANN001
    project = f.ProjectFactory(slug="hq")
    with FIXTURE.open(encoding="utf-8", newline="") as stream:
        haluquestqa_import(project=project, stream=stream)
    chunks = list(haluquestqa_export(project=project))
    assert len(chunks) == 12 and chunks[0].startswith("\tsource_file\t")
    # A span added in the app shows up, and the factuality score of that answer drops.
    question = Question.objects.get(project=project, external_id="4")
    answer = question.answers.get(position=1)
    annotator = Preference.objects.get(question=question).annotator
    sentence = answer.text[: answer.text.index(".") + 1]
    ErrorSpan.objects.create(
        answer=answer,
        start=0,
        end=len(sentence),
        quote=sentence,
        category="factuality",
        justification="Wrong.",
        annotator=annotator,
        metadata={"dataset_index": 99},
    )
    rows = table("".join(haluquestqa_export(project=project)))
    header, row = rows[0], next(r for r in rows if r[0] == "4")
    assert sentence in row[header.index("factuality_span")]
    kind = "model" if row[header.index("ans1_label")] == "model_answer" else "human"
    before = next(r for r in table(FIXTURE.read_text(encoding="utf-8")) if r[0] == "4")
    assert float(row[header.index(f"factuality_{kind}_score")]) < float(
        before[header.index(f"factuality_{kind}_score")]
    )


def test_rows_not_in_the_format_are_refused_by_the_service(db) -> None:  # noqa: ANN001
    project = Project.objects.create(name="x", slug="x")
    with pytest.raises(ImportFailed) as caught:
        haluquestqa_import(project=project, stream=io.StringIO("no tabs here\n"))
    assert caught.value.extra["errors"][0]["message"].startswith("missing columns")
