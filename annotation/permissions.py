"""Who may see and change what. The web pages and the API both ask here.

Rules: a user sees only the projects they are a member of (superusers see all, as managers); outside
them everything is 404. Reviewers and managers see all work in their projects; annotators see their own
work and model output, and other annotators' work only when the project is not blind. Annotators and
managers write annotations; reviewers read. Only the author changes a human span, preference or verdict.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q, QuerySet

from annotation.choices import Role, Source
from annotation.models import Membership, Project

User = AbstractBaseUser | AnonymousUser

PRIVILEGED_ROLES = frozenset({Role.REVIEWER, Role.MANAGER})
WRITER_ROLES = frozenset({Role.ANNOTATOR, Role.MANAGER})


def projects_visible(user: User) -> QuerySet[Project]:
    """The projects a user may see at all."""
    if not user.is_authenticated:
        return Project.objects.none()
    if user.is_superuser:
        return Project.objects.all()
    return Project.objects.filter(memberships__user=user)


def role_for(user: User, project: Project) -> str | None:
    """The user's role in the project, or None if they are not a member."""
    if not user.is_authenticated:
        return None
    if user.is_superuser:
        return Role.MANAGER
    return Membership.objects.filter(user=user, project=project).values_list("role", flat=True).first()


def roles_by_project(user: User) -> dict[int, str]:
    """All of a user's roles, in one query: {project_id: role}."""
    if not user.is_authenticated:
        return {}
    if user.is_superuser:
        return dict.fromkeys(Project.objects.values_list("id", flat=True), Role.MANAGER)
    return dict(Membership.objects.filter(user=user).values_list("project_id", "role"))


def sees_others_work(role: str | None, project: Project) -> bool:
    return role in PRIVILEGED_ROLES or (role is not None and not project.blind)


def can_annotate(role: str | None) -> bool:
    return role in WRITER_ROLES


def can_manage(role: str | None) -> bool:
    return role == Role.MANAGER


def can_export(role: str | None, project: Project) -> bool:
    """Exports hold everyone's work: reviewers and managers, or any member when the project is not blind."""
    return sees_others_work(role, project)


def _project_sets(user: User) -> tuple[QuerySet, QuerySet]:
    """(projects the user is in, projects where the user sees everyone's work), as subqueries."""
    if user.is_superuser:
        everything = Project.objects.values("id")
        return everything, everything
    member = Membership.objects.filter(user=user)
    open_to_user = member.filter(Q(role__in=PRIVILEGED_ROLES) | Q(project__blind=False))
    return member.values("project_id"), open_to_user.values("project_id")


def spans_visible_q(user: User) -> Q:
    if not user.is_authenticated:
        return Q(pk__in=[])
    member, open_to_user = _project_sets(user)
    in_member = Q(question__project__in=member) | Q(answer__question__project__in=member)
    in_open = Q(question__project__in=open_to_user) | Q(answer__question__project__in=open_to_user)
    return in_member & (in_open | Q(annotator=user) | Q(source=Source.MODEL))


def preferences_visible_q(user: User) -> Q:
    if not user.is_authenticated:
        return Q(pk__in=[])
    member, open_to_user = _project_sets(user)
    return Q(question__project__in=member) & (Q(question__project__in=open_to_user) | Q(annotator=user))


def verdicts_visible_q(user: User) -> Q:
    if not user.is_authenticated:
        return Q(pk__in=[])
    member, open_to_user = _project_sets(user)
    path = "atom__answer__question__project__in"
    return Q(**{path: member}) & (Q(**{path: open_to_user}) | Q(annotator=user) | Q(source=Source.MODEL))


def require_role(actor: User, project: Project, allowed: Callable[[str | None], bool], what: str) -> str:
    """The actor's role in ``project`` if ``allowed`` accepts it. Raises NotFound for non-members (so ids
    do not leak) and Forbidden, saying what the role cannot do, for members."""
    from annotation.errors import Forbidden, NotFound

    role = role_for(actor, project)
    if role is None:
        raise NotFound("Not found.")
    if not allowed(role):
        raise Forbidden(f"Your role in this project ({role}) cannot {what}.")
    return role


def require_writer(actor: User, project: Project) -> str:
    return require_role(actor, project, can_annotate, "annotate")


def require_manager(actor: User, project: Project, what: str = "do this") -> str:
    return require_role(actor, project, can_manage, what)
