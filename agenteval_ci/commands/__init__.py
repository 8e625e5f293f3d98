"""The commands: one module each, a function over typed settings returning a typed outcome
(`Done` and its kinds, with the exit code). The CLI (cli/) and the action (action/) build the
settings, from argv or from the action's inputs, and call the same functions.
"""
