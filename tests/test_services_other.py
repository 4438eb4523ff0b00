import pytest

from annotation import services
from annotation.choices import Role, Source, VerdictLabel
from annotation.errors import Conflict, Forbidden, NotFound, ValidationFailed
from annotation.models import AuditEvent, Membership, Preference, Verdict
from tests import factories as f


def test_preference_requires_reason_and_an_answer_of_the_question(world) -> None:  # noqa: ANN001
    with pytest.raises(ValidationFailed) as caught:
        services.preference_set(
            actor=world.annotator2, question=world.question, preferred_answer=world.other_answer, reason=" "
        )
    assert set(caught.value.extra) == {"preferred_answer", "reason"}
    assert not Preference.objects.filter(annotator=world.annotator2).exists()


def test_preference_is_one_per_annotator_and_versioned(world) -> None:  # noqa: ANN001
    pref = services.preference_set(
        actor=world.annotator,
        question=world.question,
        preferred_answer=world.answer2,
        reason="Shorter.",
        version=1,
    )
    assert pref.pk == world.preference.pk and pref.version == 2 and pref.preferred_answer == world.answer2
    with pytest.raises(Conflict):
        services.preference_set(
            actor=world.annotator,
            question=world.question,
            preferred_answer=world.answer1,
            reason="Stale tab.",
            version=1,
        )
    assert Preference.objects.get(pk=pref.pk).reason == "Shorter."
    assert AuditEvent.objects.filter(action="preference.update", object_id=str(pref.pk)).count() == 1


def test_preference_delete_only_by_its_author(world) -> None:  # noqa: ANN001
    with pytest.raises(Forbidden):
        services.preference_delete(actor=world.manager, preference=world.preference)
    services.preference_delete(actor=world.annotator, preference=world.preference)
    assert not Preference.objects.filter(pk=world.preference.pk).exists()


def test_human_verdict_upsert_and_validation(world) -> None:  # noqa: ANN001
    verdict = services.verdict_set_human(
        actor=world.annotator2,
        atom=world.atom,
        target=world.answer2,
        label=VerdictLabel.NOT_SUPPORTED,
        rationale="Ocean, not scattering.",
    )
    again = services.verdict_set_human(
        actor=world.annotator2, atom=world.atom, target=world.answer2, label=VerdictLabel.SUPPORTED, version=1
    )
    assert again.pk == verdict.pk and again.version == 2 and again.source == Source.HUMAN
    with pytest.raises(ValidationFailed) as caught:
        services.verdict_set_human(
            actor=world.annotator2, atom=world.atom, target=world.other_answer, label="maybe"
        )
    assert set(caught.value.extra) == {"label", "target"}
    with pytest.raises(Forbidden):
        services.verdict_set_human(
            actor=world.reviewer, atom=world.atom, target=world.answer1, label=VerdictLabel.SUPPORTED
        )
    assert Verdict.objects.filter(annotator=world.annotator2).count() == 1


def test_memberships_are_managed_by_managers_and_keep_one_manager(world) -> None:  # noqa: ANN001
    newcomer = f.UserFactory(username="newcomer")
    with pytest.raises(Forbidden):
        services.membership_set(
            actor=world.annotator, project=world.project, user=newcomer, role=Role.ANNOTATOR
        )
    with pytest.raises(NotFound):
        services.membership_set(
            actor=world.outsider, project=world.project, user=newcomer, role=Role.ANNOTATOR
        )
    services.membership_set(actor=world.manager, project=world.project, user=newcomer, role=Role.REVIEWER)
    assert Membership.objects.get(user=newcomer, project=world.project).role == Role.REVIEWER
    with pytest.raises(ValidationFailed):
        services.membership_set(actor=world.manager, project=world.project, user=newcomer, role="owner")
    with pytest.raises(ValidationFailed, match="role"):
        services.membership_remove(actor=world.manager, project=world.project, user=world.manager)
    services.membership_remove(actor=world.manager, project=world.project, user=newcomer)
    actions = set(AuditEvent.objects.filter(object_type="membership").values_list("action", flat=True))
    assert actions == {"membership.create", "membership.delete"}


def test_progress_counts_come_from_the_rows(world) -> None:  # noqa: ANN001
    f.SpanFactory(answer=world.answer1, annotator=world.annotator, start=3, end=9, category="relevance")
    progress = services.project_progress_refresh(project_id=world.project.pk)
    world.project.refresh_from_db()
    assert world.project.progress == progress
    assert progress["questions"] == 1 and progress["answers"] == 2
    assert progress["spans"] == 3 and progress["spans_by_category"] == {"factuality": 2, "relevance": 1}
    assert progress["annotators"]["annotator"]["spans"] == 2
    assert progress["annotators"]["annotator"]["preferences"] == 1
    assert progress["human_verdicts"] == 1
    assert services.project_progress_refresh(project_id=999_999) is None
