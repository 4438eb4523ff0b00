from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.authtoken.views import obtain_auth_token
from rest_framework.routers import DefaultRouter

from annotation.api import views

router = DefaultRouter()
router.register("projects", views.ProjectViewSet, basename="project")
router.register("questions", views.QuestionViewSet, basename="question")
router.register("answers", views.AnswerViewSet, basename="answer")
router.register("spans", views.SpanViewSet, basename="span")
router.register("preferences", views.PreferenceViewSet, basename="preference")
router.register("verdicts", views.VerdictViewSet, basename="verdict")
router.register("runs", views.RunViewSet, basename="run")

app_name = "api"
urlpatterns = [
    path("auth/token/", obtain_auth_token, name="token"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("", include(router.urls)),
]
