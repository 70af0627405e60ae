#!/usr/bin/env bash
# Runs every benchmark once and writes docs/benchmarks.md (about 20 minutes on 2 cores, PostgreSQL included).
#   bench/run.sh            the full run, for the report
#   bench/run.sh --quick    a short smoke run, written to engine/it/target/benchmarks-quick.md
#   bench/run.sh --pg       only the PostgreSQL benchmarks (= -Dbench.include='Pg.*'): starts one durable
#                           embedded PostgreSQL 16 and replaces only the "PostgreSQL" section of the report,
#                           keeping every SQLite figure in it as it was (decision 0504)
#   bench/run.sh -Dbench.include=Concurrency
#                           only 1 and 16 threads of one JVM, engine vs ShedLock (about 4 minutes): replaces only
#                           the "Concurrency in one JVM" section of the report (decision 0505)
# Extra arguments go to Maven, e.g. -Dbench.include='Floor.*|Lease.*' to run only some benchmarks.
# A full run (no --quick, --pg or bench.include) first measures the CLI's start (bench/cli-start.sh 20, which builds
# the launcher's jar and archive if needed and writes docs/benchmarks-cli.md); the report's targets read it.
# Measure on a quiet machine: the report records the load average before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
full=1
for a in "$@"; do
  case "$a" in --quick|--pg|-Dbench.include=*) full=0 ;; esac
  if [[ "$a" == "--pg" ]]; then
    args+=("-Dbench.include=Pg.*")
  elif [[ "$a" == "--quick" ]]; then
    args+=("-Dbench.quick=true" "-Dbench.report=$(pwd)/engine/it/target/benchmarks-quick.md")
  else
    args+=("$a")
  fi
done
if [[ "$full" == 1 ]]; then
  bench/cli-start.sh 20
fi
# -DskipTests: the modules built on the way (-am) need not run their test suites to be measured
exec mvn -B -ntp -pl engine/it -am -Pbench verify -DskipTests "${args[@]}"
