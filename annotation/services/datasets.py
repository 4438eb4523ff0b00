"""Datasets in and out: map the plain rows of ``factcheck.formats`` to models and back.

Imports are all or nothing unless ``skip_bad_rows``; importing the same file twice adds nothing (rows are
matched on the dataset's own ids). Exports stream: rows are produced a batch of questions at a time.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Prefetch
from django.http import StreamingHttpResponse
from django.utils import timezone

from annotation import permissions
from annotation.choices import (
    FINISHED_RUN_STATUSES,
    AnswerKind,
    AtomOrigin,
    ErrorCategory,
    Role,
    RunKind,
    RunStatus,
    Source,
    SpanLocation,
    VerdictLabel,
)
from annotation.errors import ApplicationError, NotFound, ValidationFailed
from annotation.factcheck.formats import FormatError, feedback, pairs
from annotation.factcheck.formats import factreasoner as fr
from annotation.factcheck.formats import factscore as fs
from annotation.factcheck.formats import haluquestqa as hq
from annotation.factcheck.formats import wikievalfacts as wef
from annotation.factcheck.text import locate
from annotation.models import (
    Answer,
    Atom,
    AtomContext,
    ErrorSpan,
    KnowledgeSource,
    Membership,
    Passage,
    Preference,
    Project,
    Question,
    Run,
    Verdict,
)
from annotation.services.audit import audit_record

BATCH = 500

HQ_CATEGORIES = {
    "ques_misconception": ErrorCategory.QUESTION_MISCONCEPTION,
    "factuality": ErrorCategory.FACTUALITY,
    "irrelevance": ErrorCategory.RELEVANCE,
    "incomplete_ans": ErrorCategory.COMPLETENESS,
    "reference_example": ErrorCategory.REFERENCES,
}
HQ_PREFIX = {category: prefix for prefix, category in HQ_CATEGORIES.items()}
HQ_KINDS = {"human_answer": AnswerKind.HUMAN, "model_answer": AnswerKind.MODEL}
HQ_LABELS = {AnswerKind.HUMAN: "human_answer", AnswerKind.MODEL: "model_answer"}


class ImportFailed(ApplicationError):
    """The file could not be imported; nothing was written. ``extra`` holds the report."""

    default_code = "import_failed"


@dataclass
class ImportReport:
    format: str
    rows: int = 0
    imported: int = 0
    already_present: int = 0
    skipped: list[dict[str, Any]] = field(default_factory=list)
    spans_exact: int = 0
    spans_loose: int = 0
    spans_unlocated: int = 0
    spans_whole_answer: int = 0
    preferences: int = 0
    verdicts: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "rows": self.rows,
            "imported": self.imported,
            "already_present": self.already_present,
            "skipped": self.skipped,
            "spans": {
                "exact": self.spans_exact,
                "loose": self.spans_loose,
                "unlocated": self.spans_unlocated,
                "whole_answer": self.spans_whole_answer,
            },
            "preferences": self.preferences,
            "verdicts": self.verdicts,
        }

    def summary(self) -> str:
        return (
            f"{self.rows} rows: {self.imported} imported, {self.already_present} already present, "
            f"{len(self.skipped)} skipped. Spans located exactly {self.spans_exact}, loosely "
            f"{self.spans_loose}, not at all {self.spans_unlocated}; whole-answer {self.spans_whole_answer}. "
            f"Preferences {self.preferences}. Verdicts {self.verdicts}."
        )


def _batches(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


# --- Dataset annotators -----------------------------------------------------------------------------


def dataset_username(dataset_id: str, dataset: str) -> str:
    """The account that stands for a dataset's annotator id (it cannot log in)."""
    return f"{dataset_id}@{dataset}"


def dataset_annotator_id(username: str, dataset: str) -> str:
    suffix = f"@{dataset}"
    return username[: -len(suffix)] if username.endswith(suffix) else username


def _dataset_users(project: Project, ids: set[str], dataset: str, cache: dict[str, Any]) -> None:
    """Fill ``cache`` with an account per dataset annotator id, each an annotator of ``project``."""
    User = get_user_model()
    wanted = {dataset_username(i, dataset): i for i in ids if i not in cache}
    if not wanted:
        return
    found = {u.username: u for u in User.objects.filter(username__in=wanted)}
    for username in wanted.keys() - found.keys():
        user = User(username=username, is_active=True)
        user.set_unusable_password()  # who-said-what is kept; nobody logs in as a dataset annotator
        user.save()
        found[username] = user
    members = set(
        Membership.objects.filter(project=project, user__in=found.values()).values_list("user_id", flat=True)
    )
    Membership.objects.bulk_create(
        Membership(project=project, user=user, role=Role.ANNOTATOR)
        for user in found.values()
        if user.pk not in members
    )
    for username, user in found.items():
        cache[wanted[username]] = user


# --- HaluQuestQA --------------------------------------------------------------------------------------


def _hq_span(
    row: hq.Row,
    span: hq.Span,
    order: int,
    question: Question,
    answers: dict[int, Answer],
    annotator: Any,
    report: ImportReport,
) -> ErrorSpan:
    metadata: dict[str, Any] = {"dataset_index": order}
    category = HQ_CATEGORIES[span.category]
    if span.answer_position is None:
        target_question, target_answer, text = question, None, row.question_text
        metadata["dataset_label"] = span.label
    else:
        target_question, target_answer = None, answers[span.answer_position]
        text = target_answer.text
    start = end = None
    whole = span.whole_answer is not None
    if whole:
        location, quote = SpanLocation.EXACT, ""
        metadata["dataset_text"] = span.text
        report.spans_whole_answer += 1
    else:
        found = locate(text, span.text)
        if found is None:
            location, quote = SpanLocation.UNLOCATED, span.text
            report.spans_unlocated += 1
        else:
            start, end, how = found
            quote = text[start:end]
            location = SpanLocation.EXACT if how == "exact" else SpanLocation.LOOSE
            if quote != span.text:
                metadata["dataset_text"] = span.text
            if how == "exact":
                report.spans_exact += 1
            else:
                report.spans_loose += 1
    return ErrorSpan(
        question=target_question,
        answer=target_answer,
        start=start,
        end=end,
        quote=quote,
        location=location,
        category=category,
        justification=span.reason,
        helpful=span.helpful if category == ErrorCategory.REFERENCES else None,
        whole_answer=whole,
        source=Source.HUMAN,
        annotator=annotator,
        metadata=metadata,
    )


def _hq_import_batch(
    project: Project, rows: list[hq.Row], users: dict[str, Any], report: ImportReport
) -> None:
    _dataset_users(project, {r.annotator for r in rows if r.annotator}, "haluquestqa", users)
    questions = Question.objects.bulk_create(
        Question(
            project=project,
            external_id=r.index,
            text=r.question_text,
            category=r.category,
            source_file=r.source_file,
            metadata={"format": "haluquestqa", "ques_start": r.ques_start, "ans_start": r.ans_start},
        )
        for r in rows
    )
    answers = Answer.objects.bulk_create(
        Answer(question=q, position=p, text=r.answer_texts[p - 1], kind=HQ_KINDS[r.answer_labels[p - 1]])
        for r, q in zip(rows, questions, strict=True)
        for p in (1, 2)
    )
    spans: list[ErrorSpan] = []
    preferences: list[Preference] = []
    for i, (row, question) in enumerate(zip(rows, questions, strict=True)):
        by_position = {1: answers[2 * i], 2: answers[2 * i + 1]}
        annotator = users.get(row.annotator)
        orders: dict[str, int] = {}
        for span in row.spans:
            order = orders[span.category] = orders.get(span.category, -1) + 1
            spans.append(_hq_span(row, span, order, question, by_position, annotator, report))
        if row.preference:
            preferences.append(
                Preference(
                    question=question,
                    annotator=annotator,
                    reason=row.preference_reason,
                    preferred_answer=by_position[int(row.preference[-1])],
                )
            )
    ErrorSpan.objects.bulk_create(spans, batch_size=BATCH)
    Preference.objects.bulk_create(preferences, batch_size=BATCH)
    report.preferences += len(preferences)
    report.imported += len(rows)


def _run_import(
    *,
    format: str,
    project: Project,
    items: Iterator[Any],
    key: Callable[[Any], str],
    batch: Callable[[Project, list[Any], dict[str, Any], ImportReport], None],
    actor: Any,
    skip_bad_rows: bool,
    progress: Callable[[int], None] | None,
) -> ImportReport:
    """Import parsed rows in batches, in one transaction; a bad row aborts unless ``skip_bad_rows``.

    A row whose ``key`` is already a question's external id in the project is counted and left alone;
    ``batch`` gets the new rows only."""
    report = ImportReport(format=format)
    users: dict[str, Any] = {}
    seen: set[str] = set()

    def good_rows() -> Iterator[Any]:
        for item in items:
            report.rows += 1
            if not isinstance(item, FormatError) and key(item) in seen:
                item = FormatError(f"id {key(item)!r} appears twice in the file", row=report.rows)
            if isinstance(item, FormatError):
                if not skip_bad_rows:
                    raise ImportFailed(f"Nothing was imported: {item}", extra={"errors": [item.as_dict()]})
                report.skipped.append(item.as_dict())
                continue
            seen.add(key(item))
            yield item

    try:
        with transaction.atomic():
            for rows in _batches(good_rows(), BATCH):
                keys = [key(r) for r in rows]
                present = Question.objects.filter(project=project, external_id__in=keys)
                existing = set(present.values_list("external_id", flat=True))
                new = [r for r, k in zip(rows, keys, strict=True) if k not in existing]
                report.already_present += len(rows) - len(new)
                if new:
                    batch(project, new, users, report)
                if progress:
                    progress(report.rows)
            audit_record(
                actor=actor, action="dataset.import", obj=project, project=project, after=report.as_dict()
            )
    except FormatError as exc:  # a fault that ends reading, e.g. a broken line
        raise ImportFailed(f"Nothing was imported: {exc}", extra={"errors": [exc.as_dict()]}) from None
    return report


def _hq_rows(project: Project) -> Iterator[hq.Row]:
    human_spans = ErrorSpan.objects.filter(source=Source.HUMAN).select_related("annotator")
    questions = (
        Question.objects.filter(project=project)
        .order_by("id")
        .prefetch_related(
            Prefetch("answers", queryset=Answer.objects.order_by("position", "id")),
            Prefetch("spans", queryset=human_spans, to_attr="human_spans"),
            Prefetch("answers__spans", queryset=human_spans, to_attr="human_spans"),
            Prefetch("preferences", queryset=Preference.objects.select_related("annotator")),
        )
    )
    for question in questions.iterator(chunk_size=BATCH):
        answers = [a for a in question.answers.all() if a.position in (1, 2)]
        if len(answers) != 2 or {a.kind for a in answers} != {AnswerKind.HUMAN, AnswerKind.MODEL}:
            continue  # not a human/model pair: HaluQuestQA has no place for it
        spans = list(question.human_spans) + [s for a in answers for s in a.human_spans]
        preferences = list(question.preferences.all())
        annotators = {s.annotator for s in spans} | {p.annotator for p in preferences}
        for annotator in sorted(annotators, key=lambda u: u.username) or [None]:
            yield _hq_row(question, answers, spans, preferences, annotator)


def _hq_row(
    question: Question,
    answers: list[Answer],
    spans: list[ErrorSpan],
    preferences: list[Preference],
    annotator: Any,
) -> hq.Row:
    position = {a.pk: a.position for a in answers}
    mine = [s for s in spans if s.annotator == annotator]
    prefix_order = {prefix: i for i, prefix in enumerate(hq.CATEGORY_PREFIXES)}
    mine.sort(key=lambda s: (prefix_order[HQ_PREFIX[s.category]], s.metadata.get("dataset_index", 0), s.pk))
    out_spans = []
    for s in mine:
        if s.question_id:
            label = s.metadata.get("dataset_label", "question1")
            text = s.metadata.get("dataset_text", s.quote)
        else:
            label = f"answer{position[s.answer_id]}"
            default = f"ANSWER{position[s.answer_id]}" if s.whole_answer else s.quote
            text = s.metadata.get("dataset_text", default)
        out_spans.append(
            hq.Span(
                category=HQ_PREFIX[s.category],
                text=text,
                reason=s.justification,
                label=label,
                helpful=s.helpful,
            )
        )
    preference = next((p for p in preferences if p.annotator == annotator), None)
    metadata = question.metadata or {}
    return hq.Row(
        index=question.external_id or str(question.pk),
        source_file=question.source_file,
        annotator=dataset_annotator_id(annotator.username, "haluquestqa") if annotator else "",
        category=question.category,
        question_text=question.text,
        answer_texts=(answers[0].text, answers[1].text),
        answer_labels=(HQ_LABELS[answers[0].kind], HQ_LABELS[answers[1].kind]),
        spans=out_spans,
        ques_start=metadata.get("ques_start", ""),
        ans_start=metadata.get("ans_start", ""),
        preference=f"Answer {position[preference.preferred_answer_id]}" if preference else "",
        preference_reason=preference.reason if preference else "",
    )


class _Line(io.StringIO):
    """A write target that hands back what was written since the last read."""

    def take(self) -> str:
        value = self.getvalue()
        self.seek(0)
        self.truncate()
        return value


def haluquestqa_export(*, project: Project, run: Run | None = None) -> Iterator[str]:
    """The project as a HaluQuestQA file, in chunks of text; scores recomputed from the data."""
    buffer = _Line(newline="")
    out: csv.writer = hq.writer(buffer)
    out.writerow(hq.COLUMNS)
    yield buffer.take()
    for row in _hq_rows(project):
        out.writerow(hq.cells(row, hq.scores(row)))
        yield buffer.take()


# --- WikiEvalFacts -----------------------------------------------------------------------------------

WEF_KINDS = {
    "answer": AnswerKind.REFERENCE,
    "ungrounded_answer": AnswerKind.UNGROUNDED,
    "poor_answer": AnswerKind.POOR,
}
WEF_COLUMNS = {kind: column for column, kind in WEF_KINDS.items()}
WEF_LABELS = {"True": VerdictLabel.SUPPORTED, "False": VerdictLabel.NOT_SUPPORTED}


def _wef_import_batch(
    project: Project, rows: list[wef.Row], users: dict[str, Any], report: ImportReport
) -> None:
    _dataset_users(project, {"human"}, "wikievalfacts", users)
    annotator = users["human"]
    questions = Question.objects.bulk_create(
        Question(
            project=project,
            external_id=r.unique_id,
            text=r.question,
            metadata={"format": "wikievalfacts", "extra": r.extra, "raw": r.raw, "columns": r.columns},
        )
        for r in rows
    )
    answers = Answer.objects.bulk_create(
        Answer(question=q, position=i, text=r.answers[column], kind=WEF_KINDS[column])
        for r, q in zip(rows, questions, strict=True)
        for i, column in enumerate(wef.ANSWER_COLUMNS, 1)
    )
    by_row = [
        dict(zip(wef.ANSWER_COLUMNS, answers[3 * i : 3 * i + 3], strict=True)) for i in range(len(rows))
    ]
    atoms = Atom.objects.bulk_create(
        Atom(answer=by_row[i]["answer"], position=p, text=fact, origin=AtomOrigin.REFERENCE)
        for i, r in enumerate(rows)
        for p, fact in enumerate(r.facts)
    )
    verdicts = []
    atom_iter = iter(atoms)
    for i, r in enumerate(rows):
        row_atoms = {fact: next(atom_iter) for fact in r.facts}
        for column, verdicts_for_answer in r.human.items():
            for fact, value in verdicts_for_answer.items():
                verdicts.append(
                    Verdict(
                        atom=row_atoms[fact],
                        target=by_row[i][column],
                        source=Source.HUMAN,
                        annotator=annotator,
                        label=WEF_LABELS[value],
                        raw_value=value,
                    )
                )
    Verdict.objects.bulk_create(verdicts, batch_size=BATCH)
    report.verdicts += len(verdicts)
    report.imported += len(rows)


def _wef_value(verdict: Verdict) -> str:
    """ "True" / "False" as the dataset writes a human verdict."""
    if verdict.raw_value in wef.VALUES:
        return verdict.raw_value
    return "True" if verdict.label == VerdictLabel.SUPPORTED else "False"


def _latest_human(verdicts: Iterable[Verdict]) -> dict[tuple[int, int], Verdict]:
    """The most recent human verdict per (atom, target): experts' corrections win over the import."""
    latest: dict[tuple[int, int], Verdict] = {}
    for v in verdicts:
        key = (v.atom_id, v.target_id)
        if key not in latest or (v.updated_at, v.pk) > (latest[key].updated_at, latest[key].pk):
            latest[key] = v
    return latest


def wikievalfacts_export(*, project: Project, run: Run | None = None) -> Iterator[str]:
    """The project as a WikiEvalFacts CSV; with ``run``, that run's verdicts as added columns."""
    questions = (
        Question.objects.filter(project=project)
        .order_by("id")
        .prefetch_related(
            Prefetch("answers", queryset=Answer.objects.order_by("position", "id")),
            Prefetch(
                "answers__atoms",
                queryset=Atom.objects.filter(origin=AtomOrigin.REFERENCE, run__isnull=True).order_by(
                    "position"
                ),
                to_attr="reference_atoms",
            ),
            Prefetch(
                "answers__verdicts", queryset=Verdict.objects.filter(source=Source.HUMAN), to_attr="human"
            ),
            Prefetch(
                "answers__verdicts",
                queryset=Verdict.objects.filter(run=run) if run else Verdict.objects.none(),
                to_attr="of_run",
            ),
        )
    )
    first = questions.filter(metadata__format="wikievalfacts").first()
    header = (first.metadata.get("columns") if first else None) or list(wef.COLUMNS)
    added = (
        [
            f"{run.method}_evaluated_facts_{run.model_name or run.endpoint or 'model'}_{c}"
            for c in wef.ANSWER_COLUMNS
        ]
        if run
        else []
    )
    buffer = _Line(newline="")
    out = csv.writer(buffer, lineterminator="\n")
    out.writerow([*header, *added])
    yield buffer.take()
    for question in questions.iterator(chunk_size=BATCH):
        by_kind = {a.kind: a for a in question.answers.all()}
        if set(WEF_COLUMNS) - by_kind.keys():
            continue  # not a reference / ungrounded / poor triple
        reference = by_kind[AnswerKind.REFERENCE]
        atoms = list(reference.reference_atoms)
        human = _latest_human(v for a in by_kind.values() for v in a.human)
        metadata = question.metadata or {}
        row = wef.Row(
            unique_id=question.external_id or str(question.pk),
            question=question.text,
            answers={WEF_COLUMNS[k]: by_kind[k].text for k in WEF_COLUMNS},
            facts=[a.text for a in atoms],
            human={
                WEF_COLUMNS[kind]: {
                    atom.text: _wef_value(human[(atom.pk, by_kind[kind].pk)])
                    for atom in atoms
                    if (atom.pk, by_kind[kind].pk) in human
                }
                for kind in WEF_COLUMNS
            },
            extra=metadata.get("extra", {}),
            raw=metadata.get("raw", {}),
        )
        cells = wef.cells(row, header)
        if run:
            of_run = {(v.atom_id, v.target_id): v for a in by_kind.values() for v in a.of_run}
            for kind in WEF_COLUMNS:
                target = by_kind[kind]
                found = {
                    atom.text: (
                        of_run[(atom.pk, target.pk)].raw_value
                        if of_run[(atom.pk, target.pk)].valid
                        else "N/A"
                    )
                    for atom in atoms
                    if (atom.pk, target.pk) in of_run
                }
                cells.append(repr(found) if found else "")
        out.writerow(cells)
        yield buffer.take()


# --- Preference pairs and feedback-training data (export only) ---------------------------------------


def _pairs(project: Project) -> Iterator[pairs.Pair]:
    """One pair per preference on a question with exactly two answers, in question and annotator order."""
    preferences = (
        Preference.objects.filter(question__project=project)
        .select_related("question", "annotator", "preferred_answer")
        .order_by("question_id", "annotator__username", "id")
    )
    answers = Prefetch("question__answers", queryset=Answer.objects.order_by("position", "id"))
    for preference in preferences.prefetch_related(answers).iterator(chunk_size=BATCH):
        others = [a for a in preference.question.answers.all() if a.pk != preference.preferred_answer_id]
        if len(others) != 1:
            continue
        yield pairs.Pair(
            source_file=preference.question.source_file,
            question=preference.question.text,
            chosen=preference.preferred_answer.text,
            rejected=others[0].text,
        )


def preference_export(*, project: Project, run: Run | None = None) -> Iterator[str]:
    """Preference pairs as the TSV the HaluQuestQA authors derived for preference training."""
    buffer = _Line(newline="")
    out = hq.writer(buffer)
    out.writerow(pairs.COLUMNS)
    yield buffer.take()
    for index, pair in enumerate(_pairs(project)):
        out.writerow(pairs.tsv_cells(index, pair))
        yield buffer.take()


def preference_jsonl_export(*, project: Project, run: Run | None = None) -> Iterator[str]:
    """Preference pairs as JSONL: {"prompt", "chosen", "rejected"} per line."""
    for pair in _pairs(project):
        yield pairs.jsonl_line(pair)


def feedback_training_export(*, project: Project, run: Run | None = None) -> Iterator[str]:
    """A JSON array of {"instruction", "input", "output"}: one example per (answer, annotator) with
    located completeness spans. Whole-answer and unlocated spans point at no sentence and are left out."""
    spans = (
        ErrorSpan.objects.filter(
            answer__question__project=project,
            source=Source.HUMAN,
            category=ErrorCategory.COMPLETENESS,
            start__isnull=False,
        )
        .select_related("answer__question")
        .order_by("answer__question_id", "answer__position", "answer_id", "annotator_id", "start", "id")
    )
    first = True
    yield "["
    group: list[ErrorSpan] = []

    def flush() -> str | None:
        answer = group[0].answer
        item = feedback.example(
            answer.question.text,
            answer.text,
            [feedback.IncompleteSpan(s.start, s.end, s.justification) for s in group],
        )
        return json.dumps(item, ensure_ascii=False, indent=2) if item else None

    for span in spans.iterator(chunk_size=BATCH):
        if group and (group[0].answer_id, group[0].annotator_id) != (span.answer_id, span.annotator_id):
            if text := flush():
                yield ("\n" if first else ",\n") + text
                first = False
            group = []
        group.append(span)
    if group and (text := flush()):
        yield ("\n" if first else ",\n") + text
    yield "\n]\n"


# --- FactReasoner and FActScore (JSONL) ---------------------------------------------------------------

FR_LABELS = {"S": VerdictLabel.SUPPORTED, "NS": VerdictLabel.NOT_SUPPORTED}
FS_LABELS = {"S": VerdictLabel.SUPPORTED, "NS": VerdictLabel.NOT_SUPPORTED, "IR": VerdictLabel.IRRELEVANT}
LABEL_LETTERS = {VerdictLabel.SUPPORTED: "S", VerdictLabel.NOT_SUPPORTED: "NS", VerdictLabel.IRRELEVANT: "IR"}


def _item_key(prefix: str, item: Any) -> str:
    """JSONL items have no id: a generation is its (input, output) pair."""
    return f"{prefix}-" + hashlib.sha256(f"{item.input}\0{item.output}".encode()).hexdigest()[:24]


def _question_and_answer(
    project: Project, key: str, item: Any, fmt: str, answer_metadata: dict[str, Any]
) -> tuple[Question, Answer]:
    question = Question.objects.create(
        project=project,
        external_id=key,
        text=item.input,
        metadata={"format": fmt, "topic": item.topic, "extra": item.extra}
        | ({"cat": item.cat} if fmt == "factscore" else {}),
    )
    answer = Answer.objects.create(
        question=question, position=1, text=item.output, kind=AnswerKind.MODEL, metadata=answer_metadata
    )
    return question, answer


def _fr_import_batch(
    project: Project, rows: list[fr.Item], users: dict[str, Any], report: ImportReport
) -> None:
    new = [(_item_key("fr", r), r) for r in rows]
    _dataset_users(project, {"human"}, "factreasoner", users)
    source, _ = KnowledgeSource.objects.get_or_create(
        project=project,
        name="FactReasoner contexts",
        defaults={"description": "Contexts imported with FactReasoner input files."},
    )
    verdicts, links = [], []
    for key, item in new:
        passages = Passage.objects.bulk_create(
            Passage(
                source=source,
                external_id=f"{key}/{c.id}",
                title=c.title[:500],
                url=(c.link or "")[:2000],
                snippet=c.snippet or "",
                text=c.text,
                metadata={"id": c.id, "snippet": c.snippet, "link": c.link},
            )
            for c in item.contexts
        )
        by_id = {c.id: p for c, p in zip(item.contexts, passages, strict=True)}
        _, answer = _question_and_answer(
            project, key, item, "factreasoner", {"contexts": [p.pk for p in passages]}
        )
        atoms = Atom.objects.bulk_create(
            Atom(answer=answer, position=i, text=a.text, original_text=a.original, external_id=a.id)
            for i, a in enumerate(item.atoms)
        )
        for atom, parsed in zip(atoms, item.atoms, strict=True):
            links += [AtomContext(atom=atom, passage=by_id[c], rank=r) for r, c in enumerate(parsed.contexts)]
            if parsed.label:
                verdicts.append(
                    Verdict(
                        atom=atom,
                        target=None,
                        source=Source.HUMAN,
                        annotator=users["human"],
                        label=FR_LABELS[parsed.label],
                        raw_value=parsed.label,
                    )
                )
    AtomContext.objects.bulk_create(links, batch_size=BATCH)
    Verdict.objects.bulk_create(verdicts, batch_size=BATCH)
    report.verdicts += len(verdicts)
    report.imported += len(new)


def _answers_with_atoms(project: Project, *, run: Run | None) -> Iterator[Answer]:
    """Answers of the project, each with ``listed_atoms`` (its atoms without a run, in order), their
    ``evidence_human`` verdicts and, given a run, ``run_verdicts`` and the atoms' contexts."""
    atoms = (
        Atom.objects.filter(run__isnull=True, origin=AtomOrigin.EXTRACTED)
        .order_by("position", "id")
        .prefetch_related(
            Prefetch(
                "verdicts",
                queryset=Verdict.objects.filter(source=Source.HUMAN, target__isnull=True),
                to_attr="evidence_human",
            ),
            Prefetch(
                "verdicts",
                queryset=Verdict.objects.filter(run=run) if run else Verdict.objects.none(),
                to_attr="run_verdicts",
            ),
            Prefetch(
                "contexts",
                queryset=AtomContext.objects.filter(run=run) if run else AtomContext.objects.none(),
                to_attr="run_contexts",
            ),
            Prefetch(
                "contexts",
                queryset=AtomContext.objects.filter(run__isnull=True)
                .select_related("passage")
                .order_by("rank"),
                to_attr="listed_contexts",
            ),
        )
    )
    answers = (
        Answer.objects.filter(question__project=project)
        .select_related("question")
        .order_by("question_id", "position", "id")
        .prefetch_related(Prefetch("atoms", queryset=atoms, to_attr="listed_atoms"))
    )
    yield from answers.iterator(chunk_size=BATCH)


def _human_letter(atom: Atom) -> str | None:
    latest = _latest_human(atom.evidence_human)
    return LABEL_LETTERS.get(latest[(atom.pk, None)].label) if latest else None


def factreasoner_export(*, project: Project, run: Run | None = None) -> Iterator[str]:
    """FactReasoner input JSONL: one line per answer that has atoms."""
    for answer in _answers_with_atoms(project, run=None):
        if not answer.listed_atoms:
            continue
        context_ids = list((answer.metadata or {}).get("contexts", []))
        passages = {c.passage_id: c.passage for a in answer.listed_atoms for c in a.listed_contexts}
        by_atom = {a.pk: [c.passage_id for c in a.listed_contexts] for a in answer.listed_atoms}
        context_ids += [pk for pk in passages if pk not in context_ids]
        unlinked = [pk for pk in context_ids if pk not in passages]
        if unlinked:  # contexts of the item that no atom points to
            passages |= {p.pk: p for p in Passage.objects.filter(pk__in=unlinked)}

        def context_id(passage: Passage) -> str:
            return (passage.metadata or {}).get("id") or f"c{passage.pk}"

        item = fr.Item(
            input=answer.question.text,
            output=answer.text,
            topic=(answer.question.metadata or {}).get("topic"),
            atoms=[
                fr.Atom(
                    id=a.external_id or f"a{a.position}",
                    text=a.text,
                    original=a.original_text or a.text,
                    label=_human_letter(a),
                    contexts=[context_id(passages[p]) for p in by_atom.get(a.pk, [])],
                )
                for a in answer.listed_atoms
            ],
            contexts=[
                fr.Context(
                    id=context_id(p),
                    title=p.title,
                    text=p.text,
                    snippet=(p.metadata or {}).get("snippet", p.snippet or None),
                    link=(p.metadata or {}).get("link", p.url or None),
                )
                for p in (passages[pk] for pk in context_ids if pk in passages)
            ],
            extra=(answer.question.metadata or {}).get("extra", {}),
        )
        yield json.dumps(fr.to_json(item), ensure_ascii=False) + "\n"


def _run_probability(verdict: Verdict) -> float:
    if verdict.probability is not None:
        return verdict.probability
    return 1.0 if verdict.valid and verdict.label == VerdictLabel.SUPPORTED else 0.0


def factreasoner_output_export(*, project: Project, run: Run | None = None) -> Iterator[str]:
    """FactReasoner output JSONL for ``run``: per answer, the marginals and counts of its atoms."""
    for answer in _answers_with_atoms(project, run=run):
        judged = [a for a in answer.listed_atoms if a.run_verdicts]
        if not judged:
            continue
        contexts = {c.passage_id for a in judged for c in a.run_contexts}
        atoms = [
            (a.external_id or f"a{a.position}", _run_probability(a.run_verdicts[0]), _human_letter(a))
            for a in judged
        ]
        record = fr.output(
            input=answer.question.text,
            atoms=atoms,
            num_contexts=len(contexts),
            model_name=run.model_name or run.endpoint,
        )
        yield json.dumps(record, ensure_ascii=False) + "\n"


def _fs_import_batch(
    project: Project, rows: list[fs.Item], users: dict[str, Any], report: ImportReport
) -> None:
    new = [(_item_key("fs", r), r) for r in rows]
    _dataset_users(project, {"human"}, "factscore", users)
    verdicts = []
    for key, item in new:
        sentences = None
        if item.annotations is not None:
            sentences = [
                {
                    "text": s.text,
                    "is-relevant": s.is_relevant,
                    "model-atomic-facts": None if s.model_facts is None else [f.text for f in s.model_facts],
                    "human": s.human_facts is not None,
                }
                for s in item.annotations
            ]
        _, answer = _question_and_answer(project, key, item, "factscore", {"factscore": sentences})
        facts = [
            (i, j, fact)
            for i, s in enumerate(item.annotations or [])
            for j, fact in enumerate(s.human_facts or [])
        ]
        atoms = Atom.objects.bulk_create(
            Atom(answer=answer, position=n, text=fact.text, external_id=f"{i}.{j}")
            for n, (i, j, fact) in enumerate(facts)
        )
        verdicts += [
            Verdict(
                atom=atom,
                target=None,
                source=Source.HUMAN,
                annotator=users["human"],
                label=FS_LABELS[fact.label],
                raw_value=fact.label,
            )
            for atom, (_, _, fact) in zip(atoms, facts, strict=True)
        ]
    Verdict.objects.bulk_create(verdicts, batch_size=BATCH)
    report.verdicts += len(verdicts)
    report.imported += len(new)


def factscore_export(*, project: Project, run: Run | None = None) -> Iterator[str]:
    """FActScore labelled JSONL: one line per answer imported from it or carrying atoms."""
    for answer in _answers_with_atoms(project, run=None):
        stored = (answer.metadata or {}).get("factscore", "absent")
        if stored == "absent" and not answer.listed_atoms:
            continue
        by_sentence: dict[int, list[fs.Fact]] = {}
        for atom in answer.listed_atoms:
            sentence = int(atom.external_id.split(".")[0]) if "." in atom.external_id else 0
            by_sentence.setdefault(sentence, []).append(fs.Fact(atom.text, _human_letter(atom)))
        if stored == "absent":  # atoms made in the app: one sentence holding them all
            stored = [{"text": answer.text, "is-relevant": True, "model-atomic-facts": None, "human": True}]
        annotations = (
            None
            if stored is None
            else [
                fs.Sentence(
                    text=s["text"],
                    is_relevant=s["is-relevant"],
                    model_facts=None
                    if s["model-atomic-facts"] is None
                    else [fs.Fact(t) for t in s["model-atomic-facts"]],
                    human_facts=by_sentence.get(i, []) if s["human"] else None,
                )
                for i, s in enumerate(stored)
            ]
        )
        metadata = answer.question.metadata or {}
        item = fs.Item(
            input=answer.question.text,
            output=answer.text,
            topic=metadata.get("topic"),
            cat=metadata.get("cat"),
            annotations=annotations,
            extra=metadata.get("extra", {}),
        )
        yield json.dumps(fs.to_json(item), ensure_ascii=False) + "\n"


def factscore_output_export(*, project: Project, run: Run | None = None) -> Iterator[str]:
    """The FActScore summary of ``run``: one JSON object over the answers it verified (and those it found
    abstaining, listed in its result as ``abstained_answers``)."""
    abstained = set((run.result or {}).get("abstained_answers", []))
    decisions: list[list[tuple[str, bool]] | None] = []
    for answer in _answers_with_atoms(project, run=run):
        judged = [(a.text, a.run_verdicts[0]) for a in answer.listed_atoms if a.run_verdicts]
        if answer.pk in abstained:
            decisions.append(None)
        elif judged:
            decisions.append([(text, v.valid and v.label == VerdictLabel.SUPPORTED) for text, v in judged])
    yield json.dumps(fs.summary(decisions), ensure_ascii=False, indent=2) + "\n"


def _importer(
    format: str,
    read: Callable[[IO[str]], Iterator[Any]],
    key: Callable[[Any], str],
    batch: Callable[[Project, list[Any], dict[str, Any], ImportReport], None],
    doc: str,
) -> Callable[..., ImportReport]:
    """An import function for one format: parse with ``read``, match rows on ``key``, write with ``batch``."""

    def importer(
        *,
        project: Project,
        stream: IO[str],
        actor: Any = None,
        skip_bad_rows: bool = False,
        progress: Callable[[int], None] | None = None,
    ) -> ImportReport:
        return _run_import(
            format=format,
            project=project,
            items=read(stream),
            key=key,
            batch=batch,
            actor=actor,
            skip_bad_rows=skip_bad_rows,
            progress=progress,
        )

    importer.__name__ = f"{format}_import"
    importer.__doc__ = doc
    return importer


def _wef_rows(stream: IO[str]) -> Iterator[Any]:
    """WikiEvalFacts rows, each knowing the file's header (lazily, so a bad header fails the import)."""
    header, items = wef.read(stream)
    for row in items:
        if isinstance(row, wef.Row):
            row.columns = header
        yield row


# --- Registry -----------------------------------------------------------------------------------------

haluquestqa_import = _importer(
    "haluquestqa",
    hq.read,
    lambda r: r.index,
    _hq_import_batch,
    "HaluQuestQA: questions, human and model answers, spans located in their targets, preferences.",
)
wikievalfacts_import = _importer(
    "wikievalfacts",
    _wef_rows,
    lambda r: r.unique_id,
    _wef_import_batch,
    "WikiEvalFacts: three answers, reference facts and human verdicts per question.",
)
factreasoner_import = _importer(
    "factreasoner",
    fr.read,
    lambda r: _item_key("fr", r),
    _fr_import_batch,
    "FactReasoner input: atoms, contexts as passages linked in order, S / NS labels as human verdicts.",
)
factscore_import = _importer(
    "factscore",
    fs.read,
    lambda r: _item_key("fs", r),
    _fs_import_batch,
    "FActScore labelled data: human atomic facts as atoms with S / NS / IR human verdicts.",
)
IMPORTERS: dict[str, Callable[..., ImportReport]] = {
    "haluquestqa": haluquestqa_import,
    "wikievalfacts": wikievalfacts_import,
    "factreasoner": factreasoner_import,
    "factscore": factscore_import,
}
EXPORTERS: dict[str, Callable[..., Iterator[str]]] = {
    "haluquestqa": haluquestqa_export,
    "wikievalfacts": wikievalfacts_export,
    "preference": preference_export,
    "preference-jsonl": preference_jsonl_export,
    "feedback-training": feedback_training_export,
    "factreasoner": factreasoner_export,
    "factreasoner-output": factreasoner_output_export,
    "factscore": factscore_export,
    "factscore-output": factscore_output_export,
}
#: Chunks an export yields that are not records (a header line; JSON's brackets).
FRAMING_CHUNKS = {"haluquestqa": 1, "wikievalfacts": 1, "preference": 1, "feedback-training": 2}
#: Exports that can add a run's verdicts (``--run``).
RUN_EXPORTS = {"wikievalfacts", "factreasoner-output", "factscore-output"}
#: Exports of a run's output alone: they need one.
NEEDS_RUN = {"factreasoner-output", "factscore-output"}
CONTENT_TYPES = {
    "haluquestqa": ("text/tab-separated-values", "tsv"),
    "wikievalfacts": ("text/csv", "csv"),
    "preference": ("text/tab-separated-values", "tsv"),
    "preference-jsonl": ("application/jsonl", "jsonl"),
    "feedback-training": ("application/json", "json"),
    "factreasoner": ("application/jsonl", "jsonl"),
    "factreasoner-output": ("application/jsonl", "jsonl"),
    "factscore": ("application/jsonl", "jsonl"),
    "factscore-output": ("application/json", "json"),
}


def export_response(chunks: Iterator[str], *, project: Project, format: str) -> StreamingHttpResponse:
    """A streamed download of an export, named after the project and format."""
    content_type, extension = CONTENT_TYPES[format]
    response = StreamingHttpResponse(
        (chunk.encode("utf-8") for chunk in chunks), content_type=f"{content_type}; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{project.slug}-{format}.{extension}"'
    return response


def dataset_import(
    *,
    format: str,
    project: Project,
    stream: IO[str],
    actor: Any = None,
    skip_bad_rows: bool = False,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    if format not in IMPORTERS:
        raise ImportFailed(f"Unknown import format {format!r}; use one of: {', '.join(IMPORTERS)}.")
    return IMPORTERS[format](
        project=project, stream=stream, actor=actor, skip_bad_rows=skip_bad_rows, progress=progress
    )


def dataset_export(*, format: str, project: Project, run: Run | None = None) -> Iterator[str]:
    """``project`` in ``format`` as chunks of text; with ``run``, that run's output as well."""
    if format not in EXPORTERS:
        raise ApplicationError(
            f"Unknown export format {format!r}; use one of: {', '.join(EXPORTERS)}.", code="unknown_format"
        )
    if run is None and format in NEEDS_RUN:
        raise ApplicationError(
            f"The {format} format is a run's output: name the run (--run ID).", code="run_required"
        )
    if run is not None:
        if run.project_id != project.pk:
            raise NotFound(f"Run {run.pk} is not a run of project {project.slug}.")
        if format not in RUN_EXPORTS:
            raise ApplicationError(
                f"The {format} format has no place for a run's output; --run works with: "
                f"{', '.join(sorted(RUN_EXPORTS))}.",
                code="run_not_supported",
            )
    return EXPORTERS[format](project=project, run=run)


# --- Uploads: small files now, large ones as a background run ------------------------------------------

PARSERS: dict[str, Callable[[IO[str]], Iterator[Any]]] = {
    "haluquestqa": hq.read,
    "wikievalfacts": lambda stream: wef.read(stream)[1],
    "factreasoner": fr.read,
    "factscore": fs.read,
}


def dataset_export_for(*, actor: Any, project: Project, format: str, run: Run | None = None) -> Iterator[str]:
    """``dataset_export`` for a user who may see everyone's work in the project."""
    permissions.require_role(actor, project, lambda role: permissions.can_export(role, project), "export it")
    return dataset_export(format=format, project=project, run=run)


def dataset_import_upload(
    *, actor: Any, project: Project, format: str, upload: Any, skip_bad_rows: bool = False
) -> ImportReport | Run:
    """Import an uploaded file: at once when it is small (the report), else as a background run (the Run)."""
    permissions.require_manager(actor, project, "import datasets")
    if format not in IMPORTERS:
        raise ValidationFailed.from_fields(
            {"format": [f"Unknown format {format!r}; use one of: {', '.join(IMPORTERS)}."]}
        )
    if upload.size <= settings.DATASET_SYNC_IMPORT_MAX_BYTES:
        stream = io.TextIOWrapper(upload.file, encoding="utf-8", newline="")
        try:
            return dataset_import(
                format=format, project=project, stream=stream, actor=actor, skip_bad_rows=skip_bad_rows
            )
        except UnicodeDecodeError as exc:
            raise ImportFailed(
                f"Nothing was imported: the file is not UTF-8 text (byte {exc.start})."
            ) from None
    directory = Path(settings.DATASET_UPLOAD_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{uuid.uuid4().hex}.upload"
    with path.open("wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    run = Run.objects.create(
        project=project,
        kind=RunKind.IMPORT,
        method=format,
        parameters={
            "path": str(path),
            "filename": upload.name,
            "size": upload.size,
            "skip_bad_rows": skip_bad_rows,
        },
        created_by=actor,
    )
    from annotation.tasks import dataset_import_task

    transaction.on_commit(lambda: dataset_import_task.delay(run.pk))
    return run


def dataset_import_run(*, run_id: int) -> None:
    """The background half of ``dataset_import_upload``. Safe to run again after a crash: the import
    itself is one transaction, so a run that died while running starts over."""
    run = Run.objects.filter(pk=run_id).select_related("project", "created_by").first()
    if run is None or run.status in FINISHED_RUN_STATUSES:
        return
    path = Path(run.parameters["path"])
    Run.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING, started_at=timezone.now(), items_done=0)
    try:
        # First pass, outside any transaction, so the run page can show how far reading has got.
        with path.open(encoding="utf-8", newline="") as stream:
            rows = 0
            for _ in PARSERS[run.method](stream):
                rows += 1
                if rows % 1000 == 0:
                    Run.objects.filter(pk=run.pk).update(items_done=rows)
        Run.objects.filter(pk=run.pk).update(items_total=rows, items_done=rows)
        with path.open(encoding="utf-8", newline="") as stream:
            report = dataset_import(
                format=run.method,
                project=run.project,
                stream=stream,
                actor=run.created_by,
                skip_bad_rows=run.parameters.get("skip_bad_rows", False),
            )
    except (ImportFailed, FormatError) as exc:
        message = exc.message if isinstance(exc, ImportFailed) else f"Nothing was imported: {exc}"
        extra = exc.extra if isinstance(exc, ImportFailed) else {"errors": [exc.as_dict()]}
        Run.objects.filter(pk=run.pk).update(
            status=RunStatus.FAILED, error=message, result=extra, finished_at=timezone.now()
        )
    except UnicodeDecodeError as exc:
        Run.objects.filter(pk=run.pk).update(
            status=RunStatus.FAILED,
            finished_at=timezone.now(),
            error=f"Nothing was imported: the file is not UTF-8 text (byte {exc.start}).",
        )
    else:
        Run.objects.filter(pk=run.pk).update(
            status=RunStatus.SUCCEEDED,
            result=report.as_dict(),
            items_failed=len(report.skipped),
            finished_at=timezone.now(),
        )
    path.unlink(missing_ok=True)
