"""Server time of the API lists and the project pages at a realistic size.

Seeds QUESTIONS questions with two answers each, three spans per question from several annotators, a
preference each and atoms with verdicts, then times each list endpoint's first page (Django test
client: no network, whole request/response cycle) and counts its queries.
"""

from __future__ import annotations

import os

from common import setup_django, test_database, timed, write_results

QUESTIONS = int(os.environ.get("BENCH_QUESTIONS", "5000"))


def seed() -> tuple[object, object]:
    from django.contrib.auth import get_user_model

    from annotation.choices import AnswerKind, Role, Source
    from annotation.models import Answer, Atom, ErrorSpan, Membership, Preference, Project, Question, Verdict

    User = get_user_model()
    project = Project.objects.create(name="Bench", slug="bench", blind=True)
    manager = User.objects.create_user("manager")
    annotators = [User.objects.create_user(f"a{i}") for i in range(5)]
    Membership.objects.create(user=manager, project=project, role=Role.MANAGER)
    Membership.objects.bulk_create(
        Membership(user=u, project=project, role=Role.ANNOTATOR) for u in annotators
    )
    text = "The sky is blue because of Rayleigh scattering. Shorter wavelengths scatter more. " * 4
    questions = Question.objects.bulk_create(
        Question(project=project, text=f"Why is the sky blue? ({i})", external_id=str(i))
        for i in range(QUESTIONS)
    )
    answers = Answer.objects.bulk_create(
        Answer(question=q, position=p, text=text, kind=AnswerKind.HUMAN if p == 1 else AnswerKind.MODEL)
        for q in questions
        for p in (1, 2)
    )
    spans, prefs, atoms = [], [], []
    for i, answer in enumerate(answers):
        author = annotators[i % len(annotators)]
        spans.append(
            ErrorSpan(
                answer=answer,
                start=0,
                end=7,
                quote=text[:7],
                category="factuality",
                justification="Because.",
                source=Source.HUMAN,
                annotator=author,
            )
        )
        if answer.position == 1:
            prefs.append(
                Preference(
                    question_id=answer.question_id,
                    annotator=author,
                    preferred_answer=answer,
                    reason="Clearer.",
                )
            )
            atoms.append(Atom(answer=answer, position=0, text="Shorter wavelengths scatter more."))
    ErrorSpan.objects.bulk_create(spans)
    Preference.objects.bulk_create(prefs)
    atoms = Atom.objects.bulk_create(atoms)
    Verdict.objects.bulk_create(
        Verdict(
            atom=a, target_id=a.answer_id, source=Source.HUMAN, annotator=annotators[0], label="supported"
        )
        for a in atoms
    )
    return manager, annotators[0]


def main() -> None:
    setup_django()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    with test_database():
        manager, annotator = seed()
        results = {"questions": QUESTIONS}
        for who, user in (("manager", manager), ("annotator", annotator)):
            client = Client()
            client.force_login(user)
            for url in [
                "/api/projects/",
                "/api/questions/",
                "/api/answers/",
                "/api/spans/",
                "/api/preferences/",
                "/api/verdicts/",
                "/api/spans/?page=20",
                "/",
                "/projects/bench/",
                "/projects/bench/?page=90",
            ]:
                with CaptureQueriesContext(connection) as queries:
                    status = client.get(url).status_code
                assert status == 200, (url, status)
                count = len(queries)  # read now: later requests reset the connection's query log
                results[f"{who} GET {url}"] = timed(lambda u=url, c=client: c.get(u)) | {"queries": count}
        write_results("api_lists", results)


if __name__ == "__main__":
    main()
