"""Verification runs through the services, the command and a real openai client on a scripted server."""

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.choices import RunStatus, Source
from annotation.models import LLMCall, Project, Run, Verdict
from annotation.services import runs
from tests.factcheck.scripted_server import Reply, ScriptedServer, completion

FIXTURE = Path(__file__).parent / "fixtures" / "wikievalfacts_sample.csv"


@pytest.fixture
def project(db):  # noqa: ANN001, ANN201
    call_command(
        "import_dataset",
        "--format",
        "wikievalfacts",
        "--project",
        "wef",
        "--create",
        str(FIXTURE),
        stdout=io.StringIO(),
    )
    return Project.objects.get(slug="wef")


def run_job(*args: str) -> str:
    out = io.StringIO()
    call_command("run_job", "--project", "wef", *args, stdout=out)
    return out.getvalue()


def test_offline_faaf_run_completes_with_offline_verdicts_and_measures(project) -> None:  # noqa: ANN001
    output = run_job("--method", "faaf", "--sync")
    run = Run.objects.get()
    assert run.status == RunStatus.SUCCEEDED and run.model_name == "offline" and run.endpoint == "offline"
    assert run.items_total == run.items_done == 9  # 3 questions x (reference, ungrounded, poor)
    assert run.llm_calls == 9  # FaaF: one call per answer, whatever the number of facts
    assert Verdict.objects.filter(run=run, source=Source.MODEL).count() == 8 * 3
    report = runs.run_report(run=run)
    assert set(report["kinds"]) == {"reference", "ungrounded", "poor"}
    reference = report["kinds"]["reference"]
    assert (
        reference["facts"] == 8 and reference["human_recall"] == 1.0 and reference["error_rate"] is not None
    )
    assert "succeeded: 9 answers done" in output and '"ungrounded"' in output


def test_per_fact_prompting_makes_one_call_per_fact(project) -> None:  # noqa: ANN001
    run_job("--method", "prompt", "--answers", "poor", "--sync")
    run = Run.objects.get()
    assert run.items_total == 3 and run.llm_calls == 8  # 3 + 3 + 2 facts


def test_a_repeated_task_replaces_and_never_duplicates(project) -> None:  # noqa: ANN001
    run = runs.run_start(actor=None, project=project, method="faaf", enqueue=False)
    answer_id = run.parameters["answers"][0]
    runs.run_answer(run_id=run.pk, answer_id=answer_id)
    runs.run_answer(run_id=run.pk, answer_id=answer_id)  # redelivered after a worker died
    assert Verdict.objects.filter(run=run).count() == 3
    assert Run.objects.get(pk=run.pk).items_done == 1


def test_no_reference_facts_is_a_clear_error(db) -> None:  # noqa: ANN001
    Project.objects.create(name="Empty", slug="wef")
    with pytest.raises(CommandError, match="no reference facts"):
        run_job("--method", "faaf", "--sync")


def faaf_reply(payload: dict) -> Reply:
    facts = payload["tools"][0]["function"]["parameters"]["properties"]
    answer = payload["messages"][0]["content"]
    values = {name: "True" if "Ada" in answer or "1969" in answer else "False" for name in facts}
    return Reply(body=completion(arguments=json.dumps(values), prompt_tokens=200, completion_tokens=30))


def test_endpoint_run_one_call_per_answer_tokens_and_cache_on_rerun(project, settings) -> None:  # noqa: ANN001
    with ScriptedServer(handler=faaf_reply) as server:
        settings.LLM_BASE_URL = server.url
        settings.LLM_MODEL = "scripted-model"
        run_job("--method", "faaf", "--variant", "tfn", "--sync")
        first = Run.objects.get()
        assert first.model_name == "scripted-model" and first.status == RunStatus.SUCCEEDED
        assert len(server.requests) == 9 and first.llm_calls == 9 and first.cache_hits == 0
        assert first.prompt_tokens == 9 * 200 and first.completion_tokens == 9 * 30
        assert LLMCall.objects.count() == 9
        run_job("--method", "faaf", "--variant", "tfn", "--sync")
        second = Run.objects.exclude(pk=first.pk).get()
        assert len(server.requests) == 9  # nothing new was sent
        assert second.cache_hits == 9 and second.llm_calls == 0 and second.prompt_tokens == 0
        same = {(v.atom_id, v.target_id, v.label) for v in Verdict.objects.filter(run=first)}
        assert same == {(v.atom_id, v.target_id, v.label) for v in Verdict.objects.filter(run=second)}


def test_malformed_replies_are_na_with_the_raw_reply_kept(project, settings) -> None:  # noqa: ANN001
    with ScriptedServer(default=Reply(body=completion(content="I think they are all true."))) as server:
        settings.LLM_BASE_URL = server.url
        run_job("--method", "faaf", "--answers", "reference", "--sync")
    run = Run.objects.get()
    verdicts = Verdict.objects.filter(run=run)
    assert verdicts.count() == 8 and not verdicts.filter(valid=True).exists()
    assert run.items_na == 8 and verdicts.first().rationale == "the reply is not a function call"
    assert runs.run_report(run=run)["kinds"]["reference"]["na"] == 8


def test_an_endpoint_that_keeps_failing_marks_the_answers_failed(project, settings) -> None:  # noqa: ANN001
    with ScriptedServer(default=Reply(status=400, body={"error": {"message": "no tools here"}})) as server:
        settings.LLM_BASE_URL = server.url
        run_job("--method", "faaf", "--answers", "poor", "--sync")
    run = Run.objects.get()
    assert run.status == RunStatus.FAILED and run.items_failed == 3
    assert "refused the request (400)" in next(iter(run.result["failures"].values()))


def test_run_from_the_project_page_and_its_page(client, project, django_capture_on_commit_callbacks) -> None:  # noqa: ANN001
    from annotation.choices import Role
    from annotation.tasks import run_answer_task
    from tests import factories as f

    manager = f.member(project, Role.MANAGER, "boss")
    annotator = f.member(project, Role.ANNOTATOR, "ann")
    client.force_login(manager)
    page = client.get("/projects/wef/").content.decode()
    assert 'id="run-form"' in page
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post(
            "/projects/wef/runs/",
            {"method": "faaf", "variant": "tfn", "citation": "on", "answers": ["reference", "poor"]},
        )
    assert response.status_code == 302
    run = Run.objects.get()
    assert run.items_total == 6 and len(callbacks) == 1 and run.parameters["citation"] is True
    for answer_id in run.parameters["answers"]:
        run_answer_task.run(run.pk, answer_id)  # what the workers do
    page = client.get(f"/projects/wef/runs/{run.pk}/").content.decode()
    assert "Succeeded" in page and 'id="run-measures"' in page and "offline backend" in page
    assert "<td>reference</td>" in page and "Michael Collins stayed in lunar orbit." in page
    assert 'class="hl hl-citation"' in page  # the offline backend cites the sentence it used
    client.force_login(annotator)
    assert client.post("/projects/wef/runs/", {"method": "faaf"}).status_code == 403
    assert 'id="run-form"' not in client.get("/projects/wef/").content.decode()
    assert client.get(f"/projects/wef/runs/{run.pk}/").status_code == 200


def test_api_starts_and_cancels_a_run(api, project) -> None:  # noqa: ANN001
    from annotation.choices import Role
    from tests import factories as f

    manager = f.member(project, Role.MANAGER, "boss")
    outsider = f.member(f.ProjectFactory(), Role.MANAGER, "other")
    api.force_authenticate(manager)
    response = api.post(
        "/api/runs/", {"project": project.pk, "method": "prompt", "answer_kinds": ["poor"]}, format="json"
    )
    assert response.status_code == 201 and response.json()["items_total"] == 3
    run_id = response.json()["id"]
    response = api.post(f"/api/runs/{run_id}/cancel/")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    assert api.post(f"/api/runs/{run_id}/cancel/").status_code == 409
    response = api.post("/api/runs/", {"project": project.pk, "method": "magic"}, format="json")
    assert response.status_code == 400 and "method" in response.json()["extra"]
    api.force_authenticate(outsider)
    response = api.post("/api/runs/", {"project": project.pk, "method": "faaf"}, format="json")
    assert response.status_code == 400 and "project" in response.json()["extra"]  # not visible to them
    assert api.post(f"/api/runs/{run_id}/cancel/").status_code == 404


def test_a_cancelled_run_does_no_more_work(project) -> None:  # noqa: ANN001
    run = runs.run_start(actor=None, project=project, method="faaf", enqueue=False)
    Run.objects.filter(pk=run.pk).update(status=RunStatus.CANCELLED)
    runs.run_answer(run_id=run.pk, answer_id=run.parameters["answers"][0])
    assert not Verdict.objects.filter(run=run).exists()


def test_endpoint_without_tools_and_the_estimated_cost(client, project, settings) -> None:  # noqa: ANN001
    from annotation.choices import Role
    from tests import factories as f

    def reply(payload: dict) -> Reply:
        assert "tools" not in payload
        return Reply(
            body=completion(
                content=json.dumps({"fact_0": "True", "fact_1": "False", "fact_2": "True"}),
                prompt_tokens=1000,
                completion_tokens=100,
            )
        )

    with ScriptedServer(handler=reply) as server:
        settings.LLM_BASE_URL = server.url
        settings.LLM_SUPPORTS_TOOLS = False
        settings.LLM_PRICE_PROMPT_PER_1K = 0.01
        settings.LLM_PRICE_COMPLETION_PER_1K = 0.03
        run_job("--method", "faaf", "--answers", "poor", "--sync")
    run = Run.objects.get()
    assert Verdict.objects.filter(run=run, valid=True).count() == 8  # 3 + 3 + 2 facts parsed from JSON
    assert runs.estimated_cost(run) == pytest.approx(3 * (0.01 + 0.003))
    client.force_login(f.member(project, Role.REVIEWER, "rev"))
    assert 'id="run-cost"' in client.get(f"/projects/wef/runs/{run.pk}/").content.decode()


def test_retry_na_asks_once_more_and_counts_it(project, settings) -> None:  # noqa: ANN001
    answers: list = []

    def reply(payload: dict) -> Reply:
        answers.append(payload)
        if len(payload["messages"]) == 1:
            return Reply(body=completion(content="No function call, sorry."))
        names = payload["tools"][0]["function"]["parameters"]["properties"]
        return Reply(body=completion(arguments=json.dumps(dict.fromkeys(names, "True"))))

    with ScriptedServer(handler=reply) as server:
        settings.LLM_BASE_URL = server.url
        run_job("--method", "faaf", "--answers", "reference", "--retry-na", "--sync")
    run = Run.objects.get()
    assert run.result["na_retries"] == 3 and run.llm_calls == 6
    assert not Verdict.objects.filter(run=run, valid=False).exists()
    assert "could not be used (the reply is not a function call)" in answers[1]["messages"][1]["content"]


def test_atomic_facts_run_with_offsets_and_the_paper_demonstrations(project, settings) -> None:  # noqa: ANN001
    from annotation.models import Atom

    prompts: list = []

    def reply(payload: dict) -> Reply:
        prompts.append(payload["messages"][0]["content"])
        sentence = payload["messages"][0]["content"].rsplit("independent facts: ", 1)[1].strip()
        return Reply(body=completion(content=f"- {sentence}\n- Something not in the text."))

    with ScriptedServer(handler=reply) as server:
        settings.LLM_BASE_URL = server.url
        out = run_job("--method", "atomize", "--answers", "poor", "--sync")
        run_job(
            "--method", "atomize", "--answers", "poor", "--sync", "--no-cache"
        )  # another run, its own atoms
    run = Run.objects.order_by("id").first()
    assert run.kind == "atomize" and run.status == RunStatus.SUCCEEDED and run.items_done == 3
    assert "McCoy played for the Jacksonville Jaguars during his professional career." in prompts[0]
    atoms = list(Atom.objects.filter(run=run).select_related("answer").order_by("answer_id", "position"))
    assert len(prompts) == 6 and len(atoms) == 6 and "facts made" in out  # per run: 3 sentences, 2 facts each
    first, second = atoms[0], atoms[1]
    assert first.answer.text[first.start : first.end] == first.text  # found in the text: its own offsets
    assert (second.start, second.end) == (first.start, first.end)  # not found: its sentence's offsets
    assert Atom.objects.filter(run=run).count() == len(atoms)
    assert Atom.objects.filter(run__kind="atomize").count() == 2 * len(atoms)


def test_generated_reference_facts_are_verified_when_none_were_imported(project) -> None:  # noqa: ANN001
    from annotation.models import Atom

    Atom.objects.filter(run__isnull=True).delete()  # as if the dataset had no facts
    with pytest.raises(CommandError, match="run --method facts"):
        run_job("--method", "faaf", "--sync")
    run_job("--method", "facts", "--sync")  # offline: the reference answers' sentences
    facts_run = Run.objects.get(kind="reference_facts")
    assert facts_run.status == RunStatus.SUCCEEDED and facts_run.items_total == 3
    assert Atom.objects.filter(run=facts_run, origin="reference").count() == 3
    run_job("--method", "faaf", "--sync")
    verify = Run.objects.get(kind="verify")
    assert verify.status == RunStatus.SUCCEEDED and verify.items_done == 9
    assert Verdict.objects.filter(run=verify).count() == 3 * 3


def test_api_starts_a_fact_making_run(api, project) -> None:  # noqa: ANN001
    from annotation.choices import Role
    from tests import factories as f

    api.force_authenticate(f.member(project, Role.MANAGER, "boss"))
    response = api.post(
        "/api/runs/", {"project": project.pk, "method": "atomize", "answer_kinds": ["poor"]}, format="json"
    )
    assert response.status_code == 201 and response.json()["kind"] == "atomize"


def test_precision_set_up_verifies_own_atoms_against_a_given_passage(project, tmp_path) -> None:  # noqa: ANN001
    from annotation.models import Passage

    with pytest.raises(CommandError, match="run --method atomize first"):
        passage = tmp_path / "passage.txt"
        passage.write_text("Ice is less dense than liquid water. It floats.", encoding="utf-8")
        run_job("--method", "faaf", "--passage", str(passage), "--sync")
    run_job("--method", "atomize", "--answers", "poor", "--sync")  # offline: the answers' clauses
    out = run_job("--method", "faaf", "--answers", "poor", "--passage", str(passage), "--sync")
    run = Run.objects.get(kind="verify")
    assert run.parameters["setup"] == "precision" and run.status == RunStatus.SUCCEEDED
    assert run.items_done == run.items_total == 3 and '"poor"' in out
    verdicts = Verdict.objects.filter(run=run).select_related("atom")
    assert verdicts.count() == 3 and all(v.target_id is None for v in verdicts)
    assert {v.passage_id for v in verdicts} == {Passage.objects.get(title=f"Given for run {run.pk}").pk}
    floats = next(v for v in verdicts if v.atom.text == "Because it is light.")
    assert floats.label == "not_supported"
    empty = tmp_path / "empty.txt"
    empty.write_text("  ")
    with pytest.raises(CommandError, match="is empty"):
        run_job("--method", "faaf", "--passage", str(empty), "--sync")


def test_precision_run_from_the_project_page(client, project, django_capture_on_commit_callbacks) -> None:  # noqa: ANN001
    from annotation.choices import Role
    from tests import factories as f

    run_job("--method", "atomize", "--answers", "reference", "--sync")
    client.force_login(f.member(project, Role.MANAGER, "boss"))
    with django_capture_on_commit_callbacks(execute=False):
        response = client.post(
            "/projects/wef/runs/",
            {"method": "faaf", "answers": ["reference"], "passage": "Apollo 11 landed in 1969."},
        )
    assert response.status_code == 302
    run = Run.objects.get(kind="verify")
    assert run.parameters["setup"] == "precision" and run.items_total == 3


def test_a_named_endpoint_with_its_key_from_the_environment_and_its_pace(project, monkeypatch) -> None:  # noqa: ANN001
    import time

    from annotation.models import LLMEndpoint

    monkeypatch.setenv("MY_TEAM_KEY", "sk-secret-123")
    with ScriptedServer(handler=faaf_reply) as server:
        LLMEndpoint.objects.create(
            project=project,
            name="team-vllm",
            base_url=server.url,
            model_name="llama-test",
            api_key_env="MY_TEAM_KEY",
            requests_per_minute=600,
            price_prompt_per_1k=0.5,
        )
        started = time.monotonic()
        run_job("--method", "faaf", "--endpoint", "team-vllm", "--answers", "poor", "--sync")
        elapsed = time.monotonic() - started
    run = Run.objects.get()
    assert (
        run.endpoint == "team-vllm" and run.model_name == "llama-test" and run.status == RunStatus.SUCCEEDED
    )
    assert server.authorizations == ["Bearer sk-secret-123"] * 3
    assert {r["model"] for r in server.requests} == {"llama-test"}
    assert elapsed >= 0.2  # 600 a minute: three requests at least 0.1 s apart
    assert runs.estimated_cost(run) == pytest.approx(3 * 200 / 1000 * 0.5)
    with pytest.raises(
        CommandError, match="No endpoint 'nope' in this project; use one of: offline, default, team-vllm"
    ):
        run_job("--method", "faaf", "--endpoint", "nope", "--sync")


def test_atomize_with_the_reviser_keeps_the_original(project) -> None:  # noqa: ANN001
    from annotation.factcheck.revise import offline_revision
    from annotation.models import Answer, Atom

    assert offline_revision("She was born in 1815.", "Ada Lovelace was a mathematician.") == (
        "Ada Lovelace was born in 1815."
    )
    assert (
        offline_revision("Her father was Byron.", "Ada Lovelace wrote notes.")
        == "Ada Lovelace's father was Byron."
    )
    assert offline_revision("Paris is big.", "Ada Lovelace.") == "Paris is big."
    answer = Answer.objects.filter(kind="poor").first()
    answer.text = "Ada Lovelace wrote the notes. She was born in 1815."
    answer.save()
    run_job("--method", "atomize", "--answers", "poor", "--revise", "--sync")
    revised = Atom.objects.get(answer=answer, original_text="She was born in 1815.")
    assert revised.text == "Ada Lovelace was born in 1815." and revised.run.parameters["revise"] is True


def test_managers_configure_endpoints_on_the_project_page(client, project) -> None:  # noqa: ANN001
    from annotation.choices import Role
    from annotation.models import LLMEndpoint
    from tests import factories as f

    client.force_login(f.member(project, Role.MANAGER, "boss"))
    form = {
        "name": "team-vllm",
        "base_url": "http://gpu-host:8000/v1",
        "model_name": "llama",
        "api_key_env": "TEAM_KEY",
        "max_concurrency": "8",
        "requests_per_minute": "120",
        "supports_tools": "on",
    }
    response = client.post("/projects/wef/endpoints/", form, follow=True)
    assert b"Endpoint team-vllm saved." in response.content
    endpoint = LLMEndpoint.objects.get(project=project, name="team-vllm")
    assert (endpoint.max_concurrency, endpoint.requests_per_minute, endpoint.api_key_env) == (
        8,
        120,
        "TEAM_KEY",
    )
    assert '<option value="team-vllm">' in client.get("/projects/wef/").content.decode()
    response = client.post("/projects/wef/endpoints/", form | {"name": "offline"}, follow=True)
    assert b"is reserved" in response.content
    response = client.post("/projects/wef/endpoints/", form | {"base_url": "not a url"}, follow=True)
    assert b"base_url" in response.content and LLMEndpoint.objects.count() == 1
    client.force_login(f.member(project, Role.ANNOTATOR, "ann"))
    assert client.post("/projects/wef/endpoints/", form).status_code == 403


@pytest.mark.parametrize("n", [1, 4])
def test_latest_generated_facts_per_question_and_answer_in_constant_queries(
    db, n, django_assert_num_queries
) -> None:  # noqa: ANN001
    from annotation.choices import AnswerKind, RunKind
    from annotation.models import Atom
    from tests import factories as f

    p = f.ProjectFactory()
    answers = []
    for i in range(n):
        answer = f.AnswerFactory(question=f.QuestionFactory(project=p), kind=AnswerKind.REFERENCE)
        answers.append(answer)
        for kind, origin in ((RunKind.REFERENCE_FACTS, "reference"), (RunKind.ATOMIZE, "extracted")):
            older = f.RunFactory(project=p, kind=kind, status=RunStatus.SUCCEEDED)
            Atom.objects.create(answer=answer, run=older, position=0, text=f"old {i}", origin=origin)
            # Each answer's latest run is a different one: every question must still get its own facts.
            newer = f.RunFactory(project=p, kind=kind, status=RunStatus.SUCCEEDED)
            Atom.objects.create(answer=answer, run=newer, position=0, text=f"new {i}", origin=origin)
        failed = f.RunFactory(project=p, kind=RunKind.ATOMIZE, status=RunStatus.FAILED)
        Atom.objects.create(answer=answer, run=failed, position=0, text=f"failed {i}", origin="extracted")
    with django_assert_num_queries(2):
        facts = [a.text for a in runs.reference_atoms([a.question_id for a in answers])]
    with django_assert_num_queries(2):
        own = [a.text for a in runs.own_atoms([a.pk for a in answers])]
    assert facts == own == [f"new {i}" for i in range(n)]
