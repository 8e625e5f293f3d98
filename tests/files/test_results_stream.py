"""The results file, version 2: one case a line, plain or gzip, written and read case by case;
version 1 files (and reformatted ones) still read; a damaged file is a clear error."""

from __future__ import annotations

import gc
import gzip
import json
import tracemalloc
from pathlib import Path

import pytest

from agenteval_ci.cli import main
from agenteval_ci.core.digest import digest
from agenteval_ci.errors import InputError
from agenteval_ci.files import results_file as results_module
from agenteval_ci.files.results_file import HEAD, ResultsFile, read_results, write_results
from tests.core.metrics.casegen import generate


def _scored(tmp_path: Path, cases: int, name: str, seed: int = 3) -> Path:
    """`agenteval score` of a generated suite with recorded actuals, written to `name`."""
    expected, actual = generate(seed=seed, num_cases=cases, eval_set_id="gen", words_per_reply=(20, 60))
    folder = tmp_path / f"suite-{seed}-{cases}"
    if not folder.exists():
        folder.mkdir()
        (folder / "gen.evalset.json").write_text(json.dumps(expected))
        (folder / "actual.json").write_text(json.dumps(actual))
        (folder / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}))
    out = tmp_path / name
    assert main(["score", str(folder / "gen.evalset.json"), "--actual", str(folder / "actual.json"), "--json", str(out)]) in (0, 1)
    return out


def _document(path: Path) -> dict:
    data = path.read_bytes()
    document = json.loads(gzip.decompress(data) if path.suffix == ".gz" else data)
    document.pop("created_at")
    return document


def test_gzip_and_plain_hold_the_same_document_one_case_a_line(tmp_path, capsys):
    plain = _scored(tmp_path, 12, "results.json")
    gzipped = _scored(tmp_path, 12, "results.json.gz")
    assert gzipped.read_bytes()[:2] == b"\x1f\x8b" and len(gzipped.read_bytes()) < len(plain.read_bytes()) / 3
    assert _document(plain) == _document(gzipped)
    lines = plain.read_bytes().split(b"\n")
    assert lines[0] + b"\n" == HEAD and lines[-1] == b""
    cases = [json.loads(line.removesuffix(b",")) for line in lines[1:-2]]
    assert [c["eval_id"] for c in cases] == [c["eval_id"] for c in _document(plain)["cases"]] and len(cases) == 12
    assert read_results(gzipped).model_dump(exclude={"created_at"}) == read_results(plain).model_dump(exclude={"created_at"})


@pytest.mark.parametrize("indent", [None, 1])
def test_a_version_1_file_reads_as_before_and_compares(tmp_path, capsys, indent):
    current = read_results(_scored(tmp_path, 5, "results.json"))
    old = tmp_path / "old.json"
    old.write_text(json.dumps({**current.model_dump(mode="json", exclude_none=True), "schema_version": 1}, indent=indent))
    assert read_results(old).cases == current.cases
    assert main(["accept", str(old), "--baseline", str(tmp_path / "baseline.json"), "--allow-failed"]) == 0
    assert main(["compare", str(tmp_path / "results.json"), "--baseline", str(tmp_path / "baseline.json")]) == 0


def test_cases_are_read_again_from_any_gzip_member(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(results_module, "MEMBER_BYTES", 1)  # a member per case: reading one again jumps to it
    path = _scored(tmp_path, 9, "results.json.gz")
    whole = {c.key: c for c in read_results(path).cases}
    file = ResultsFile(path)
    digests = list(file.digests())
    assert digests == [digest(c) for c in whole.values()]
    assert len({p.member for p in file.positions.values()}) == 9
    keys = list(reversed(whole))
    assert file.fetch(keys) == {k: whole[k] for k in keys}
    assert file.fetch(["no such case"]) == {}


def test_a_file_written_whole_reads_as_one_streamed(tmp_path, capsys):
    results = read_results(_scored(tmp_path, 4, "results.json.gz"))
    write_results(results, str(tmp_path / "again.json"))
    assert read_results(tmp_path / "again.json") == results


@pytest.mark.parametrize("name", ["results.json", "results.json.gz"])
def test_a_file_cut_short_is_an_input_error_naming_it(tmp_path, capsys, name):
    path = _scored(tmp_path, 6, name)
    cut = tmp_path / f"cut-{name}"
    cut.write_bytes(path.read_bytes()[: len(path.read_bytes()) * 2 // 3])
    with pytest.raises(InputError, match="cut"):
        list(ResultsFile(cut).digests())
    assert main(["compare", str(cut), "--baseline", str(tmp_path / "none.json")]) == 2
    assert cut.as_posix() in capsys.readouterr().err


def test_a_case_that_does_not_validate_names_its_index(tmp_path, capsys):
    path = _scored(tmp_path, 3, "results.json")
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b'"status":"', b'"status":"MAYBE', 1)
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(InputError, match=r"\$\.cases\[1\]"):
        read_results(path)


@pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"-Infinity"])
def test_a_score_we_never_write_is_refused_by_every_reader(tmp_path, capsys, number):
    """Python's json writes NaN and Infinity; we never do, so one in a results file is an edit or
    damage: accept must not carry it into the baseline, nor compare decide anything with it."""
    path = _scored(tmp_path, 3, "results.json")
    lines = path.read_bytes().split(b"\n")
    start = lines[2].index(b'"score":')
    end = min(lines[2].index(sep, start + 8) for sep in (b",", b"}") if sep in lines[2][start + 8:])
    lines[2] = lines[2][:start] + b'"score":' + number + lines[2][end:]
    path.write_bytes(b"\n".join(lines))
    baseline = tmp_path / "baseline.json"
    for command in (["compare", str(path), "--baseline", str(baseline)], ["accept", str(path), "--baseline", str(baseline), "--allow-failed"]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert f"{path.as_posix()} at $.cases[1]" in err and "finite number" in err
    assert not baseline.exists()
    with pytest.raises(InputError, match="finite number"):
        read_results(path)


def test_a_newer_version_is_refused(tmp_path, capsys):
    path = _scored(tmp_path, 2, "results.json")
    path.write_bytes(path.read_bytes().replace(b'"schema_version":2', b'"schema_version":99', 1))
    assert main(["compare", str(path), "--baseline", str(tmp_path / "none.json")]) == 2
    assert "newer than this agenteval reads" in capsys.readouterr().err


def _peak(read) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        kept = read()
        return tracemalloc.get_traced_memory()[1] if kept is not None else 0
    finally:
        tracemalloc.stop()


def test_reading_digests_holds_a_fraction_of_the_cases(tmp_path, capsys):
    """What compare, accept and the reports hold of a file is its digests, not its cases: the
    peak is set by a case and a gzip member, plus ~1 KB a case."""
    path = _scored(tmp_path, 300, "results.json.gz")
    whole = _peak(lambda: read_results(path))
    digests = _peak(lambda: ResultsFile(path).digest())
    assert digests < whole / 5, (digests, whole)


def test_a_gzip_results_file_is_recorded_outputs_for_score_in_any_order(tmp_path, capsys):
    """`score --actual` reads a results file of ours (plain or gzip) case by case: the same
    scores again, also when the eval set lists the cases in another order."""
    first = _scored(tmp_path, 8, "results.json.gz")
    folder = tmp_path / "suite-3-8"
    evalset = json.loads((folder / "gen.evalset.json").read_text())
    evalset["eval_cases"].reverse()
    reordered = folder / "reversed.evalset.json"
    reordered.write_text(json.dumps(evalset))
    for source, name in ((folder / "gen.evalset.json", "again.json"), (reordered, "reversed.json")):
        assert main(["score", str(source), "--actual", str(first), "--eval-config", str(folder / "test_config.json"), "--json", str(tmp_path / name)]) in (0, 1)
        scores = {c.eval_id: {m: r.score for m, r in c.metrics.items()} for c in read_results(tmp_path / name).cases}
        assert scores == {c.eval_id: {m: r.score for m, r in c.metrics.items()} for c in read_results(first).cases}


def test_accepting_a_streamed_file_twice_counts_its_runs_once(tmp_path, capsys):
    """23's histories know a batch by its results' id: a file read case by case gets the id of
    the same results in memory, so accepting it again replaces its batch."""
    from agenteval_ci.core.baseline import results_id

    path = _scored(tmp_path, 5, "results.json.gz")
    assert results_id(ResultsFile(path).digest()) == results_id(read_results(path))
    assert results_id(read_results(_scored(tmp_path, 5, "other.json.gz", seed=4))) != results_id(read_results(path))
    baseline = tmp_path / "baseline.json"
    assert main(["accept", str(path), "--baseline", str(baseline), "--allow-failed"]) == 0
    once = baseline.read_text()
    assert main(["accept", str(path), "--baseline", str(baseline), "--allow-failed"]) == 0
    assert json.loads(baseline.read_text())["suites"] == json.loads(once)["suites"]
