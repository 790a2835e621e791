#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster on loopback for the store tests, from Debian's packages, and exports the
# ALLOT_TEST_POSTGRES_* variables the tests read. Source it (it defines start_test_postgres and stop_test_postgres);
# initdb and the server run as the postgres user, as PostgreSQL requires.
#   ALLOT_TEST_POSTGRES_PORT  port to listen on (default 55432)

start_test_postgres() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    if [ -z "$bin" ]; then
        echo "postgres.sh: no PostgreSQL under /usr/lib/postgresql (apt-get install postgresql)" >&2
        return 1
    fi
    local port=${ALLOT_TEST_POSTGRES_PORT:-55432}
    ALLOT_TEST_PGDATA=$(mktemp -d /tmp/allot-pg.XXXXXX)
    chown postgres:postgres "$ALLOT_TEST_PGDATA"
    runuser -u postgres -- "$bin/initdb" -D "$ALLOT_TEST_PGDATA/data" -A trust -U postgres -E UTF8 >/dev/null
    runuser -u postgres -- "$bin/pg_ctl" -D "$ALLOT_TEST_PGDATA/data" -l "$ALLOT_TEST_PGDATA/server.log" -w \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $ALLOT_TEST_PGDATA -c fsync=on" start >/dev/null
    runuser -u postgres -- psql -h 127.0.0.1 -p "$port" -U postgres -q -v ON_ERROR_STOP=1 \
        -c "CREATE USER allot PASSWORD 'allot'" -c "CREATE DATABASE allot_test OWNER allot" >/dev/null
    export ALLOT_TEST_POSTGRES_URL="jdbc:postgresql://127.0.0.1:$port/allot_test"
    export ALLOT_TEST_POSTGRES_USER=allot
    export ALLOT_TEST_POSTGRES_PASSWORD=allot
    export ALLOT_TEST_PGDATA
    echo "postgres.sh: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($ALLOT_TEST_POSTGRES_URL)"
}

stop_test_postgres() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    if [ -n "${ALLOT_TEST_PGDATA:-}" ] && [ -d "$ALLOT_TEST_PGDATA/data" ]; then
        runuser -u postgres -- "$bin/pg_ctl" -D "$ALLOT_TEST_PGDATA/data" -m fast -w stop >/dev/null || true
        rm -rf "$ALLOT_TEST_PGDATA"
    fi
}
