"""The pure core: the gate, the sequential rule, adaptive planning, scoring, the metrics, the
simulated user, fingerprints, case selection and shards. It imports only the schema and does
no I/O (no files, environment, network or clock beyond what is passed in); the judge is a
protocol it is handed (judging.py). import-linter checks both in .ci/run.
"""
