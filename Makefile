# Everything runs from the project's own virtualenv (.venv), created on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
comma := ,

.PHONY: install run demo web release worker beat dispatcher test lint lint-imports mutate format schema fuzz bench check-deploy clean

$(BIN)/.installed: requirements.txt requirements-dev.txt
	@$(PY) -c 'import sys; assert sys.version_info >= (3, 11), sys.version' \
	  || { echo "Python 3.11+ needed: make PY=/path/to/python3.11 ..."; exit 1; }
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements-dev.txt
	touch $@

install: $(BIN)/.installed

# The service with demo data at http://127.0.0.1:$(PORT) (SQLite, tasks and dispatch
# in-process), served by uvicorn from the one ASGI app: the website, the API and the MCP
# server at /mcp. The dispatcher runs alongside (polling SQLite) to start prebooked
# journeys when their dispatch window opens. With REDIS_URL set, tasks go to Redis and a
# Celery worker (with beat) runs too.
demo: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py seed_demo
	@if [ -n "$$REDIS_URL" ]; then \
	  $(BIN)/celery -A config worker -B -l info & worker=$$!; \
	  $(BIN)/python manage.py run_dispatcher & dispatcher=$$!; \
	  trap 'kill $$worker $$dispatcher 2>/dev/null' EXIT INT TERM; \
	  $(BIN)/uvicorn config.asgi:application --host 127.0.0.1 --port $(PORT); \
	else \
	  $(BIN)/python manage.py run_dispatcher & dispatcher=$$!; \
	  trap 'kill $$dispatcher 2>/dev/null' EXIT INT TERM; \
	  $(BIN)/uvicorn config.asgi:application --host 127.0.0.1 --port $(PORT); \
	fi

run: demo

# The production web process (the Procfile's web, compose.yaml's web): the ASGI app under
# gunicorn with uvicorn workers, metrics from every worker (config/gunicorn.py).
WEB_CONCURRENCY ?= 2
web: install
	$(BIN)/gunicorn config.asgi:application -c config/gunicorn.py -k uvicorn_worker.UvicornWorker \
	  --bind 0.0.0.0:$(PORT) --workers $(WEB_CONCURRENCY) \
	  --forwarded-allow-ips="$${FORWARDED_ALLOW_IPS:-127.0.0.1}"

# Before a new version serves (the Procfile's release): migrations, then the tariffs.
release: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_tariffs

# With REDIS_URL set, tasks go to Redis: run a worker and beat beside the server. Without
# QUEUES a worker serves every queue; production gives each its own worker (README,
# "Processes"): QUEUES=dispatch,celery, QUEUES=webhooks, QUEUES=billing.
QUEUES ?=
worker: install
	$(BIN)/celery -A config worker -l info $(if $(QUEUES),-Q $(QUEUES) -n $(firstword $(subst $(comma), ,$(QUEUES))).%h)

beat: install
	$(BIN)/celery -A config beat -l info

# Hands committed bookings to the workers (with REDIS_URL set; one or more beside them).
dispatcher: install
	$(BIN)/python manage.py run_dispatcher

# The whole test suite, on PostgreSQL and Redis at 127.0.0.1 unless DATABASE_URL and
# REDIS_URL say otherwise (DATABASE_URL=sqlite:///test.sqlite3 REDIS_URL= for no servers;
# the PostgreSQL-only concurrency tests are then skipped). CI runs exactly this.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres
TEST_REDIS_URL ?= redis://127.0.0.1:6379/0
test: install
	DATABASE_URL=$${DATABASE_URL-$(TEST_DATABASE_URL)} REDIS_URL=$${REDIS_URL-$(TEST_REDIS_URL)} \
	  $(BIN)/python -m pytest -q -n 2 --dist loadfile --create-db $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The arrows between apps (import-linter contracts in pyproject.toml), all of them.
lint-imports: install
	$(BIN)/lint-imports --no-logo

# Mutation testing of the fare, fee and redemption rules ([tool.mutmut] in pyproject.toml):
# mutates only these functions, runs the tests that reach each one, prints the kill rate.
# A few minutes; not part of CI. Survivors: .venv/bin/mutmut show NAME.
MUTATE_RULES ?= 'pricing.fares.x_fare_compute__*' 'pricing.fares.x__extras__*' \
  'core.money.*' 'pricing.fares.x__ceil_units__*' \
  'pricing.fares.x*CompiledTariff*band_at__*' 'pricing.fares.x*Windows*precedence__*' \
  'billing.fees.*' 'bookings.services.x_booking_redeem_quote__*'
mutate: install
	rm -rf mutants && mkdir mutants
	@echo "mutmut: testing the mutants (a few minutes; progress in mutants/run.log)"
	DATABASE_URL=$${DATABASE_URL-$(TEST_DATABASE_URL)} REDIS_URL= \
	  $(BIN)/mutmut run --max-children 2 $(MUTATE_RULES) > mutants/run.log 2>&1 \
	  || { tail -n 40 mutants/run.log; exit 1; }
	$(BIN)/python -m tests.mutation_score $(MUTATE_RULES)

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

schema: install
	$(BIN)/python manage.py spectacular --validate --fail-on-warn --file openapi.json

fuzz: install
	bash bench/fuzz.sh $(ARGS)

bench: install
	$(BIN)/python bench/run.py $(ARGS)

check-deploy: install
	DJANGO_SETTINGS_MODULE=config.settings.production SECRET_KEY=$$(head -c 48 /dev/urandom | base64) \
	  SITE_URL=https://taxi.example ALLOWED_HOSTS=taxi.example \
	  $(BIN)/python manage.py check --deploy --fail-level WARNING

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
