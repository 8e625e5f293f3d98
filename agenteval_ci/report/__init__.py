"""Renderers of results and comparisons: terminal table, PR comment, job summary, HTML, JUnit."""
