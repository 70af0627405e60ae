#!/usr/bin/env bash
# A CLI call's wall time as an agent scripting the CLI pays it (issue 28): `sovereign lease list` (a read) and
# `sovereign lease acquire` (a write: a process registered, a lease granted and journalled, the process stopped),
# each run ROUNDS times through the launcher, on a ledger file, interleaved with two references in the same rounds:
#   floor      an empty Java program (bench/Hello.java, compiled here) on the launcher's JVM options: the least a
#              Java command can take on this machine
#   plain jar  `java -jar` on the same CLI jar with none of the launcher's start options (no CDS archive, C2,
#              SQLite's library extracted per call): what the start options buy
# Prints medians and 90th percentiles and each median's ratio to the floor's, and writes them with the machine and
# its load to docs/benchmarks-cli.md. Run it on a quiet machine.
#   bench/cli-start.sh [ROUNDS]          default 20
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${1:-20}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
db="$work/bench.db"
report="$root/docs/benchmarks-cli.md"

# Builds on first use and makes the start archive, so neither is measured.
"$root/sovereign" --version >/dev/null
"$root/sovereign" --db "$db" init >/dev/null
for i in $(seq 1 "$rounds"); do "$root/sovereign" --db "$db" actor add "a$i" >/dev/null; done
cli_jar="$(ls "$root"/engine/cli/target/sovereign-cli-*-cli.jar | head -1)"
mkdir -p "$work/hello"
javac -d "$work/hello" "$root/bench/Hello.java"
floor_opts=(-XX:TieredStopAtLevel=1 -Xshare:auto)
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
declare -a floor reads writes plain
for i in $(seq 1 "$rounds"); do
  t=$(date +%s%N); java "${floor_opts[@]}" -cp "$work/hello" Hello >/dev/null; floor+=("$(ms "$t")")
  t=$(date +%s%N); "$root/sovereign" --db "$db" lease list >/dev/null; reads+=("$(ms "$t")")
  t=$(date +%s%N); "$root/sovereign" --db "$db" lease acquire "a$i" --ttl 1h >/dev/null; writes+=("$(ms "$t")")
  t=$(date +%s%N); java -jar "$cli_jar" --db "$db" lease list >/dev/null; plain+=("$(ms "$t")")
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

# median and 90th percentile of the arguments, in ms
stats() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; p=v[int(NR*0.9+0.999)]; print m, p}'; }
read -r floor_m floor_p <<<"$(stats "${floor[@]}")"
line() { read -r m p <<<"$(stats "${@:2}")"; printf '| %s | %s | %s | %.2f× |\n' "$1" "$m" "$p" "$(echo "$m / $floor_m" | bc -l)"; }
table="$(
  echo "| call | median ms | p90 ms | median / floor |"
  echo "|---|---:|---:|---:|"
  line "floor: an empty Java program" "${floor[@]}"
  line "\`sovereign lease list\` (read)" "${reads[@]}"
  line "\`sovereign lease acquire\` (write)" "${writes[@]}"
  line "\`java -jar\` the same jar, \`lease list\`" "${plain[@]}"
)"
echo "$table"
read -r read_m _ <<<"$(stats "${reads[@]}")"
read -r write_m _ <<<"$(stats "${writes[@]}")"
verdict() { if [ "$(echo "$1 <= 350" | bc)" = 1 ]; then echo "met ($1 ms)"; else echo "missed ($1 ms)"; fi; }
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
cat > "$report" <<REPORT
# Benchmarks: a CLI call's start

Written by \`bench/cli-start.sh\` on $(date -u +%Y-%m-%d) (commit $(git -C "$root" rev-parse --short HEAD)): $rounds rounds, each
running the four calls below once, in this order, through the launcher \`./sovereign\` on a SQLite ledger file.
Wall time from the shell's point of view, the launcher's own bash included. The target (issue 28): a read and a write
each within 350 ms, median of 20. How the start got there, and where the rest of a call's time goes: [decision
0321](decisions/0321-how-a-cli-call-starts.md).

Machine: $cpu, $(nproc) cores, $(java -version 2>&1 | head -1); load average before $load_before, after $load_after.

$table

The target, each median within 350 ms: the read $(verdict "$read_m"), the write $(verdict "$write_m").

The floor is an empty Java program on the launcher's JVM options (C1 only, the JDK's own
class-data sharing archive): what any Java command pays on this machine before it does anything. The plain-jar line
is the same CLI jar started as \`java -jar\` with none of the launcher's options: no archive of the CLI's classes, both
compilers, and SQLite's native library extracted to a temporary file by every call.
REPORT
echo "written: $report"
