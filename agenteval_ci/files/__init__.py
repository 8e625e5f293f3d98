"""The files we read and write, with limits and clear errors: the guarded readers, eval sets in
each of google-adk's formats, eval configs and where they are found, agenteval.yaml, results,
the judge cache, atomic writes. Reads and writes happen here; what they mean is the core's.
"""
