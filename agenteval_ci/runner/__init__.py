"""Running suites: every case x run of every suite under its concurrency bound, each agent
turn under a timeout, each case scored as soon as its runs end, `num_runs: auto`'s rounds,
and the progress a terminal or a CI log shows.
"""
