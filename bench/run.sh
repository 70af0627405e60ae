#!/usr/bin/env bash
# Runs every benchmark once and writes docs/benchmarks.md (about 15 minutes on 2 cores).
#   bench/run.sh            the full run, for the report
#   bench/run.sh --quick    a short smoke run, written to engine/it/target/benchmarks-quick.md
# Extra arguments go to Maven, e.g. -Dbench.include='Floor.*|Lease.*' to run only some benchmarks.
# Measure on a quiet machine: the report records the load average before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
for a in "$@"; do
  if [[ "$a" == "--quick" ]]; then
    args+=("-Dbench.quick=true" "-Dbench.report=$(pwd)/engine/it/target/benchmarks-quick.md")
  else
    args+=("$a")
  fi
done
exec mvn -B -ntp -pl engine/it -am -Pbench verify "${args[@]}"
