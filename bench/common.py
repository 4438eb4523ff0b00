"""Shared plumbing for benchmarks: a throwaway test database, timing, and JSON results."""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


def setup_django() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "factapp.settings.test")
    import django

    django.setup()


@contextmanager
def test_database() -> Iterator[None]:
    """Create the test database (as pytest would), and drop it afterwards."""
    from django.db import connection
    from django.test.utils import setup_test_environment, teardown_test_environment

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        yield
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
        teardown_test_environment()


def timed(fn: Callable[[], object], repeat: int = 7) -> dict[str, float]:
    """Median and min wall time of ``fn`` in milliseconds, after one warm-up call."""
    fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return {"median_ms": round(statistics.median(samples), 2), "min_ms": round(min(samples), 2)}


def write_results(name: str, results: dict) -> Path:
    from django.conf import settings

    vendor = None
    if settings.configured:  # the LLM benchmark uses no database
        from django.db import connection

        vendor = connection.vendor
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    payload = {
        "benchmark": name,
        "database": vendor,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "results": results,
    }
    path.write_text(json.dumps(payload, indent=2) + "\n")
    print(json.dumps(payload, indent=2))
    return path
