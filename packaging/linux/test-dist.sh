#!/usr/bin/env bash
# Exercises the desktop package the way a user gets it: no clone, no Maven, no Java on the PATH.
# Copies the app image to a scratch folder and runs its `sovereign --version`, `init`, `actor add`,
# `lease acquire`, and `sovereign console` under Xvfb for a few seconds, and asks the console's jar where
# its Help menu's docs are; unpacks the .deb (when built) into a scratch root and checks its files, the
# /usr/bin link, the desktop entry and icon, the docs, its version (the one `--version` says), description
# and recommendations, and runs the unpacked `sovereign --version`. Run by .ci/run after `mvn -B -ntp verify`, after
# `mvn -B -ntp -Pdist package`. Usage: test-dist.sh [DIST_DIR] (default console-ui/target/dist)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dist="${1:-$root/console-ui/target/dist}"
[ -x "$dist/sovereign/bin/sovereign" ] || { echo "test-dist: no app image in $dist (build it with mvn -B -ntp -Pdist package)" >&2; exit 2; }

scratch="$(mktemp -d)"
# a failed check must not leave the console, its CLI or its X server running
cleanup() {
  for p in ${gui:-} ${cli:-}; do kill -KILL "$p" 2>/dev/null || true; done
  if [ -n "${xvfb:-}" ]; then pkill -P "$xvfb" 2>/dev/null || true; kill "$xvfb" 2>/dev/null || true; fi
  rm -rf "$scratch"
}
trap cleanup EXIT
fail() { echo "test-dist: FAIL: $*" >&2; exit 1; }
pass() { echo "test-dist: ok: $*"; }

cp -a "$dist/sovereign" "$scratch/app"
mkdir -p "$scratch/home" "$scratch/work"
# Nothing from this machine's environment: no JAVA_HOME, no java or mvn on the PATH, no clone around.
run() { (cd "$scratch/work" && env -i HOME="$scratch/home" PATH=/nonexistent "$@"); }
sovereign="$scratch/app/bin/sovereign"

version="$(run "$sovereign" --version)" || fail "--version exited $?"
echo "$version" | sed 's/^/  /'
echo "$version" | grep -Eq '^sovereign [0-9]+\.[0-9]+\.[0-9]+' || fail "--version has no release line"
echo "$version" | grep -Eq '^commit ([0-9a-f]{12}(-modified)?|unknown)$' || fail "--version has no commit line"
echo "$version" | grep -Eq '^schema sqlite v[0-9]+$' || fail "--version has no schema line"
pass "sovereign --version"
release="$(echo "$version" | sed -n 's/^sovereign \([^ ]*\).*/\1/p')"

# The console's Help menu: enabled only when it finds the docs from its own jar (issue 31: the package had none).
help="$(run "$scratch/app/lib/runtime/bin/java" -cp "$scratch/app/lib/app/sovereign-console.jar" \
  dev.sovereign.console.shell.HelpDocs)" || fail "the packaged console finds no docs for its Help menu: $help"
[ "$help" = "$scratch/app/share/doc/sovereign" ] || fail "the Help menu's docs are at $help, not in the package"
pass "the packaged console's Help menu opens the package's docs ($help)"

# The console's JVM compiles with C1 only (decision 0427), from the desktop launcher as from `sovereign console`.
grep -qx 'java-options=-XX:TieredStopAtLevel=1' "$scratch/app/lib/app/sovereign-console.cfg" \
  || fail "the console's launcher does not start its JVM with C1 only"
pass "the console's launcher starts its JVM with C1 only"

run "$sovereign" --db ledger.db init | grep -q "^Created .*ledger.db (schema version" || fail "init"
[ "$(stat -c %a "$scratch/work/ledger.db")" = 600 ] || fail "init made the database readable by others"
pass "sovereign init"
run "$sovereign" --db ledger.db actor add operator >/dev/null || fail "actor add"
lease="$(run "$sovereign" --db ledger.db --json lease acquire operator --ttl 1m)" || fail "lease acquire exited $?"
echo "$lease" | grep -q '"token":1' || fail "lease acquire did not grant token 1: $lease"
pass "sovereign lease acquire (token 1)"
status="$(run "$sovereign" --db ledger.db --json status)" || fail "status"
echo "$status" | grep -q '"last_migrated_by":{"version":"' || fail "status has no last_migrated_by: $status"
pass "sovereign status records who migrated the file"
metrics="$(run "$sovereign" --db ledger.db metrics)" || fail "metrics"
echo "$metrics" | grep -q '^sovereign_grants_total 1.0$' || fail "metrics has no grant: $metrics"
served="$(run "$(command -v timeout)" -s INT 5 "$sovereign" --db ledger.db metrics --listen 127.0.0.1:0 2>&1 || true)" # timeout says 124: it stopped the server
echo "$served" | grep -q '^Serving the ledger.s metrics at http://127.0.0.1:' || fail "metrics --listen: $served"
pass "sovereign metrics, printed and served (the runtime has jdk.httpserver)"

# A CLI call's start (decision 0321): the CLI's class-data sharing archive, made where the package lives by
# lib/make-start-archive (the .deb's postinst runs it in /opt/sovereign), mapped by the CLI's JVM together with SQLite's
# library from lib/app/native; an archive that no longer fits its jar is ignored without a word on the call's output.
[ -x "$scratch/app/lib/make-start-archive" ] || fail "no lib/make-start-archive"
[ -s "$scratch/app/lib/app/native/libsqlitejdbc.so" ] || fail "no lib/app/native/libsqlitejdbc.so"
# a shell script: it needs the system's tools (dpkg runs postinst with them), not a Java
(cd "$scratch/work" && env -i HOME="$scratch/home" PATH=/usr/bin:/bin "$scratch/app/lib/make-start-archive") \
  || fail "lib/make-start-archive exited $?"
[ -s "$scratch/app/lib/app/sovereign-cli.jsa" ] || fail "lib/make-start-archive made no archive"
ls "$scratch/app/lib/app" | grep -q partial && fail "lib/make-start-archive left a partial archive"
(cd "$scratch/work" && exec env -i HOME="$scratch/home" PATH=/nonexistent "$sovereign" --db ledger.db events --follow) \
  >"$scratch/follow.log" 2>&1 &
follow=$!
for _ in $(seq 1 40); do grep -q "LEASE_ACQUIRED" "$scratch/follow.log" 2>/dev/null && break; sleep 0.25; done
maps="$(cat "/proc/$follow/maps" 2>/dev/null || true)"
kill -INT "$follow" 2>/dev/null || true
wait "$follow" 2>/dev/null || true
echo "$maps" | grep -q "$scratch/app/lib/app/sovereign-cli.jsa" || fail "the CLI's JVM did not map lib/app/sovereign-cli.jsa"
echo "$maps" | grep -q "$scratch/app/lib/app/native/libsqlitejdbc.so" \
  || fail "the CLI's JVM did not load SQLite's library from lib/app/native"
touch "$scratch/app/lib/app/sovereign-cli.jar"
[ "$(run "$sovereign" --version 2>&1)" = "$version" ] || fail "an archive that no longer fits the jar changed --version's output"
pass "the CLI maps its start archive and SQLite's library from the package; a stale archive is ignored silently"

# The console, started by the CLI with the package's own runtime, alive under Xvfb for 8 seconds.
if command -v xvfb-run >/dev/null; then
  log="$scratch/console.log"
  # The CLI's pid: sh writes its own, then execs env, which execs the launcher (the JVM runs in it).
  (cd "$scratch/work" && exec xvfb-run -a sh -c 'echo $$ > "$4"; exec env -i DISPLAY="$DISPLAY" XAUTHORITY="$XAUTHORITY" HOME="$1" \
      PATH=/nonexistent "$2" --db "$3" console' console "$scratch/home" "$sovereign" "$scratch/work/ledger.db" \
      "$scratch/cli.pid") >"$log" 2>&1 &
  xvfb=$!
  sleep 8
  cli="$(cat "$scratch/cli.pid" 2>/dev/null || true)"
  [ -n "$cli" ] && kill -0 "$cli" 2>/dev/null || { cat "$log" >&2; fail "sovereign console ended within 8 s"; }
  # Its child must be the console: the package's runtime running the package's console jar, C1 only (decision 0427).
  gui="$(pgrep -P "$cli" || true)"
  [ -n "$gui" ] && tr '\0' ' ' < "/proc/$gui/cmdline" | grep -q "^$scratch/app/lib/runtime/bin/java -XX:TieredStopAtLevel=1 -jar $scratch/app/lib/app/sovereign-console.jar" \
    || { cat "$log" >&2; fail "the console JVM (the package's runtime, the package's jar) is not running"; }
  # SIGTERM to the CLI: its shutdown hook ends the console (by ids this script started; nothing else).
  kill -TERM "$cli"
  for _ in $(seq 1 30); do kill -0 "$gui" 2>/dev/null || break; sleep 0.5; done
  kill -0 "$gui" 2>/dev/null && { kill -KILL "$gui"; fail "the console outlived the CLI's SIGTERM"; }
  wait "$xvfb" 2>/dev/null || true
  ! grep -q "Exception" "$log" || { cat "$log" >&2; fail "the console logged an exception"; }
  pass "sovereign console ran 8 s under Xvfb"
else
  echo "test-dist: SKIPPED: sovereign console (no xvfb-run; apt-get install xvfb libgtk-3-0)"
fi

deb="$(ls "$dist"/sovereign_*_amd64.deb 2>/dev/null | head -1 || true)"
if [ -n "$deb" ]; then
  dpkg-deb -x "$deb" "$scratch/root"
  [ "$(readlink "$scratch/root/usr/bin/sovereign")" = /opt/sovereign/bin/sovereign ] || fail ".deb: /usr/bin/sovereign"
  [ -x "$scratch/root/opt/sovereign/bin/sovereign-console" ] || fail ".deb: sovereign-console"
  grep -q '^Exec=/opt/sovereign/bin/sovereign-console$' "$scratch/root/usr/share/applications/sovereign-console.desktop" \
    || fail ".deb: desktop entry"
  [ -s "$scratch/root/usr/share/icons/hicolor/256x256/apps/sovereign.png" ] || fail ".deb: icon"
  [ -s "$scratch/root/usr/share/man/man1/sovereign.1.gz" ] || fail ".deb: man page"
  [ -s "$scratch/root/usr/share/bash-completion/completions/sovereign" ] || fail ".deb: completion"
  [ -s "$scratch/root/opt/sovereign/share/doc/sovereign/console.md" ] || fail ".deb: the docs (the console's Help menu)"
  run "$scratch/root/opt/sovereign/bin/sovereign" --version | grep -q '^schema sqlite v' || fail ".deb: --version"
  # one version: the pom's, which --version says, in Debian's spelling (a pre-release's hyphen is a tilde)
  deb_version="$(dpkg-deb -f "$deb" Version)"
  [ "$deb_version" = "${release/-/\~}" ] || fail ".deb: version $deb_version, but --version says $release"
  dpkg-deb -f "$deb" Description | grep -q "PostgreSQL" || fail ".deb: the description does not say PostgreSQL"
  ! dpkg-deb -f "$deb" Description | grep -qi "single SQLite" || fail ".deb: the description says a single SQLite file"
  dpkg-deb -f "$deb" Recommends | grep -q "bash-completion" || fail ".deb: bash-completion is not recommended"
  dpkg-deb -e "$deb" "$scratch/control"
  sh -n "$scratch/control/postinst" && sh -n "$scratch/control/prerm" || fail ".deb: postinst or prerm is not a valid script"
  grep -q 'timeout 120 /opt/sovereign/lib/make-start-archive' "$scratch/control/postinst" \
    && grep -q 'configure | abort-\*)' "$scratch/control/postinst" || fail ".deb: postinst makes no start archive"
  grep -q 'rm -f /opt/sovereign/lib/app/sovereign-cli.jsa' "$scratch/control/prerm" || fail ".deb: prerm leaves the start archive"
  pass ".deb $(basename "$deb") (version $deb_version): files, PATH link, desktop entry, icon, man page, completion, docs, description, recommends, --version, start archive made and removed"
else
  echo "test-dist: no .deb built (no dpkg-deb/fakeroot): app image only"
fi
echo "test-dist: all checks passed"
