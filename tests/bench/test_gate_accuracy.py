"""bench/gate_accuracy.py's diagnostics: why the rounds ended in the trials the gate got wrong."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "gate_accuracy.py"


def _bench():
    spec = importlib.util.spec_from_file_location("gate_accuracy", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules["gate_accuracy"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_each_pull_request_says_why_its_rounds_ended_and_the_wrong_ones_are_tallied():
    bench = _bench()
    rng = random.Random(3)
    parts = bench.parse_shape("0.7@1,0.3@0.5")
    tallies = [bench.Tally(False), bench.Tally(True)]
    for _ in range(6):
        for tally, outcome in zip(tallies, bench.in_process_trial(parts, "fixed3", ("aa", "0.5:0.5"), 30, rng)):
            assert outcome.stopped in {"decided", "settled", "budget", "max_runs"}
            assert outcome.evidence is not None and outcome.evidence >= 0
            assert 1 <= outcome.runs <= 3  # within run_budget
            tally.add(outcome)
    aa, drop = tallies
    assert drop.failed == 6 and drop.why() == "none wrong"  # half the cases lose half their rate: always caught
    assert aa.failed == 0 and aa.why() == "none wrong"  # nothing changed: the gate passes every one


def test_a_missed_regression_is_listed_with_its_stop_and_evidence():
    bench = _bench()
    tally = bench.Tally(True)
    tally.add(bench.Outcome(True, 1.5, "decided", 40.0))
    tally.add(bench.Outcome(False, 3.0, "budget", 4.0))
    tally.add(bench.Outcome(False, 2.0, "budget", 6.0))
    tally.add(bench.Outcome(False, 1.0, "settled", 0.5))
    assert tally.why() == "3 wrong: budget 2 settled 1; 2.00 runs/case, evidence 4"
