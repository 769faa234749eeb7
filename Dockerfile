# rocm-deps as a container image: `docker run … rocm-deps resolve|install`, or
# `uses: docker://…` in a workflow. BASE_IMAGE needs python3 (>= 3.10) with venv; git is
# installed when the base lacks it.
ARG BASE_IMAGE=python:3.12-slim-bookworm

FROM ${BASE_IMAGE} AS build
WORKDIR /src
COPY pyproject.toml README.md LICENSE constraints.txt ./
COPY src ./src
# The tool lives in its own virtualenv: the interpreter that `install` pip-installs into
# (the container's python3) never receives rocm-deps' own dependencies.
RUN python3 -m venv /opt/rocm-deps \
    && /opt/rocm-deps/bin/python -m pip install --no-cache-dir --disable-pip-version-check \
        --constraint constraints.txt ".[github]" \
    && /opt/rocm-deps/bin/python -m pip uninstall --yes --disable-pip-version-check pip

FROM ${BASE_IMAGE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="rocm-deps" \
      org.opencontainers.image.description="Resolve and install the dependency refs a pull request names for ROCm CI" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}"
# Debian's git is current with security fixes; pinning its exact version would break the
# build whenever the archive moves on.
# hadolint ignore=DL3008
RUN if ! command -v git >/dev/null 2>&1; then \
        apt-get update \
        && apt-get install --yes --no-install-recommends git ca-certificates \
        && rm -rf /var/lib/apt/lists/*; \
    fi \
    && useradd --create-home --uid 10001 rocmdeps
COPY --from=build /opt/rocm-deps /opt/rocm-deps
# Only the command goes on PATH: `python3` must stay the image's interpreter, the one
# `install` pip-installs into.
RUN ln -s /opt/rocm-deps/bin/rocm-deps /usr/local/bin/rocm-deps
ENV PYTHONDONTWRITEBYTECODE=1
# resolve needs no privileges. install writes into the dependency checkouts and the
# interpreter's site-packages: run it with `--user 0` (or as the owner of both).
USER 10001
ENTRYPOINT ["rocm-deps"]
CMD ["--help"]
