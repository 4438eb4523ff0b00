"""Server time of the item page with 60 spans and of the queue ("next item") at 10,000 questions."""

from __future__ import annotations

import os

from common import setup_django, test_database, timed, write_results

QUESTIONS = int(os.environ.get("BENCH_QUESTIONS", "10000"))
SPANS = int(os.environ.get("BENCH_SPANS", "60"))


def seed():  # noqa: ANN201
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotation.choices import AnswerKind, ErrorCategory, Role, Source
    from annotation.models import Answer, Assignment, ErrorSpan, Membership, Project, Question

    User = get_user_model()
    project = Project.objects.create(name="Bench", slug="bench")
    annotator = User.objects.create_user("annotator")
    Membership.objects.create(user=annotator, project=project, role=Role.ANNOTATOR)
    sentence = "Light scatters in the air 🌈. Blue light scatters more than red light.\r\n"
    text = (sentence + "That is Rayleigh scattering. ") * 8
    questions = Question.objects.bulk_create(
        Question(project=project, text=f"Why is the sky blue? ({i})", external_id=str(i))
        for i in range(QUESTIONS)
    )
    answers = Answer.objects.bulk_create(
        Answer(question=q, position=p, text=text, kind=AnswerKind.HUMAN if p == 1 else AnswerKind.MODEL)
        for q in questions
        for p in (1, 2)
    )
    now = timezone.now()
    Assignment.objects.bulk_create(
        Assignment(question=q, annotator=annotator, submitted_at=now if i < QUESTIONS - 10 else None)
        for i, q in enumerate(questions)
    )
    target = questions[QUESTIONS - 10]
    categories = [c for c in ErrorCategory.values if c != ErrorCategory.QUESTION_MISCONCEPTION]
    spans = []
    for i in range(SPANS):
        answer = answers[2 * (QUESTIONS - 10) + i % 2]
        start = (i * 7) % (len(text) - 40)
        spans.append(
            ErrorSpan(
                answer=answer,
                start=start,
                end=start + 30,
                quote=text[start : start + 30],
                category=categories[i % 4],
                justification=f"Reason {i}.",
                source=Source.HUMAN,
                annotator=annotator,
            )
        )
    ErrorSpan.objects.bulk_create(spans)
    return annotator, project, target


def main() -> None:
    setup_django()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    with test_database():
        annotator, project, target = seed()
        client = Client()
        client.force_login(annotator)
        results = {"questions": QUESTIONS, "spans_on_item": SPANS}
        for name, url in [
            (f"item page, {SPANS} spans", f"/projects/{project.slug}/questions/{target.pk}/"),
            (f"next item, queue of {QUESTIONS}", f"/projects/{project.slug}/next/"),
            ("project page", f"/projects/{project.slug}/"),
        ]:
            with CaptureQueriesContext(connection) as queries:
                status = client.get(url).status_code
            assert status in (200, 302), (url, status)
            count = len(queries)
            results[name] = timed(lambda u=url, c=client: c.get(u)) | {"queries": count}
        write_results("workspace", results)


if __name__ == "__main__":
    main()
