"""`score` (recorded actuals), `merge` and `rejudge` hold little per case (issue 28): peak Python
memory (tracemalloc) at two sizes of a generated suite, through the CLI. Before, `score` kept
every case's digest and where its line lay (~2 KB a case), `merge` its plan of every case's
digest (~1.8 KB), `rejudge` every stored case whole, twice; now they go to temporary files on
disk (whose SQLite page caches tracemalloc does not see: they are bounded, 8 MB each). The
bounds are loose: caches the tests before these fill to different levels blur the figure.
And the error paths still name the file and the JSON path."""

from __future__ import annotations

import contextlib
import gc
import gzip
import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from agenteval_ci.commands._common import Output, Verbosity
from agenteval_ci.commands.score import ScoreSettings, score
from agenteval_ci.core.shards import shard_of
from agenteval_ci.files.results_file import HEAD, ResultsFile, results_file
from agenteval_ci.schema import Results, ShardInfo
from tests.core.metrics.casegen import generate
from tests.fakes.gemini import FakeGemini
from tests.judge.judged_project import verdicts, write_project
from tests.judge.test_openai_judge import JUDGE_VARIABLES

SHARDS = 3
MOST_PER_CASE = 500  # bytes of peak growth a case


def _peak(argv: list[str], codes: tuple[int, ...] = (0, 1)) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        assert main(argv) in codes
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _suite(folder: Path, cases: int) -> Path:
    """A generated eval set and its recorded actuals (trajectory only: quick to score)."""
    expected, actual = generate(seed=5, num_cases=cases, eval_set_id="gen", words_per_reply=(400, 600))  # files past the layout reader's buffers
    folder.mkdir(parents=True)
    (folder / "gen.evalset.json").write_text(json.dumps(expected))
    (folder / "actual.json").write_text(json.dumps(actual))
    (folder / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0}}))
    return folder


def _score_argv(folder: Path, actual: Path | None = None) -> list[str]:
    return ["score", str(folder / "gen.evalset.json"), "--actual", str(actual or folder / "actual.json"), "--json", str(folder / "results.json.gz"), "-q"]


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> dict[int, Path]:
    """The suite at two sizes."""
    root = tmp_path_factory.mktemp("flat")
    return {cases: _suite(root / f"s{cases}", cases) for cases in (500, 2000)}


def _held_after_score(folder: Path) -> tuple[int, int]:
    """Peak, and what is still held with the command's answer in hand (its cases' digests)."""
    gc.collect()
    tracemalloc.start()
    try:
        settings = ScoreSettings(eval_set=str(folder / "gen.evalset.json"), actual=(str(folder / "actual.json"),),
                                 output=Output(json=str(folder / "results.json.gz"), quiet=True), verbosity=Verbosity(quiet=True))
        done = score(settings)
        held, peak = tracemalloc.get_traced_memory()
        assert len(done.results.cases) == int(folder.name[1:])
        return peak, held
    finally:
        tracemalloc.stop()


def test_score_of_recorded_actuals_holds_little_per_case(scored):
    """The peak is set by the readers' buffers, which fill at the start; what the answer holds
    once every case is scored is what grew with the cases."""
    _held_after_score(scored[2000])  # what a run fills once (imports, bounded caches) is not per case
    (peak_small, held_small), (peak_big, held_big) = (_held_after_score(folder) for folder in scored.values())
    assert (peak_big - peak_small) / 1500 < MOST_PER_CASE
    assert (held_big - held_small) / 1500 < 400  # it was 1,330: every case's digest


def _shards(results: Path, folder: Path, copies: int) -> list[str]:
    """`copies` times the results' cases (eval ids prefixed), split as `run --shard I/N` splits them."""
    folder.mkdir()
    paths = [folder / f"shard-{i}.json.gz" for i in range(1, SHARDS + 1)]
    contexts = [results_file(str(p)) for p in paths]
    writers = [c.__enter__() for c in contexts]
    with gzip.open(results) as lines:
        body = list(lines)
    for copy in range(copies):
        for line in body[1:-1]:
            line = line.rstrip(b"\n").removesuffix(b",").replace(b'"eval_id":"case-', f'"eval_id":"c{copy}-case-'.encode())
            eval_id = json.loads(line)["eval_id"]
            writers[shard_of("gen", eval_id, SHARDS) - 1].add_json(line)
    header = Results.model_validate_json(HEAD + body[-1])
    for i, (context, writer) in enumerate(zip(contexts, writers), 1):
        writer.finish(header.model_copy(update={"shard": ShardInfo(index=i, count=SHARDS)}))
        context.__exit__(None, None, None)
    return [str(p) for p in paths]


def test_merge_holds_little_per_case(scored, tmp_path):
    results = scored[2000] / "results.json.gz"
    if not results.exists():
        assert main(_score_argv(scored[2000])) in (0, 1)
    peaks = []
    for copies in (1, 3):
        shards = _shards(results, tmp_path / f"x{copies}", copies)
        merged = tmp_path / f"merged-{copies}.json.gz"
        peaks.append(_peak(["merge", *reversed(shards), "--json", str(merged)], (0,)))
        assert len(list(ResultsFile(merged).digests())) == 2000 * copies
    growth = (peaks[1] - peaks[0]) / (2000 * 2)
    assert growth < 150, growth  # it was 260: the plan of every case's digest


def test_merge_names_a_case_in_two_shards(scored, tmp_path, capsys):
    results = scored[500] / "results.json.gz"
    if not results.exists():
        assert main(_score_argv(scored[500])) in (0, 1)
    shards = _shards(results, tmp_path / "x", 1)
    first = ResultsFile(shards[0])
    twice = next(iter(first))
    doubled = tmp_path / "doubled.json.gz"
    with results_file(str(doubled)) as writer:
        for case in ResultsFile(shards[1]):
            writer.add(case)
        writer.add(twice)
        assert ResultsFile(shards[1]).read_all().shard is not None
        writer.finish(ResultsFile(shards[1]).read_all().model_copy(update={"cases": []}))
    count = len(ResultsFile(shards[1]).read_all().cases)
    assert main(["merge", shards[0], str(doubled), shards[2], "--json", str(tmp_path / "m.json")]) == 2
    err = capsys.readouterr().err
    assert f"{doubled.as_posix()} at $.cases[{count}]: case gen/{twice.eval_id} is also in {Path(shards[0]).as_posix()}" in err
    assert not (tmp_path / "m.json").exists()


def test_bad_actuals_deep_in_the_file_name_the_file_and_json_path(scored, tmp_path, capsys):
    folder = scored[500]
    data = json.loads((folder / "actual.json").read_text())
    data["eval_cases"][321]["conversation"] = 5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(_score_argv(folder, bad)) == 2
    assert f"{bad.as_posix()} at $.eval_cases[321].conversation" in capsys.readouterr().err
    cut = tmp_path / "cut.json"
    cut.write_text((folder / "actual.json").read_text()[:-5000])
    assert main(_score_argv(folder, cut)) == 2
    assert cut.as_posix() in capsys.readouterr().err
    # a results file as the actuals, a case's line broken deep in it
    results = folder / "results.json.gz"
    if not results.exists():
        assert main(_score_argv(folder)) in (0, 1)
    lines = gzip.decompress(results.read_bytes()).split(b"\n")
    lines[301] = lines[301].replace(b'"eval_id":"', b'"eval_id":5,"x":"', 1)
    broken = tmp_path / "broken.json"
    broken.write_bytes(b"\n".join(lines))
    capsys.readouterr()
    assert main(_score_argv(folder, broken)) == 2
    assert f"{broken.as_posix()} at $.cases[300]" in capsys.readouterr().err


# ---------------------------------------------------------------- rejudge


def _judged_results(root: Path, cases: int, runs_of: Path) -> Path:
    """A stored results file of `cases` cases: `runs_of`'s six, again and again under new ids."""
    with gzip.open(runs_of) if runs_of.suffix == ".gz" else runs_of.open("rb") as f:
        body = f.read().split(b"\n")
    stored = root / f"stored-{cases}.json.gz"
    with results_file(str(stored)) as writer:
        lines = [line.removesuffix(b",") for line in body[1:-2]]
        for i in range(cases):
            line = lines[i % len(lines)]
            writer.add_json(line.replace(b'"eval_id":"case', f'"eval_id":"x{i}-case'.encode()))  # the stored eval case's too: its id is the re-judged case's
        writer.finish(Results.model_validate_json(HEAD + b"\n".join(body[-2:])))
    return stored


@contextlib.contextmanager
def _fake_judge(monkeypatch) -> Iterator[FakeGemini]:
    """The loopback fake Gemini as the only judge the environment names."""
    for name in JUDGE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    with FakeGemini(responder=verdicts) as gemini:
        for name, value in gemini.env().items():
            monkeypatch.setenv(name, value)
        yield gemini


def test_rejudge_holds_little_per_case(tmp_path, monkeypatch, capsys):
    """Both sizes past the window of cases awaiting the judge (256, whose prompts and requests
    are what the peak holds), the judge's verdicts from its cache (filled by a first rejudge,
    not measured): what is left to grow is what rejudge keeps per case."""
    config = write_project(tmp_path)
    criteria = {"criteria": {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_samples": 1}}}}
    (tmp_path / "evals" / "test_config.json").write_text(json.dumps(criteria))
    with _fake_judge(monkeypatch) as gemini:
        assert main(["run", "--config", str(config), "-q", "--no-gate"]) == 1
        ran = tmp_path / ".agenteval" / "results.json"
        stored = {cases: _judged_results(tmp_path, cases, ran) for cases in (300, 900)}
        rejudge = lambda cases: ["rejudge", str(stored[cases]), "--config", str(config), "--no-gate", "-q", "--json", str(tmp_path / f"rejudged-{cases}.json.gz")]
        assert main(rejudge(900)) == 1  # light 0, 3, ...: invalid
        judged = len(gemini.requests)
        peaks = [_peak(rejudge(cases)) for cases in stored]
        assert len(gemini.requests) == judged  # every verdict from the cache
    assert [len(list(ResultsFile(tmp_path / f"rejudged-{cases}.json.gz").digests())) for cases in stored] == [300, 900]
    capsys.readouterr()
    growth = (peaks[1] - peaks[0]) / 600
    assert growth < 1000, growth  # it was 46,700: every stored case whole, twice. Left: the judge cache's interned paths


def test_rejudge_names_a_bad_stored_case_deep_in_the_file(tmp_path, monkeypatch, capsys):
    config = write_project(tmp_path)
    with _fake_judge(monkeypatch):
        assert main(["run", "--config", str(config), "-q", "--no-gate"]) == 1
        stored = _judged_results(tmp_path, 40, tmp_path / ".agenteval" / "results.json")
        lines = gzip.decompress(stored.read_bytes()).split(b"\n")
        lines[31] = lines[31].replace(b'"status":"', b'"status":"MAYBE', 1)
        broken = tmp_path / "broken.json"
        broken.write_bytes(b"\n".join(lines))
        capsys.readouterr()
        out = tmp_path / "out.json"
        assert main(["rejudge", str(broken), "--config", str(config), "--no-gate", "--json", str(out)]) == 2
    assert f"{broken.as_posix()} at $.cases[30]" in capsys.readouterr().err
    assert not out.exists()  # nothing written: the results file is never renamed into place
