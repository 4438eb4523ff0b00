from django.urls import path

from annotation.web import views, workspace

app_name = "web"
urlpatterns = [
    path("", views.project_list, name="project-list"),
    path("projects/<slug:slug>/", views.project_detail, name="project-detail"),
    path("projects/<slug:slug>/settings/", workspace.project_settings, name="project-settings"),
    path("projects/<slug:slug>/members/", workspace.member_add, name="member-add"),
    path("projects/<slug:slug>/next/", workspace.queue_next, name="queue-next"),
    path("projects/<slug:slug>/questions/<int:pk>/", workspace.item, name="item"),
    path("projects/<slug:slug>/questions/<int:pk>/spans/", workspace.span_save, name="span-save"),
    path("projects/<slug:slug>/questions/<int:pk>/spans/delete/", workspace.span_delete, name="span-delete"),
    path("projects/<slug:slug>/questions/<int:pk>/preference/", workspace.preference_save, name="preference"),
    path("projects/<slug:slug>/questions/<int:pk>/submit/", workspace.item_submit, name="item-submit"),
    path("projects/<slug:slug>/questions/<int:pk>/time/", workspace.item_time, name="item-time"),
    path("projects/<slug:slug>/import/", views.project_import, name="project-import"),
    path("projects/<slug:slug>/export/<slug:format>/", views.project_export, name="project-export"),
    path("projects/<slug:slug>/runs/", views.run_create, name="run-create"),
    path("projects/<slug:slug>/endpoints/", views.endpoint_save, name="endpoint-save"),
    path("projects/<slug:slug>/runs/<int:pk>/", views.run_detail, name="run-detail"),
    path("projects/<slug:slug>/runs/<int:pk>/cancel/", views.run_cancel, name="run-cancel"),
]
