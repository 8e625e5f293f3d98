"""One module per CLI command, each with `configure(parser)` and `run(args) -> int`."""

from . import merge, run, score, validate

COMMANDS = {
    "score": score,
    "validate": validate,
    "run": run,
    "merge": merge,
}
