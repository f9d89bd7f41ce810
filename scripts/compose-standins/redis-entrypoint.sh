#!/bin/sh
# Entrypoint of the redis:7 stand-in (scripts/compose-standins): the
# official image's rules. Arguments that start with "-" or name a .conf
# file are redis-server's; redis-server runs as the redis user (owning
# /data), and without a configuration file with protected mode off, so
# the other containers of the network can connect (the official image
# does the same: a container's network is its protection).
set -eu

case ${1:-} in
-* | *.conf) set -- redis-server "$@" ;;
esac

if [ "${1:-}" = redis-server ] && [ "$(id -u)" = 0 ]; then
	find . \! -user redis -exec chown redis '{}' +
	exec setpriv --reuid=redis --regid=redis --init-groups "$0" "$@"
fi

if [ "${1:-}" = redis-server ]; then
	shift
	if [ -f "${1:-}" ]; then
		conf=$1
		shift
		if grep -q '^protected-mode' "$conf"; then
			exec redis-server "$conf" "$@"
		fi
		exec redis-server "$conf" --protected-mode no "$@"
	fi
	exec redis-server --protected-mode no "$@"
fi
exec "$@"
