import factory
from django.contrib.auth import get_user_model

from annotation import models
from annotation.choices import AnswerKind, ErrorCategory, RunKind, Source, VerdictLabel


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("pw-for-tests")


class ProjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Project

    name = factory.Sequence(lambda n: f"Project {n}")
    slug = factory.Sequence(lambda n: f"project-{n}")


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Membership

    user = factory.SubFactory(UserFactory)
    project = factory.SubFactory(ProjectFactory)


def member(project: models.Project, role: str, username: str | None = None):  # noqa: ANN201
    user = UserFactory(username=username) if username else UserFactory()
    MembershipFactory(user=user, project=project, role=role)
    return user


class QuestionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Question

    project = factory.SubFactory(ProjectFactory)
    text = factory.Sequence(lambda n: f"Question number {n}: why?")


class AnswerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Answer

    question = factory.SubFactory(QuestionFactory)
    text = "An answer with several words in it. And a second sentence."
    kind = AnswerKind.HUMAN


class SpanFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.ErrorSpan

    answer = factory.SubFactory(AnswerFactory)
    start = 0
    end = 5
    quote = factory.LazyAttribute(lambda o: o.answer.text[o.start : o.end] if o.answer else "")
    category = ErrorCategory.FACTUALITY
    justification = "Wrong."
    source = Source.HUMAN
    annotator = factory.SubFactory(UserFactory)


class PreferenceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Preference

    reason = "Clearer."


class AtomFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Atom

    answer = factory.SubFactory(AnswerFactory)
    position = factory.Sequence(lambda n: n)
    text = "A fact."


class RunFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Run

    project = factory.SubFactory(ProjectFactory)
    kind = RunKind.VERIFY
    method = "faaf"


class VerdictFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = models.Verdict

    atom = factory.SubFactory(AtomFactory)
    source = Source.HUMAN
    label = VerdictLabel.SUPPORTED
