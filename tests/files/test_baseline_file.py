"""The baseline read case by case (files/baseline_file.py): the same baseline as a whole read
in any JSON layout, a damaged file still a clear error naming the file and the JSON path, and
compare / accept holding a bounded amount of memory per case."""

from __future__ import annotations

import dataclasses
import gc
import gzip
import json
import re
import tracemalloc
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from agenteval_ci.core.baseline import dump_baseline
from agenteval_ci.core.gate import compare
from agenteval_ci.core.gate import statistics as gate_statistics
from agenteval_ci.errors import InputError
from agenteval_ci.files.baseline_file import load_baseline, parse_baseline_text, read_baseline
from agenteval_ci.files.results_file import HEAD, ResultsFile, results_file
from agenteval_ci.files.spill import SpilledCases
from agenteval_ci.files.spilled_outcomes import SpilledOutcomes
from agenteval_ci.report import junit_parts
from agenteval_ci.schema import Results
from agenteval_ci.schema.baseline import Baseline
from agenteval_ci.schema.settings import GateSettings
from tests.files.test_results_stream import _scored


@pytest.fixture(scope="module")
def accepted(tmp_path_factory) -> tuple[Path, Path]:
    """A 40-case results file and the baseline accepted from it."""
    folder = tmp_path_factory.mktemp("accepted")
    results = _scored(folder, 40, "results.json.gz")
    baseline = folder / "baseline.json"
    assert main(["accept", str(results), "--baseline", str(baseline), "--allow-failed", "-q"]) == 0
    return results, baseline


def _whole(text: str) -> str:
    """The baseline as the whole-file reader reads it, written back."""
    return dump_baseline(Baseline.model_validate_json(text))


@pytest.mark.parametrize("layout", ["ours", "compact", "indent 4, keys unsorted", "ascii escapes"])
def test_any_json_layout_reads_as_the_whole_file_reader_reads_it(accepted, tmp_path, layout):
    text = accepted[1].read_text()
    data = json.loads(text)
    if layout == "compact":
        text = json.dumps(data, separators=(",", ":"))
    elif layout == "indent 4, keys unsorted":
        data["suites"] = {s: {e: dict(reversed(list(cases.items()))) for e, cases in sets.items()} for s, sets in data["suites"].items()}
        text = json.dumps({k: data[k] for k in reversed(list(data))}, indent=4)
    elif layout == "ascii escapes":
        data["suites"]["déjà vu"] = {"ünïcode 😀": {"☂": next(iter(next(iter(data["suites"]["default"].values())).values()))}}  # a pair: read whole
        text = json.dumps(data, ensure_ascii=True)
    path = tmp_path / "baseline.json"
    path.write_text(text)
    streamed = read_baseline(path)
    spilled = [isinstance(cases, SpilledCases) for sets in streamed.suites.values() for cases in sets.values()]
    assert all(spilled) if layout != "ascii escapes" else not any(spilled)  # an escaped emoji: read whole
    assert dump_baseline(streamed) == _whole(text) == dump_baseline(parse_baseline_text("x", text))
    if layout == "ours":
        assert dump_baseline(streamed) == text  # read and written back: byte for byte


def test_a_repeated_key_reads_as_the_json_module_reads_it(accepted, tmp_path):
    """The last value, where the first one stood: the reader hands such a file to the whole read."""
    text = accepted[1].read_text()
    first = text.index('"case-')
    key = text[first : text.index('"', first + 1) + 1]
    doubled = text.replace('"suites": {', '"suites": {"default": {}, ', 1).replace(f"{key}: {{", f"{key}: {{}}, {key}: {{", 1)
    path = tmp_path / "baseline.json"
    path.write_text(doubled)
    assert dump_baseline(load_baseline(path)) == dump_baseline(parse_baseline_text("x", doubled)) == text


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (lambda t: t[: len(t) * 3 // 5], "not valid JSON"),  # cut short inside a case
        (lambda t: t[: t.rindex("}")], "not valid JSON"),  # cut short at its very end
        (lambda t: t.replace('"history": "P"', '"history": "PX"', 1), ".metrics.response_match_score.history"),
        (lambda t: t.replace('"fingerprint": ', '"fingerprints": ', 1), ".fingerprint"),
        (lambda t: t.replace('"status": "PASSED"', '"status": "GREAT"', 1), ".status"),
        (lambda t: t.replace('"schema_version": 2', '"schema_version": 3', 1), "newer than this agenteval reads"),
        (lambda t: t.replace('"provenance": {', '"provenance": {"extra": 1, ', 1), "$.provenance"),
        (lambda t: t.replace('"suites": {', '"suites": {"bad": [1], ', 1), "$.suites.bad"),
        # Numbers we never write: a hand edit or damage, which no comparison can be made with.
        (lambda t: re.sub(r'"score": [0-9.]+', '"score": NaN', t, count=1), ".score: Input should be a finite number"),
        (lambda t: t.replace('"runs": [', '"runs": [Infinity, ', 1), ".runs[0]: Input should be a finite number"),
    ],
)
def test_a_damaged_baseline_is_exit_2_naming_the_file_and_the_json_path(accepted, tmp_path, capsys, edit, where):
    results, good = accepted
    path = tmp_path / "baseline.json"
    path.write_text(edit(good.read_text()))
    before = path.read_bytes()
    with pytest.raises(InputError) as err:
        load_baseline(path)
    assert path.as_posix() in str(err.value) and where in str(err.value)
    capsys.readouterr()
    assert main(["compare", str(results), "--baseline", str(path)]) == 2
    assert main(["accept", str(results), "--baseline", str(path), "--allow-failed"]) == 2
    message = capsys.readouterr().err
    assert path.as_posix() in message and where in message
    assert path.read_bytes() == before  # left untouched


def test_a_bad_case_deep_in_the_file_names_its_json_path(accepted, tmp_path):
    text = accepted[1].read_text()
    at = text.rindex('"history": "')  # the last case's
    path = tmp_path / "baseline.json"
    path.write_text(text[:at] + '"history": "P P++"' + text[text.index(",", at) :])
    with pytest.raises(InputError, match=r"\$\.suites\.default\.gen\.case-0+39\.metrics\.\w+\.history"):
        load_baseline(path)


# ---------------------------------------------------------------- memory per case


def _copies(source: Path, target: Path, copies: int) -> None:
    """A results file of `copies` times the source's cases under new eval ids (bench/big_suite.py's --scaled)."""
    with results_file(str(target)) as writer, gzip.open(source) as lines:
        body = list(lines)
        assert body[0] == HEAD
        for copy in range(copies):
            for line in body[1:-1]:
                writer.add_json(line.rstrip(b"\n").removesuffix(b",").replace(b'"eval_id":"case-', f'"eval_id":"c{copy}-case-'.encode()))
        writer.finish(Results.model_validate_json(HEAD + body[-1]))


def _peak(argv: list[str]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        assert main(argv) in (0, 1)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_accept_holds_little_per_case(accepted, tmp_path, capsys):
    """Peak Python memory of accept at 1,200 and 2,800 cases: not the baseline or the results'
    digests, which took ~6.5 KB a case when they were held in memory. What grows is the sets of
    recorded outputs' digests and caches that fill up as whole cases are read to record their
    outputs (about 2.4 KB a case between these sizes; RSS grows ~0.7 KB a case from 20,000
    cases up: bench/big_suite.py). The bound is loose: the process's caches, which the tests
    before this one fill to different levels, blur the figure by a KB or two a case."""
    peaks = []
    for copies in (30, 70):
        made = tmp_path / f"results-{copies}.json.gz"
        _copies(accepted[0], made, copies)
        peaks.append(_peak(["accept", str(made), "--baseline", str(tmp_path / f"baseline-{copies}.json"), "--allow-failed", "-q"]))
        capsys.readouterr()
    assert (peaks[1] - peaks[0]) / (40 * 40) < 3500


def _held_by_the_gate_and_junit(results_path: Path, baseline_path: Path) -> tuple[int, int]:
    """Python memory the comparison keeps, and the JUnit report's peak above it, the results
    and the baseline read (their readers' own peaks are accept's test's)."""
    read, baseline = ResultsFile(results_path).digest(), load_baseline(baseline_path, required=True)
    # The digests in a list, unpacked before measuring: what unpacking them costs (the shared
    # strings' table) is the results reader's, not the gate's.
    results = dataclasses.replace(read, cases=list(read.cases))
    gc.collect()
    tracemalloc.start()
    try:
        comparison = compare(results, baseline, GateSettings(), SpilledOutcomes())
        kept = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        for _ in junit_parts(results, comparison):
            pass
        return kept, tracemalloc.get_traced_memory()[1] - kept
    finally:
        tracemalloc.stop()


def test_the_gate_and_junit_hold_little_per_case(accepted, tmp_path, capsys, monkeypatch):
    """At 1,200 and 2,800 cases: the comparison kept each case's outcome (~0.5 KB a case) and the
    JUnit report an index of them by key and a sorted list of the cases (~2.8 KB a case at its
    peak); with the outcomes on disk, the comparison keeps tens of bytes a case and the report's
    peak grows ~0.45 KB a case at these sizes (caches filling: its RSS is flat from 20,000 to
    500,000 cases, bench/big_suite.py). SQLite's own cache, which tracemalloc does not see, has
    a fixed size. The bootstrap draws its fewest resamples at both sizes: what it allocates goes
    as it goes (only its sorted means stay, the same number at both sizes), and under
    tracemalloc its draws took two thirds of this test's time."""
    monkeypatch.setattr(gate_statistics, "BOOTSTRAP_WORK", 0)
    measured = []
    for copies in (30, 70):
        made, baseline = tmp_path / f"results-{copies}.json.gz", tmp_path / f"baseline-{copies}.json"
        _copies(accepted[0], made, copies)
        assert main(["accept", str(made), "--baseline", str(baseline), "--allow-failed", "-q"]) == 0
        measured.append(_held_by_the_gate_and_junit(made, baseline))
        capsys.readouterr()
    (kept_low, junit_low), (kept_high, junit_high) = measured
    assert (kept_high - kept_low) / (40 * 40) < 200 and (junit_high - junit_low) / (40 * 40) < 1000, measured
