"""The HTML report: self-contained, every case in the table, and real in headless Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from agenteval_ci.core.baseline import baseline_from_results
from agenteval_ci.core.gate import compare
from agenteval_ci.report import render_html
from agenteval_ci.schema.settings import GateSettings
from tests.report.scored import EXPECTED, lights, score

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "screenshot_report.sh"


@pytest.fixture
def html(tmp_path) -> str:
    base = score(tmp_path, EXPECTED, [EXPECTED, EXPECTED], "base.json")
    bad = {**EXPECTED, "lights": lights(on=True, reply="I turned the <b>lamp</b> on.")}
    new = score(tmp_path, EXPECTED, [bad, bad], "new.json")
    return render_html(compare(new, baseline_from_results(base), GateSettings()), new)


def test_html_is_self_contained_with_a_chart_and_every_case(html):
    assert not re.search(r'(src|href)="(https?:)?//', html)  # no external fetch
    assert "<style>" in html and "<script>" in html and '<svg id="chart"' in html
    assert html.count('<tr class="case"') == 3
    assert 'data-outcome="regressed"' in html and 'data-outcome="unchanged"' in html
    assert "&lt;b&gt;lamp&lt;/b&gt;" in html and "<b>lamp</b>" not in html  # agent text escaped
    assert "set_device({&#34;id&#34;: 2, &#34;on&#34;: true})" in html  # actual trajectory shown


def test_rows_say_they_open_and_long_lines_wrap(html):
    assert html.count('<span class="toggle" aria-hidden="true">▸</span>') == 3
    assert 'id="hint"' in html and "Click a case (▸)" in html
    assert '<button type="button" id="expand">expand all</button>' in html and 'id="collapse"' in html
    assert "white-space: pre-wrap; overflow-wrap: anywhere;" in html and "overflow-x: auto" not in html


@pytest.mark.skipif(not (shutil.which("chromium") or shutil.which("chromium-browser")), reason="chromium not installed")
def test_headless_chromium_renders_and_filters(html, tmp_path):
    report = tmp_path / "report.html"
    report.write_text(html)
    out = tmp_path / "shot"
    subprocess.run([str(SCRIPT), str(report), str(out), "?outcome=regressed"], check=True, timeout=120, capture_output=True)
    png = (tmp_path / "shot.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    dom = (tmp_path / "shot.dom.html").read_text()
    rows = re.findall(r'<tr class="case" data-outcome="(\w+)"[^>]*?( hidden="")?>', dom)
    assert sorted(rows) == [("regressed", ""), ("unchanged", ' hidden=""'), ("unchanged", ' hidden=""')]
    subprocess.run([str(SCRIPT), str(report), str(out), "?open=1"], check=True, timeout=120, capture_output=True)
    dom = (tmp_path / "shot.dom.html").read_text()
    assert dom.count('<tr class="case open"') == 3 and dom.count('aria-expanded="true"') == 3
    assert '<tr class="detail" data-outcome="regressed">' in dom  # no longer hidden
