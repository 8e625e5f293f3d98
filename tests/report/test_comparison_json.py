"""comparison.json written a case at a time is the same text as the whole comparison dumped at once."""

from __future__ import annotations

import dataclasses
import json

from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.gate import compare
from agenteval_ci.report import COMPARISON_VERSION, comparison_json_parts
from agenteval_ci.schema.settings import GateSettings
from tests.report.scored import EXPECTED, lights, score, weather


def _whole(comparison) -> str:
    data = {"schema_version": COMPARISON_VERSION, **dataclasses.asdict(comparison)}
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_the_parts_are_the_whole_dump_with_and_without_cases(tmp_path, capsys):
    good = score(tmp_path, EXPECTED, [EXPECTED, EXPECTED], "good.json")
    bad = score(tmp_path, EXPECTED, [{**EXPECTED, "lights": lights(on=True, reply="Lumière allumée ✓"), "weather": weather(city="Zürich")}] * 2, "bad.json")
    renamed = bad.model_copy(update={"cases": [c.model_copy(update={"eval_id": c.eval_id + "-é"}) for c in bad.cases] + bad.cases})
    for results, baseline in ((renamed, good), (bad, None), (good.model_copy(update={"cases": []}), good)):
        comparison = compare(results, baseline_from_results(baseline) if baseline else None, GateSettings())
        parts = list(comparison_json_parts(comparison))
        assert "".join(parts) == _whole(comparison)
        assert len(parts) == len(comparison.cases) + 2
