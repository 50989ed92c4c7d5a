#!/usr/bin/env bash
# Installs Debian's PostgreSQL server if needed, starts a throwaway cluster on loopback and writes
# the URL the tests read to .ci/pg.env.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq postgresql >/dev/null
fi
bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
dir=/tmp/lf-pg
port=55432
if ! su postgres -s /bin/sh -c "$bin/pg_isready -h 127.0.0.1 -p $port" >/dev/null 2>&1; then
  rm -rf "$dir"; mkdir -p "$dir"; chown postgres "$dir"
  su postgres -s /bin/sh -c "$bin/initdb -D $dir/data -A trust -U postgres" >/dev/null
  su postgres -s /bin/sh -c "$bin/pg_ctl -D $dir/data -o '-p $port -k $dir -c listen_addresses=127.0.0.1' -l $dir/log -w start" >/dev/null
fi
su postgres -s /bin/sh -c "$bin/psql -h 127.0.0.1 -p $port -U postgres -tc \"SELECT 1 FROM pg_database WHERE datname='lossforensics_test'\"" | grep -q 1 \
  || su postgres -s /bin/sh -c "$bin/createdb -h 127.0.0.1 -p $port -U postgres lossforensics_test"
echo "LOSSFORENSICS_TEST_DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:$port/lossforensics_test" > "$here/pg.env"
echo "ci: PostgreSQL ready on 127.0.0.1:$port"
