"""A big suite through the whole CLI in bounded memory (issue 28's "Show"): peak RSS, wall time
and CPU time (which a shared machine's load does not inflate) and the results file's bytes per
case, at several sizes, against today's code as the anchor.

    python bench/big_suite.py [--cases 2000 20000 100000] [--anchor PATH] [--anchor-max 20000]
                              [--adk-max 20000] [--scaled 200000] [--out bench/out/big_suite] [--keep]

A generated suite (tests/core/metrics/casegen.py: trajectory + ROUGE-1, recorded actuals), made
block by block so the generator never holds it whole: an eval set, the baseline's actuals and a
candidate's (every 50th case loses its tool calls, every 97th is answered exactly). Then, each
step its own process with its peak RSS (ru_maxrss of the child) and wall time:

  score (baseline)   agenteval score EVALSET --actual BASE --json base.json(.gz)
  score              agenteval score EVALSET --actual CANDIDATE --json cand.json(.gz)
  accept             agenteval accept base --baseline baseline.json          (an N-case baseline)
  compare            agenteval compare cand --baseline baseline.json --json comparison.json --md comment.md
                     (the comment must stay within GitHub's 65,536 characters)
  report html/junit/md  agenteval report cand --format html|junit|md -o FILE
  merge              agenteval merge of the candidate split into 4 shards (written by this script)

--scaled sizes (multiples of the largest --cases) run accept, compare and the reports only, on
results files made of copies of the largest size's (eval ids prefixed `c2-`, `c3-`, ...): the
steps after scoring at sizes whose scoring would take long and says nothing new (it is flat).

Ours writes `.json.gz` (plain `.json` is measured for its size too); the anchor, a checkout of
the code before this change (`git worktree add /tmp/anchor <commit>`), writes its own `.json`.
The anchor runs up to --anchor-max cases (at 100,000 it needs ~6 GB for `score`, and its
results file is over the readers' 256 MB limit), google-adk's evaluators (bench/score_vs_adk.py's
--adk-side) up to --adk-max. At the smallest size, every case's scores (overall and per turn)
and the comparison's verdict and per-case outcomes must be identical to the anchor's.
Everything is written under --out (ignored by git) and removed unless --keep.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCK = 5000  # cases generated at a time
SHARDS = 4
COMMENT_LIMIT = 65536  # GitHub's limit on a comment body, in characters


@dataclass(frozen=True)
class Step:
    name: str
    wall: float
    peak_mib: float
    code: int
    error: str = ""
    cpu: float = 0.0  # user + system seconds: what linearity is judged by on a shared machine


# ---------------------------------------------------------------- the suite


def _broken(conversation: list[dict]) -> list[dict]:
    for turn in conversation:
        data = turn.get("intermediate_data") or {}
        if "tool_uses" in data:
            data["tool_uses"] = []
        else:
            for event in data.get("invocation_events", []):
                parts = event.get("content", {}).get("parts", [])
                event["content"]["parts"] = [p for p in parts if "function_call" not in p and "function_response" not in p] or [{"text": "ok"}]
    return conversation


def write_suite(folder: Path, cases: int, seed: int = 7) -> None:
    """The eval set and both actual files, a block of cases at a time."""
    sys.path.insert(0, str(ROOT))
    from tests.core.metrics.casegen import generate

    folder.mkdir(parents=True, exist_ok=True)
    files = {name: (folder / name).open("w", encoding="utf-8") for name in ("bench.evalset.json", "base.json", "candidate.json")}
    for f in files.values():
        f.write('{"eval_set_id": "bench", "eval_cases": [\n')
    for block in range(0, cases, BLOCK):
        expected, actual = generate(seed=seed + block, num_cases=min(BLOCK, cases - block), eval_set_id="bench", words_per_reply=(20, 80))
        for i, (want, got) in enumerate(zip(expected["eval_cases"], actual["eval_cases"])):
            index = block + i
            eval_id = f"case-{index:06d}"
            want["eval_id"] = got["eval_id"] = eval_id
            changed = json.loads(json.dumps(got))
            if index % 50 == 0:
                changed["conversation"] = _broken(changed["conversation"])
            elif index % 97 == 0:
                changed["conversation"] = json.loads(json.dumps(want["conversation"]))
            sep = ",\n" if index else ""
            for name, case in (("bench.evalset.json", want), ("base.json", got), ("candidate.json", changed)):
                files[name].write(sep + json.dumps(case, ensure_ascii=False))
    for f in files.values():
        f.write("\n]}\n")
        f.close()
    (folder / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}))


# ---------------------------------------------------------------- measuring


def measure(command: list[str], cwd: Path, env: dict[str, str]) -> Step:
    """Wall time and peak RSS of one command, in a fresh wrapper so the RSS is its own."""
    wrapper = [sys.executable, __file__, "--measure", "--", *command]
    proc = subprocess.run(wrapper, capture_output=True, text=True, cwd=cwd, env=env)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "0 0 3 0"
    wall, peak, code, cpu = last.split()
    name = command[3] if command[1:3] == ["-m", "agenteval_ci"] else command[2]
    return Step(name, float(wall), float(peak), int(code), proc.stderr.strip()[-300:], float(cpu))


def run_measured(command: list[str]) -> None:
    start = time.perf_counter()
    proc = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stderr.write(proc.stderr[-2000:])
    print(f"{wall:.3f} {usage.ru_maxrss / 1024:.1f} {proc.returncode} {usage.ru_utime + usage.ru_stime:.3f}")  # maxrss: KiB on Linux


def split_into_shards(results: Path, folder: Path) -> list[Path]:
    """The candidate's results as SHARDS shard files, as `run --shard I/N` would write them."""
    sys.path.insert(0, str(ROOT))
    from agenteval_ci.core.shards import shard_of
    from agenteval_ci.files.results_file import ResultsFile, results_file
    from agenteval_ci.schema import ShardInfo

    paths = [folder / f"results-{i}-of-{SHARDS}.json.gz" for i in range(1, SHARDS + 1)]
    source = ResultsFile(results)
    contexts = [results_file(str(p)) for p in paths]
    writers = [c.__enter__() for c in contexts]
    for case in source:
        writers[shard_of(case.eval_set_id, case.eval_id, SHARDS) - 1].add(case)
    assert source.header is not None
    for i, (context, writer) in enumerate(zip(contexts, writers), 1):
        writer.finish(source.header.model_copy(update={"shard": ShardInfo(index=i, count=SHARDS)}))
        context.__exit__(None, None, None)
    return paths


def scaled_results(source: Path, target: Path, copies: int) -> None:
    """A results file of `copies` times the source's cases, each copy's eval ids prefixed
    (`c2-case-000001`): what `score` would write for a suite that many times bigger, made
    without scoring it again (compare, report and accept read only the results file). The
    fields after the cases (the stats) are the source's."""
    sys.path.insert(0, str(ROOT))
    from agenteval_ci.files.results_file import HEAD, results_file
    from agenteval_ci.schema import Results

    with results_file(str(target)) as writer:
        for copy in range(1, copies + 1):
            with gzip.open(source) as lines:
                assert next(lines) == HEAD
                for line in lines:
                    if line.startswith(b"]"):
                        trailer = line
                        break
                    renamed = line.rstrip(b"\n").removesuffix(b",").replace(b'"eval_id":"case-', f'"eval_id":"c{copy}-case-'.encode())
                    writer.add_json(renamed if copy > 1 else line.rstrip(b"\n").removesuffix(b","))
        writer.finish(Results.model_validate_json(HEAD + trailer))


def after_scoring(tree: Path, folder: Path, base: Path, cand: Path, reports: tuple[str, ...] = ("html", "junit", "md")) -> list[Step]:
    """The steps that read results files (accept, compare, the reports), with the code in `tree`."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    agenteval = [sys.executable, "-m", "agenteval_ci"]
    baseline = ["--baseline", str(folder / "baseline.json")]
    steps = [measure([*agenteval, "accept", str(base), *baseline, "--allow-failed"], folder, env)]
    steps.append(measure([*agenteval, "compare", str(cand), *baseline, "--json", str(folder / "comparison.json"), "--md", str(folder / "comment.md")], folder, env))
    for fmt in reports:
        step = measure([*agenteval, "report", str(cand), *baseline, "--format", fmt, "-o", str(folder / f"report.{fmt}")], folder, env)
        steps.append(Step(f"report {fmt}", step.wall, step.peak_mib, step.code, step.error, step.cpu))
    return steps


def pipeline(tree: Path, folder: Path, suite: Path, ext: str, shards: bool) -> list[Step]:
    """Every step, with the code in `tree` (ours or the anchor's)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
    agenteval = [sys.executable, "-m", "agenteval_ci"]
    folder.mkdir(parents=True, exist_ok=True)
    base, cand = folder / f"base{ext}", folder / f"cand{ext}"
    evalset = str(suite / "bench.evalset.json")
    steps = [
        measure([*agenteval, "score", evalset, "--actual", str(suite / "base.json"), "--json", str(base)], folder, env),
        measure([*agenteval, "score", evalset, "--actual", str(suite / "candidate.json"), "--json", str(cand)], folder, env),
        *after_scoring(tree, folder, base, cand),
    ]
    if shards:
        parts = split_into_shards(cand, folder)
        steps.append(measure([*agenteval, "merge", *map(str, parts), "--json", str(folder / f"merged{ext}")], folder, env))
    return steps


def adk_score(suite: Path, folder: Path) -> Step:
    """google-adk's evaluators on the same files (bench/score_vs_adk.py's ADK side)."""
    command = [sys.executable, str(ROOT / "bench" / "score_vs_adk.py"), "--adk-side", str(suite / "bench.evalset.json"),
               str(suite / "candidate.json"), str(suite / "test_config.json"), str(folder / "adk_scores.json")]
    step = measure(command, folder, dict(os.environ))
    return Step("adk evaluators", step.wall, step.peak_mib, step.code, step.error, step.cpu)


# ---------------------------------------------------------------- identical to the anchor


def _cases(path: Path) -> list[dict]:
    data = gzip.decompress(path.read_bytes()) if path.read_bytes()[:2] == b"\x1f\x8b" else path.read_bytes()
    return json.loads(data)["cases"]


def scores(path: Path) -> dict[str, dict[str, list]]:
    return {
        c["eval_id"]: {
            name: [m.get("score"), m["status"]] + [[p.get("score"), p["status"]] for r in m["runs"] for p in r["per_invocation"]]
            for name, m in c["metrics"].items()
        }
        for c in _cases(path)
    }


def verdict(path: Path) -> tuple:
    comparison = json.loads(path.read_text())
    outcomes = sorted((c["suite"], c["eval_set_id"], c["eval_id"], c["outcome"], c["status"]) for c in comparison["cases"])
    return comparison["verdict"], comparison["exit_code"], comparison["regressions"], comparison["reasons"], outcomes, comparison["metrics"]


# ---------------------------------------------------------------- report


def _row(size: int, side: str, steps: list[Step], file_bytes: dict[str, int]) -> str:
    cells = " ".join(f"{s.name} {s.wall:6.1f}s (cpu {s.cpu:.1f}s) {s.peak_mib:6.0f}MiB{'' if s.code in (0, 1) else ' FAILED(' + str(s.code) + ')'};" for s in steps)
    sizes = ", ".join(f"{name} {n / size:,.0f} B/case" for name, n in file_bytes.items())
    return f"{size:>7,} {side:<7} {cells} {sizes}"


def _scaled_row(scored: Path, folder: Path, size: int, scaled: int, peaks: dict[int, float], failures: list[str], reports: tuple[str, ...]) -> str:
    """accept, compare and the reports at `scaled` cases, from copies of the `size`-case results in `scored`."""
    if scaled % size:
        sys.exit(f"--scaled {scaled}: not a multiple of {size}")
    folder.mkdir(parents=True, exist_ok=True)
    base, cand = folder / "base.json.gz", folder / "cand.json.gz"
    scaled_results(scored / "base.json.gz", base, scaled // size)
    scaled_results(scored / "cand.json.gz", cand, scaled // size)
    steps = after_scoring(ROOT, folder, base, cand, reports)
    peaks[scaled] = max(s.peak_mib for s in steps)  # of these steps only (score's is flat)
    failures += [f"{scaled} ours {s.name}: exit {s.code}: {s.error}" for s in steps if s.code not in (0, 1)]
    comment = len((folder / "comment.md").read_text(encoding="utf-8"))
    shutil.rmtree(folder, ignore_errors=True)
    return _row(scaled, "scaled", steps, {}) + f"PR comment {comment:,} chars (accept, compare and reports only: results made of {scaled // size} copies of the {size:,}-case results)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, nargs="+", default=[2000, 20000, 100000])
    parser.add_argument("--anchor", type=Path, help="a checkout of the code before this change")
    parser.add_argument("--anchor-max", type=int, default=20000, help="largest size the anchor runs (it needs ~60 KB a case)")
    parser.add_argument("--adk-max", type=int, default=20000, help="largest size google-adk's evaluators run")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "big_suite")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--scaled", type=int, nargs="*", default=[],
                        help="bigger sizes (multiples of the largest --cases) for accept, compare and the reports only, "
                             "their results files made of copies of the largest size's")
    parser.add_argument("--scaled-reports", nargs="*", default=["html", "junit", "md"], choices=["html", "junit", "md"],
                        help="the reports made at the --scaled sizes (the HTML report of 500,000 cases takes ~10 minutes)")
    args = parser.parse_args()
    args.out = args.out.resolve()  # the steps run in their own folders
    lines, failures = [], []
    peaks: dict[int, float] = {}
    walls: dict[int, float] = {}
    cpus: dict[int, float] = {}
    try:
        for size in sorted(args.cases):
            folder = args.out / str(size)
            suite = folder / "suite"
            write_suite(suite, size)
            ours = pipeline(ROOT, folder / "ours", suite, ".json.gz", shards=True)
            plain = folder / "ours" / "plain.json"
            # The plain file's size, for the record (the same layout, uncompressed):
            with gzip.open(folder / "ours" / "cand.json.gz") as src, plain.open("wb") as dst:
                shutil.copyfileobj(src, dst)
            sizes = {"gz": (folder / "ours" / "cand.json.gz").stat().st_size, "plain": plain.stat().st_size}
            comment = len((folder / "ours" / "comment.md").read_text(encoding="utf-8"))
            lines.append(_row(size, "ours", ours, sizes) + f"; PR comment {comment:,} chars")
            if comment > COMMENT_LIMIT:
                failures.append(f"{size}: the PR comment has {comment:,} characters, over GitHub's {COMMENT_LIMIT:,}")
            peaks[size] = max(s.peak_mib for s in ours)
            walls[size] = sum(s.wall for s in ours)
            cpus[size] = sum(s.cpu for s in ours)
            failures += [f"{size} ours {s.name}: exit {s.code}: {s.error}" for s in ours if s.code not in (0, 1)]
            if size <= args.adk_max:
                adk = adk_score(suite, folder)
                lines.append(_row(size, "adk", [adk], {}))
            if args.anchor and size <= args.anchor_max:
                anchor = pipeline(args.anchor.resolve(), folder / "anchor", suite, ".json", shards=False)
                lines.append(_row(size, "anchor", anchor, {"plain": (folder / "anchor" / "cand.json").stat().st_size}))
                failures += [f"{size} anchor {s.name}: exit {s.code}: {s.error}" for s in anchor if s.code not in (0, 1)]
                if size == min(args.cases):
                    same_scores = scores(folder / "ours" / "cand.json.gz") == scores(folder / "anchor" / "cand.json")
                    same_verdict = verdict(folder / "ours" / "comparison.json") == verdict(folder / "anchor" / "comparison.json")
                    lines.append(f"{size:>7,} identical to the anchor: scores {'yes' if same_scores else 'NO'}, verdict and outcomes {'yes' if same_verdict else 'NO'}")
                    if not (same_scores and same_verdict):
                        failures.append(f"{size}: differs from the anchor")
            print(lines[-1] if lines else "", flush=True)
            if size == max(args.cases):
                for scaled in sorted(args.scaled):
                    lines.append(_scaled_row(folder / "ours", args.out / str(scaled), size, scaled, peaks, failures, tuple(args.scaled_reports)))
                    print(lines[-1], flush=True)
            if not args.keep:
                shutil.rmtree(folder, ignore_errors=True)
    finally:
        if not args.keep:
            shutil.rmtree(args.out, ignore_errors=True)
    print("\ncases   side    step wall peak-RSS; ...  results bytes per case")
    print("\n".join(lines))
    sizes = sorted(peaks)
    if len(sizes) > 1:
        low, high = sizes[-2], sizes[-1]
        print(f"peak RSS of the worst step: {', '.join(f'{n:,}: {peaks[n]:.0f} MiB' for n in sizes)}; "
              f"{high:,}/{low:,} cases: {peaks[high] / peaks[low]:.2f}x the memory for {high / low:.3g}x the cases (goal: <= 1 GiB, roughly flat)")
        whole = sorted(cpus)
        print(f"the whole pipeline per 1,000 cases, CPU time: {', '.join(f'{n:,}: {cpus[n] / n * 1000:.2f} s' for n in whole)}; "
              f"wall time: {', '.join(f'{n:,}: {walls[n] / n * 1000:.2f} s' for n in whole)} (linear: equal; wall time also counts a shared machine's other work)")
    if failures:
        sys.exit("\n".join(failures))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--measure"]:
        run_measured(sys.argv[3:])
    else:
        main()
