#!/bin/sh
# Entrypoint of the postgres:16 stand-in (scripts/compose-standins): what
# docker-compose.yml needs of the official image's entrypoint. On an empty
# PGDATA it creates the cluster with POSTGRES_USER as superuser (password
# POSTGRES_PASSWORD, scram-sha-256 over TCP, trust on the local socket)
# and the database POSTGRES_DB, then runs postgres listening on every
# interface of the container. The password never reaches a log.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"

if [ "${1:-}" != postgres ]; then
	exec "$@"
fi
shift

if [ "$(id -u)" = 0 ]; then
	install -d -o postgres -g postgres -m 700 "$PGDATA"
	install -d -o postgres -g postgres -m 2775 /var/run/postgresql
	exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" postgres "$@"
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
	if [ -z "${POSTGRES_PASSWORD:-}" ]; then
		echo "postgres stand-in: POSTGRES_PASSWORD is empty; like the official image, refusing to start" >&2
		exit 1
	fi
	user=${POSTGRES_USER:-postgres}
	db=${POSTGRES_DB:-$user}
	pwfile=$(mktemp)
	printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
	initdb -D "$PGDATA" --username="$user" --pwfile="$pwfile" \
		--auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
	rm -f "$pwfile"
	printf 'host all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
	if [ "$db" != postgres ]; then
		printf 'CREATE DATABASE "%s";\n' "$db" | postgres --single -j -D "$PGDATA" postgres >/dev/null
	fi
	echo "postgres stand-in: created the cluster ($(postgres --version)), user $user, database $db"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
