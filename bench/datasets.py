"""Import and export speed and peak memory of HaluQuestQA files, each phase in a process of its own.

Sizes: the 205-row dev file (when ../shared/data is beside the checkout), and a synthetic file of
BENCH_ROWS rows (default 50,000) made by repeating real rows under new indices. With a PostgreSQL
DATABASE_URL the benchmark creates and drops a scratch database on that server; otherwise it uses a
fresh SQLite file.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import tempfile
import time
from itertools import cycle, islice
from pathlib import Path

from common import ROOT, setup_django, write_results

ROWS = int(os.environ.get("BENCH_ROWS", "50000"))
DEV = ROOT.parent / "shared" / "data" / "haluquestqa" / "HaluQuestQA.dev.csv"
FIXTURE = ROOT / "tests" / "fixtures" / "haluquestqa_sample.tsv"


def synthetic(source: Path, rows: int, target: Path) -> None:
    from annotation.factcheck.formats import haluquestqa as hq

    with source.open(encoding="utf-8", newline="") as stream:
        real = [r for r in hq.read(stream) if isinstance(r, hq.Row)]
    with target.open("w", encoding="utf-8", newline="") as out:
        writer = hq.writer(out)
        writer.writerow(hq.COLUMNS)
        for index, row in enumerate(islice(cycle(real), rows)):
            row.index = str(index)
            writer.writerow(hq.cells(row))


def measured(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(seconds, peak resident MB) of one manage.py command."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    output = process.stdout.read().decode()
    if status != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{output}")
    print(output.strip())
    return seconds, usage.ru_maxrss / 1024


def scratch_database(env: dict[str, str]) -> tuple[dict[str, str], callable]:
    url = env.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        var = tempfile.mkdtemp(prefix="factapp-bench-")
        return env | {"FACTAPP_VAR_DIR": var, "DATABASE_URL": f"sqlite:///{var}/bench.sqlite3"}, lambda: None
    import dj_database_url
    import psycopg

    cfg = dj_database_url.parse(url)
    name = f"factapp_bench_{os.getpid()}"
    params = {
        "host": cfg["HOST"],
        "port": cfg["PORT"] or 5432,
        "user": cfg["USER"],
        "password": cfg["PASSWORD"],
        "dbname": cfg["NAME"],
        "autocommit": True,
    }
    with psycopg.connect(**params) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(**params) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')

    return env | {"DATABASE_URL": url.rsplit("/", 1)[0] + "/" + name}, drop


def main() -> None:
    setup_django()
    # Production settings: with DEBUG on, Django keeps every query's SQL, which is not what users run.
    base = os.environ | {
        "DJANGO_SETTINGS_MODULE": "factapp.settings.base",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
    }
    env, drop = scratch_database(base)
    results: dict[str, dict[str, float]] = {}
    work = Path(tempfile.mkdtemp(prefix="factapp-bench-files-"))
    try:
        measured(["migrate", "--noinput", "-v", "0"], env)
        files = {}
        if DEV.exists():
            files["dev (205 rows)"] = (DEV, 205)
        big = work / "synthetic.tsv"
        synthetic(DEV if DEV.exists() else FIXTURE, ROWS, big)
        files[f"synthetic ({ROWS} rows)"] = (big, ROWS)
        for i, (name, (path, rows)) in enumerate(files.items()):
            slug = f"bench-{i}"
            seconds, peak = measured(
                ["import_dataset", "--format", "haluquestqa", "--project", slug, "--create", str(path)], env
            )
            out = work / f"{slug}.tsv"
            export_seconds, export_peak = measured(
                ["export_dataset", "--format", "haluquestqa", "--project", slug, "--output", str(out)], env
            )
            results[name] = {
                "rows": rows,
                "file_mb": round(path.stat().st_size / 2**20, 1),
                "import_seconds": round(seconds, 2),
                "import_rows_per_second": round(rows / seconds),
                "import_peak_mb": round(peak, 1),
                "export_seconds": round(export_seconds, 2),
                "export_rows_per_second": round(rows / export_seconds),
                "export_peak_mb": round(export_peak, 1),
            }
    finally:
        drop()
    results["database"] = {"vendor": "postgresql" if env["DATABASE_URL"].startswith("postgres") else "sqlite"}
    write_results("datasets", results)


if __name__ == "__main__":
    main()
