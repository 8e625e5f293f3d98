"""The container action's entry point (see action.yml and Dockerfile)."""

from agenteval_ci.action.main import main

raise SystemExit(main())
