from django.urls import path

from annotation.web import views

app_name = "web"
urlpatterns = [
    path("", views.project_list, name="project-list"),
    path("projects/<slug:slug>/", views.project_detail, name="project-detail"),
    path("projects/<slug:slug>/questions/<int:pk>/", views.question_detail, name="question-detail"),
]
