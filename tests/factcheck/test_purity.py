import subprocess
import sys


def test_factcheck_imports_no_django() -> None:
    code = (
        "import importlib, pkgutil, sys, annotation.factcheck as f\n"
        "[importlib.import_module(m.name) for m in pkgutil.walk_packages(f.__path__, f.__name__ + '.')]\n"
        "bad = {'django', 'rest_framework', 'celery'} & {k.split('.')[0] for k in sys.modules}\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
