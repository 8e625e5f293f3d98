"""The app's web server for deployment (not imported by the agent, not run by the tests)."""

import os

LOGS_BUCKET = os.environ["LOGS_BUCKET_NAME"]  # the server's, not the agent's: init does not ask for it
