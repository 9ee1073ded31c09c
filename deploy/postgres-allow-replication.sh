#!/bin/sh
# Lets a streaming replica on the compose network (docker-compose.yml, profile `scale`)
# connect for replication with a password. The postgres image runs it once, when it makes a
# fresh database (/docker-entrypoint-initdb.d). On an existing volume run it by hand, then
# reload: docker compose exec -u postgres postgres sh /docker-entrypoint-initdb.d/allow-replication.sh
#         docker compose exec postgres psql -U linkpilot -c 'SELECT pg_reload_conf()'
set -e
line='host replication all all scram-sha-256'
grep -qxF "$line" "$PGDATA/pg_hba.conf" || echo "$line" >> "$PGDATA/pg_hba.conf"
