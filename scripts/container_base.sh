#!/usr/bin/env bash
# Build once, cache, and import a minimal Debian base image (python3, venv, pip, git) for the
# container tests. No image can be pulled here, so the base comes from debootstrap, using the
# Debian mirror this machine's apt is configured with.
#   ROCM_DEPS_CI_CACHE  where the rootfs tarball is kept between runs (default below)
set -euo pipefail

cache="${ROCM_DEPS_CI_CACHE:-/var/cache/rocm-deps-ci}"
image="${ROCM_DEPS_BASE_IMAGE:-localhost/rocm-deps-base:bookworm}"
tarball="$cache/debian-bookworm-python-git.tar"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$(cd "$(dirname "$0")/.." && pwd)/.ci/containers.conf}"

if podman image exists "$image"; then
  echo "container base: $image is present"
  exit 0
fi

debian_mirror() {
  local uri=""
  if [ -r /etc/apt/sources.list.d/debian.sources ]; then
    uri="$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)"
  fi
  if [ -z "$uri" ] && [ -r /etc/apt/sources.list ]; then
    uri="$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list)"
  fi
  if [ -z "$uri" ]; then
    echo "container base: no Debian mirror found in /etc/apt/sources.list*" >&2
    return 1
  fi
  echo "$uri"
}

if [ ! -s "$tarball" ]; then
  mirror="$(debian_mirror)"
  rootfs="$(mktemp -d)"
  trap 'rm -rf "$rootfs"' EXIT
  echo "container base: debootstrap bookworm into $rootfs (once; cached in $tarball)"
  debootstrap --variant=minbase --include=python3,python3-venv,python3-pip,git,ca-certificates \
    bookworm "$rootfs" "$mirror" >"$cache.debootstrap.log" 2>&1 \
    || { mkdir -p "$cache"; tail -20 "$cache.debootstrap.log" >&2; exit 1; }
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  mkdir -p "$cache"
  tar -C "$rootfs" -cf "$tarball.partial" .
  mv "$tarball.partial" "$tarball"
fi
podman import --quiet --change 'CMD ["/bin/bash"]' "$tarball" "$image" >/dev/null
echo "container base: imported $image"
