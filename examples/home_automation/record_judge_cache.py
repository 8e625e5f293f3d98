"""Re-record the example's committed judge cache (needed after editing the judged cases,
rubrics or the judge prompts). Replies come from the project's scripted fake Gemini judge,
which answers each rubric with a simple rule, so the example stays offline and deterministic.

    python examples/home_automation/record_judge_cache.py
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from agenteval_ci.cli import main  # noqa: E402
from tests.fakes.gemini import FakeGemini, GeminiRequest, text_reply  # noqa: E402

RULES = {
    "confirms_change": lambda answer: bool(re.search(r"\b(is now|is set to)\b", answer)),
    "one_sentence": lambda answer: answer.count(".") <= 1 and len(answer) < 80,
}


def rubric_judge(request: GeminiRequest) -> dict:
    prompt = request.prompt_text
    answer = prompt.split("### The agent's final answer\n", 1)[1].split("\n\n###", 1)[0].strip()
    entries = []
    for rubric_id in re.findall(r"^- id: (\S+) \|", prompt, re.M):
        holds = RULES[rubric_id](answer)
        why = "the answer says so" if holds else "the answer does not"
        entries.append({"id": rubric_id, "rationale": f"{why}: {answer!r}", "verdict": "yes" if holds else "no"})
    return text_reply(json.dumps({"rubrics": entries}), prompt_tokens=420, output_tokens=60)


if __name__ == "__main__":
    with FakeGemini(responder=rubric_judge) as fake:
        os.environ.update(fake.env())
        code = main(["run", "--config", str(HERE / "agenteval.yaml")])
        print(f"recorded {sum(r.candidate_count for r in fake.requests)} judge replies in {len(fake.requests)} request(s)")
    raise SystemExit(code)
