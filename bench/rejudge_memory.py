"""`rejudge` and `judge-agreement` on a big stored results file, with the loopback fake judges:
peak RSS and CPU time of each command as its own process, at several sizes, against an anchor
(a checkout of the code before, `git worktree add /tmp/anchor <commit>`) in the same run.

    python bench/rejudge_memory.py [--cases 2000 20000] [--anchor PATH] [--anchor-max 2000]
                                   [--out bench/out/rejudge_memory] [--keep]

The project is tests/judge/judged_project.py's (a Python agent, judged by the fake Gemini),
judged by `final_response_match_v2` alone, one sample, no judge cache (every verdict is a
request to the fake, served from this process, so the RSS measured is the command's alone).
Its six cases are run once; the stored file repeats their lines under new eval ids up to each
size. `judge-agreement` sets the fake OpenAI judge against the fake Gemini one. At the sizes the
anchor runs, the re-judged results (but for their timestamps) and the agreement report must
be identical to the anchor's.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from big_suite import Step, measure  # noqa: E402 - bench/ is not a package

from agenteval_ci.files.results_file import HEAD, results_file  # noqa: E402
from agenteval_ci.schema import Results  # noqa: E402
from tests.commands.test_judge_change import strict_verdicts  # noqa: E402
from tests.fakes.gemini import FakeGemini  # noqa: E402
from tests.fakes.openai import FakeOpenAI  # noqa: E402
from tests.judge.judged_project import verdicts, write_project  # noqa: E402
from tests.judge.test_openai_judge import JUDGE_VARIABLES  # noqa: E402

CRITERIA = {"criteria": {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_samples": 1}}}}
VOLATILE = re.compile(rb'"(created_at|duration_seconds)":("[^"]*"|[0-9.e+-]+)')


def project(folder: Path, env: dict[str, str]) -> Path:
    """The judged project, run once (its six cases' results are the lines to repeat)."""
    config = write_project(folder, judge="cache: false")
    (folder / "evals" / "test_config.json").write_text(json.dumps(CRITERIA))
    subprocess.run([sys.executable, "-m", "agenteval_ci", "run", "--config", str(config), "-q", "--no-gate"], env=env, cwd=ROOT, check=False)
    return config


def stored(ran: Path, target: Path, cases: int) -> None:
    """`cases` cases: the run's six lines again and again under new eval ids."""
    body = ran.read_bytes().split(b"\n")
    lines = [line.removesuffix(b",") for line in body[1:-2]]
    with results_file(str(target)) as writer:
        for i in range(cases):
            writer.add_json(lines[i % len(lines)].replace(b'"eval_id":"case', f'"eval_id":"x{i}-case'.encode()))  # the stored eval case's too: its id is the re-judged case's
        writer.finish(Results.model_validate_json(HEAD + b"\n".join(body[-2:])))


def steps(tree: Path, config: Path, source: Path, folder: Path, env: dict[str, str]) -> list[Step]:
    agenteval = [sys.executable, "-m", "agenteval_ci"]
    rejudge = [*agenteval, "rejudge", str(source), "--config", str(config), "--no-gate", "-q", "--json", str(folder / "rejudged.json.gz")]
    agree = [*agenteval, "judge-agreement", str(source), "--config", str(config), "--judge", "openai/gpt-4o", "-q", "--json", str(folder / "agreement.json")]
    return [measure(rejudge, tree, env), measure(agree, tree, env)]


def _same(ours: Path, anchor: Path) -> bool:
    read = lambda p: VOLATILE.sub(b"", gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes())
    return read(ours) == read(anchor)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--anchor", type=Path, help="a checkout of the code before this change")
    parser.add_argument("--anchor-max", type=int, default=2000, help="largest size the anchor runs")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "rejudge_memory")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)
    failures = []
    with FakeGemini(responder=verdicts) as gemini, FakeOpenAI(responder=strict_verdicts) as openai:
        env = {k: v for k, v in os.environ.items() if k not in JUDGE_VARIABLES} | gemini.env() | openai.env() | {"CI": "true"}
        config = project(args.out / "project", env)
        ran = args.out / "project" / ".agenteval" / "results.json"
        print(f"{'cases':>8} {'side':<7} {'step':<16} {'peak MiB':>9} {'CPU s':>7} {'wall s':>7}")
        for cases in args.cases:
            source = args.out / f"stored-{cases}.json.gz"
            stored(ran, source, cases)
            sides = {"ours": ROOT} | ({"anchor": args.anchor} if args.anchor and cases <= args.anchor_max else {})
            for side, tree in sides.items():
                folder = args.out / f"{side}-{cases}"
                folder.mkdir()
                for step in steps(tree, config, source, folder, env):
                    gemini.requests.clear()
                    openai.requests.clear()
                    print(f"{cases:>8} {side:<7} {step.name:<16} {step.peak_mib:>9.0f} {step.cpu:>7.1f} {step.wall:>7.1f}", flush=True)
                    if step.code not in (0, 1):
                        failures.append(f"{side} {step.name} at {cases}: exit {step.code}: {step.error}")
            if "anchor" in sides:
                for name in ("rejudged.json.gz", "agreement.json"):
                    if not _same(args.out / f"ours-{cases}" / name, args.out / f"anchor-{cases}" / name):
                        failures.append(f"{name} at {cases} differs from the anchor's")
    if not args.keep:
        shutil.rmtree(args.out, ignore_errors=True)
    for failure in failures:
        print(f"FAILED: {failure}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
