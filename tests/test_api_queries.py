"""List endpoints and pages run a constant number of queries, whatever the number of rows."""

import pytest

from annotation.choices import Role, Source
from tests import factories as f

# Queries per request (session lookup and user included, via force_login).
EXPECTED = {
    "/api/projects/": 5,
    "/api/questions/": 6,
    "/api/answers/": 5,
    "/api/spans/": 5,
    "/api/preferences/": 5,
    "/api/verdicts/": 5,
    "/api/runs/": 5,
    "/": 4,
    "/projects/p/": 10,
    "/projects/p/questions/{question}/": 9,
}


def populate(n: int):  # noqa: ANN201
    project = f.ProjectFactory(slug="p", blind=False)
    manager = f.member(project, Role.MANAGER, "boss")
    run = f.RunFactory(project=project)
    first_question = None
    for i in range(n):
        other = f.ProjectFactory()
        f.MembershipFactory(user=manager, project=other, role=Role.ANNOTATOR)
        annotator = f.member(project, Role.ANNOTATOR)
        question = f.QuestionFactory(project=project)
        first_question = first_question or question
        a1 = f.AnswerFactory(question=question, position=1)
        f.AnswerFactory(question=question, position=2)
        f.SpanFactory(answer=a1, annotator=annotator)
        f.SpanFactory(answer=first_question.answers.first(), annotator=annotator, start=i % 5, end=i % 5 + 3)
        f.PreferenceFactory(question=question, annotator=annotator, preferred_answer=a1)
        atom = f.AtomFactory(answer=a1)
        f.VerdictFactory(atom=atom, target=a1, annotator=annotator, source=Source.HUMAN)
        f.VerdictFactory(atom=atom, target=a1, run=run, source=Source.MODEL)
        f.RunFactory(project=project)
    return manager, first_question


@pytest.mark.parametrize("n", [1, 20])
@pytest.mark.parametrize("url", list(EXPECTED))
def test_constant_queries(client, db, django_assert_num_queries, url, n) -> None:  # noqa: ANN001
    manager, question = populate(n)
    client.force_login(manager)
    with django_assert_num_queries(EXPECTED[url]):
        response = client.get(url.format(question=question.pk))
    assert response.status_code == 200
