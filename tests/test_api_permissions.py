"""Every API route × every role: the status each gets. Outside your projects is 404, never 403."""

import pytest

from annotation.models import ErrorSpan, Preference, Verdict
from tests import factories as f

ROLES = ["anonymous", "annotator", "annotator2", "outsider", "reviewer", "manager"]


def client_for(api, world, role):  # noqa: ANN001, ANN201
    user = world.user(role)
    if user is not None:
        api.force_authenticate(user)
    return api


# (url template, expected status per role in ROLES order)
READS = [
    ("/api/", [401, 200, 200, 200, 200, 200]),
    ("/api/projects/", [401, 200, 200, 200, 200, 200]),
    ("/api/projects/{project}/", [401, 200, 200, 404, 200, 200]),
    ("/api/questions/", [401, 200, 200, 200, 200, 200]),
    ("/api/questions/{question}/", [401, 200, 200, 404, 200, 200]),
    ("/api/answers/", [401, 200, 200, 200, 200, 200]),
    ("/api/answers/{answer1}/", [401, 200, 200, 404, 200, 200]),
    ("/api/spans/", [401, 200, 200, 200, 200, 200]),
    ("/api/spans/{span}/", [401, 200, 404, 404, 200, 200]),
    ("/api/preferences/", [401, 200, 200, 200, 200, 200]),
    ("/api/preferences/{preference}/", [401, 200, 404, 404, 200, 200]),
    ("/api/verdicts/", [401, 200, 200, 200, 200, 200]),
    ("/api/verdicts/{verdict}/", [401, 200, 404, 404, 200, 200]),
    ("/api/runs/", [401, 200, 200, 200, 200, 200]),
    ("/api/runs/{run}/", [401, 200, 200, 404, 200, 200]),
    ("/api/schema/", [401, 200, 200, 200, 200, 200]),
    ("/api/docs/", [401, 200, 200, 200, 200, 200]),
]


def ids(world):  # noqa: ANN001, ANN201
    return {
        "project": world.project.pk,
        "question": world.question.pk,
        "answer1": world.answer1.pk,
        "span": world.span.pk,
        "preference": world.preference.pk,
        "verdict": world.verdict.pk,
        "run": world.run.pk,
    }


@pytest.mark.parametrize(("url", "expected"), READS, ids=[r[0] for r in READS])
@pytest.mark.parametrize("role_index", range(len(ROLES)), ids=ROLES)
def test_reads(api, world, url, expected, role_index) -> None:  # noqa: ANN001
    role = ROLES[role_index]
    response = client_for(api, world, role).get(url.format(**ids(world)))
    assert response.status_code == expected[role_index], (role, url, response.content[:300])
    if response.status_code in (401, 404) and url not in ("/api/docs/", "/api/schema/"):
        assert set(response.json()) == {"message", "code", "extra"}


@pytest.mark.parametrize("role", ROLES)
def test_lists_show_only_what_the_role_may_see(api, world, role) -> None:  # noqa: ANN001
    if role == "anonymous":
        return
    client = client_for(api, world, role)
    projects = {p["slug"] for p in client.get("/api/projects/").json()["results"]}
    spans = {s["id"] for s in client.get("/api/spans/").json()["results"]}
    prefs = {p["id"] for p in client.get("/api/preferences/").json()["results"]}
    questions = {q["id"] for q in client.get("/api/questions/").json()["results"]}
    if role == "outsider":
        assert projects == {"other"} and spans == set() and prefs == set()
        assert questions == {world.other_question.pk}
    elif role == "annotator":
        assert projects == {"main"} and spans == {world.span.pk} and prefs == {world.preference.pk}
    elif role == "annotator2":  # blind: only their own span, nobody else's preference
        assert spans == {world.span2.pk} and prefs == set()
    else:
        assert spans == {world.span.pk, world.span2.pk} and prefs == {world.preference.pk}


def test_blind_off_lets_annotators_see_each_other(api, world) -> None:  # noqa: ANN001
    world.project.blind = False
    world.project.save()
    client = client_for(api, world, "annotator2")
    assert client.get(f"/api/spans/{world.span.pk}/").status_code == 200
    assert client.get(f"/api/preferences/{world.preference.pk}/").status_code == 200


def test_annotators_do_not_see_who_wrote_an_answer(api, world) -> None:  # noqa: ANN001
    answer = client_for(api, world, "annotator").get(f"/api/answers/{world.answer1.pk}/").json()
    assert answer["kind"] is None and answer["model_name"] is None
    api.force_authenticate(world.reviewer)
    assert api.get(f"/api/answers/{world.answer1.pk}/").json()["kind"] == "human"


SPAN_CREATE = [401, 201, 201, 400, 403, 201]


@pytest.mark.parametrize("role_index", range(len(ROLES)), ids=ROLES)
def test_span_create(api, world, role_index) -> None:  # noqa: ANN001
    client = client_for(api, world, ROLES[role_index])
    response = client.post(
        "/api/spans/",
        {
            "answer": world.answer2.pk,
            "start": 4,
            "end": 7,
            "quote": "sky",
            "category": "factuality",
            "justification": "Not a reflection.",
        },
        format="json",
    )
    assert response.status_code == SPAN_CREATE[role_index], response.content
    if response.status_code == 400:  # the outsider: the answer is simply not there for them
        assert "answer" in response.json()["extra"]


@pytest.mark.parametrize(
    ("method", "expected"),
    [("patch", [401, 200, 404, 404, 403, 403]), ("delete", [401, 204, 404, 404, 403, 403])],
)
@pytest.mark.parametrize("role_index", range(len(ROLES)), ids=ROLES)
def test_span_change(api, world, method, expected, role_index) -> None:  # noqa: ANN001
    client = client_for(api, world, ROLES[role_index])
    url = f"/api/spans/{world.span.pk}/"
    response = getattr(client, method)(url, {"version": 1, "justification": "Changed."}, format="json")
    assert response.status_code == expected[role_index], response.content
    changed = ErrorSpan.objects.filter(pk=world.span.pk, justification="Wrong.").count() == 0
    assert changed == (response.status_code in (200, 204))


PREF_CREATE = [401, 200, 200, 400, 403, 200]


@pytest.mark.parametrize("role_index", range(len(ROLES)), ids=ROLES)
def test_preference_set(api, world, role_index) -> None:  # noqa: ANN001
    client = client_for(api, world, ROLES[role_index])
    response = client.post(
        "/api/preferences/",
        {"question": world.question.pk, "preferred_answer": world.answer2.pk, "reason": "Concise."},
        format="json",
    )
    assert response.status_code == PREF_CREATE[role_index], response.content


@pytest.mark.parametrize(
    ("route", "expected"),
    [("preferences", [401, 204, 404, 404, 403, 403]), ("verdicts", [401, 204, 404, 404, 403, 403])],
)
@pytest.mark.parametrize("role_index", range(len(ROLES)), ids=ROLES)
def test_withdraw(api, world, route, expected, role_index) -> None:  # noqa: ANN001
    obj = world.preference if route == "preferences" else world.verdict
    response = client_for(api, world, ROLES[role_index]).delete(f"/api/{route}/{obj.pk}/")
    assert response.status_code == expected[role_index], response.content
    model = Preference if route == "preferences" else Verdict
    assert model.objects.filter(pk=obj.pk).exists() == (response.status_code != 204)


VERDICT_SET = [401, 200, 200, 400, 403, 200]


@pytest.mark.parametrize("role_index", range(len(ROLES)), ids=ROLES)
def test_verdict_set(api, world, role_index) -> None:  # noqa: ANN001
    response = client_for(api, world, ROLES[role_index]).post(
        "/api/verdicts/",
        {"atom": world.atom.pk, "target": world.answer2.pk, "label": "not_supported"},
        format="json",
    )
    assert response.status_code == VERDICT_SET[role_index], response.content


@pytest.mark.parametrize("route", ["projects", "questions", "answers"])
def test_read_only_routes_refuse_writes(api, world, route) -> None:  # noqa: ANN001
    api.force_authenticate(world.manager)
    response = api.post(f"/api/{route}/", {}, format="json")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


def test_token_auth(api, world) -> None:  # noqa: ANN001
    f.UserFactory(username="tokenuser")
    response = api.post("/api/auth/token/", {"username": "annotator", "password": "pw-for-tests"})
    assert response.status_code == 200
    api.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert api.get(f"/api/projects/{world.project.pk}/").json()["role"] == "annotator"
    api.credentials(HTTP_AUTHORIZATION="Token wrong")
    assert api.get("/api/projects/").status_code == 401


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"start": 0, "end": 999}, "end"),
        ({"start": 9, "end": 3}, "end"),
        ({"start": -2, "end": 3}, "start"),
        ({"start": 0, "end": 3, "quote": "xyz"}, "quote"),
        ({"category": "typo"}, "category"),
        ({"justification": ""}, "justification"),
        ({"category": "references", "references": ["ftp//nope"]}, "references"),
        ({"answer": 10**9}, "answer"),
        ({"start": "three"}, "start"),
    ],
)
def test_span_create_errors_name_the_field(api, world, payload, field) -> None:  # noqa: ANN001
    api.force_authenticate(world.annotator)
    body = {"answer": world.answer2.pk, "start": 0, "end": 3, "category": "factuality", "justification": "j"}
    response = api.post("/api/spans/", body | payload, format="json")
    assert response.status_code == 400
    data = response.json()
    assert data["code"] == "invalid" and field in data["extra"] and field in data["message"], data


def test_stale_span_update_is_409_and_keeps_the_newer_data(api, world) -> None:  # noqa: ANN001
    api.force_authenticate(world.annotator)
    url = f"/api/spans/{world.span.pk}/"
    first = api.patch(url, {"version": 1, "justification": "From tab A."}, format="json")
    assert first.status_code == 200 and first.json()["version"] == 2
    stale = api.patch(url, {"version": 1, "justification": "From tab B."}, format="json")
    assert stale.status_code == 409
    body = stale.json()
    assert body["code"] == "conflict" and body["extra"]["current_version"] == 2
    assert body["extra"]["current"]["justification"] == "From tab A."
    assert api.get(url).json()["justification"] == "From tab A."
    assert api.delete(url + "?version=1").status_code == 409
    assert api.delete(url + "?version=2").status_code == 204
