"""agenteval-ci: the CI gate for AI agents."""

from ._release import VERSION as __version__

__all__ = ["__version__"]
