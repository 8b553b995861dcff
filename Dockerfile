# The code location's image: the GENSTRAT graph, served to a Dagster webserver and daemon by a
# code server, and the image that its runs, executor steps and Dask workers start from
# (docs/DEPLOY.md, section 7). Build from the repository's folder:
#   docker build -t genstrat:latest .
# tests/test_dockerfile.py runs these steps (the apt-get line, the venv, the pip install from the
# copied sources, the start-up check and the code location's load) in a clean venv.
FROM debian:bookworm-slim

# Debian 12's Python is 3.11 (pyproject.toml: >=3.11,<3.12). bubblewrap is the strategy-program
# sandbox (it needs user namespaces from the host: DEPLOY.md, section 7); stockfish the chess
# reference engine (Debian installs it in /usr/games).
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv bubblewrap stockfish ca-certificates && rm -rf /var/lib/apt/lists/*

ENV VIRTUAL_ENV=/opt/genstrat/venv \
    PATH=/opt/genstrat/venv/bin:/usr/games:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONHASHSEED=0 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DAGSTER_HOME=/opt/genstrat/dagster_home \
    GENSTRAT_DATA=/var/lib/genstrat/data \
    GENSTRAT_RELEASES=/var/lib/genstrat/releases

WORKDIR /opt/genstrat/src
RUN python3 -m venv /opt/genstrat/venv

# The pinned dependencies first (a layer rebuilt only when the pins change), then the project.
COPY pyproject.toml constraints.txt README.md ./
COPY engines engines
COPY arena arena
COPY quality quality
COPY releases releases
COPY assets assets
COPY pipelines pipelines
RUN pip install -c constraints.txt .

# The Postgres instance of DEPLOY.md, section 1 (its connection settings come from DAGSTER_PG_*).
COPY deploy/dagster.postgres.yaml /opt/genstrat/dagster_home/dagster.yaml

# Checks the storage, the working folder and the sandbox in one line each (exit 2 if one is
# unusable), then serves the code location on the container network's port 4000.
EXPOSE 4000
CMD ["sh", "-c", "genstrat deploy check && exec dagster code-server start -h 0.0.0.0 -p 4000 -m pipelines.definitions"]
