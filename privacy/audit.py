"""The record of who looked (issue 39): each back-office view of a booking, a passenger
or a driver, and each search of their lists, is written to ``privacy.StaffView``.

A middleware, so that no admin module of a lower app has to import this one: it reads
the URL Django resolved (the admin's own names, ``admin:<app>_<model>_change`` and
``_changelist``) after the view answered 200. A request outside the admin's namespace
returns at the first check.
"""

from __future__ import annotations

from privacy.models import StaffView

WATCHED = {
    "bookings_booking": "bookings.booking",
    "bookings_passenger": "bookings.passenger",
    "drivers_driver": "drivers.driver",
}


def staff_view_record(request, response) -> None:
    match = getattr(request, "resolver_match", None)
    if match is None or match.namespace != "admin" or response.status_code != 200:
        return
    base, _, view = (match.url_name or "").rpartition("_")
    model = WATCHED.get(base)
    if model is None or view not in ("change", "changelist"):
        return
    search = request.GET.get("q", "")[:200] if view == "changelist" else ""
    if view == "changelist" and not search:
        return  # the list without a search shows what every list shows; a search looks
    user = request.user
    StaffView.objects.create(
        user=user if user.is_authenticated else None,
        username=user.get_username(),
        model=model,
        object_id=str(match.kwargs.get("object_id", ""))[:64],
        search=search,
        path=request.path[:300],
    )


class StaffViewAuditMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.method == "GET":
            staff_view_record(request, response)
        return response
