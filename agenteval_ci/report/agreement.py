"""The judge-agreement report: a table in the terminal, a self-contained HTML page, JSON."""

from __future__ import annotations

import json
from dataclasses import asdict

from ..core.agreement import AgreementRow
from .console import PLAIN, Style
from .render import ENV
from .text import fmt, fmt_rate

DISAGREEMENTS_SHOWN = 10  # per row, in the terminal


def _cells(row: AgreementRow) -> list[str]:
    return [row.metric, row.rubric or "(verdict)", str(row.verdicts), fmt_rate(row.agreement), fmt(row.kappa, 2),
            fmt_rate(row.first_yes), fmt_rate(row.second_yes), str(len(row.disagreements)), str(row.only_one)]


HEADER = ["metric", "rubric", "verdicts", "agree", "kappa", "yes (1st)", "yes (2nd)", "disagree", "one judge only"]


def render_agreement_table(rows: list[AgreementRow], judges: tuple[str, str], style: Style = PLAIN) -> str:
    table = [HEADER, *(_cells(row) for row in rows)]
    widths = [max(len(line[i]) for line in table) for i in range(len(HEADER))]
    lines = [f"1st judge: {judges[0]}", f"2nd judge: {judges[1]}", ""]
    lines += ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table]
    for row in rows:
        if row.disagreements:
            lines.append("")
            lines.append(style.paint(f"{row.metric} {row.rubric or '(verdict)'}: they disagree on", "bold"))
            for d in row.disagreements[:DISAGREEMENTS_SHOWN]:
                lines.append(f"  {d.case} run {d.run + 1} turn {d.turn + 1}: 1st {_word(d.first)}, 2nd {_word(d.second)}")
            if len(row.disagreements) > DISAGREEMENTS_SHOWN:
                lines.append(f"  ...{len(row.disagreements) - DISAGREEMENTS_SHOWN} more (the HTML and JSON reports list them all)")
    return "\n".join(lines)


def _word(value: bool) -> str:
    return "yes" if value else "no"


def render_agreement_html(rows: list[AgreementRow], judges: tuple[str, str]) -> str:
    return ENV.get_template("agreement.html.j2").render(rows=rows, judges=judges, header=HEADER, cells=_cells, word=_word)


def agreement_json(rows: list[AgreementRow], judges: tuple[str, str]) -> str:
    return json.dumps({"judges": list(judges), "rows": [asdict(row) for row in rows]}, indent=2, ensure_ascii=False) + "\n"
