"""A seeded generator of eval cases and perturbed actual invocations, as ADK-format JSON.

Used by the differential tests and by bench/score_vs_adk.py. The expected side is an
EvalSet; the actual side is an EvalSet with the same eval_ids whose invocations are the
expected ones perturbed the way real agents drift: reordered, missing, extra and duplicated
tool calls, changed args, int vs float and None vs {} args, reworded, empty, Unicode, CJK,
Thai and accented responses, in both the `tool_uses` and the `invocation_events` shapes.
"""

from __future__ import annotations

import copy
import random
from typing import Any, Callable

Json = dict[str, Any]

TOOLS = ["set_device", "get_weather", "search_flights", "book_hotel", "lookup_order", "send_email"]
ENGLISH = (
    "the bedroom light is now off and the kitchen lights are running on a schedule "
    "your flights were booked flying to paris tomorrow morning hotels nearby are cheaper "
    "order 42 shipped yesterday it arrives friday weather looks sunny with light winds"
).split()
SYNONYMS = {"off": "disabled", "booked": "reserved", "cheaper": "less expensive", "sunny": "clear", "shipped": "sent"}
UNICODE_REPLIES = [
    "Le café est prêt, naïve élève à l'hôtel.",
    "今天天气很好，我们去公园散步吧。",
    "東京の天気は晴れです。こんにちは！",
    "안녕하세요 주문하신 상품이 발송되었습니다",
    "สวัสดีครับ ไฟในห้องนอนปิดแล้ว",
    "ສະບາຍດີ ແສງໄຟປິດແລ້ວ",
    "ＦＵＬＬＷＩＤＴＨ text ① ﬁne",
    "Straße GRÜSSE ümlaut Ångström 🙂 done",
]


def _args(rng: random.Random) -> dict[str, Any] | None:
    roll = rng.random()
    if roll < 0.08:
        return None
    if roll < 0.15:
        return {}
    args: dict[str, Any] = {"id": rng.randint(0, 5)}
    if rng.random() < 0.5:
        args["on"] = rng.random() < 0.5
    if rng.random() < 0.4:
        args["level"] = rng.choice([0.5, 1.0, 2, 3.25])
    if rng.random() < 0.3:
        args["where"] = {"room": rng.choice(["bedroom", "kitchen"]), "floors": [1, 2]}
    return args


def _call(rng: random.Random) -> Json:
    call: Json = {"name": rng.choice(TOOLS), "args": _args(rng)}
    if call["args"] is None:
        del call["args"]
    return call


def _reply(rng: random.Random, words_per_reply: tuple[int, int] = (3, 18)) -> str:
    if rng.random() < 0.2:
        return rng.choice(UNICODE_REPLIES)
    words = [rng.choice(ENGLISH) for _ in range(rng.randint(*words_per_reply))]
    return " ".join(words).capitalize() + rng.choice([".", "!", "?", ""])


# ---------------------------------------------------------------- perturbations of tool calls


def _reorder(rng: random.Random, calls: list[Json]) -> list[Json]:
    rng.shuffle(calls)
    return calls


def _drop(rng: random.Random, calls: list[Json]) -> list[Json]:
    if calls:
        del calls[rng.randrange(len(calls))]
    return calls


def _extra(rng: random.Random, calls: list[Json]) -> list[Json]:
    calls.insert(rng.randint(0, len(calls)), _call(rng))
    return calls


def _duplicate(rng: random.Random, calls: list[Json]) -> list[Json]:
    if calls:
        calls.insert(rng.randint(0, len(calls)), copy.deepcopy(rng.choice(calls)))
    return calls


def _change_arg(rng: random.Random, calls: list[Json]) -> list[Json]:
    if calls:
        call = rng.choice(calls)
        call["args"] = dict(call.get("args") or {}, id=rng.randint(6, 9))
    return calls


def _int_to_float(rng: random.Random, calls: list[Json]) -> list[Json]:
    for call in calls:
        for key, value in (call.get("args") or {}).items():
            if isinstance(value, int) and not isinstance(value, bool):
                call["args"][key] = float(value)
    return calls


def _none_vs_empty(rng: random.Random, calls: list[Json]) -> list[Json]:
    for call in calls:
        if not call.get("args"):
            if "args" in call:
                del call["args"]
            else:
                call["args"] = {}
    return calls


def _rename(rng: random.Random, calls: list[Json]) -> list[Json]:
    if calls:
        rng.choice(calls)["name"] = rng.choice(TOOLS)
    return calls


def _clear(rng: random.Random, calls: list[Json]) -> list[Json]:
    return []


def _same(rng: random.Random, calls: list[Json]) -> list[Json]:
    return calls


CALL_PERTURBATIONS: list[Callable[[random.Random, list[Json]], list[Json]]] = [
    _same, _same, _reorder, _drop, _extra, _duplicate, _change_arg, _int_to_float, _none_vs_empty, _rename, _clear,
]


# ---------------------------------------------------------------- perturbations of responses


def _perturb_reply(rng: random.Random, text: str) -> str:
    roll = rng.random()
    if roll < 0.3:
        return text
    if roll < 0.4:
        return ""
    if roll < 0.55:
        return " ".join(SYNONYMS.get(w, w) for w in text.split())
    if roll < 0.7:
        words = text.split()
        rng.shuffle(words)
        return " ".join(words)
    if roll < 0.8:
        return rng.choice(UNICODE_REPLIES)
    if roll < 0.9:
        return text.upper() + " " + rng.choice(ENGLISH) + "s"
    return _reply(rng)


# ---------------------------------------------------------------- the two intermediate-data shapes


def _content(text: str, role: str) -> Json:
    return {"parts": [{"text": text}], "role": role}


def _usage(rng: random.Random) -> Json:
    usage: Json = {"prompt_token_count": rng.randint(50, 900), "candidates_token_count": rng.randint(1, 200)}
    if rng.random() < 0.3:
        usage["thoughts_token_count"] = rng.randint(0, 300)
    if rng.random() < 0.2:
        usage["cached_content_token_count"] = rng.randint(0, 40)
    if rng.random() < 0.1:
        usage["tool_use_prompt_token_count"] = rng.randint(0, 30)
    if rng.random() < 0.1:
        del usage["prompt_token_count"]
    usage["total_token_count"] = 12345  # ADK derives its own total and ignores this one
    return usage


def _events(rng: random.Random, calls: list[Json], reply: str) -> Json:
    """Calls spread over model events by several authors, each followed by its tool response."""
    events: list[Json] = []
    authors = ["root_agent", "helper_agent"]
    pending = list(calls)
    while pending:
        batch = [pending.pop(0) for _ in range(min(len(pending), rng.randint(1, 2)))]
        parts: list[Json] = [{"function_call": dict(c, id=f"call-{rng.randrange(10**6)}")} for c in batch]
        if rng.random() < 0.3:
            parts.insert(0, {"text": "Let me check."})
        event: Json = {"author": rng.choice(authors), "content": {"parts": parts, "role": "model"}}
        if rng.random() < 0.7:
            event["usage_metadata"] = _usage(rng)
        elif rng.random() < 0.5:
            event["model_version"] = "gemini-2.5-flash"
        events.append(event)
        responses = [{"function_response": {"name": c["name"], "response": {"ok": True}}} for c in batch]
        events.append({"author": event["author"], "content": {"parts": responses, "role": "user"}})
    if rng.random() < 0.8:
        events.append({"author": "root_agent", "content": _content(reply, "model"), "usage_metadata": _usage(rng)})
    return {"invocation_events": events}


def _invocation(rng: random.Random, query: str, calls: list[Json], reply: str, events: bool) -> Json:
    data = _events(rng, calls, reply) if events else {"tool_uses": calls}
    return {
        "invocation_id": f"inv-{rng.randrange(10**9)}",
        "user_content": _content(query, "user"),
        "final_response": _content(reply, "model") if reply or rng.random() < 0.5 else None,
        "intermediate_data": data,
    }


def _timed(rng: random.Random, invocation: Json) -> Json:
    roll = rng.random()
    if roll < 0.3:
        return invocation  # untimed: read back from a stored session
    invocation["duration"] = round(rng.uniform(0.2, 9.0), 4)
    if roll < 0.8:
        invocation["model_duration"] = round(rng.uniform(0.0, invocation["duration"]), 4)
        invocation["tool_duration"] = round(rng.uniform(0.0, 0.5), 4)
    return invocation


# ---------------------------------------------------------------- cases


def generate(
    seed: int, num_cases: int, eval_set_id: str = "generated", words_per_reply: tuple[int, int] = (3, 18)
) -> tuple[Json, Json]:
    """(expected EvalSet JSON, actual EvalSet JSON) with the same eval_ids."""
    rng = random.Random(seed)
    expected_cases, actual_cases = [], []
    for index in range(num_cases):
        eval_id = f"case-{index:05d}"
        expected_turns, actual_turns = [], []
        for turn in range(rng.choice([1, 1, 1, 2, 3])):
            query = f"request {index}.{turn}: " + " ".join(rng.choice(ENGLISH) for _ in range(5))
            calls = [_call(rng) for _ in range(rng.choice([0, 1, 1, 2, 3, 4]))]
            reply = _reply(rng, words_per_reply)
            expected_turns.append(_invocation(rng, query, copy.deepcopy(calls), reply, events=rng.random() < 0.2))
            actual_calls = rng.choice(CALL_PERTURBATIONS)(rng, copy.deepcopy(calls))
            actual = _invocation(rng, query, actual_calls, _perturb_reply(rng, reply), events=rng.random() < 0.6)
            actual_turns.append(_timed(rng, actual))
        expected_cases.append({"eval_id": eval_id, "conversation": expected_turns})
        actual_cases.append({"eval_id": eval_id, "conversation": actual_turns})
    return (
        {"eval_set_id": eval_set_id, "eval_cases": expected_cases},
        {"eval_set_id": eval_set_id, "eval_cases": actual_cases},
    )
