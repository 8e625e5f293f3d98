"""Metrics: one module per family, pure functions, one explicit registry keyed by ADK's names."""

from .base import ConfiguredMetric, MetricInput, MetricSpec, adk_mean, mean_run, not_evaluated, status_for
from .registry import REGISTRY

__all__ = ["REGISTRY", "ConfiguredMetric", "MetricInput", "MetricSpec", "adk_mean", "mean_run", "not_evaluated", "status_for"]
