"""Budgets: the allowed increase of a suite's tokens, model calls, tool calls, latency and dollar
cost against the baseline, judged as the score gate judges a drop (pure; docs/gate.md, "Budgets").

Per suite and budgeted figure, each case the baseline has figures for (same test) is paired
with its runs now, and the case is the unit. A budget is **breached** when

- the figure is **deterministic** (no case's runs vary, on either side, and some case ran at
  least twice to show it) and any case's figure rose by more than the budget, as a worsened case
  does in a deterministic score gate; or
- the **typical case's rise** (per case, the mean log figure now minus the baseline's; averaged
  over cases, as a ratio - 1) is beyond the budget and beyond noise, one-sided (did it rise?):
  its mean clears what it would be, 1 - alpha of the time, were each case's runs now and the
  baseline's shuffled between the two (nothing changed: they are exchangeable). That spread is
  computed exactly from every run; the bar is Student's t over the cases, raised by the
  shuffles' skew (never lowered).

The suite's total (the cases' mean figures summed, baseline -> PR: what the bill says) is shown
beside it. Alpha, 1 - confidence, is shared out over the suite's budgets (Bonferroni). With
`num_runs: auto` the budgets are tested on every case's first round and on its first
floor(run_budget) runs, at half of alpha each (`Looks`); while a breach is plausible but not
beyond noise, the cases whose runs vary run again until the second look. Each look is a test of
a fixed share of the runs, so however the rounds go the chance of breaching an unchanged figure
stays below alpha.
"""

from .costs import SuiteCost, suite_costs
from .noise import ALPHA_SPENT, Rise, runs_to_settle, shuffled, total_bound, typical_rise
from .pairs import SAME, CaseDelta, Pair, Pairs, pairs_of
from .reruns import BudgetRerun, budget_reruns
from .student_t import t_cdf, t_quantile
from .verdict import (
    FIGURES_LOST,
    NOT_MEASURED,
    BudgetSummary,
    Looks,
    budget_reasons,
    budget_summary,
    change_text,
    compare_budgets,
    fmt_figure,
    looks_of,
    over_budget_cases,
)

__all__ = [
    "ALPHA_SPENT", "FIGURES_LOST", "NOT_MEASURED", "SAME", "BudgetRerun", "BudgetSummary", "CaseDelta", "Looks", "Pair", "Pairs",
    "Rise", "SuiteCost", "budget_reasons", "budget_reruns", "budget_summary", "change_text", "compare_budgets", "fmt_figure",
    "looks_of", "over_budget_cases", "pairs_of", "runs_to_settle", "shuffled", "suite_costs", "t_cdf", "t_quantile",
    "total_bound", "typical_rise",
]
