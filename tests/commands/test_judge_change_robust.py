"""The judge-change rule never crashes on what a baseline holds (issue 35, item 12).

A baseline is a committed file: hand edits and older writers leave judge entries without keys,
with other types, or metric entries naming judges the file does not hold. Whatever a judge
entry lacks, `compare` and `report` read it as no evidence of that judge (or refuse the file
with exit 2 naming it), never exit 3. Eval set ids may hold '/', as paths do.
"""

from __future__ import annotations

import copy
import json

import pytest

from agenteval_ci.cli import main
from tests.fakes.gemini import FakeGemini
from tests.judge.judged_project import verdicts, write_project

EVAL_SET = "evals/lights"  # an id with slashes: the case key "default/evals/lights/case0" is not split back


def _judges(data: dict) -> list[dict]:
    return list(data["judges"].values())


def _metrics(data: dict) -> list[dict]:
    return [m for case in data["suites"]["default"][EVAL_SET].values() for m in case["metrics"].values()]


MUTATIONS = {
    "judge without config": lambda d: [j.pop("config", None) for j in _judges(d)],
    "judge with a null config": lambda d: [j.__setitem__("config", None) for j in _judges(d)],
    "judge config not a mapping": lambda d: [j.__setitem__("config", "temperature=0") for j in _judges(d)],
    "judge without prompt": lambda d: [j.pop("prompt") for j in _judges(d)],
    "judge without model": lambda d: [j.pop("model") for j in _judges(d)],
    "judge without versions": lambda d: [j.pop("versions", None) for j in _judges(d)],
    "judge versions not a list": lambda d: [j.__setitem__("versions", "fake") for j in _judges(d)],
    "judge num_samples a string": lambda d: [j.__setitem__("num_samples", "three") for j in _judges(d)],
    "judge an empty mapping": lambda d: [d["judges"].__setitem__(k, {}) for k in list(d["judges"])],
    "judge a list": lambda d: [d["judges"].__setitem__(k, []) for k in list(d["judges"])],
    "judges null": lambda d: d.__setitem__("judges", None),
    "no judges": lambda d: d.pop("judges"),
    "metrics name unknown judges": lambda d: [m.__setitem__("judge", "0000deadbeef") for m in _metrics(d) if "judge" in m],
    "metrics' judge a number": lambda d: [m.__setitem__("judge", 7) for m in _metrics(d) if "judge" in m],
    "metrics without config_fingerprint": lambda d: [m.pop("config_fingerprint", None) for m in _metrics(d)],
}


@pytest.fixture(scope="module")
def judged_again(tmp_path_factory):
    """A project whose baseline was judged with 3 samples, and a PR run judged with 5: every
    judged case re-judged on the baseline's recorded outputs."""
    root = tmp_path_factory.mktemp("project")
    config = write_project(root)
    evalset = root / "evals" / "lights.evalset.json"
    evalset.write_text(evalset.read_text().replace('"eval_set_id": "lights"', f'"eval_set_id": "{EVAL_SET}"'))
    with FakeGemini(responder=verdicts) as gemini, pytest.MonkeyPatch.context() as env:
        for name, value in gemini.env().items():
            env.setenv(name, value)
        main(["run", "--config", str(config), "-q"])
        assert main(["accept", "--config", str(config), "--allow-failed"]) == 0
        test_config = root / "evals" / "test_config.json"
        test_config.write_text(test_config.read_text().replace('"num_samples": 3', '"num_samples": 5'))
        main(["run", "--config", str(config), "-q", "--no-gate"])  # 1: the cases below threshold stay below
    results = json.loads((root / ".agenteval" / "results.json").read_text())
    assert results["rejudged"], "the PR run re-judged nothing: the rule is not exercised"
    return config


def test_a_judge_change_on_eval_set_ids_with_slashes_compares_like_with_like(judged_again):
    out = judged_again.parent / "comparison.json"
    assert main(["compare", "--config", str(judged_again), "-q", "--json", str(out)]) == 0
    changes = json.loads(out.read_text())["judge_changes"]
    assert changes and all(len(c["rejudged"]) == 6 and not c["not_rejudged"] for c in changes)


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_whatever_a_baseline_judge_entry_lacks_compare_and_report_never_crash(judged_again, mutation, capsys):
    path = judged_again.parent / ".agenteval" / "baseline.json"
    original = path.read_text()
    data = copy.deepcopy(json.loads(original))
    MUTATIONS[mutation](data)
    path.write_text(json.dumps(data))
    try:
        results = str(judged_again.parent / ".agenteval" / "results.json")
        codes = [main(["compare", "--config", str(judged_again), "-q"]),
                 main(["report", results, "--config", str(judged_again), "--format", "json",
                       "-o", str(judged_again.parent / "report.json")])]
    finally:
        path.write_text(original)
    err = capsys.readouterr().err
    assert set(codes) <= {0, 1, 2} and "Traceback" not in err and "please report" not in err, (codes, err)
    if 2 in codes:
        assert str(path) in err  # refused: the file is named
