#!/usr/bin/env bash
# Installs the pgvector extension into the machine's PostgreSQL 15 and makes sure the cluster is up.
# Debian 12 does not package pgvector, so it is built from Debian trixie's source package.
# Idempotent: does nothing when vector.control is already installed and PostgreSQL answers.
set -euo pipefail

PG_MAJOR="${PG_MAJOR:-15}"
PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config"

start_postgres() {
  if ! pg_isready -h 127.0.0.1 -p 5432 -q; then
    pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" main start || true
  fi
  for _ in $(seq 1 60); do
    pg_isready -h 127.0.0.1 -p 5432 -q && return 0
    sleep 1
  done
  echo "install-pgvector: PostgreSQL did not accept connections on 127.0.0.1:5432" >&2
  return 1
}

if [ -f "/usr/share/postgresql/${PG_MAJOR}/extension/vector.control" ]; then
  echo "install-pgvector: pgvector already installed"
  start_postgres
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq postgresql-server-dev-"$PG_MAJOR" build-essential dpkg-dev >/dev/null

src_list=/etc/apt/sources.list.d/powercontext-trixie-src.list
if [ ! -f "$src_list" ]; then
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" >"$src_list"
fi
apt-get update -qq

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get source -qq pgvector >/dev/null)
src_dir="$(find "$work" -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)"
make -C "$src_dir" PG_CONFIG="$PG_CONFIG" >/dev/null
make -C "$src_dir" PG_CONFIG="$PG_CONFIG" install >/dev/null

# Installing the dev package can upgrade the PostgreSQL minor version and restart the cluster.
start_postgres
echo "install-pgvector: installed $(basename "$src_dir")"
