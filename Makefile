# Everything runs from the project's own virtualenv (.venv), created on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# One public address, SITE_URL: every link the service hands out (booking, status and pay
# pages, emails, job cards, problem types, printed logins, OAuth metadata) starts with it.
# `make demo PORT=8731` serves on 8731 and sets SITE_URL=http://127.0.0.1:8731; with
# SITE_URL set alone, the demo listens on its port (8000 when it names none).
ifneq ($(SITE_URL),)
PORT ?= $(shell $(PY) -c 'import sys, urllib.parse; print(urllib.parse.urlsplit(sys.argv[1]).port or 8000)' '$(SITE_URL)')
else
PORT ?= 8000
endif
DEMO_SITE_URL = $(if $(SITE_URL),$(SITE_URL),http://127.0.0.1:$(PORT))
comma := ,

.PHONY: install run demo web mcp release worker beat dispatcher ingest test test-nominatim lint lint-imports mutate format schema fuzz bench check-deploy clean

# REQUIREMENTS: what `make install` installs. Developers and CI take requirements-dev.txt
# (the service, its tests and tools); the production image sets requirements.txt, so no
# test or load tool (pytest, selenium, locust, mutmut, schemathesis) ships there.
REQUIREMENTS ?= requirements-dev.txt

$(BIN)/.installed: requirements.txt requirements-dev.txt
	@$(PY) -c 'import sys; assert sys.version_info >= (3, 11), sys.version' \
	  || { echo "Python 3.11+ needed: make PY=/path/to/python3.11 ..."; exit 1; }
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r $(REQUIREMENTS)
	touch $@

install: $(BIN)/.installed

# The service with demo data at http://127.0.0.1:$(PORT) (SQLite, tasks and dispatch
# in-process), served by uvicorn from the one ASGI app: the website, the API and the MCP
# server at /mcp. The dispatcher runs alongside (polling SQLite) to start prebooked
# journeys when their dispatch window opens. With REDIS_URL set, tasks go to Redis and a
# Celery worker (with beat) runs too. Forwarded headers are believed only from the
# addresses in TRUSTED_PROXIES (unset: from nobody, not even 127.0.0.1: contract 10).
# With STRIPE_API_BASE=http://127.0.0.1:8420 (or localhost), localstripe runs on that
# port, drivers' invoices are charged through it (StripeCollection, test keys) and its
# signed webhooks come to /billing/stripe/webhook (billing/README.md).
demo: export SITE_URL := $(DEMO_SITE_URL)
demo: install
	@echo "demo: serving on port $(PORT); links start with $$SITE_URL"
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py seed_demo
	@stripe=; case "$$STRIPE_API_BASE" in http://127.0.0.1:*|http://localhost:*) \
	  export BILLING_COLLECTION_BACKEND=$${BILLING_COLLECTION_BACKEND:-billing.collection.StripeCollection} \
	    STRIPE_SECRET_KEY=$${STRIPE_SECRET_KEY:-sk_test_demo} \
	    STRIPE_PUBLISHABLE_KEY=$${STRIPE_PUBLISHABLE_KEY:-pk_test_demo} \
	    STRIPE_WEBHOOK_SECRET=$${STRIPE_WEBHOOK_SECRET:-whsec_demo}; \
	  $(BIN)/localstripe --from-scratch \
	    --port "$$($(PY) -c 'import sys, urllib.parse; print(urllib.parse.urlsplit(sys.argv[1]).port)' "$$STRIPE_API_BASE")" & stripe=$$!; \
	  $(BIN)/python manage.py localstripe_webhook;; \
	esac; \
	if [ -n "$$REDIS_URL" ]; then \
	  $(BIN)/celery -A config worker -B -l info & worker=$$!; \
	  $(BIN)/python manage.py run_demo_dispatcher & dispatcher=$$!; \
	  trap 'kill $$worker $$dispatcher $$stripe 2>/dev/null' EXIT INT TERM; \
	  $(BIN)/uvicorn config.asgi:application --host 127.0.0.1 --port $(PORT) \
	    --forwarded-allow-ips="$${TRUSTED_PROXIES:-}"; \
	else \
	  $(BIN)/python manage.py run_demo_dispatcher & dispatcher=$$!; \
	  trap 'kill $$dispatcher $$stripe 2>/dev/null' EXIT INT TERM; \
	  $(BIN)/uvicorn config.asgi:application --host 127.0.0.1 --port $(PORT) \
	    --forwarded-allow-ips="$${TRUSTED_PROXIES:-}"; \
	fi

run: demo

# The production web process (the Procfile's web, compose.yaml's web): Django under plain
# WSGI, gunicorn's threaded workers, metrics from every worker (config/gunicorn.py). It
# serves everything but /mcp, which the proxy sends to `make mcp` (README, "Serving").
WEB_CONCURRENCY ?= 2
WEB_THREADS ?= 4
web: install
	$(BIN)/gunicorn config.wsgi:application -c config/gunicorn.py --worker-class gthread \
	  --threads $(WEB_THREADS) --bind 0.0.0.0:$(PORT) --workers $(WEB_CONCURRENCY) \
	  --forwarded-allow-ips="$${TRUSTED_PROXIES:-}"

# The MCP server (the Procfile's mcp): the one ASGI app under gunicorn with uvicorn
# workers; the proxy sends it /mcp. Stateless, so add workers or hosts as agents come.
MCP_PORT ?= 8002
MCP_CONCURRENCY ?= 1
mcp: install
	$(BIN)/gunicorn config.asgi:application -c config/gunicorn.py -k uvicorn_worker.UvicornWorker \
	  --bind 0.0.0.0:$(MCP_PORT) --workers $(MCP_CONCURRENCY) \
	  --forwarded-allow-ips="$${TRUSTED_PROXIES:-}"

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

# The position ingest on its own (drivers.api.ingest_wsgi): what the proxy sends
# POST /api/public/v1/driver/location and /api/public/v1/osmand/ to in production. Under
# granian, whose HTTP handling is compiled (README, "Sizing the position ingest"). It reads
# no client address, so it needs no trusted proxies.
INGEST_PORT ?= 8001
INGEST_CONCURRENCY ?= 2
INGEST_THREADS ?= 4
ingest: install
	INGEST_THREADS=$(INGEST_THREADS) $(BIN)/granian --interface asgi --no-ws \
	  --workers $(INGEST_CONCURRENCY) --respawn-failed-workers \
	  --http1-header-read-timeout 10000 --host 0.0.0.0 --port $(INGEST_PORT) \
	  --log-config config/granian-logging.json drivers.api.ingest_asgi:application

# Hands committed bookings to the workers (with REDIS_URL set; one or more beside them).
dispatcher: install
	$(BIN)/python manage.py run_dispatcher

# The whole test suite, on PostgreSQL and Redis at 127.0.0.1 unless DATABASE_URL and
# REDIS_URL say otherwise (DATABASE_URL=sqlite:///test.sqlite3 REDIS_URL= for no servers;
# the PostgreSQL-only concurrency tests are then skipped). CI runs exactly this. On a bare
# machine (neither variable set, nothing listening on 5432 / 6379) it says so in one line
# and runs the suite on SQLite and without Redis (tests/reachable.py).
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/postgres
TEST_REDIS_URL ?= redis://127.0.0.1:6379/0
test: install
	@database=$${DATABASE_URL-$(TEST_DATABASE_URL)}; redis=$${REDIS_URL-$(TEST_REDIS_URL)}; missing=; \
	if [ -z "$${DATABASE_URL+set}" ] && ! $(BIN)/python -m tests.reachable "$$database"; then \
	  missing="no PostgreSQL at $$database"; database=sqlite:///test.sqlite3; \
	fi; \
	if [ -z "$${REDIS_URL+set}" ] && ! $(BIN)/python -m tests.reachable "$$redis"; then \
	  missing="$${missing:+$$missing, }no Redis at $$redis"; redis=; \
	fi; \
	if [ -n "$$missing" ]; then echo "make test: $$missing: running on DATABASE_URL=$$database REDIS_URL=$$redis instead (set them to choose)"; fi; \
	DATABASE_URL=$$database REDIS_URL=$$redis \
	  $(BIN)/python -m pytest -q -n 2 --dist loadfile --create-db $(PYTEST_ARGS)

# A real Nominatim built from a small extract the test writes (issue 40; about a minute):
# Nominatim in its own virtualenv, over Debian's osm2pgsql and PostGIS
# (apt-get install osm2pgsql postgresql-15-postgis-3), in its own PostgreSQL cluster.
NOMINATIM_VENV := var/nominatim-venv
$(NOMINATIM_VENV)/bin/nominatim: requirements-nominatim.txt
	$(PY) -m venv $(NOMINATIM_VENV)
	$(NOMINATIM_VENV)/bin/pip install -q -r requirements-nominatim.txt
	touch $@
test-nominatim: install $(NOMINATIM_VENV)/bin/nominatim
	NOMINATIM_BIN=$(abspath $(NOMINATIM_VENV)/bin/nominatim) \
	  $(BIN)/python -m pytest -q -p no:xdist -m nominatim pricing/tests/test_nominatim_live.py

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The arrows between apps (import-linter contracts in pyproject.toml), all of them.
lint-imports: install
	$(BIN)/lint-imports --no-logo

# Mutation testing ([tool.mutmut] in pyproject.toml): mutates only the rule functions of a
# family, runs the family's tests that reach each one and prints the kill rate per module,
# less the survivors reviewed as equivalent (tests/mutation_equivalent.py). Not part of CI
# nor of `make test`: CPU-heavy, so one family at a time, at nice 10:
# `make mutate FAMILY=grid` (families below; README "Mutation testing" has their scores).
# `make mutate MUTATE_RULES='agents.grants.*'` narrows further. Survivors: mutmut show NAME.
MUTATE_money := 'pricing.fares.x_fare_compute__*' 'pricing.fares.x__extras__*' \
  'core.money.*' 'pricing.fares.x__ceil_units__*' \
  'pricing.compiled_tariffs.x*CompiledTariff*band_at__*' \
  'pricing.tariff_windows.x*Windows*precedence__*' \
  'billing.fees.*' 'bookings.services.creation.x_booking_redeem_quote__*'
# The fare's tests, the band in force (holidays: band_at and the windows' precedence), the
# fee schedules and the VAT rule (issue 36), and quote redemption.
MUTATE_TESTS_money := pricing/tests/test_fares.py pricing/tests/test_fare_rules.py \
  pricing/tests/test_holidays.py core/tests/test_money.py billing/tests/test_fees.py \
  billing/tests/test_billing_vat.py billing/tests/test_billing_late_payments.py \
  bookings/tests/test_services_redeem.py
MUTATE_dispatch := 'bookings.policies.x_dispatch_window_opens_at__*' \
  'bookings.policies.x_pickup_require_future__*' \
  'dispatch.services.offers.trail.x__ensure_open__*' \
  'dispatch.services.offers.answers.x_offer_accept__*' \
  'dispatch.services.offers.answers.x_offer_decline__*' \
  'dispatch.services.offers.answers.x_offer_expire__*' \
  'dispatch.services.offers.answers.x_offers_expire_overdue__*' \
  'dispatch.services.waiting.*'
MUTATE_TESTS_dispatch := dispatch/tests/test_dispatch_window.py dispatch/tests/test_offers.py \
  dispatch/tests/test_offer_link_page.py dispatch/tests/test_waiting.py \
  bookings/tests/test_actions.py
MUTATE_requests := 'partners.services.signatures.*' 'api.idempotency.x__digest__*' \
  'api.idempotency.x_idempotency_claim__*' 'api.idempotency.x_idempotency_settle__*' \
  'api.idempotency.x*IdempotentViewMixin*idempotency_caller__*'
MUTATE_TESTS_requests := partners/tests/test_services_signatures.py api/tests/test_idempotency.py \
  partners/tests/test_partners_intake.py bookings/tests/test_api_v1_booking.py \
  drivers/tests/test_api_driver.py
MUTATE_agents := 'agents.confirmations.*'
MUTATE_TESTS_agents := agents/tests/test_confirmations.py tests/test_stale_quotes.py
# The newer families (issue 37), each with the tests that are its own (MUTATE_TESTS_*).
MUTATE_tariffs := 'pricing.compiled_tariffs.x*CompiledTariff*in_force_on__*' \
  'pricing.loaders.x_lifecycle_from_status__*' 'pricing.selectors.x_councils_for__*' \
  'pricing.selectors.x_tariff_select__*'
MUTATE_TESTS_tariffs := pricing/tests/test_services.py pricing/tests/test_licensing_area.py
MUTATE_meter := 'pricing.fares.x__meter__*' 'pricing.fares.x_time_in_traffic_s__*' \
  'pricing.waiting.*'
MUTATE_TESTS_meter := pricing/tests/test_fares.py pricing/tests/test_fare_rules.py \
  pricing/tests/test_time_model.py pricing/tests/test_waiting_rate.py \
  dispatch/tests/test_waiting.py
MUTATE_grid := 'pricing.licensing.*'
MUTATE_TESTS_grid := pricing/tests/test_licensing_boundaries.py
MUTATE_postcodes := 'pricing.postcodes.x_postcode_parse__*' 'pricing.postcodes.x_postcode_in__*' \
  'pricing.postcodes.x__rows_with_header__*' 'pricing.postcodes.x__in_uk__*' \
  'pricing.postcodes.x_centroids_aggregate__*' 'pricing.postcodes.x_postcode_areas_load__*'
MUTATE_TESTS_postcodes := pricing/tests/test_postcodes.py
MUTATE_trip := 'bookings.transitions.*' \
  'dispatch.services.jobs.x_settlement_require_within_fare__*'
MUTATE_TESTS_trip := bookings/tests/test_state_machine.py bookings/tests/test_status_groups.py \
  drivers/tests/test_api_pickup_code.py partners/tests/test_partners_trust_boundary.py
MUTATE_tokens := 'drivers.tokens.*' 'config.logins.*'
MUTATE_TESTS_tokens := drivers/tests/test_tokens.py tests/test_login_throttle.py \
  tests/test_production_defaults.py
MUTATE_ingest := 'drivers.api.ingest.x_fix_time__*' 'drivers.api.ingest.x_fix_time_check__*' \
  'drivers.api.ingest.x_fix_parse__*' 'drivers.api.ingest.x_location_credential__*' \
  'drivers.positions.credentials.x_app_token_credential__*' \
  'drivers.positions.credentials.x__app_token_read__*'
MUTATE_TESTS_ingest := drivers/tests/test_ingest.py drivers/tests/test_osmand.py \
  drivers/tests/test_position_credentials.py drivers/tests/test_ingest_token_limit.py \
  drivers/tests/test_position_revocations.py
MUTATE_mcp := 'agents.grants.*' 'agents.mcp.gate.*'
MUTATE_TESTS_mcp := agents/tests/test_grants.py agents/tests/test_mcp_gate.py \
  agents/tests/test_oauth.py
MUTATE_FAMILIES := money dispatch requests agents tariffs meter grid postcodes trip tokens \
  ingest mcp
ifdef FAMILY
ifeq ($(filter $(FAMILY),$(MUTATE_FAMILIES)),)
$(error FAMILY=$(FAMILY): one of $(MUTATE_FAMILIES))
endif
MUTATE_RULES ?= $(MUTATE_$(FAMILY))
MUTATE_TESTS ?= $(MUTATE_TESTS_$(FAMILY))
endif
MUTATE_RULES ?= $(foreach family,$(MUTATE_FAMILIES),$(MUTATE_$(family)))
# SQLite, not the shared PostgreSQL: mutmut's census migrates mutants/test_mutate.sqlite3
# once and each child tests in its own copy of it (conftest.py), so two children never share
# rows and no mutant pays for migrations. The tests marked postgres are left out anyway.
MUTATE_DATABASE_URL ?= sqlite:///$(CURDIR)/mutants/mutate.sqlite3
mutate: install
	rm -rf mutants && mkdir mutants
	@echo "mutmut: testing the mutants (progress in mutants/run.log)"
	DATABASE_URL=$(MUTATE_DATABASE_URL) REDIS_URL= MUTATE_TESTS="$(MUTATE_TESTS)" \
	  nice -n 10 $(BIN)/mutmut run --max-children 2 $(MUTATE_RULES) > mutants/run.log 2>&1 \
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
