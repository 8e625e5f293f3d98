"""A project's pins of a package in every packaging style (files/pins.py): what `init` reads to
tell whether the action's google-adk can run the agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenteval_ci.files.pins import pins

pytest.importorskip("packaging", reason="pins are read with packaging, google-adk's own dependency")


def _project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


# adk-samples' own layout: Poetry, a caret range on the 0.x series and on 1.x.
LLM_AUDITOR = """[tool.poetry]
name = "llm-auditor"
version = "0.1"

[tool.poetry.dependencies]
python = "^3.9"
google-adk = "^0.5.0"
google-genai = "^1.9.0"

[build-system]
requires = ["poetry-core>=2.0.0"]
build-backend = "poetry.core.masonry.api"
"""


@pytest.mark.parametrize(("files", "expected"), [
    ({"pyproject.toml": LLM_AUDITOR},
     [("pyproject.toml", ">=0.5.0,<0.6.0", 'google-adk = "^0.5.0" ([tool.poetry.dependencies])')]),
    ({"pyproject.toml": '[tool.poetry.group.eval.dependencies]\ngoogle-adk = {version = "~1.2", extras = ["eval"]}\n'},
     [("pyproject.toml", ">=1.2,<1.3", "([tool.poetry.group.eval.dependencies])")]),
    ({"pyproject.toml": '[tool.poetry.dev-dependencies]\nGoogle_ADK = ">=1.0 <2.0 || ^3.0"\n'},
     [("pyproject.toml", ">=1.0,<2.0", "[tool.poetry.dev-dependencies]")]),
    ({"pyproject.toml": '[tool.pdm.dev-dependencies]\ntest = ["google-adk==1.18.0"]\n'},
     [("pyproject.toml", "==1.18.0", "google-adk==1.18.0 ([tool.pdm.dev-dependencies] test)")]),
    ({"pyproject.toml": '[tool.hatch.envs.default]\ndependencies = ["google-adk<2"]\n'},
     [("pyproject.toml", "<2", "([tool.hatch.envs.default] dependencies)")]),
    ({"pyproject.toml": '[dependency-groups]\ndev = ["google-adk>=1.5,<1.6"]\n[tool.uv]\nconstraint-dependencies = ["google-adk!=1.5.1"]\n'},
     [("pyproject.toml", "!=1.5.1", "[tool.uv] constraint-dependencies"), ("pyproject.toml", "<1.6,>=1.5", "[dependency-groups] dev")]),
    ({"uv.lock": 'version = 1\n[[package]]\nname = "google-adk"\nversion = "1.18.0"\n'},
     [("uv.lock", "==1.18.0", "google-adk 1.18.0 (locked")]),
    ({"setup.cfg": "[options]\ninstall_requires =\n    requests\n    google-adk>=1.0,<1.10; python_version >= '3.9'\n"},
     [("setup.cfg", "<1.10,>=1.0", "([options] install_requires)")]),
    ({"setup.py": "from setuptools import setup\nsetup(name='x', install_requires=['requests', 'google-adk==0.5.0'])\n"},
     [("setup.py", "==0.5.0", "google-adk==0.5.0 (install_requires)")]),
    ({"requirements.txt": "-r requirements/base.txt\n--constraint=constraints.txt\n",
      "requirements/base.txt": "-r ../requirements.txt  # a loop is read once\nrequests\ngoogle-adk>=1.0\n",
      "constraints.txt": "google-adk==1.18.0\n"},
     [("requirements/base.txt", ">=1.0", "google-adk>=1.0"), ("constraints.txt", "==1.18.0", "google-adk==1.18.0")]),
    ({"requirements.txt": "-r ../outside.txt\n", "pyproject.toml": "[broken\n", "setup.py": "install_requires = compute()\n"}, []),
])
def test_every_packaging_style_names_its_pins(tmp_path, files, expected):
    found = pins(_project(tmp_path, files), "google-adk")
    assert [(p.file, p.specifiers[0]) for p in found] == [(file, spec) for file, spec, _ in expected]
    for pin, (_, _, written) in zip(found, expected, strict=True):
        assert written in pin.written


@pytest.mark.parametrize(("constraint", "admits", "excludes"), [
    ("^0.5.0", ["0.5.0", "0.5.9"], ["0.6.0", "2.13.0"]),
    ("^1.0.0", ["1.0.0", "1.99"], ["2.0.0", "2.13.0"]),
    ("^0.0.3", ["0.0.3"], ["0.0.4"]),
    ("^2", ["2.13.0"], ["3.0"]),
    ("~1.2.3", ["1.2.9"], ["1.3.0"]),
    ("~1", ["1.9"], ["2.0"]),
    ("2.13.*", ["2.13.0"], ["2.14.0"]),
    ("1.18.0", ["1.18.0"], ["2.13.0"]),
    ("*", ["0.1", "2.13.0"], []),
    ("^1.2 || ^2.13", ["1.5", "2.13.0"], ["3.0", "1.1"]),
])
def test_poetry_ranges_mean_what_poetry_means(tmp_path, constraint, admits, excludes):
    (tmp_path / "pyproject.toml").write_text(f'[tool.poetry.dependencies]\ngoogle-adk = "{constraint}"\n')
    (pin,) = pins(tmp_path, "google-adk")
    assert [pin.admits(v) for v in admits + excludes] == [True] * len(admits) + [False] * len(excludes)


def test_a_range_that_cannot_be_read_says_nothing(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.poetry.dependencies]\ngoogle-adk = ">=not-a-version"\n')
    (pin,) = pins(tmp_path, "google-adk")
    assert pin.admits("2.13.0")
