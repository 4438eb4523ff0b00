from django.urls import path

from annotation.web import views

app_name = "web"
urlpatterns = [
    path("", views.project_list, name="project-list"),
    path("projects/<slug:slug>/", views.project_detail, name="project-detail"),
    path("projects/<slug:slug>/questions/<int:pk>/", views.question_detail, name="question-detail"),
    path("projects/<slug:slug>/import/", views.project_import, name="project-import"),
    path("projects/<slug:slug>/export/<slug:format>/", views.project_export, name="project-export"),
    path("projects/<slug:slug>/runs/<int:pk>/", views.run_detail, name="run-detail"),
]
