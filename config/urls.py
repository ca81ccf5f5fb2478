from django.contrib import admin
from django.urls import include, path

from api import problems

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/public/", include("api.urls")),
    path("", include("bookings.urls")),
]

handler400 = problems.handler400
handler403 = problems.handler403
handler404 = problems.handler404
handler500 = problems.handler500
