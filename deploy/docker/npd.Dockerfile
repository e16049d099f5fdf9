# Node Problem Detector with gpudoctor as its custom plugin (deploy/kubernetes/npd-daemonset.yaml).
#
#   docker build -f deploy/docker/npd.Dockerfile -t gpudoctor-npd:0.1.0 .
#
# NPD's own image (Debian-based) with Python and gpudoctor in /opt/gpudoctor; the plugin config
# (deploy/kubernetes/npd-gpudoctor.json) runs /opt/gpudoctor/bin/gpudoctor check --format npd.
ARG NPD_IMAGE=registry.k8s.io/node-problem-detector/node-problem-detector:v0.8.20
FROM ${NPD_IMAGE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*
COPY pyproject.toml README.md LICENSE /src/
COPY src/ /src/src/
COPY compat_matrix/ /src/compat_matrix/
COPY docs/ /src/docs/
RUN python3 -m venv /opt/gpudoctor \
    && /opt/gpudoctor/bin/pip install --no-cache-dir --disable-pip-version-check /src \
    && rm -rf /src
