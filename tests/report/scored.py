"""Results files made by the real pipeline: `agenteval score` on small generated eval sets."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from agenteval_ci.cli import main
from agenteval_ci.files.results_file import read_results
from agenteval_ci.schema import Results


@dataclass(frozen=True)
class Turn:
    """One turn: the user's words, the tool calls and the final reply."""

    user: str
    reply: str
    tools: list[tuple[str, dict]] = field(default_factory=list)


def _invocation(turn: Turn) -> dict:
    return {
        "user_content": {"role": "user", "parts": [{"text": turn.user}]},
        "final_response": {"role": "model", "parts": [{"text": turn.reply}]},
        "intermediate_data": {"tool_uses": [{"name": n, "args": a} for n, a in turn.tools]},
    }


def write_eval_set(path: Path, cases: dict[str, list[Turn]], eval_set_id: str = "home", rubrics: dict[str, list] | None = None) -> Path:
    eval_cases = [{"eval_id": eid, "conversation": [_invocation(t) for t in turns]} for eid, turns in cases.items()]
    for case in eval_cases:
        if rubrics and case["eval_id"] in rubrics:
            case["rubrics"] = rubrics[case["eval_id"]]
    data = {"eval_set_id": eval_set_id, "eval_cases": eval_cases}
    path.write_text(json.dumps(data, indent=1))
    return path


def score(tmp_path: Path, expected: dict[str, list[Turn]], runs: list[dict[str, list[Turn]]], name: str = "results.json",
          config: dict | None = None, rubrics: dict[str, list] | None = None, flags: list[str] | None = None) -> Results:
    """Score `runs` (each: eval_id -> actual turns) against `expected` through the CLI."""
    folder = tmp_path / name.replace(".json", "")
    folder.mkdir(parents=True, exist_ok=True)
    evalset = write_eval_set(folder / "home.evalset.json", expected, rubrics=rubrics)
    if config is not None:
        (folder / "test_config.json").write_text(json.dumps(config))
    args = ["score", str(evalset), "--json", str(tmp_path / name), *(flags or [])]
    for i, actual in enumerate(runs):
        args += ["--actual", str(write_eval_set(folder / f"run{i}.json", actual))]
    assert main(args) in (0, 1)
    return read_results(tmp_path / name)


def lights(on: bool = False, reply: str = "The bedroom light is off.", extra: list[tuple[str, dict]] | None = None) -> list[Turn]:
    return [Turn("Turn off the bedroom light", reply, [("set_device", {"id": 2, "on": on}), *(extra or [])])]


def weather(city: str = "Paris", reply: str = "It is sunny in Paris.") -> list[Turn]:
    return [Turn("Weather in Paris?", reply, [("get_weather", {"city": city})])]


EXPECTED = {"lights": lights(), "weather": weather(), "music": [Turn("Play jazz", "Playing jazz.", [("play", {"genre": "jazz"})])]}
