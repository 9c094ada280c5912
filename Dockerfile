# korean-eval's dashboard in a container:
#   docker build -t korean-eval .
#   docker run --rm -p 8501:8501 korean-eval        # then open http://localhost:8501 (Ctrl+C stops it)
#   docker run --rm -p 8501:8501 -e KOREAN_EVAL_MAX_RUNNING=4 korean-eval     # a limit of several users changed
# (podman: `podman build --format docker -t korean-eval .`; its default OCI format drops the HEALTHCHECK)
# The pinned runtime requirements (requirements.txt), the package itself (pip install, which builds it with
# setuptools from PyPI), a Java runtime for KoNLPy's analyzers and Korean fonts; it runs as a non-root user and
# keeps its cache in that user's ~/.cache/korean-eval (mount a volume there to keep it between runs).
ARG PYTHON_IMAGE=python:3.11-slim-bookworm
FROM ${PYTHON_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    JAVA_HOME=/usr/lib/jvm/default-java \
    PATH=/opt/venv/bin:$PATH

RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends default-jre-headless fonts-nanum \
    && rm -rf /var/lib/apt/lists/*

COPY requirements.txt /tmp/requirements.txt
RUN python3 -m venv /opt/venv && pip install -r /tmp/requirements.txt

COPY . /tmp/korean-eval
RUN pip install --no-deps /tmp/korean-eval && rm -rf /tmp/korean-eval /tmp/requirements.txt \
    && pip check

RUN useradd --create-home --uid 10001 korean-eval
USER korean-eval
WORKDIR /home/korean-eval
# numba's kernels compiled into the image (~/.cache/korean-eval/numba), not by the first evaluation of each container
RUN korean-eval compile --quiet

# Limits of a server shared by several users (docs/deployment.md, "Several users"); override with docker run -e NAME=…
ENV KOREAN_EVAL_MAX_RUNNING=2 \
    KOREAN_EVAL_MAX_LARGE_RUNNING=1 \
    KOREAN_EVAL_MAX_WAITING=12 \
    KOREAN_EVAL_SESSION_RUNNING=1 \
    KOREAN_EVAL_MAX_PAIR_LEVELS=25000 \
    KOREAN_EVAL_POOL_IDLE_SECONDS=60 \
    KOREAN_EVAL_RESULT_IDLE_SECONDS=60 \
    KOREAN_EVAL_ANALYZERS_IN_WORKERS=1 \
    KOREAN_EVAL_ANALYZER_PROCESSES=1 \
    STREAMLIT_SERVER_MAX_UPLOAD_SIZE=25

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).read() != b'ok')"]
CMD ["korean-eval", "app", "--server.address", "0.0.0.0", "--server.port", "8501", "--server.headless", "true", \
     "--server.fileWatcherType", "none"]
