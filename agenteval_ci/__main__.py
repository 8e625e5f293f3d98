from agenteval_ci.cli import console

console()
