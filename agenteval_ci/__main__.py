from agenteval_ci.cli import main

raise SystemExit(main())
