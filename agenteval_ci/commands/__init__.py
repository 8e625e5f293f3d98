"""One module per CLI command, each with `configure(parser)` and `run(args) -> int`."""

from . import accept, compare, merge, report, run, score, validate

COMMANDS = {
    "score": score,
    "validate": validate,
    "run": run,
    "merge": merge,
    "accept": accept,
    "compare": compare,
    "report": report,
}
