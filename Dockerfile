# The service's image: one image, every process (compose.yaml runs each with its own
# command, the Makefile's). Not built on the project's own machines (no image registry
# there): see README, "Self-hosting with containers".
FROM python:3.11-slim

# REQUIREMENTS: `make install` takes the production dependencies only (requirements.txt),
# here and in every make command the container runs.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=config.settings.production \
    REQUIREMENTS=requirements.txt \
    PORT=8000

RUN apt-get update \
    && apt-get install -y --no-install-recommends make libpq5 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 taxi

WORKDIR /app
# Dependencies first, so that a code change does not reinstall them: `make install`
# builds .venv from requirements.txt alone (REQUIREMENTS above); requirements-dev.txt is
# copied only because the Makefile's install rule watches both files.
COPY --chown=taxi:taxi Makefile requirements.txt requirements-dev.txt ./
RUN chown taxi:taxi /app
USER taxi
RUN make install PY=python3

COPY --chown=taxi:taxi . .
# Static files are served by WhiteNoise from STATIC_ROOT; collectstatic needs a key only
# to import the settings.
RUN SECRET_KEY=collectstatic-only .venv/bin/python manage.py collectstatic --noinput
# Uploaded files (photos of fare tables) when no S3 bucket is set: compose.yaml mounts a
# volume here, owned by the app's user because the folder exists in the image first.
RUN mkdir -p /app/media

EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s CMD python3 -c "import urllib.request, os; urllib.request.urlopen(f'http://127.0.0.1:{os.environ[\"PORT\"]}/healthz', timeout=4)"
CMD ["make", "web"]
