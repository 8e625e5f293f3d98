"""Wall time of `adk eval` vs `agenteval run` on the same judged workload (issue 4's anchor).

One real google-adk LlmAgent (examples/adk_agent: two tools), 40 single-turn cases, criteria
tool_trajectory_avg_score + response_match_score + final_response_match_v2 (5 samples) +
rubric_based_final_response_quality_v1 (2 rubrics, 5 samples). Both tools talk to the same
loopback fake Gemini server with 300 ms latency per call; it plays the agent's model (a tool
call, then an answer from the tool's result) and the judge (ADK's reply formats for ADK's
prompts, ours for ours). Then a second `agenteval run` with the warm judge cache.

"model calls" are HTTP requests seen by the fake. `adk eval` asks one request per judge
sample; agenteval asks for a prompt's 5 samples in one request (candidateCount=5), so its
judge calls are requests and its cache misses are samples.

    /work/venv/bin/python bench/judge_vs_adk.py [--cases 40] [--latency 0.3] [--adk PATH]

`adk eval` needs google-adk's [eval] extra; to keep the project venv lean, install it aside:
`python -m venv /tmp/adk-anchor && /tmp/adk-anchor/bin/pip install "google-adk[eval]==2.13.0"`
and pass `--adk /tmp/adk-anchor/bin/adk`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.gemini import FakeGemini, GeminiRequest, function_call_reply, text_reply  # noqa: E402

BIN = Path(sys.executable).parent
CITIES = ["Paris", "Lima", "Oslo", "Cairo", "Tokyo", "Quito", "Dakar", "Perth", "Sofia", "Hanoi"]
RUBRICS = [
    {"rubric_id": "states_figure", "rubric_content": {"text_property": "The answer states the figure the tool returned."}},
    {"rubric_id": "names_city", "rubric_content": {"text_property": "The answer names the city asked about."}},
]


def case(index: int, app_name: str) -> dict:
    city = CITIES[index % len(CITIES)]
    weather = index % 2 == 0
    question = f"What is the weather in {city}?" if weather else f"What time is it in {city}?"
    tool = "get_weather" if weather else "get_local_time"
    answer = f"It is sunny and 24 degrees in {city}." if weather else f"The local time in {city} is 10:30."
    return {
        "eval_id": f"case_{index:02d}",
        "session_input": {"app_name": app_name, "user_id": "bench", "state": {}},
        "conversation": [
            {
                "invocation_id": f"inv_{index}",
                "user_content": {"role": "user", "parts": [{"text": question}]},
                "final_response": {"role": "model", "parts": [{"text": answer}]},
                "intermediate_data": {"tool_uses": [{"name": tool, "args": {"city": city}}]},
            }
        ],
    }


def criteria() -> dict:
    judged = {"judge_model_options": {"judge_model": "gemini-2.5-flash", "num_samples": 5}}
    return {
        "criteria": {
            "tool_trajectory_avg_score": 1.0,
            "response_match_score": 0.5,
            "final_response_match_v2": {"threshold": 0.5, **judged},
            "rubric_based_final_response_quality_v1": {"threshold": 0.5, "rubrics": RUBRICS, **judged},
        }
    }


# ---- the fake model: agent turns and judge prompts


def agent_reply(request: GeminiRequest) -> dict:
    results = request.function_responses
    if results:
        data = results[-1].get("response", {})
        if "forecast" in data:
            return text_reply(f"It is {data['forecast']} and {data['celsius']} degrees in {data['city']}.")
        return text_reply(f"The local time in {data.get('city')} is {data.get('time')}.")
    question = request.last_user_text
    city = next((c for c in CITIES if c in question), "Paris")
    tool = "get_weather" if "weather" in question else "get_local_time"
    return function_call_reply([(tool, {"city": city})])


def judge_reply(request: GeminiRequest) -> dict:
    prompt = request.prompt_text
    if "Answer with a single JSON object" in prompt:  # our prompts
        ids = re.findall(r"^- id: (\S+) \|", prompt, re.M)
        if ids:
            return text_reply(json.dumps({"rubrics": [{"id": i, "rationale": "it does", "verdict": "yes"} for i in ids]}))
        return text_reply(json.dumps({"reasoning": "same facts", "verdict": "valid"}))
    rubrics = re.findall(r"\[id: (\S+)\] (.*)$", prompt, re.M)  # google-adk's prompts
    if rubrics:
        return text_reply("\n\n".join(f"ID: {i}\nProperty: {text}\nRationale: it does\nVerdict: yes" for i, text in rubrics))
    return text_reply('{"reasoning": "same facts", "is_the_agent_response_valid": "valid"}')


def respond(request: GeminiRequest) -> dict:
    return agent_reply(request) if request.body.get("tools") else judge_reply(request)


# ---- the two tools


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess]:
    started = time.monotonic()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    return time.monotonic() - started, done


def check(name: str, done: subprocess.CompletedProcess) -> None:
    if done.returncode not in (0, 1):
        sys.exit(f"{name} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--adk", default=str(BIN / "adk"), help="the adk CLI; it needs google-adk[eval] (pandas, agentplatform)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="judge-bench-"))
    agent_dir = work / "bench_agent"
    shutil.copytree(ROOT / "examples" / "adk_agent", agent_dir, ignore=shutil.ignore_patterns("*.json", "__pycache__"))
    evalset = agent_dir / "bench.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "bench", "eval_cases": [case(i, agent_dir.name) for i in range(args.cases)]}))
    config = work / "test_config.json"
    config.write_text(json.dumps(criteria()))

    with FakeGemini(responder=respond, latency=args.latency) as fake:
        env = {**os.environ, **fake.env(), "PYTHONPATH": str(ROOT), "ADK_SUPPRESS_GEMINI_LITELLM_WARNINGS": "1"}
        env.pop("GOOGLE_GENAI_USE_VERTEXAI", None)

        adk_seconds, adk = timed([args.adk, "eval", str(agent_dir), str(evalset), "--config_file_path", str(config)], work, env)
        check("adk eval", adk)
        adk_requests = len(fake.requests)

        ours = [str(BIN / "agenteval"), "run", str(agent_dir), str(evalset), "--config_file_path", str(config)]
        cold_seconds, cold = timed([*ours, "--json", str(work / "cold.json")], work, env)
        check("agenteval run (cold)", cold)
        cold_requests = len(fake.requests) - adk_requests

        warm_seconds, warm = timed([*ours, "--json", str(work / "warm.json")], work, env)
        check("agenteval run (warm)", warm)
        warm_requests = len(fake.requests) - adk_requests - cold_requests

    cold_stats = json.loads((work / "cold.json").read_text())["stats"]
    warm_stats = json.loads((work / "warm.json").read_text())["stats"]
    passed = adk.stdout.count("PASSED") if "PASSED" in adk.stdout else adk.stdout.count("Tests passed")
    print(f"workload: {args.cases} cases, 4 criteria (2 judged x 5 samples), fake Gemini latency {args.latency * 1000:.0f} ms/call")
    print(f"adk eval            {adk_seconds:7.1f} s   {adk_requests:4d} model calls (exit {adk.returncode})")
    print(f"agenteval run cold  {cold_seconds:7.1f} s   {cold_requests:4d} model calls, judge calls {cold_stats['judge_calls']}, "
          f"cache misses {cold_stats['judge_cache_misses']}, judge tokens {cold_stats['judge_tokens']}, est. ${cold_stats['estimated_cost_usd']:.4f}")
    print(f"agenteval run warm  {warm_seconds:7.1f} s   {warm_requests:4d} model calls, judge calls {warm_stats['judge_calls']}, "
          f"cache hits {warm_stats['judge_cache_hits']}")
    print(f"speed-up cold: {adk_seconds / cold_seconds:.1f}x   warm: {adk_seconds / warm_seconds:.1f}x   (target: >= 8x cold, 0 judge calls warm)")
    print(f"(work dir: {work}; adk eval summary lines with PASSED: {passed})")


if __name__ == "__main__":
    main()
