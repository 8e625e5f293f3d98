"""What compare, report and accept keep of every case, on disk (files/spill.py): digests packed
and unpacked exactly, baseline cases kept as a dict keeps them."""

from __future__ import annotations

import copy

import pytest

from agenteval_ci.core.digest import CaseDigest, MetricDigest, RubricDigest, RunDigest, RunScoreDigest, digest, pack, unpack
from agenteval_ci.files.spill import CaseStore, SpilledDigests
from agenteval_ci.schema import Status
from agenteval_ci.schema.baseline import BaselineCase, BaselineMetric
from agenteval_ci.schema.judge import JudgeFingerprint


def _case(eval_id: str, judge: JudgeFingerprint | None = None) -> CaseDigest:
    metric = MetricDigest(
        score=0.5, threshold=0.75, status=Status.FAILED, reason="below threshold: x", config_fingerprint="abc",
        judged_without=("instructions",), judge=judge,
        runs=(RunScoreDigest(1.0, Status.PASSED, (RubricDigest("r1", 1.0), RubricDigest("r2", None))), RunScoreDigest(None, Status.NOT_EVALUATED)),
    )
    runs = (RunDigest(), RunDigest("boom", 1.25, 0.000123, ("gemini-x",), (1.0, None, 3.5)))
    return CaseDigest(suite="s", eval_set_id="e", eval_set_file="evals/e.json", eval_id=eval_id, fingerprint="f" * 16, status=Status.FAILED,
                      reason="1 of 2 run(s) failed", runs_note=None, metrics={"m": metric, "n": metric}, runs=runs, planned_runs=1, outputs="0123")


def test_a_packed_digest_unpacks_to_an_equal_one_with_the_same_repr():
    """repr(digest) is what a results id hashes: a spilled digest must hash alike."""
    judge = JudgeFingerprint(provider="gemini", model="gemini-2.5-flash", prompt="p", num_samples=3)
    for case in (_case("a", judge), _case("b")):
        again = unpack(pack(case))
        assert again == case and repr(again) == repr(case)
        assert list(again.metrics) == list(case.metrics)
    assert unpack(pack(_case("a", judge))).metrics["m"].judge is unpack(pack(_case("c", judge))).metrics["n"].judge  # held once


def test_spilled_digests_read_back_in_order_by_index_and_by_key():
    cases = SpilledDigests()
    made = [_case(f"c{i}") for i in range(2500)] + [_case("c7")]  # a repeated key, as a list may hold
    for i, case in enumerate(made):
        cases.add(case, member=i, offset=2 * i)
    assert len(cases) == len(made) and list(cases) == made
    assert cases[0] == made[0] and cases[-1] == made[-1] and cases[3:6] == made[3:6]
    with pytest.raises(IndexError):
        cases[len(made)]
    assert cases.where("s/e/c1") == (1, 2)
    assert cases.where("s/e/c7") == (len(made) - 1, 2 * (len(made) - 1))  # the last, as a dict of positions keeps
    assert cases.where("s/e/nope") is None


def _baseline_case(score: float) -> BaselineCase:
    return BaselineCase(fingerprint="f", status=Status.PASSED,
                        metrics={"m": BaselineMetric(score=score, runs=[score], run_statuses=[Status.PASSED], status=Status.PASSED, history="PP")})


def test_spilled_cases_behave_as_a_dict_of_cases():
    store = CaseStore()
    cases, plain = store.new_cases(), {}
    for key in ("b", "a", "c"):
        cases[key] = plain[key] = _baseline_case(1.0)
    cases["a"] = plain["a"] = _baseline_case(0.5)  # replaced: keeps its place
    del cases["b"], plain["b"]
    cases["b"] = plain["b"] = _baseline_case(0.25)  # added again: at the end
    assert list(cases) == list(plain) == ["a", "c", "b"]
    assert list(cases.items()) == list(plain.items()) and list(cases.values()) == list(plain.values())
    assert len(cases) == 3 and "a" in cases and "z" not in cases and cases.get("z") is None and cases == plain
    with pytest.raises(KeyError):
        del cases["z"]
    twin, deep = cases.copy(), copy.deepcopy(cases)
    twin["d"] = _baseline_case(0.0)
    del deep["a"]
    assert list(cases) == ["a", "c", "b"] and list(twin) == ["a", "c", "b", "d"] and list(deep) == ["c", "b"]
    other = store.new_cases()
    assert len(other) == 0 and list(other) == []


def test_spilled_cases_are_iterated_a_batch_at_a_time_past_the_batch_size():
    cases = CaseStore().new_cases()
    for i in range(2345):
        cases[f"k{i:05d}"] = _baseline_case(i / 2345)
    assert [k for k, _ in cases.items()] == [f"k{i:05d}" for i in range(2345)]
    assert [c.metrics["m"].score for c in cases.values()] == [i / 2345 for i in range(2345)]


def test_a_whole_case_digests_and_packs_alike(tmp_path):
    """A digest made from a whole CaseResult survives the round trip too (what files/results_file.py spills)."""
    from agenteval_ci.files.results_file import read_results
    from tests.files.test_results_stream import _scored

    for case in read_results(_scored(tmp_path, 6, "r.json")).cases:
        made = digest(case)
        assert repr(unpack(pack(made))) == repr(made)
