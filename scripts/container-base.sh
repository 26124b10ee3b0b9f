#!/usr/bin/env bash
# Makes the two base images the Dockerfile names, offline from any container registry:
#   docker.io/library/debian:bookworm-slim      debootstrap of Debian bookworm (minbase) from the machine's apt mirror
#   docker.io/library/node:20-bookworm-slim     the same plus this machine's Node.js 20 and npm in /usr/local
#   docker.io/library/postgres:15-bookworm      for compose.yaml: Debian's PostgreSQL 15 with an entry point that
#                                               honours POSTGRES_USER/PASSWORD/DB as the official image does
# Where a registry is reachable, `podman pull` of the official images does the same job; this script exists
# because the machines the project is tested on have no registry (see docs/deploy.md). Idempotent: an image
# already present under its tag is kept. Needs root, podman and debootstrap.
set -euo pipefail

DEBIAN_TAG=docker.io/library/debian:bookworm-slim
NODE_TAG=docker.io/library/node:20-bookworm-slim
POSTGRES_TAG=docker.io/library/postgres:15-bookworm
WORK=${ATELIER_BASE_WORK:-/var/tmp/atelier-container-base}
# The mirror apt already uses here, so no other host has to be reachable.
MIRROR=${DEBIAN_MIRROR:-$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 | awk '{print $2}')}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
PODMAN=(podman --runtime runc --cgroup-manager=cgroupfs)
# runc here may not raise limits above the sandbox's own (docs/deploy.md).
LIMITS=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit nproc=4096:4096)

have() { "${PODMAN[@]}" image exists "$1"; }

if ! have "$DEBIAN_TAG"; then
  rm -rf "$WORK/rootfs" && mkdir -p "$WORK"
  echo "== debootstrap bookworm from $MIRROR"
  debootstrap --variant=minbase --include=ca-certificates bookworm "$WORK/rootfs" "$MIRROR" >"$WORK/debootstrap.log"
  # What the official slim image also drops: package lists and caches.
  rm -rf "$WORK/rootfs"/var/lib/apt/lists/* "$WORK/rootfs"/var/cache/apt/archives/*.deb
  tar -C "$WORK/rootfs" -c . | "${PODMAN[@]}" import --change 'CMD ["bash"]' - "$DEBIAN_TAG" >/dev/null
  rm -rf "$WORK/rootfs"
fi

if ! have "$NODE_TAG"; then
  node_bin=$(readlink -f "$(command -v node)")
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  case "$("$node_bin" --version)" in v20.*) ;; *) echo "node 20 is needed for $NODE_TAG" >&2; exit 1 ;; esac
  ctx=$(mktemp -d)
  mkdir -p "$ctx/usr/local/bin" "$ctx/usr/local/lib/node_modules"
  cp "$node_bin" "$ctx/usr/local/bin/node"
  cp -a "$npm_dir" "$ctx/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$ctx/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$ctx/usr/local/bin/npx"
  cat >"$ctx/Containerfile" <<DOCKERFILE
FROM $DEBIAN_TAG
COPY usr /usr
ENV NODE_VERSION=$("$node_bin" --version | tr -d v)
CMD ["node"]
DOCKERFILE
  "${PODMAN[@]}" build --pull=never -q "${LIMITS[@]}" -t "$NODE_TAG" "$ctx" >/dev/null
  rm -rf "$ctx"
fi

if [ "${1:-}" = --with-postgres ] && ! have "$POSTGRES_TAG"; then
  ctx=$(mktemp -d)
  cat >"$ctx/entrypoint.sh" <<'ENTRY'
#!/bin/sh
# First start: a cluster with POSTGRES_USER (password POSTGRES_PASSWORD) and POSTGRES_DB, then the server.
set -e
: "${PGDATA:=/var/lib/postgresql/data}" "${POSTGRES_USER:=postgres}"
B=/usr/lib/postgresql/15/bin
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" > /tmp/pw
  "$B/initdb" -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=/tmp/pw --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /tmp/pw
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
    "$B/pg_ctl" -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    "$B/psql" -U "$POSTGRES_USER" -d postgres -qc "CREATE DATABASE \"$POSTGRES_DB\""
    "$B/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
  fi
fi
exec "$B/postgres" -D "$PGDATA" -c listen_addresses='*'
ENTRY
  cat >"$ctx/Containerfile" <<DOCKERFILE
FROM $DEBIAN_TAG
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-15 && rm -rf /var/lib/apt/lists/* \\
    && mkdir -p /var/lib/postgresql/data /var/run/postgresql && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY --chmod=755 entrypoint.sh /usr/local/bin/docker-entrypoint.sh
USER postgres
ENV PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
DOCKERFILE
  "${PODMAN[@]}" build --pull=never -q --network host "${LIMITS[@]}" -t "$POSTGRES_TAG" "$ctx" >/dev/null
  rm -rf "$ctx"
fi
"${PODMAN[@]}" images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E 'library/(debian|node|postgres)'
