"""How well the offline backend agrees with human verdicts: a FaaF recall run on a WikiEvalFacts file.

BENCH_WEF names the file (the real WikiEvalFacts CSV when you have it); by default the small sample of our
own shipped with the demo. Prints error rate, F1micro on not supported and recall per answer kind.
"""

from __future__ import annotations

import os
from pathlib import Path

from common import ROOT, setup_django, test_database, write_results

SOURCE = Path(os.environ.get("BENCH_WEF", ROOT / "annotation" / "demo" / "wikievalfacts_sample.csv"))


def main() -> None:
    setup_django()
    from django.test import override_settings

    from annotation.models import Project
    from annotation.services.datasets import dataset_import
    from annotation.services.runs import run_report, run_start, run_sync

    results: dict = {"file": SOURCE.name}
    with test_database(), override_settings(LLM_BASE_URL=""):
        project = Project.objects.create(name="Offline quality", slug="offline-quality")
        with SOURCE.open(encoding="utf-8", newline="") as stream:
            report = dataset_import(format="wikievalfacts", project=project, stream=stream)
        results["questions"] = report.imported
        for variant in ("tf", "tfn"):
            run = run_sync(
                run=run_start(actor=None, project=project, method="faaf", variant=variant, enqueue=False)
            )
            results[f"faaf-{variant}"] = run_report(run=run)["kinds"]
    write_results("offline_quality", results)


if __name__ == "__main__":
    main()
