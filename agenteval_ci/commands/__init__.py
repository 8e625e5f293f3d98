"""One module per CLI command, each with `configure(parser)` and `run(args) -> int`."""

from . import score, validate

COMMANDS = {
    "score": score,
    "validate": validate,
}
