from . import agent  # noqa: F401  (ADK's layout: the package exposes agent.root_agent)
