#!/usr/bin/env bash
# Schema-driven fuzzing (contract 8): run schemathesis against a throwaway local server and
# fail on any 5xx, undocumented status code, wrong content type or response schema.
#   bash bench/fuzz.sh [max-examples]
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
port=${FUZZ_PORT:-8299}
export DATABASE_URL="sqlite:///$work/db.sqlite3" RATELIMIT_ENABLE=0 DJANGO_DEBUG=0 \
  SITE_URL="http://127.0.0.1:$port" CONNECTED_DOMAINS="http://127.0.0.1:$port"
.venv/bin/python manage.py migrate -v0
key=$(.venv/bin/python manage.py seed_demo | sed -n 's/.*"slug": "demo-agent".*"apiKey": "\([^"]*\)".*/\1/p')
.venv/bin/python manage.py runserver "127.0.0.1:$port" --noreload >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 30); do curl -sf "http://127.0.0.1:$port/api/public/openapi.json" >/dev/null && break; sleep 0.5; done
.venv/bin/schemathesis run "http://127.0.0.1:$port/api/public/openapi.json" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --max-examples "${1:-40}" -H "x-api-key: $key" --workers 1
