"""Verification runs: start, one task per answer (idempotent), progress, cancel, and the FaaF measures.

The recall set-up (FaaF): the reference facts of a question are verified against each of its answers,
the reference answer included. A run on an endpoint caches every call (LLMCall, content-addressed), so a
re-run costs nothing and gives the same verdicts; with no endpoint the offline backend answers.
"""

from __future__ import annotations

import logging
import os
from collections import defaultdict
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from annotation import permissions
from annotation.choices import (
    FINISHED_RUN_STATUSES,
    AnswerKind,
    AtomOrigin,
    RunKind,
    RunStatus,
    Source,
    VerdictLabel,
)
from annotation.errors import Conflict, ValidationFailed
from annotation.factcheck import atomize, faaf, metrics, prompting, revise
from annotation.factcheck import facts as facts_prompt
from annotation.factcheck.llm import OFFLINE_MODEL, Endpoint, LLMClient, LLMError, LLMResponse, OpenAIClient
from annotation.factcheck.offline import OfflineBackend
from annotation.factcheck.text import locate
from annotation.models import (
    Answer,
    Atom,
    KnowledgeSource,
    LLMCall,
    LLMEndpoint,
    Passage,
    Project,
    Run,
    Verdict,
)
from annotation.services.audit import audit_record

logger = logging.getLogger(__name__)

METHODS = {"faaf": "Facts as a Function: all facts in one function call", "prompt": "One prompt per fact"}
#: Runs that make facts rather than verify them.
FACT_METHODS = {"atomize": RunKind.ATOMIZE, "facts": RunKind.REFERENCE_FACTS}
#: What the project page offers.
METHOD_CHOICES = METHODS | {
    "atomize": "Atomic facts of answers (FActScore)",
    "facts": "Reference facts from reference answers (FaaF)",
}
VARIANTS = {"tf": "True / False", "tfn": "True / False / not clear"}
PROMPT_VERSION = "faaf-2024"


# --- The LLM behind a run -----------------------------------------------------------------------------


class DatabaseCache:
    """LLMCall rows as the client's cache."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id

    def get(self, key: str) -> dict[str, Any] | None:
        call = LLMCall.objects.filter(key=key, status="ok").values("response").first()
        return call["response"] if call else None

    def put(self, key: str, request: dict[str, Any], response: dict[str, Any], latency_ms: int) -> None:
        try:
            with transaction.atomic():
                LLMCall.objects.get_or_create(
                    key=key,
                    defaults={
                        "run_id": self.run_id,
                        "endpoint": settings.LLM_BASE_URL,
                        "model_name": request.get("model", ""),
                        "request": request,
                        "response": response,
                        "latency_ms": latency_ms,
                        "prompt_tokens": response.get("prompt_tokens", 0),
                        "completion_tokens": response.get("completion_tokens", 0),
                    },
                )
        except IntegrityError:  # another worker stored the same call first
            pass


def _record(
    run_id: int, key: str, payload: dict, response: LLMResponse | None, error: Exception | None, cached: bool
) -> None:
    """Count every call on its run: calls made, cache hits, tokens."""
    if cached:
        Run.objects.filter(pk=run_id).update(cache_hits=F("cache_hits") + 1)
        return
    tokens = (response.prompt_tokens, response.completion_tokens) if response else (0, 0)
    Run.objects.filter(pk=run_id).update(
        llm_calls=F("llm_calls") + 1,
        prompt_tokens=F("prompt_tokens") + tokens[0],
        completion_tokens=F("completion_tokens") + tokens[1],
    )


class _CountingOffline(OfflineBackend):
    def __init__(self, run_id: int) -> None:
        self.run_id = run_id

    def complete(self, request: Any) -> LLMResponse:
        response = super().complete(request)
        _record(self.run_id, "", {}, response, None, False)
        return response


def configured_endpoint() -> Endpoint | None:
    """The endpoint from the settings (LLM_BASE_URL ...), or None: the offline backend."""
    if not settings.LLM_BASE_URL:
        return None
    return Endpoint(
        name="default",
        base_url=settings.LLM_BASE_URL,
        model=settings.LLM_MODEL or "default",
        api_key=settings.LLM_API_KEY,
        max_concurrency=settings.LLM_MAX_CONCURRENCY,
        timeout=float(settings.LLM_TIMEOUT),
        supports_tools=settings.LLM_SUPPORTS_TOOLS,
        price_prompt_per_1k=settings.LLM_PRICE_PROMPT_PER_1K,
        price_completion_per_1k=settings.LLM_PRICE_COMPLETION_PER_1K,
    )


def estimated_cost(run: Run) -> float | None:
    """What the run's calls cost at its endpoint's prices, or None when no price is configured."""
    if run.endpoint == OFFLINE_MODEL:
        return None
    named = named_endpoint(run.project, run.endpoint) if run.endpoint != "default" else None
    prices = (
        (named.price_prompt_per_1k, named.price_completion_per_1k)
        if named
        else (settings.LLM_PRICE_PROMPT_PER_1K, settings.LLM_PRICE_COMPLETION_PER_1K)
    )
    if not any(prices):
        return None
    return round(run.prompt_tokens / 1000 * prices[0] + run.completion_tokens / 1000 * prices[1], 4)


def named_endpoint(project: Project, name: str) -> Endpoint | None:
    """A project's named endpoint (LLMEndpoint), with its key read from the environment variable it names."""
    row = LLMEndpoint.objects.filter(project=project, name=name).first()
    if row is None:
        return None
    return Endpoint(
        name=row.name,
        base_url=row.base_url,
        model=row.model_name,
        api_key=os.environ.get(row.api_key_env, "") if row.api_key_env else "",
        max_concurrency=row.max_concurrency,
        timeout=float(row.timeout),
        supports_tools=row.supports_tools,
        requests_per_minute=row.requests_per_minute,
        price_prompt_per_1k=row.price_prompt_per_1k,
        price_completion_per_1k=row.price_completion_per_1k,
    )


def endpoint_for(project: Project, name: str | None) -> Endpoint | None:
    """The endpoint a run uses: a named one, "default" (the settings' LLM_BASE_URL), or None (offline).
    With no name: the default endpoint when one is configured, else offline."""
    if name in (None, ""):
        return configured_endpoint()
    if name == OFFLINE_MODEL:
        return None
    if name == "default":
        endpoint = configured_endpoint()
        if endpoint is None:
            raise ValidationFailed.from_fields(
                {"endpoint": ["No default endpoint: LLM_BASE_URL is not set."]}
            )
        return endpoint
    endpoint = named_endpoint(project, name)
    if endpoint is None:
        names = ", ".join(
            [
                "offline",
                "default",
                *LLMEndpoint.objects.filter(project=project).values_list("name", flat=True),
            ]
        )
        raise ValidationFailed.from_fields(
            {"endpoint": [f"No endpoint {name!r} in this project; use one of: {names}."]}
        )
    return endpoint


def client_for(run: Run) -> LLMClient:
    if run.endpoint == OFFLINE_MODEL:
        return _CountingOffline(run.pk)
    endpoint = (
        named_endpoint(run.project, run.endpoint) if run.endpoint != "default" else configured_endpoint()
    )
    if endpoint is None:
        raise LLMError(f"The run's endpoint {run.endpoint!r} is not configured any more.")
    cache = DatabaseCache(run.pk) if run.parameters.get("cache", True) else None
    return OpenAIClient(endpoint, cache=cache, recorder=lambda *args: _record(run.pk, *args))


# --- Starting and running --------------------------------------------------------------------------------


def _latest_run_atoms(kind: str, key: str, keys: list[int]) -> QuerySet[Atom]:
    """For each of ``keys`` (values of the atom lookup ``key``), the atoms of the latest successful ``kind``
    run that made atoms for it, in one query."""
    made = Atom.objects.filter(run__kind=kind, run__status=RunStatus.SUCCEEDED)
    latest = made.filter(**{key: OuterRef(key)}).order_by("-run__finished_at", "-run_id").values("run_id")[:1]
    return made.filter(**{f"{key}__in": keys}).filter(run_id=Subquery(latest))


def reference_atoms(question_ids: list[int]) -> QuerySet[Atom]:
    """The reference facts of these questions: the imported ones (no run) where a question has them, else
    those of the latest successful reference-facts run for that question."""
    imported = Atom.objects.filter(
        answer__question_id__in=question_ids, origin=AtomOrigin.REFERENCE, run__isnull=True
    )
    have = set(imported.values_list("answer__question_id", flat=True))
    missing = [q for q in question_ids if q not in have]
    generated = _latest_run_atoms(RunKind.REFERENCE_FACTS, "answer__question_id", missing)
    return (imported | generated).order_by("answer__question_id", "answer_id", "position", "id")


def own_atoms(answer_ids: list[int]) -> QuerySet[Atom]:
    """Each answer's own atomic facts: imported ones (no run), else the latest successful atomize run's."""
    imported = Atom.objects.filter(answer_id__in=answer_ids, origin=AtomOrigin.EXTRACTED, run__isnull=True)
    have = set(imported.values_list("answer_id", flat=True))
    generated = _latest_run_atoms(RunKind.ATOMIZE, "answer_id", [a for a in answer_ids if a not in have])
    return (imported | generated).order_by("answer_id", "position", "id")


def _answers_in_scope(
    project: Project, kinds: list[str] | None, *, run_kind: str = RunKind.VERIFY, precision: bool = False
) -> list[int]:
    """The answers a run works on: for verification, answers of questions with reference facts (the
    recall set-up) or, given a passage, answers with their own atoms (the precision set-up); for atomic
    facts, every answer; for reference facts, reference answers."""
    answers = Answer.objects.filter(question__project=project)
    if kinds:
        answers = answers.filter(kind__in=kinds)
    if run_kind == RunKind.VERIFY and precision:
        candidates = list(answers.values_list("pk", flat=True))
        answers = answers.filter(pk__in=set(own_atoms(candidates).values_list("answer_id", flat=True)))
    elif run_kind == RunKind.VERIFY:
        questions = list(
            Answer.objects.filter(question__project=project).values_list("question_id", flat=True).distinct()
        )
        with_facts = set(reference_atoms(questions).values_list("answer__question_id", flat=True))
        answers = answers.filter(question_id__in=with_facts)
    elif run_kind == RunKind.REFERENCE_FACTS:
        answers = answers.filter(kind=AnswerKind.REFERENCE)
    return list(answers.order_by("question_id", "position", "id").values_list("pk", flat=True).distinct())


def run_start(
    *,
    actor: Any,
    project: Project,
    method: str,
    variant: str = "tf",
    citation: bool = False,
    answer_kinds: list[str] | None = None,
    use_cache: bool = True,
    retry_na: bool = False,
    passage: str = "",
    endpoint: str | None = None,
    revise_atoms: bool = False,
    enqueue: bool = True,
) -> Run:
    """Start a verification run: one task per answer, enqueued after commit. With ``retry_na`` a FaaF call
    whose reply cannot be used is asked once more (counted in ``result["na_retries"]``)."""
    if actor is not None:
        permissions.require_manager(actor, project, "start runs")
    errors: dict[str, list[str]] = {}
    if method not in METHODS and method not in FACT_METHODS:
        errors["method"] = [f"Unknown method {method!r}; use one of: {', '.join([*METHODS, *FACT_METHODS])}."]
    if variant not in VARIANTS:
        errors["variant"] = [f"Unknown variant {variant!r}; use one of: {', '.join(VARIANTS)}."]
    if citation and method != "faaf":
        errors["citation"] = ["Citations are a FaaF option."]
    if errors:
        raise ValidationFailed.from_fields(errors)
    run_kind = FACT_METHODS.get(method, RunKind.VERIFY)
    precision = bool(passage.strip()) and run_kind == RunKind.VERIFY
    answer_ids = _answers_in_scope(project, answer_kinds, run_kind=run_kind, precision=precision)
    if not answer_ids:
        among = f" among answers of kinds {', '.join(answer_kinds)}" if answer_kinds else ""
        if run_kind == RunKind.REFERENCE_FACTS:
            message = f"No reference answers{among} to make facts from."
        elif run_kind != RunKind.VERIFY:
            message = f"No answers{among} in this project."
        elif precision:
            message = f"No answers to verify{among}: no answer has atomic facts (run --method atomize first)."
        else:
            message = (
                f"No answers to verify{among}: this project has no reference facts (import WikiEvalFacts, "
                "or run --method facts on reference answers first)."
            )
        raise ValidationFailed.from_fields({"answers": [message]})
    chosen = endpoint_for(project, endpoint)
    with transaction.atomic():
        run = Run.objects.create(
            project=project,
            kind=run_kind,
            method=method,
            variant=variant,
            endpoint=chosen.name if chosen else OFFLINE_MODEL,
            model_name=chosen.model if chosen else OFFLINE_MODEL,
            prompt_version=PROMPT_VERSION,
            parameters={
                "citation": citation,
                "answer_kinds": answer_kinds or [],
                "cache": use_cache,
                "retry_na": retry_na,
                "revise": revise_atoms,
                "setup": "precision" if precision else "recall",
                "answers": answer_ids,
            },
            items_total=len(answer_ids),
            created_by=actor if getattr(actor, "is_authenticated", False) else None,
        )
        if precision:
            source, _ = KnowledgeSource.objects.get_or_create(project=project, name="Passages given for runs")
            given = Passage.objects.create(source=source, title=f"Given for run {run.pk}", text=passage)
            run.parameters = {**run.parameters, "passage": given.pk}
            run.save(update_fields=["parameters"])
        audit_record(
            actor=actor,
            action="run.start",
            obj=run,
            project=project,
            after={"method": method, "variant": variant, "answers": len(answer_ids)},
        )
        if enqueue:
            from annotation.tasks import run_answer_task

            transaction.on_commit(lambda: [run_answer_task.delay(run.pk, a) for a in answer_ids])
    return run


def run_answer(*, run_id: int, answer_id: int, final_attempt: bool = True) -> None:
    """Verify the reference facts of ``answer_id``'s question against it (recall), or its own atoms against
    the run's passage (precision). Safe to repeat: verdicts are written on their unique key (run, atom,
    target), so a redelivered task replaces, never duplicates."""
    run = Run.objects.filter(pk=run_id).first()
    if run is None or run.status in (RunStatus.CANCELLED,):
        return
    Run.objects.filter(pk=run_id, status=RunStatus.PENDING).update(
        status=RunStatus.RUNNING, started_at=timezone.now()
    )
    answer = Answer.objects.select_related("question").get(pk=answer_id)
    if run.kind != RunKind.VERIFY:
        _make_facts(run, answer, final_attempt=final_attempt)
        return
    precision = run.parameters.get("setup") == "precision"
    if precision:  # the answer's own atoms against the passage the user gave
        given = Passage.objects.get(pk=run.parameters["passage"])
        atoms, evidence, target = list(own_atoms([answer.pk])), given.text, None
    else:  # the question's reference facts against this answer
        given, atoms, evidence, target = (
            None,
            list(reference_atoms([answer.question_id])),
            answer.text,
            answer,
        )
    facts = [a.text for a in atoms]
    try:
        results, failure, raw = _verify(run, facts, evidence)
    except LLMError as exc:
        if exc.transient and not final_attempt:
            raise
        _fail(run, answer_id, str(exc))
        run_progress_refresh(run_id=run_id)
        return
    with transaction.atomic():
        for atom, result in zip(atoms, results, strict=True):
            start_end = locate(evidence, result.citation) if result.citation else None
            Verdict.objects.update_or_create(
                run=run,
                atom=atom,
                target=target,
                defaults={
                    "passage": given,
                    "source": Source.MODEL,
                    "label": None
                    if not result.valid
                    else (VerdictLabel.SUPPORTED if result.supported else VerdictLabel.NOT_SUPPORTED),
                    "valid": result.valid,
                    "raw_value": result.raw if result.valid else raw,
                    "rationale": failure,
                    "evidence_quote": result.citation,
                    "evidence_start": start_end[0] if start_end else None,
                    "evidence_end": start_end[1] if start_end else None,
                },
            )
    run_progress_refresh(run_id=run_id)


def _verify(run: Run, facts: list[str], passage: str) -> tuple[list[faaf.FactResult], str, str]:
    """(results, why the call is N/A or "", the raw reply kept for N/A verdicts)."""
    client = client_for(run)
    citation = bool(run.parameters.get("citation"))
    if not facts:
        return [], "", ""
    if run.method == "faaf":
        endpoint = getattr(client, "endpoint", None)
        tools = endpoint.supports_tools if endpoint is not None else True
        response = client.complete(
            faaf.request(facts, passage, variant=run.variant, citation=citation, use_tools=tools)
        )
        results, failure = faaf.parse(
            response, facts, variant=run.variant, citation=citation, use_tools=tools
        )
        if failure and run.parameters.get("retry_na"):
            # Off by default (the paper allows one attempt): ask once more, saying what was wrong.
            _count_retry(run)
            again = faaf.request(facts, passage, variant=run.variant, citation=citation, use_tools=tools)
            again.messages.append({"role": "user", "content": faaf.RETRY.format(reason=failure)})
            response = client.complete(again)
            results, failure = faaf.parse(
                response, facts, variant=run.variant, citation=citation, use_tools=tools
            )
        return results, failure, (response.tool_arguments or response.content or "")[:5000]
    responses = client.complete_many(prompting.request(fact, passage) for fact in facts)
    results = []
    for fact, response in zip(facts, responses, strict=True):
        if isinstance(response, LLMError):
            raise response
        results.append(prompting.parse(response, fact))
    return results, "", ""


def _make_facts(run: Run, answer: Answer, *, final_attempt: bool) -> None:
    """Atomic facts of the answer (FActScore), or reference facts of a reference answer (FaaF), as Atoms of
    the run. Repeating it replaces the answer's atoms of this run."""
    client = client_for(run)
    try:
        if run.kind == RunKind.ATOMIZE:
            made = [
                (f.text, f.start, f.end, f.text) for f in atomize.atomic_facts(answer.text, client.complete)
            ]
            origin = AtomOrigin.EXTRACTED
            if run.parameters.get("revise"):  # FactReasoner's reviser: the atom made to stand on its own
                made = [
                    (revise.parse(client.complete(revise.request(text, answer.text)), text), start, end, text)
                    for text, start, end, _ in made
                ]
        else:
            response = client.complete(facts_prompt.request(answer.question.text, answer.text))
            made = [
                (
                    fact,
                    *((found[0], found[1]) if (found := locate(answer.text, fact)) else (None, None)),
                    fact,
                )
                for fact in facts_prompt.parse(response)
            ]
            origin = AtomOrigin.REFERENCE
    except LLMError as exc:
        if exc.transient and not final_attempt:
            raise
        _fail(run, answer.pk, str(exc))
        run_progress_refresh(run_id=run.pk)
        return
    with transaction.atomic():
        Atom.objects.filter(run=run, answer=answer).delete()
        Atom.objects.bulk_create(
            Atom(
                answer=answer,
                run=run,
                position=i,
                text=text,
                original_text=original,
                start=start,
                end=end,
                origin=origin,
            )
            for i, (text, start, end, original) in enumerate(made)
        )
        current = Run.objects.select_for_update().get(pk=run.pk)
        done = sorted(set(current.result.get("done", [])) | {answer.pk})
        current.result = {**current.result, "done": done}
        current.save(update_fields=["result"])
    run_progress_refresh(run_id=run.pk)


def _count_retry(run: Run) -> None:
    with transaction.atomic():
        current = Run.objects.select_for_update().get(pk=run.pk)
        current.result = {**current.result, "na_retries": current.result.get("na_retries", 0) + 1}
        current.save(update_fields=["result"])


def _fail(run: Run, answer_id: int, message: str) -> None:
    with transaction.atomic():
        current = Run.objects.select_for_update().get(pk=run.pk)
        failures = dict(current.result.get("failures", {}))
        failures[str(answer_id)] = message[:500]
        current.result = {**current.result, "failures": failures}
        current.items_failed = len(failures)
        current.save(update_fields=["result", "items_failed"])


def run_progress_refresh(*, run_id: int) -> Run:
    """Recount the run from its verdicts (idempotent) and finish it when every answer is done or failed."""
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run.kind == RunKind.VERIFY:
            # Recall: one target per answer; precision: the answers the verified atoms belong to.
            answer = "atom__answer" if run.parameters.get("setup") == "precision" else "target"
            counts = Verdict.objects.filter(run=run).aggregate(
                answers=Count(answer, distinct=True), na=Count("id", filter=Q(valid=False))
            )
        else:
            counts = {"answers": len(run.result.get("done", [])), "na": 0}
        failed = set(run.result.get("failures", {}))
        run.items_done = counts["answers"]
        run.items_na = counts["na"]
        run.items_failed = len(failed)
        if run.status not in FINISHED_RUN_STATUSES and run.items_done + run.items_failed >= run.items_total:
            run.status = RunStatus.SUCCEEDED if run.items_done else RunStatus.FAILED
            run.finished_at = timezone.now()
            if run.status == RunStatus.FAILED:
                run.error = "Every answer failed; see the failures."
        run.save(update_fields=["items_done", "items_na", "items_failed", "status", "finished_at", "error"])
        return run


def run_cancel(*, actor: Any, run: Run) -> Run:
    permissions.require_manager(actor, run.project, "cancel runs")
    updated = (
        Run.objects.filter(pk=run.pk)
        .exclude(status__in=FINISHED_RUN_STATUSES)
        .update(status=RunStatus.CANCELLED, finished_at=timezone.now())
    )
    if not updated:
        raise Conflict("The run has already finished.")
    audit_record(actor=actor, action="run.cancel", obj=run, project=run.project)
    run.refresh_from_db()
    return run


def run_sync(*, run: Run) -> Run:
    """Run every answer in this process, one after another (``run_job --sync``)."""
    for answer_id in run.parameters.get("answers", []):
        run_answer(run_id=run.pk, answer_id=answer_id)
    return Run.objects.get(pk=run.pk)


# --- Measures -----------------------------------------------------------------------------------------


def run_report(*, run: Run) -> dict[str, Any]:
    """FaaF's measures per answer kind where human verdicts exist: error rate, F1micro on not supported,
    N/A; factual recall of the model and of the humans; and the run's calls and tokens."""
    verdicts = Verdict.objects.filter(run=run).select_related("target", "atom__answer")
    human: dict[tuple[int, int | None], tuple] = {}
    for atom_id, target_id, label, updated in Verdict.objects.filter(
        source=Source.HUMAN, atom__in=verdicts.values("atom")
    ).values_list("atom_id", "target_id", "label", "updated_at"):
        if (atom_id, target_id) not in human or updated > human[(atom_id, target_id)][1]:
            human[(atom_id, target_id)] = (label == VerdictLabel.SUPPORTED, updated)
    pairs: dict[str, list] = defaultdict(list)
    recall: dict[str, list] = defaultdict(list)
    for v in verdicts:
        model = v.label == VerdictLabel.SUPPORTED if v.valid else None
        kind = v.target.kind if v.target_id else v.atom.answer.kind  # precision: the atoms' own answer
        recall[kind].append(model)
        if (v.atom_id, v.target_id) in human:
            pairs[kind].append((human[(v.atom_id, v.target_id)][0], model))
    kinds = {}
    for kind in sorted(recall):
        entry: dict[str, Any] = {"facts": len(recall[kind]), "recall": metrics.factual_recall(recall[kind])}
        if pairs[kind]:
            agreement = metrics.agreement(pairs[kind])
            entry |= agreement.as_dict() | {
                "human_recall": metrics.factual_recall([h for h, _ in pairs[kind]])
            }
        kinds[kind] = entry
    return {
        "kinds": kinds,
        "calls": run.llm_calls,
        "cache_hits": run.cache_hits,
        "prompt_tokens": run.prompt_tokens,
        "completion_tokens": run.completion_tokens,
        "na": run.items_na,
    }


def run_answers(*, run: Run, limit: int = 50) -> list[dict[str, Any]]:
    """The first ``limit`` answers of a run, each with its facts, the run's verdicts and the citations
    marked in the answer text (two queries)."""
    ids = run.parameters.get("answers", [])[:limit]
    answers = {a.pk: a for a in Answer.objects.filter(pk__in=ids).select_related("question")}
    by_answer: dict[int, list[Verdict]] = defaultdict(list)
    for verdict in (
        Verdict.objects.filter(
            Q(target_id__in=ids) | Q(target__isnull=True, atom__answer_id__in=ids), run=run
        )
        .select_related("atom")
        .order_by("atom__position")
    ):
        by_answer[verdict.target_id or verdict.atom.answer_id].append(verdict)
    failures = run.result.get("failures", {})
    out = []
    for answer_id in ids:
        answer = answers.get(answer_id)
        if answer is None:
            continue
        verdicts = by_answer.get(answer_id, [])
        # Citations point into the answer in the recall set-up (into the given passage in precision).
        cited = [
            (v.pk, v.evidence_start, v.evidence_end)
            for v in verdicts
            if v.evidence_start is not None and v.target_id == answer_id
        ]
        out.append(
            {
                "answer": answer,
                "verdicts": verdicts,
                "failure": failures.get(str(answer_id), ""),
                "cited": cited,
            }
        )
    return out


@transaction.atomic
def endpoint_save(
    *,
    actor: Any,
    project: Project,
    name: str,
    base_url: str,
    model_name: str,
    api_key_env: str = "",
    max_concurrency: int = 4,
    requests_per_minute: int = 0,
    timeout: int = 60,
    supports_tools: bool = True,
    price_prompt_per_1k: float = 0.0,
    price_completion_per_1k: float = 0.0,
) -> LLMEndpoint:
    """Create or change a project's named endpoint (managers). The key stays in the environment."""
    from django.core.exceptions import ValidationError as DjangoValidationError

    permissions.require_manager(actor, project, "configure endpoints")
    endpoint = LLMEndpoint.objects.filter(project=project, name=name).first() or LLMEndpoint(
        project=project, name=name
    )
    before = {"base_url": endpoint.base_url, "model_name": endpoint.model_name} if endpoint.pk else None
    for field, value in {
        "base_url": base_url,
        "model_name": model_name,
        "api_key_env": api_key_env,
        "max_concurrency": max_concurrency,
        "requests_per_minute": requests_per_minute,
        "timeout": timeout,
        "supports_tools": supports_tools,
        "price_prompt_per_1k": price_prompt_per_1k,
        "price_completion_per_1k": price_completion_per_1k,
    }.items():
        setattr(endpoint, field, value)
    errors: dict[str, list[str]] = {}
    if name in (OFFLINE_MODEL, "default"):
        errors["name"] = [f"{name!r} is reserved."]
    parsed = urlsplit(base_url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        errors["base_url"] = [f"{base_url!r} is not an http(s) URL such as http://gpu-host:8000/v1."]
    try:
        endpoint.full_clean(validate_unique=False, validate_constraints=False)
    except DjangoValidationError as exc:
        errors |= {field: [str(m) for m in messages] for field, messages in exc.message_dict.items()}
    if errors:
        raise ValidationFailed.from_fields(errors)
    endpoint.save()
    audit_record(
        actor=actor,
        action="endpoint.save",
        obj=endpoint,
        project=project,
        before=before,
        after={"name": name, "base_url": base_url, "model_name": model_name},
    )
    return endpoint
