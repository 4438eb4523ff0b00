import pytest
from django.contrib import admin

from tests import factories as f


@pytest.mark.parametrize(
    "model", [m for m in admin.site._registry if m._meta.app_label == "annotation"], ids=lambda m: m.__name__
)
def test_admin_changelists_load(client, world, model, django_assert_max_num_queries) -> None:  # noqa: ANN001
    client.force_login(f.UserFactory(username="root", is_staff=True, is_superuser=True))
    url = f"/admin/annotation/{model._meta.model_name}/"
    with django_assert_max_num_queries(12):
        assert client.get(url).status_code == 200


def test_answer_text_is_frozen_once_spans_point_into_it(client, world) -> None:  # noqa: ANN001
    client.force_login(f.UserFactory(username="root", is_staff=True, is_superuser=True))
    page = client.get(f"/admin/annotation/answer/{world.answer1.pk}/change/").content.decode()
    assert 'name="text"' not in page
    fresh = f.AnswerFactory(question=world.question, position=3)
    page = client.get(f"/admin/annotation/answer/{fresh.pk}/change/").content.decode()
    assert 'name="text"' in page
