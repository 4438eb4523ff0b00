"""Agreement of model verdicts with human ones, as FaaF reports them (after FActScore)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Agreement:
    facts: int  # facts with a human label
    valid: int  # of those, with a valid (parsed) model verdict
    na: int  # of those, N/A: the model's output could not be parsed
    mismatches: int
    error_rate: float | None  # mismatches / valid facts
    f1_not_supported: float | None  # F1micro on the not-supported class (None without any not-supported)

    def as_dict(self) -> dict[str, float | int | None]:
        return self.__dict__.copy()


def agreement(pairs: list[tuple[bool, bool | None]]) -> Agreement:
    """``pairs``: (human says supported, model says supported or None for N/A)."""
    valid = [(h, m) for h, m in pairs if m is not None]
    mismatches = sum(1 for h, m in valid if h != m)
    tp = sum(1 for h, m in valid if not h and not m)  # both say not supported
    fp = sum(1 for h, m in valid if h and not m)
    fn = sum(1 for h, m in valid if not h and m)
    f1 = 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else None
    return Agreement(
        facts=len(pairs),
        valid=len(valid),
        na=len(pairs) - len(valid),
        mismatches=mismatches,
        error_rate=mismatches / len(valid) if valid else None,
        f1_not_supported=f1,
    )


def factual_recall(supported: list[bool | None]) -> float | None:
    """The share of reference facts an answer supports (N/A facts count as not supported)."""
    return sum(1 for s in supported if s) / len(supported) if supported else None
