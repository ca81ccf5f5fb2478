"""
WSGI config for config project.

It exposes the WSGI callable as a module-level variable named ``application``.

For more information on this file, see
https://docs.djangoproject.com/en/5.2/howto/deployment/wsgi/
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

django_wsgi_application = get_wsgi_application()

from api.request_bodies import RequestBodyReadWithin  # noqa: E402 - needs Django set up

# Under gunicorn (the Procfile's web): a body that does not arrive within
# REQUEST_BODY_TIMEOUT_SECONDS frees its thread (issue 35); elsewhere it passes through.
application = RequestBodyReadWithin(django_wsgi_application)
