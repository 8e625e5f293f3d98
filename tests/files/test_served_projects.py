"""A Python ADK project is served rather than imported when it asks for a google-adk the action
does not import agents with (files/served_projects.py: pinned_elsewhere)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agenteval_ci.files.served_projects import ACTION_GOOGLE_ADK, pinned_elsewhere

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("packaging", reason="the pin is read with packaging, google-adk's own dependency")


def test_the_version_is_the_one_the_action_image_pins():
    pins = re.findall(r"^google-adk==(\S+)$", (ROOT / "requirements-action.txt").read_text(), re.M)
    assert pins == [ACTION_GOOGLE_ADK]


@pytest.mark.parametrize(("requirements", "pyproject", "expected"), [
    ("google-adk>=1.20\nrequests\n", "", None),
    ("google-adk\n", "", None),
    ("-r base.txt\nGoogle_ADK[eval] == 1.18.0 ; python_version >= '3.10'  # ours\n", "",
     ("Google_ADK[eval]==1.18.0", "requirements.txt")),
    ("google-adk==1.18.0; python_version < '3'\n", "", None),  # not for this Python
    ("", '[project]\nname = "x"\ndependencies = ["google-adk>=1.2,<2"]\n', ("google-adk<2,>=1.2", "pyproject.toml")),
    ("", '[tool.poetry.dependencies]\npython = "^3.9"\ngoogle-adk = "^0.5.0"\n', ("google-adk>=0.5.0,<0.6.0", "pyproject.toml")),
    ("", '[tool.poetry.dependencies]\ngoogle-adk = "^2.0"\n', None),
    ("", '[project]\nname = "x"\ndependencies = ["google-adk~=2.13.0"]\n', None),
    ("not a requirement ===\n", "[project\n", None),  # what cannot be read says nothing
])
def test_a_pin_that_excludes_the_actions_google_adk(tmp_path, requirements, pyproject, expected):
    if requirements:
        (tmp_path / "requirements.txt").write_text(requirements)
    if pyproject:
        (tmp_path / "pyproject.toml").write_text(pyproject)
    pin = pinned_elsewhere(tmp_path)
    assert (pin and (pin.requirement, pin.file)) == expected
