"""Every page × every role. Pages need login; outside your projects is 404."""

import pytest

ROLES = ["anonymous", "annotator", "annotator2", "outsider", "reviewer", "manager"]

PAGES = [
    ("/", [302, 200, 200, 200, 200, 200]),
    ("/projects/main/", [302, 200, 200, 404, 200, 200]),
    ("/projects/main/questions/{question}/", [302, 200, 200, 404, 200, 200]),
    ("/projects/other/questions/{other_question}/", [302, 404, 404, 200, 404, 404]),
    ("/projects/main/questions/{other_question}/", [302, 404, 404, 404, 404, 404]),
    ("/projects/nope/", [302, 404, 404, 404, 404, 404]),
]


@pytest.mark.parametrize(("url", "expected"), PAGES, ids=[p[0] for p in PAGES])
@pytest.mark.parametrize("role_index", range(len(ROLES)), ids=ROLES)
def test_pages(client, world, url, expected, role_index) -> None:  # noqa: ANN001
    user = world.user(ROLES[role_index])
    if user is not None:
        client.force_login(user)
    url = url.format(question=world.question.pk, other_question=world.other_question.pk)
    response = client.get(url)
    assert response.status_code == expected[role_index]
    if response.status_code == 302:
        assert response["Location"].startswith("/accounts/login/")


def test_login_page_and_login(client, world) -> None:  # noqa: ANN001
    assert client.get("/accounts/login/").status_code == 200
    response = client.post("/accounts/login/", {"username": "annotator", "password": "pw-for-tests"})
    assert response.status_code == 302 and response["Location"] == "/"
    page = client.get("/")
    assert b"Project " in page.content and world.project.name.encode() in page.content
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert client.get("/").status_code == 302


def test_login_refuses_wrong_password(client, world) -> None:  # noqa: ANN001
    response = client.post("/accounts/login/", {"username": "annotator", "password": "nope"})
    assert response.status_code == 200 and b"didn't match" in response.content


def test_blind_question_page_hides_other_annotators_work(client, world) -> None:  # noqa: ANN001
    world.span.justification = "ANNOTATOR-ONE-JUSTIFICATION"
    world.span.save()
    client.force_login(world.annotator2)
    page = client.get(f"/projects/main/questions/{world.question.pk}/").content.decode()
    assert "ANNOTATOR-ONE-JUSTIFICATION" not in page
    assert "(Human" not in page  # annotators are not told who wrote an answer
    client.force_login(world.reviewer)
    page = client.get(f"/projects/main/questions/{world.question.pk}/").content.decode()
    assert "ANNOTATOR-ONE-JUSTIFICATION" in page and "(Human" in page


def test_user_text_is_escaped(client, world) -> None:  # noqa: ANN001
    world.answer2.text = '<script>alert("x")</script> <a href="javascript:evil()">[link](http://x.y)</a>'
    world.answer2.save()
    client.force_login(world.annotator)
    page = client.get(f"/projects/main/questions/{world.question.pk}/").content.decode()
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page
    assert '<a href="javascript' not in page


def test_members_are_listed_for_managers_only(client, world) -> None:  # noqa: ANN001
    client.force_login(world.manager)
    assert b"Members" in client.get("/projects/main/").content
    client.force_login(world.annotator)
    assert b"Members" not in client.get("/projects/main/").content


def test_question_table_partial_for_htmx(client, world) -> None:  # noqa: ANN001
    client.force_login(world.annotator)
    response = client.get("/projects/main/", headers={"HX-Request": "true"})
    body = response.content.decode()
    assert response.status_code == 200 and body.lstrip().startswith('<section id="question-table">')
    assert "<html" not in body
