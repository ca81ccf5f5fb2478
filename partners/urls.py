"""Operator dashboard pages (HTML). Included at /operator/ by config/urls.py."""

from django.contrib.auth import views as auth_views
from django.urls import path

from partners import views

urlpatterns = [
    path(
        "login/",
        auth_views.LoginView.as_view(
            template_name="partners/operator/login.html", next_page="operator-jobs"
        ),
        name="operator-login",
    ),
    path(
        "logout/", auth_views.LogoutView.as_view(next_page="operator-login"), name="operator-logout"
    ),
    path("", views.operator_job_list, name="operator-jobs"),
    path("calendar/", views.operator_calendar, name="operator-calendar"),
    path("tables/", views.operator_tables, name="operator-tables"),
    path("jobs/<str:reference>/assign", views.operator_job_assign_view, name="operator-job-assign"),
]
