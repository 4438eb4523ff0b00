import pytest
from django.db import IntegrityError, transaction

from annotation import services
from annotation.choices import ErrorCategory, Source
from annotation.errors import Conflict, Forbidden, NotFound, ValidationFailed
from annotation.models import AuditEvent, ErrorSpan
from tests import factories as f


def create(world, **overrides):  # noqa: ANN001, ANN201
    text = world.answer1.text
    args = {
        "actor": world.annotator,
        "answer": world.answer1,
        "start": 0,
        "end": 8,
        "category": ErrorCategory.FACTUALITY,
        "justification": "Rayleigh scattering is not the whole story.",
    }
    args.update(overrides)
    if "quote" not in overrides and args.get("start") is not None and args.get("end") is not None:
        args["quote"] = text[args["start"] : args["end"]]
    return services.span_create(**args)


@pytest.mark.parametrize(
    ("overrides", "field", "fragment"),
    [
        ({"start": 0, "end": 500}, "end", "at most the text length"),
        ({"start": -1, "end": 3}, "start", "0 or more"),
        ({"start": 8, "end": 3}, "end", "greater than start"),
        ({"start": 5, "end": 5}, "end", "greater than start"),
        ({"start": 0, "end": 8, "quote": "Rayleigx"}, "quote", "Does not match"),
        ({"category": "spelling"}, "category", "Unknown category"),
        ({"category": ErrorCategory.QUESTION_MISCONCEPTION}, "category", "belong on the question"),
        ({"justification": "   "}, "justification", "required"),
        ({"justification": ""}, "justification", "required"),
        (
            {"category": ErrorCategory.REFERENCES, "references": ["https://ok.example", "not a url"]},
            "references",
            "Reference 2",
        ),
        ({"helpful": True}, "helpful", "Only references spans"),
        ({"whole_answer": True, "start": None, "end": None}, "whole_answer", "Only completeness"),
    ],
)
def test_invalid_spans_are_rejected_naming_the_field(world, overrides, field, fragment) -> None:  # noqa: ANN001
    with pytest.raises(ValidationFailed) as caught:
        create(world, **overrides)
    assert field in caught.value.extra, caught.value.extra
    assert any(fragment in message for message in caught.value.extra[field]), caught.value.extra
    assert (
        not ErrorSpan.objects.filter(annotator=world.annotator, answer=world.answer1)
        .exclude(pk=world.span.pk)
        .exists()
    )


def test_offsets_are_code_points_after_an_emoji(world) -> None:  # noqa: ANN001
    text = world.answer1.text
    start = text.index("makes")
    span = create(world, start=start, end=start + len("makes short"))
    assert span.quote == "makes short"
    # After the CRLF, too.
    start = text.index("See")
    span = create(world, start=start, end=start + 3)
    assert span.quote == "See"


def test_question_misconception_on_the_question(world) -> None:  # noqa: ANN001
    span = services.span_create(
        actor=world.annotator,
        question=world.question,
        start=0,
        end=3,
        category=ErrorCategory.QUESTION_MISCONCEPTION,
        justification="Premise is fine, but test.",
    )
    assert span.quote == "Why"
    with pytest.raises(ValidationFailed) as caught:
        services.span_create(
            actor=world.annotator,
            question=world.question,
            start=0,
            end=3,
            category=ErrorCategory.FACTUALITY,
            justification="x",
        )
    assert "category" in caught.value.extra


def test_whole_answer_completeness(world) -> None:  # noqa: ANN001
    span = create(
        world,
        start=None,
        end=None,
        category=ErrorCategory.COMPLETENESS,
        whole_answer=True,
        justification="It never mentions the Sun's spectrum.",
    )
    assert span.whole_answer and span.start is None and span.quote == ""


def test_reference_span_with_urls_and_helpful(world) -> None:  # noqa: ANN001
    start = world.answer1.text.index("https://")
    span = create(
        world,
        start=start,
        end=len(world.answer1.text),
        category=ErrorCategory.REFERENCES,
        references=["https://en.wikipedia.org/wiki/Rayleigh_scattering"],
        helpful=True,
        justification="A relevant link.",
    )
    assert span.helpful is True and span.references == ["https://en.wikipedia.org/wiki/Rayleigh_scattering"]


def test_reviewer_cannot_annotate_and_outsider_gets_not_found(world) -> None:  # noqa: ANN001
    with pytest.raises(Forbidden):
        create(world, actor=world.reviewer)
    with pytest.raises(NotFound):
        create(world, actor=world.outsider)


def test_create_update_delete_write_audit_events(world) -> None:  # noqa: ANN001
    span = create(world)
    event = AuditEvent.objects.get(action="span.create", object_id=str(span.pk))
    assert event.actor == world.annotator and event.after["quote"] == span.quote and event.before is None
    span = services.span_update(actor=world.annotator, span=span, version=1, justification="Better reason.")
    event = AuditEvent.objects.get(action="span.update", object_id=str(span.pk))
    assert event.before["justification"] == "Rayleigh scattering is not the whole story."
    assert event.after["justification"] == "Better reason." and event.after["version"] == 2
    services.span_delete(actor=world.annotator, span=span, version=2)
    assert AuditEvent.objects.filter(action="span.delete", object_id=str(span.pk)).exists()
    assert not ErrorSpan.objects.filter(pk=span.pk).exists()


def test_stale_update_is_a_conflict_and_keeps_the_newer_data(world) -> None:  # noqa: ANN001
    span = create(world)
    services.span_update(actor=world.annotator, span=span, version=1, justification="Second tab's text.")
    with pytest.raises(Conflict) as caught:
        services.span_update(actor=world.annotator, span=span, version=1, justification="First tab's text.")
    assert caught.value.extra["current_version"] == 2
    span.refresh_from_db()
    assert span.justification == "Second tab's text." and span.version == 2


def test_update_moves_offsets_and_recomputes_the_quote(world) -> None:  # noqa: ANN001
    span = create(world)
    text = world.answer1.text
    start = text.index("short")
    span = services.span_update(actor=world.annotator, span=span, version=1, start=start, end=start + 5)
    assert span.quote == "short"
    with pytest.raises(ValidationFailed) as caught:
        services.span_update(actor=world.annotator, span=span, version=2, end=10_000)
    assert "end" in caught.value.extra


def test_only_the_author_changes_a_span(world) -> None:  # noqa: ANN001
    with pytest.raises(NotFound):  # blind: annotator2 cannot even see it
        services.span_update(actor=world.annotator2, span=world.span, version=1, justification="mine now")
    with pytest.raises(Forbidden):
        services.span_update(actor=world.manager, span=world.span, version=1, justification="mine now")
    world.span.refresh_from_db()
    assert world.span.justification == "Wrong."


@pytest.mark.parametrize(
    "fields",
    [
        {"start": 5, "end": 2},
        {"start": -1, "end": 2},
        {"question_id": "Q", "answer_id": "A"},
        {"answer_id": None},
        {"helpful": True},
        {"justification": ""},
        {"source": Source.MODEL},
    ],
)
def test_database_constraints_keep_spans_sane(world, fields) -> None:  # noqa: ANN001
    values = {
        "answer_id": world.answer1.pk,
        "start": 0,
        "end": 3,
        "quote": "Ray",
        "category": "factuality",
        "justification": "j",
        "source": Source.HUMAN,
        "annotator_id": world.annotator.pk,
    }
    for key, value in fields.items():
        values[key] = {"Q": world.question.pk, "A": world.answer1.pk}.get(value, value)
    with pytest.raises(IntegrityError), transaction.atomic():
        ErrorSpan.objects.create(**values)


def test_one_preference_and_one_verdict_per_annotator(world) -> None:  # noqa: ANN001
    with pytest.raises(IntegrityError), transaction.atomic():
        f.PreferenceFactory(
            question=world.question, annotator=world.annotator, preferred_answer=world.answer2
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        f.VerdictFactory(
            atom=world.atom, target=world.answer1, annotator=world.annotator, source=Source.HUMAN
        )
    run = f.RunFactory(project=world.project)
    f.VerdictFactory(atom=world.atom, target=world.answer1, run=run, source=Source.MODEL)
    with pytest.raises(IntegrityError), transaction.atomic():
        f.VerdictFactory(atom=world.atom, target=world.answer1, run=run, source=Source.MODEL)
