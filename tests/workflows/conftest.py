"""Fixtures of the workflow tests: one podman service for the session, an act engine per test
(its own artifact store) over the fake GitHub of tests/action."""

from __future__ import annotations

import pytest

from tests.action.conftest import github, good_baseline  # noqa: F401  (fixtures shared with the action's tests)
from tests.action.harness import rubric_yes
from tests.fakes.gemini import FakeGemini

from .act import Act, action_folder, podman_service
from .results_service import ResultsService


@pytest.fixture(scope="session")
def docker_host(tmp_path_factory):
    with podman_service(tmp_path_factory.mktemp("podman")) as host:
        yield host


@pytest.fixture
def act(tmp_path, docker_host, github):  # noqa: F811
    with ResultsService(github) as service:
        yield Act(docker_host, action_folder(tmp_path / "action"), github.base_url, service)


@pytest.fixture
def gemini():
    """The judge a workflow's GOOGLE_API_KEY reaches: says yes to every rubric."""
    with FakeGemini(responder=rubric_yes) as fake:
        yield fake
