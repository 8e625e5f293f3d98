"""`agenteval merge`: shards joined give the unsharded run; bad sets of shards are refused."""

from __future__ import annotations

import json

from agenteval_ci.cli import main
from tests.runner.test_suites import make_project

TIMED = {"latency", "invocation_duration_v1"}  # wall-clock metrics differ from run to run


def _scores(results: dict) -> dict:
    return {
        (c["suite"], c["eval_set_id"], c["eval_id"]): (c["status"], {n: m.get("score") for n, m in c["metrics"].items() if n not in TIMED})
        for c in results["cases"]
    }


def test_three_shards_merge_to_the_unsharded_run(tmp_path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    config = make_project(tmp_path, [f"c{i}" for i in range(10)] + ["boom"])
    assert main(["run", "--config", str(config), "--json", str(tmp_path / "all.json")]) == 1  # "boom" fails
    shard_files = []
    for i in (1, 2, 3):
        path = tmp_path / f"shard{i}.json"
        main(["run", "--config", str(config), "--shard", f"{i}/3", "--json", str(path)])
        shard_files.append(str(path))
    assert main(["merge", *reversed(shard_files), "--json", str(tmp_path / "merged.json")]) == 0
    whole = json.loads((tmp_path / "all.json").read_text())
    merged = json.loads((tmp_path / "merged.json").read_text())
    assert _scores(merged) == _scores(whole)
    assert len(merged["cases"]) == 11
    assert "shard" not in merged
    assert merged["stats"]["agent_turns"] == whole["stats"]["agent_turns"]


def test_overlapping_missing_and_mismatched_shards_are_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CI", "true")
    config = make_project(tmp_path, [f"c{i}" for i in range(6)])
    paths = {}
    for shard in ("1/2", "2/2", "1/3"):
        paths[shard] = str(tmp_path / f"s{shard.replace('/', 'of')}.json")
        main(["run", "--config", str(config), "--shard", shard, "--json", paths[shard]])
    main(["run", "--config", str(config), "--json", str(tmp_path / "whole.json")])
    out = str(tmp_path / "m.json")

    assert main(["merge", paths["1/2"], paths["1/2"], "--json", out]) == 2
    assert "$.shard.index: shard 1/2 is also" in capsys.readouterr().err
    assert main(["merge", paths["1/2"], "--json", out]) == 2
    assert "shard(s) 2/2 missing from the merge" in capsys.readouterr().err
    assert main(["merge", paths["1/2"], paths["1/3"], "--json", out]) == 2
    assert "$.shard.count: is 3, but" in capsys.readouterr().err
    assert main(["merge", paths["1/2"], str(tmp_path / "whole.json"), "--json", out]) == 2
    assert "whole.json at $.shard: not a shard" in capsys.readouterr().err


def test_a_shard_against_the_whole_baseline_compares_only_its_own_cases(tmp_path, monkeypatch):
    """The other shards' cases are theirs to compare: not removed here, nor anywhere after merge."""
    monkeypatch.setenv("CI", "true")
    config = make_project(tmp_path, [f"c{i}" for i in range(10)])
    assert main(["run", "--config", str(config), "-q"]) == 0
    assert main(["accept", "--config", str(config)]) == 0
    for i in (1, 2, 3):
        out = tmp_path / f"comparison{i}.json"
        assert main(["run", "--config", str(config), "-q", "--shard", f"{i}/3", "--json", str(tmp_path / f"s{i}.json")]) == 0
        assert main(["compare", str(tmp_path / f"s{i}.json"), "--config", str(config), "-q", "--json", str(out)]) == 0
        ran = {c["eval_id"] for c in json.loads((tmp_path / f"s{i}.json").read_text())["cases"]}
        outcomes = {c["eval_id"]: c["outcome"] for c in json.loads(out.read_text())["cases"]}
        assert outcomes == {eval_id: "unchanged" for eval_id in ran}, outcomes
