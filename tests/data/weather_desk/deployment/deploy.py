"""Deploys the agent (not run by the tests)."""

import os

BUCKET = os.environ["STAGING_BUCKET"]  # deployment's, not the agent's: init does not ask for it
