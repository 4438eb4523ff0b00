"""The science: pure Python, no Django, no DRF, no Celery (a test enforces it)."""
