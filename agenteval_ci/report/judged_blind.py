"""Judged metrics that went without part of the agent's context, counted a case at a time as
cases are scored. Its own module, apart from view.py: every command that writes results counts
them, and a deterministic `score` should not load the PR comment's view (and the gate) to do so."""

from __future__ import annotations

from ..core.digest import ScoredCase, ScoredResults


class JudgedBlind:
    """Judged metrics whose judge went without part of the agent's context (app_details, tool
    responses, texts between calls), counted a case at a time, so a blind verdict is never silent."""

    def __init__(self) -> None:
        self.cases: dict[str, int] = {}
        self.missing: dict[str, dict[str, None]] = {}
        self.judged: dict[str, int] = {}

    def add(self, case: ScoredCase) -> None:
        for name, metric in case.metrics.items():
            self.judged[name] = self.judged.get(name, 0) + 1
            if metric.judged_without:
                self.cases[name] = self.cases.get(name, 0) + 1
                self.missing.setdefault(name, {}).update(dict.fromkeys(metric.judged_without))

    def warnings(self) -> list[str]:
        """One line per such metric."""
        if not self.cases:
            return []
        from .view import judged_without_text  # what a judge went without, in words, lives with the view's other words

        lines = []
        for name, count in sorted(self.cases.items()):
            names, _, causes = judged_without_text(self.missing[name]).partition(": ")
            lines.append(f"`{name}` was judged without {names} in {count} of {self.judged[name]} case(s): {causes}")
        return lines


def judged_blind_warnings(results: ScoredResults) -> list[str]:
    blind = JudgedBlind()
    for case in results.cases:
        blind.add(case)
    return blind.warnings()
