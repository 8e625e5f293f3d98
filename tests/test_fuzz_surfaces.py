"""Seeded fuzzing of argument rules and a Python callable's replies (issue 24): no crash, no
hang. bench/fuzz_surfaces.py runs the same engine on more inputs and seeds."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.test_fuzz import offline  # noqa: F401  (the fixture: no key, the judge unreachable)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import fuzz_surfaces  # noqa: E402


@pytest.mark.parametrize("surface, inputs", [("rules", 400), ("replies", 150)])
@pytest.mark.parametrize("seed", [0, 1])
def test_no_input_crashes_or_hangs(tmp_path, offline, surface, inputs, seed):  # noqa: F811
    tally = fuzz_surfaces.SURFACES[surface](inputs, seed, 10.0, tmp_path)
    assert tally.inputs >= inputs
    assert not tally.crashes, "\n".join(tally.crashes[:5])
    assert not tally.hangs, "\n".join(tally.hangs[:5])
