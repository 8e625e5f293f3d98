"""Shared fixtures: paths to the compat corpus and small builders of eval data."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMPAT = ROOT.parent / "shared" / "compat"


@pytest.fixture
def compat_dir() -> Path:
    if not COMPAT.is_dir():
        pytest.skip(f"compat corpus not found at {COMPAT} (it lives in ../shared beside a CI checkout)")
    return COMPAT
