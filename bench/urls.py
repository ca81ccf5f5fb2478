from django.urls import include, path

from bench.reference.views import ReferenceView

urlpatterns = [
    path("bench/reference", ReferenceView.as_view()),
    path("", include("config.urls")),
]

from config.urls import handler400, handler403, handler404, handler500  # noqa: E402, F401
