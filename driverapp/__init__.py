"""The driver's doors in one app (issue 38): the driver app's API (``driverapp.api``,
included by ``api.urls`` under /api/public/) and the driver pages (``driverapp.urls``,
mounted once by ``config.urls`` under ``driver/``). Views authenticate, parse, call one
service of drivers, dispatch, billing or pricing, and render; no rule lives here."""
