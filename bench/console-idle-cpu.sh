#!/usr/bin/env bash
# The console's idle CPU as an operator would measure it (issue 31 item 21): the real window under Xvfb, attached to
# a ledger with some life in it, left alone; the console's JVM's CPU time read from /proc (what ps shows as TIME) at
# the start and the end of a quiet stretch, as a share of one core. The in-process benchmark (IdleCpuBenchmark)
# counts only the console's own threads; this counts the whole process: the JIT, the collector, the toolkit.
#
#   bench/console-idle-cpu.sh [SECONDS] [SIZE]      e.g. bench/console-idle-cpu.sh 180 1440x900
#   DEMO=1 bench/console-idle-cpu.sh 180            the live demo instead (five worker processes writing; the
#                                                   console redraws every second): the console's own share
#   JAVA_TOOL_OPTIONS=... reaches the console's JVM (and the CLI's that starts it)
#
# Run it on a quiet machine (nothing else building): the result is printed and appended to
# target/console-idle-cpu.txt. Needs xvfb-run (Debian: xvfb, libgtk-3-0).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-180}"
size="${2:-1440x900}"
settle="${SETTLE_SECONDS:-30}"
work="$(mktemp -d)"
xvfb_pid=""
pid=""
trap 'kill $pid $xvfb_pid 2>/dev/null || true; rm -rf "$work"' EXIT
db="$work/idle.db"
sov() { "$root/sovereign" --db "$db" "$@" >/dev/null; }

# a ledger with some life: actors, leases held for an hour by two CLI identities, a finished and a failed run,
# messages, and one refused write
sov init
for a in billing search mailer reports; do sov actor add "$a"; done
sov --process proc_idle_alice lease acquire billing --ttl 1h
sov --process proc_idle_bob lease acquire search --ttl 1h
sov --process proc_idle_bob lease acquire billing --ttl 1h 2>/dev/null || true # one refused write
sov assign reports --provider scripted:outcome=completed
sov send --from ops --to mailer --subject hello --body world

mode=idle
if [ "${DEMO:-0}" = 1 ]; then
  mode=demo
  # the demo's own data folder, so its files go with this run's
  export XDG_DATA_HOME="$work/data"
  xvfb-run -a -s "-screen 0 ${size}x24" "$root/sovereign" console >"$work/console.log" 2>&1 &
  pattern="sovereign-console-[^ ]*-app[.]jar\$"
else
  xvfb-run -a -s "-screen 0 ${size}x24" "$root/sovereign" console --db "$db" >"$work/console.log" 2>&1 &
  pattern="sovereign-console-[^ ]*-app[.]jar .*$db"
fi
xvfb_pid=$!
for _ in $(seq 1 120); do
  pid="$(pgrep -f -- "-jar [^ ]*$pattern" | head -1 || true)" # the console, not the CLI that started it
  [ -n "$pid" ] && break
  sleep 0.5
done
[ -n "$pid" ] || { echo "the console did not start; its output:" >&2; cat "$work/console.log" >&2; exit 1; }
sleep "$settle" # first layout, styling and the JIT's first pass are not idle costs
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz="$(getconf CLK_TCK)"
t0="$(ticks "$pid")"
ps -o pid=,time=,rss= -p "$pid" | sed 's/^/start: /'
sleep "$seconds"
t1="$(ticks "$pid")"
ps -o pid=,time=,rss= -p "$pid" | sed 's/^/end:   /'
rss_kb="$(ps -o rss= -p "$pid" | tr -d ' ')"
share="$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s="$seconds" 'BEGIN {printf "%.2f", 100 * (b - a) / hz / s}')"
line="$(date -u +%Y-%m-%dT%H:%MZ) ${size} ${mode}${JAVA_TOOL_OPTIONS:+ ($JAVA_TOOL_OPTIONS)} ${seconds}s after ${settle}s: ${share} % of one core, RSS $((rss_kb / 1024)) MB, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$line"
mkdir -p "$root/target"
echo "$line" >>"$root/target/console-idle-cpu.txt"
