"""The driver's doors are in one app and mounted once (issue 38): a driver endpoint or
page added to drivers, dispatch or billing, or a second "driver/" mount, fails here."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, get_resolver


def _routes(patterns, prefix: str = ""):
    """(full route, view's module) of every pattern under ``patterns``."""
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            view = getattr(pattern.callback, "view_class", pattern.callback)
            yield route, view.__module__


def test_every_driver_app_endpoint_is_served_by_driverapp():
    driver_routes = [
        (route, module)
        for route, module in _routes(get_resolver("config.urls").url_patterns)
        if route.startswith(("api/public/v1/driver/", "api/public/v1/osmand/"))
    ]

    assert len(driver_routes) == 12
    assert [
        route for route, module in driver_routes if not module.startswith("driverapp.api")
    ] == []


def test_every_driver_page_is_mounted_once_under_driver():
    project = get_resolver("config.urls").url_patterns
    driver_mounts = [pattern for pattern in project if str(pattern.pattern) == "driver/"]
    page_routes = [route for route, _ in _routes(get_resolver("config.urls").url_patterns)]

    assert len(driver_mounts) == 1
    assert driver_mounts[0].urlconf_name.__name__ == "driverapp.urls"
    assert "driver/dashboard/" in page_routes
    assert "driver/billing/" in page_routes
    assert len(page_routes) == len(set(page_routes))
