"""Fixtures of the action's end-to-end tests: a fake GitHub and the example repo's baselines."""

from __future__ import annotations

import pytest

from tests.fakes.github import FakeGitHub, write_token

from .harness import TOKEN, baseline_text_of, make_repo


@pytest.fixture(scope="session")
def good_baseline(tmp_path_factory) -> str:
    return baseline_text_of(make_repo(tmp_path_factory.mktemp("good") / "repo"))


@pytest.fixture
def github():
    with FakeGitHub("octo/agent") as fake:
        fake.add_token(TOKEN, write_token())
        yield fake
