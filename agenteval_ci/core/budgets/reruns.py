"""num_runs: auto: the cases to run again while a budget's breach is plausible but not beyond noise."""

from __future__ import annotations

from dataclasses import dataclass

from ...schema.baseline import Baseline
from ...schema.settings import GateSettings, percent
from ..digest import ScoredResults
from .noise import offset_of, shuffled
from .pairs import pairs_of
from .verdict import change_text, compare_budgets, looks_of, pct


@dataclass(frozen=True)
class BudgetRerun:
    key: str
    why: str
    priority: float


def budget_reruns(results: ScoredResults, baseline: Baseline | None, settings: GateSettings) -> tuple[list[BudgetRerun], str]:
    """After a round: the cases to run again because a breach of a budget is plausible but not
    beyond noise yet, and, when a budget is already breached, why no round can undo that. Every
    case of the suite whose runs vary, up to the last look's runs (the look needs them all), the
    noisiest first: a run of those shrinks the noise most."""
    wanted: list[BudgetRerun] = []
    looks = looks_of(results)
    for s in compare_budgets(results, baseline, settings, last_look=False):
        if s.breached:
            return [], f"{s.suite}: over budget on {s.key} ({change_text(s.increase)} against {percent(s.budget)})"
        if s.verdict != "unsure" or baseline is None:
            continue
        pairs = pairs_of(results, baseline, s.suite, s.key)[0]
        offset = offset_of(pairs)
        noise = {p.delta.case: shuffled(p, offset).spread for p in pairs if not p.settled and len(p.now) < looks.last}
        top = max(noise.values(), default=0.0) or 1.0
        why = (f"{s.key}: a rise over its budget ({percent(s.budget)}) is not ruled out, nor beyond noise yet "
               f"(the typical case {pct(s.typical)}, the suite {change_text(s.increase)})")
        wanted += [BudgetRerun(case, why, 0.5 * value / top) for case, value in noise.items()]
    return wanted, ""
