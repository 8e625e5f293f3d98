"""A small project whose cases are judged through the fake Gemini, for end-to-end judge tests.

A Python callable agent answers `Turn off light N` with `Light N is off.`; every case is
judged by `final_response_match_v2`, two rubrics and `hallucinations_v1`, and gated on
`tool_trajectory_avg_score` too (so each case always has one deterministic score). The judge's
verdicts are a pure function of the prompt (see `verdicts`), so any run, in any order and with
any number of retries, scores exactly the same; `faulty` answers a seeded share of the judge's
samples with a reply it cannot use.
"""

from __future__ import annotations

import json
import random
import re
import threading
from pathlib import Path
from typing import Any, Callable

from tests.fakes.gemini import (
    GeminiRequest,
    blocked_prompt_reply,
    cut_short_reply,
    finished_reply,
    no_candidates_reply,
    text_reply,
)

CASES = 6
RUBRICS = [
    {"rubric_id": "confirms", "rubric_content": {"text_property": "The answer confirms the action."}},
    {"rubric_id": "concise", "rubric_content": {"text_property": "The answer is one short sentence."}},
]
JUDGED = ("final_response_match_v2", "rubric_based_final_response_quality_v1", "hallucinations_v1")
AGENT = """
def agent(text, session):
    light = text.split()[-1]
    return {"response": f"Light {light} is off.", "tool_calls": [{"name": "set_light", "args": {"light": light}}]}
"""


def write_project(root: Path, judge: str = "", agent: str = AGENT, cases: int = CASES, judge_model: str | None = None) -> Path:
    """The project under `root`: agent.py, evals/lights.evalset.json, its test_config.json and
    agenteval.yaml (with `judge` as extra lines of its judge: block). `judge_model`: every
    criterion's judge_model_options.judge_model, as an ADK user writes it. Returns agenteval.yaml."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "agent.py").write_text(agent)
    turns = [
        {
            "eval_id": f"case{i}",
            "conversation": [{
                "user_content": {"role": "user", "parts": [{"text": f"Turn off light {i}"}]},
                "final_response": {"role": "model", "parts": [{"text": f"Light {i} is off."}]},
                "intermediate_data": {"tool_uses": [{"name": "set_light", "args": {"light": str(i)}}]},
            }],
        }
        for i in range(cases)
    ]
    (root / "evals").mkdir(exist_ok=True)
    (root / "evals" / "lights.evalset.json").write_text(json.dumps({"eval_set_id": "lights", "eval_cases": turns}))
    model = {"judge_model": judge_model} if judge_model else {}
    samples = {"judge_model_options": {"num_samples": 3, **model}}
    (root / "evals" / "test_config.json").write_text(json.dumps({"criteria": {
        "tool_trajectory_avg_score": 1.0,
        "final_response_match_v2": {"threshold": 0.5, **samples},
        "rubric_based_final_response_quality_v1": {"threshold": 0.5, "rubrics": RUBRICS, **samples},
        "hallucinations_v1": {"threshold": 0.5, **({"judge_model_options": model} if model else {})},
    }}))
    config = root / "agenteval.yaml"
    config.write_text(
        "suites:\n  - agent: agent.py:agent\n    eval_sets: evals/*.evalset.json\n"
        "judge:\n  backoff_initial_seconds: 0.001\n  backoff_max_seconds: 0.005\n  request_timeout_seconds: 5\n"
        + "".join(f"  {line}\n" for line in judge.splitlines() if line.strip())
    )
    return config


# ---- the judge's verdicts: a pure function of the prompt

def _light(prompt: str) -> int:
    return int(re.findall(r"[Ll]ight (\d+)", prompt)[-1])


def kind_of(prompt: str) -> str:
    if "- id: confirms |" in prompt:
        return "rubrics"
    if "You grade an AI agent's answer" in prompt:
        return "match"
    if "Split the text below into its sentences" in prompt:
        return "split"
    if "numbered sentence" in prompt:
        return "labels"
    raise AssertionError(f"a prompt this fake judge does not know: {prompt[:200]}")


def good_reply(prompt: str) -> dict[str, Any]:
    """Light 0 mod 3 is 'invalid'; 'concise' holds for even lights; light 5's sentence is unsupported."""
    light = _light(prompt)
    kind = kind_of(prompt)
    if kind == "rubrics":
        verdicts = {"confirms": "yes", "concise": "yes" if light % 2 == 0 else "no"}
        return {"rubrics": [{"id": i, "rationale": f"{i} of light {light}", "verdict": v} for i, v in verdicts.items()]}
    if kind == "match":
        return {"reasoning": "compared", "verdict": "invalid" if light % 3 == 0 else "valid"}
    if kind == "split":
        return {"sentences": [f"Light {light} is off."]}
    label = "unsupported" if light == 5 else "supported"
    return {"sentences": [{"sentence": f"Light {light} is off.", "rationale": "the tool call", "label": label}]}


def verdicts(request: GeminiRequest) -> dict[str, Any]:
    return text_reply(json.dumps(good_reply(request.prompt_text)), prompt_tokens=100, output_tokens=20)


def _unreadable_label(reply: dict[str, Any], kind: str) -> dict[str, Any]:
    if kind == "rubrics":
        reply["rubrics"][0]["verdict"] = "maybe"
    elif kind == "match":
        reply["verdict"] = "maybe"
    elif kind == "labels":
        reply["sentences"][0]["label"] = "probably"
    else:
        reply["sentences"] = "Light is off."
    return reply


def _missing_rubric(reply: dict[str, Any], kind: str) -> dict[str, Any]:
    if kind == "rubrics":
        reply["rubrics"] = reply["rubrics"][1:]
    elif kind == "match":
        del reply["verdict"]
    elif kind == "labels":
        reply["sentences"] = []
    else:
        del reply["sentences"]
    return reply


def _bad_reply(kind: str, prompt: str) -> dict[str, Any]:
    good = good_reply(prompt)
    which = kind_of(prompt)
    return {
        "unreadable label": lambda: text_reply(json.dumps(_unreadable_label(good, which))),
        "missing rubric": lambda: text_reply(json.dumps(_missing_rubric(good, which))),
        "truncated": lambda: cut_short_reply(json.dumps(good)[:25]),
        "sorry": lambda: text_reply("Sorry, I hit my output limit"),
        "malformed JSON": lambda: text_reply(json.dumps(good)[:-1] + ",}"),  # a trailing comma
        "no candidates": no_candidates_reply,
        "safety block": lambda: finished_reply("SAFETY"),
        "blocked prompt": blocked_prompt_reply,
    }[kind]()


REPLY_FAULTS = ("unreadable label", "missing rubric", "truncated", "sorry", "malformed JSON", "no candidates", "safety block", "blocked prompt")
NOT_REDRAWN = ("safety block", "blocked prompt")  # a content filter would stop the same prompt again


def faulty(kinds: tuple[str, ...], rate: float, seed: int = 0) -> Callable[[GeminiRequest], dict[str, Any]]:
    """The judge, but a seeded `rate` of its samples is a reply of one of `kinds`."""
    rng = random.Random(seed)
    lock = threading.Lock()

    def respond(request: GeminiRequest) -> dict[str, Any]:
        with lock:
            bad = rng.random() < rate
            kind = rng.choice(kinds)
        return _bad_reply(kind, request.prompt_text) if bad else verdicts(request)

    return respond


# ---- reading the results

def judged_scores(results: dict[str, Any]) -> dict[tuple[str, str], Any]:
    """(case, metric) -> (score, per-invocation scores and rubric verdicts) of every judged metric."""
    out = {}
    for case in results["cases"]:
        for name in JUDGED:
            metric = case["metrics"][name]
            turns = [(t.get("score"), [(r["rubric_id"], r["score"]) for r in t.get("rubric_scores") or []])
                     for run in metric["runs"] for t in run.get("per_invocation") or []]
            out[(case["eval_id"], name)] = (metric.get("score"), metric["status"], turns)
    return out


def cache_entries(cache_dir: Path) -> list[Path]:
    return sorted((cache_dir / "judge").rglob("*.json")) if (cache_dir / "judge").is_dir() else []
