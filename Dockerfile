# The agenteval-ci container action (docs/action.md). action.yml on main builds this file;
# a release pushes it prebuilt for linux/amd64 and linux/arm64 (.github/workflows/release.yml).
# Runs as the runner's default user (no USER): GitHub mounts the workspace owned by that user
# and expects to write to it.
#
# The base is pinned by digest (the multi-arch index of python:3.12-slim): bump tag and digest together.
ARG BASE_IMAGE=python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea

# Build stage: fills two virtualenvs that the run stage copies; uv and build leftovers stay here.
FROM ${BASE_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    UV_NO_CACHE=1
RUN pip install --no-cache-dir uv==0.13.9

# agenteval's own environment, from the lock alone so this layer is reused until the lock changes.
# Bytecode only for the modules a run imports; test folders are never imported at run time.
COPY requirements-action.txt scripts/precompile_imports.py /tmp/
RUN python -m venv --without-pip /opt/agenteval \
    && uv pip install --python /opt/agenteval/bin/python -r /tmp/requirements-action.txt \
    && /opt/agenteval/bin/python /tmp/precompile_imports.py /opt/agenteval \
    && find /opt/agenteval -depth -type d -name tests -prune -exec rm -rf {} +

# The agent environment the workflow's `install` fills: sees agenteval's packages, keeps their
# versions (agenteval_ci/files/agent_env.py). It needs only these seven modules.
COPY agenteval_ci/__init__.py agenteval_ci/_release.py agenteval_ci/errors.py /app/agenteval_ci/
COPY agenteval_ci/action/__init__.py agenteval_ci/action/agent_env.py /app/agenteval_ci/action/
COPY agenteval_ci/files/__init__.py agenteval_ci/files/agent_env.py /app/agenteval_ci/files/
WORKDIR /app
RUN /opt/agenteval/bin/python -m agenteval_ci.action.agent_env /opt/agent-env

# Run stage: the base, the two environments, the code.
FROM ${BASE_IMAGE}
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    AGENTEVAL_AGENT_ENV=/opt/agent-env
COPY --from=build /opt/agenteval /opt/agenteval
COPY --from=build /opt/agent-env /opt/agent-env
COPY agenteval_ci /app/agenteval_ci
COPY entrypoint.py /app/entrypoint.py
RUN /opt/agenteval/bin/python -m compileall -q --invalidation-mode unchecked-hash /app/agenteval_ci

ENTRYPOINT ["/opt/agenteval/bin/python", "/app/entrypoint.py"]
