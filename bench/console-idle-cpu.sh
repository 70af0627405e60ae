#!/usr/bin/env bash
# The console's idle CPU as an operator would measure it (issue 31 item 21): the real window under Xvfb, attached to
# a ledger with some life in it, left alone; the console's JVM's CPU time read from /proc (what ps shows as TIME) at
# the start and the end of a quiet stretch, as a share of one core. The in-process benchmark (IdleCpuBenchmark)
# counts only the console's own threads; this counts the whole process: the JIT, the collector, the toolkit.
#
#   bench/console-idle-cpu.sh [SECONDS] [SIZE]      e.g. bench/console-idle-cpu.sh 180 1440x900
#   DEMO=1 bench/console-idle-cpu.sh 180            the live demo instead (five worker processes writing; the
#                                                   console redraws every second): the console's own share
#   ACTION=1 bench/console-idle-cpu.sh 180            idle after one operator action: F6 ("Run a tick now") pressed in
#                                                   the window after the settle, then 10 s, then the measurement
#   JAVA_TOOL_OPTIONS=... reaches the console's JVM (and the CLI's that starts it)
#
# Beside the console, over the same stretch and in a display of its own, it measures the toolkit's floor: an empty
# JavaFX window of the console's size (bench/FxFloor.java) on the console's JVM options; the line gives both and the
# console's share above the floor.
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
floor_pid=""
floor_xvfb=""
# xvfb-run leaves its X server behind when it is killed: its children go first
trap 'for p in $xvfb_pid $floor_xvfb; do pkill -P "$p" 2>/dev/null; done; kill $pid $xvfb_pid $floor_pid $floor_xvfb 2>/dev/null || true; rm -rf "$work"' EXIT
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
# the floor, started now so it settles as long as the console
console_jar="$(ls "$root"/console-ui/target/sovereign-console-*-app.jar | head -1)"
xvfb-run -a -s "-screen 0 ${size}x24" java -XX:TieredStopAtLevel=1 -cp "$console_jar" "$root/bench/FxFloor.java" \
  >"$work/floor.log" 2>&1 &
floor_xvfb=$!
sleep "$settle" # first layout, styling and the JIT's first pass are not idle costs
for p in $(pgrep -f -- "bench/FxFloor[.]java" || true); do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = java ] && floor_pid=$p; done
[ -n "$floor_pid" ] || { echo "the floor window did not start; its output:" >&2; cat "$work/floor.log" >&2; exit 1; }
if [ "${ACTION:-0}" = 1 ]; then
  mode="$mode after one action (F6, a supervisor tick)"
  env_of() { tr '\0' '\n' <"/proc/$pid/environ" | sed -n "s/^$1=//p"; }
  DISPLAY="$(env_of DISPLAY)" XAUTHORITY="$(env_of XAUTHORITY)" java "$root/bench/ConsoleKey.java" F6
  sleep 10
  ticks_written="$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from supervisor_ticks').fetchone()[0])" "$db")"
  [ "$ticks_written" -ge 1 ] || { echo "the action did not happen: no supervisor tick in the ledger" >&2; exit 1; }
fi
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz="$(getconf CLK_TCK)"
t0="$(ticks "$pid")"
f0="$(ticks "$floor_pid")"
ps -o pid=,time=,rss= -p "$pid" | sed 's/^/start: /'
sleep "$seconds"
t1="$(ticks "$pid")"
f1="$(ticks "$floor_pid")"
ps -o pid=,time=,rss= -p "$pid" | sed 's/^/end:   /'
rss_kb="$(ps -o rss= -p "$pid" | tr -d ' ')"
share="$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s="$seconds" 'BEGIN {printf "%.2f", 100 * (b - a) / hz / s}')"
floor="$(awk -v a="$f0" -v b="$f1" -v hz="$hz" -v s="$seconds" 'BEGIN {printf "%.2f", 100 * (b - a) / hz / s}')"
above="$(awk -v c="$share" -v f="$floor" 'BEGIN {printf "%.2f", c - f}')"
line="$(date -u +%Y-%m-%dT%H:%MZ) ${size} ${mode}${JAVA_TOOL_OPTIONS:+ ($JAVA_TOOL_OPTIONS)} ${seconds}s after ${settle}s: ${share} % of one core (toolkit floor ${floor} %, console above it ${above} %), RSS $((rss_kb / 1024)) MB, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$line"
mkdir -p "$root/target"
echo "$line" >>"$root/target/console-idle-cpu.txt"
