"""The workspace endpoints: who may do what, validation, and what the expert sees."""

import pytest

from annotation.models import Assignment, ErrorSpan, Preference, Project

ROLES = ["anonymous", "annotator", "annotator2", "outsider", "reviewer", "manager"]


def as_role(client, world, role):  # noqa: ANN001, ANN201
    user = world.user(role)
    if user:
        client.force_login(user)
    return client


def span_post(world, **extra):  # noqa: ANN001, ANN201
    return {
        "target": f"a{world.answer2.pk}",
        "start": "4",
        "end": "7",
        "quote": "sky",
        "category": "factuality",
        "justification": "Not a reflection.",
    } | extra


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("next", [302, 302, 302, 404, 200, 302]),
        ("item", [302, 200, 200, 404, 200, 200]),
        ("other-item", [302, 404, 404, 404, 404, 404]),
        ("span-save", [302, 200, 200, 404, 403, 200]),
        ("preference", [302, 200, 200, 404, 403, 200]),
        ("time", [302, 204, 204, 404, 403, 204]),
        ("submit", [302, 302, 422, 404, 403, 422]),
        ("settings", [302, 403, 403, 404, 403, 302]),
    ],
)
@pytest.mark.parametrize("role_index", range(len(ROLES)), ids=ROLES)
def test_permissions(client, world, name, expected, role_index) -> None:  # noqa: ANN001
    for user in (world.annotator, world.annotator2, world.manager):
        Assignment.objects.create(question=world.question, annotator=user)
    client = as_role(client, world, ROLES[role_index])
    base = f"/projects/main/questions/{world.question.pk}/"
    requests = {
        "next": ("get", "/projects/main/next/", {}),
        "item": ("get", base, {}),
        "other-item": ("get", f"/projects/main/questions/{world.other_question.pk}/", {}),
        "span-save": ("post", base + "spans/", span_post(world)),
        "preference": (
            "post",
            base + "preference/",
            {"preferred_answer": world.answer1.pk, "reason": "Clear."},
        ),
        "time": ("post", base + "time/", {"seconds": "30"}),
        "submit": ("post", base + "submit/", {}),
        "settings": ("post", "/projects/main/settings/", {"blind": "", "guidelines": "New"}),
    }
    method, url, data = requests[name]
    response = getattr(client, method)(url, data)
    assert response.status_code == expected[role_index], (name, ROLES[role_index], response.content[:300])


def test_span_errors_answer_422_with_the_editor_and_keep_what_was_typed(client, world) -> None:  # noqa: ANN001
    client.force_login(world.annotator)
    url = f"/projects/main/questions/{world.question.pk}/spans/"
    response = client.post(
        url, span_post(world, justification="", category="relevance"), headers={"HX-Request": "true"}
    )
    assert response.status_code == 422 and response["HX-Retarget"] == "#editor"
    body = response.content.decode()
    assert (
        "A justification is required" in body
        and 'value="sky"' in body
        and 'value="relevance" checked' in body
    )
    response = client.post(url, span_post(world, quote="nope", start="", end=""))
    assert response.status_code == 422 and "not in the chosen question or answer" in response.content.decode()
    response = client.post(url, span_post(world, target=""))
    assert "Select text in the question or an answer first" in response.content.decode()
    assert not ErrorSpan.objects.filter(annotator=world.annotator, answer=world.answer2).exists()


def test_span_found_by_its_text_and_edited_with_its_version(client, world) -> None:  # noqa: ANN001
    client.force_login(world.annotator)
    url = f"/projects/main/questions/{world.question.pk}/spans/"
    response = client.post(url, span_post(world, start="", end="", quote="reflects the ocean"))
    assert response.status_code == 200
    span = ErrorSpan.objects.get(annotator=world.annotator, answer=world.answer2)
    assert span.quote == "reflects the ocean" and world.answer2.text[span.start : span.end] == span.quote
    edit = span_post(
        world,
        span_id=span.pk,
        version=1,
        start=span.start,
        end=span.end,
        quote=span.quote,
        justification="Changed.",
    )
    assert client.post(url, edit).status_code == 200
    stale = client.post(url, edit | {"justification": "Stale."})
    assert stale.status_code == 409 and "changed elsewhere" in stale.content.decode()
    span.refresh_from_db()
    assert span.justification == "Changed." and span.version == 2
    delete = client.post(url + "delete/", {"span_id": span.pk, "version": 2})
    assert delete.status_code == 200 and not ErrorSpan.objects.filter(pk=span.pk).exists()


def test_others_spans_cannot_be_edited_or_deleted(client, world) -> None:  # noqa: ANN001
    client.force_login(world.annotator2)
    url = f"/projects/main/questions/{world.question.pk}/spans/"
    assert client.post(url + "delete/", {"span_id": world.span.pk}).status_code == 404  # blind: not even seen
    world.project.blind = False
    world.project.save()
    assert client.post(url + "delete/", {"span_id": world.span.pk}).status_code == 403
    assert ErrorSpan.objects.filter(pk=world.span.pk).exists()


def test_preference_autosave_and_its_errors(client, world) -> None:  # noqa: ANN001
    client.force_login(world.annotator2)
    url = f"/projects/main/questions/{world.question.pk}/preference/"
    response = client.post(url, {"preferred_answer": world.answer2.pk, "reason": ""})
    assert response.status_code == 422 and "Say why you prefer this answer" in response.content.decode()
    response = client.post(url, {"preferred_answer": world.answer2.pk, "reason": "Shorter."})
    assert response.status_code == 200
    assert Preference.objects.get(annotator=world.annotator2).preferred_answer == world.answer2


def test_time_is_added_and_bounded(client, world) -> None:  # noqa: ANN001
    client.force_login(world.annotator2)
    url = f"/projects/main/questions/{world.question.pk}/time/"
    assert client.post(url, {"seconds": "30"}).status_code == 204
    assert client.post(url, {"seconds": "12"}).status_code == 204
    assert client.post(url, {"seconds": "100000"}).status_code == 400
    assert Assignment.objects.get(annotator=world.annotator2).active_seconds == 42


def test_answer_order_is_shuffled_per_annotator_but_stable(client, world) -> None:  # noqa: ANN001
    from annotation.selectors import item_order

    answers = list(world.question.answers.all())
    first = [a.pk for a in item_order(answers=answers, user=world.annotator)]
    assert first == [a.pk for a in item_order(answers=list(reversed(answers)), user=world.annotator)]
    orders = {
        tuple(a.pk for a in item_order(answers=answers, user=u))
        for u in (world.annotator, world.annotator2, world.manager, world.reviewer, world.outsider)
    }
    assert len(orders) == 2  # with five people and two answers both orders turn up


def test_manager_turns_blind_off_and_sets_guidelines(client, world) -> None:  # noqa: ANN001
    client.force_login(world.manager)
    guidelines = "## Our rules\n\nMark **every** error. <script>alert(1)</script>"
    response = client.post("/projects/main/settings/", {"guidelines": guidelines})
    assert response.status_code == 302
    project = Project.objects.get(slug="main")
    assert project.blind is False and project.guidelines == guidelines
    client.force_login(world.annotator2)
    page = client.get(f"/projects/main/questions/{world.question.pk}/").content.decode()
    assert "<h2>Our rules</h2>" in page and "<strong>every</strong>" in page
    assert "<script>alert(1)</script>" not in page
    assert world.span.justification in page  # not blind any more: the other annotator's span shows


def test_default_guidelines_are_shown(client, world) -> None:  # noqa: ANN001
    client.force_login(world.annotator)
    page = client.get(f"/projects/main/questions/{world.question.pk}/").content.decode()
    assert "Question misconception" in page and "always write why" in page


def test_queue_goes_to_the_next_unsubmitted_item_then_says_done(client, world) -> None:  # noqa: ANN001
    Assignment.objects.create(question=world.question, annotator=world.annotator)
    client.force_login(world.annotator)
    response = client.get("/projects/main/next/")
    assert response.status_code == 302 and response["Location"].endswith(f"/questions/{world.question.pk}/")
    assert client.post(f"/projects/main/questions/{world.question.pk}/submit/").status_code == 302
    page = client.get("/projects/main/next/")
    assert page.status_code == 200 and b"All done" in page.content


def test_manager_adds_an_annotator_who_gets_every_item(client, world) -> None:  # noqa: ANN001
    from annotation.models import Membership
    from tests import factories as f

    newbie = f.UserFactory(username="newbie")
    f.QuestionFactory(project=world.project)
    client.force_login(world.manager)
    response = client.post(
        "/projects/main/members/", {"username": "newbie", "role": "annotator", "assign": "on"}, follow=True
    )
    assert b"newbie is annotator; 2 items assigned." in response.content
    assert Membership.objects.get(user=newbie, project=world.project).role == "annotator"
    client.force_login(newbie)
    assert client.get("/projects/main/next/").status_code == 302
    client.force_login(world.manager)
    response = client.post("/projects/main/members/", {"username": "ghost", "role": "annotator"}, follow=True)
    assert b"No account with that user name." in response.content
    client.force_login(world.annotator)
    assert (
        client.post("/projects/main/members/", {"username": "newbie", "role": "manager"}).status_code == 403
    )


def test_add_member_command_assigns_items(db, world) -> None:  # noqa: ANN001
    import io

    from django.core.management import call_command

    out = io.StringIO()
    call_command("add_member", "--project", "main", "--create", "carol", stdout=out)
    assert "Assigned 1 items to carol." in out.getvalue()
    assert Assignment.objects.filter(annotator__username="carol").count() == 1
