#!/bin/sh
# Wait for the database, then run the web server (migrating first) or a Celery worker.
set -eu

python - <<'PY'
import os, sys, time
import dj_database_url
import psycopg

url = os.environ.get("DATABASE_URL", "")
if not url.startswith("postgres"):
    sys.exit(0)
cfg = dj_database_url.parse(url)
deadline = time.monotonic() + 60
while True:
    try:
        psycopg.connect(host=cfg["HOST"], port=cfg["PORT"] or 5432, user=cfg["USER"],
                        password=cfg["PASSWORD"], dbname=cfg["NAME"], connect_timeout=3).close()
        break
    except psycopg.OperationalError as exc:
        if time.monotonic() > deadline:
            sys.exit(f"PostgreSQL did not answer within 60 s: {exc}")
        print("waiting for PostgreSQL ...", flush=True)
        time.sleep(1)
PY

case "${1:-web}" in
  web)
    python manage.py migrate --noinput
    exec gunicorn factapp.wsgi:application --bind 0.0.0.0:8000 \
      --workers "${WEB_WORKERS:-3}" --threads "${WEB_THREADS:-4}" --access-logfile -
    ;;
  worker)
    exec celery -A factapp worker --loglevel INFO --concurrency "${WORKER_CONCURRENCY:-4}"
    ;;
  *)
    exec "$@"
    ;;
esac
