#!/usr/bin/env bash
# Server CPU per lease acquire + release cycle on PostgreSQL, measured INSIDE the server (decision 0910):
# no client, no network, no disk wait in the figure, so it can be compared between schema variants even on a
# busy machine (compare figures of one sitting only: CPU time per operation grows with the load too).
#
#   bench/pg-server-cpu.sh 'host=localhost port=5497 user=postgres dbname=w0' [cycles] [actor] [process]
#
# The database must be a Sovereign ledger (schema version 5 or later) on a server running on THIS machine (the
# backend's CPU time is read from /proc/<pid>/schedstat), with the actor and the process registered and the
# actor free. Each cycle is the engine's two transactions: sovereign_lease_grant(...), COMMIT,
# sovereign_lease_release(...), COMMIT, run in a DO block; synchronous_commit is off for this session only, so
# the WAL flush is not waited for (the probe measures work, not the disk). It writes real leases and journal
# rows: use a scratch copy (CREATE DATABASE scratch TEMPLATE ledger), never a ledger in use. With
# track_functions = 'all' on the server, pg_stat_user_functions then shows each trigger's and function's share.
set -euo pipefail
conn=${1:?connection string}; cycles=${2:-3000}; actor=${3:-a1}; process=${4:-proc_bench}
psql "$conn" -q -At -v ON_ERROR_STOP=1 <<SQL
SET synchronous_commit = off;
SELECT pg_backend_pid() AS pid \gset
\setenv PID :pid
\! awk '{print \$1}' /proc/\$PID/schedstat > /tmp/pg-server-cpu.\$PID
DO \$\$ DECLARE t bigint; BEGIN FOR i IN 1..$cycles LOOP
    SELECT token INTO t FROM sovereign_lease_grant('$actor', '$process', 30000); COMMIT;
    PERFORM sovereign_lease_release('$actor', '$process', t); COMMIT;
END LOOP; END \$\$;
\! awk -v n=$cycles 'NR==FNR{b=\$1;next}{printf "%.1f us of server CPU per acquire + release cycle (%d cycles)\n", (\$1-b)/1000/n, n}' /tmp/pg-server-cpu.\$PID /proc/\$PID/schedstat; rm -f /tmp/pg-server-cpu.\$PID
SQL
