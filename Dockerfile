# The agenteval-ci container action. Runs as the runner's default user (no USER): GitHub
# mounts the workspace owned by that user and expects to write to it.
FROM python:3.12-slim

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY requirements-action.txt /app/
RUN pip install --no-cache-dir -r /app/requirements-action.txt

COPY pyproject.toml README.md /app/
COPY agenteval_ci /app/agenteval_ci
RUN pip install --no-cache-dir --no-deps /app
COPY entrypoint.py /app/entrypoint.py

ENTRYPOINT ["python", "/app/entrypoint.py"]
