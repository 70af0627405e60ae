#!/usr/bin/env bash
# Is the release what a public Maven repository accepts (decision 0017)? Builds it the way a publisher would,
#   mvn -B -ntp -Prelease -Dmaven.test.skip=true deploy
# into target/release-repo (a plain directory repository), then checks every published module there: its jar, its
# -sources.jar and -javadoc.jar, its pom with a description of its own and, itself or through its parents, the
# license, SCM and developers; the sources hold the module's .java files and module-info.java, the javadoc an
# index.html, the jar a module-info.class naming the JPMS module listed below and no Automatic-Module-Name.
# Nothing that is not listed may be published (the test modules and the console are not).
#
#   packaging/check-release.sh               build, deploy into target/release-repo (emptied first), check
#   packaging/check-release.sh --repo DIR    only check DIR, a repository deployed before
#
# Exits 0 when all is there; otherwise prints one sentence naming the missing piece and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

# artifactId and JPMS module name of every published jar. A new library module adds one line here.
published=(
  "sovereign-engine-core dev.sovereign.engine"
  "sovereign-engine-jdbc dev.sovereign.engine.jdbc"
  "sovereign-engine-sqlite dev.sovereign.engine.sqlite"
  "sovereign-engine-postgres dev.sovereign.engine.postgres"
  "sovereign-lab dev.sovereign.engine.lab"
  "sovereign-picocli info.picocli"
  "sovereign-cli dev.sovereign.engine.cli"
  "sovereign-shedlock dev.sovereign.shedlock"
)
# Published as poms only: the parents a published pom names.
parents=(sovereign-parent sovereign-engine-parent)
# Built, never published.
unpublished=(sovereign-engine-it sovereign-engine-postgres-it sovereign-console)

fail() {
  echo "check-release: $*" >&2
  exit 1
}

repo=target/release-repo
if [ "${1:-}" = "--repo" ]; then
  [ $# -eq 2 ] || fail "--repo needs the directory of a deployed repository."
  repo=$2
else
  [ $# -eq 0 ] || fail "unknown argument '$1' (the only option is --repo DIR)."
  rm -rf "$repo"
  # The javadoc plugin skips a module whose stale-data file it thinks current, and then a broken {@link} passes here
  # and fails in a clean clone (it did: a link to a class of another module). Every run generates the javadoc anew.
  find . -path '*/target/maven-javadoc-plugin-stale-data.txt' -delete
  mvn -B -ntp -Prelease -Dmaven.test.skip=true deploy
fi
[ -d "$repo" ] || fail "there is no repository at $repo."

version=$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' pom.xml | head -1)
group_dir="$repo/dev/sovereign"

# The newest deployment of an artifact: its pom's path without .pom (a SNAPSHOT is deployed with a time stamp).
base_of() {
  local dir="$group_dir/$1/$version" pom
  [ -d "$dir" ] || fail "$1 $version was not published (no $dir)."
  pom=$(find "$dir" -maxdepth 1 -name "$1-*.pom" | sort | tail -1)
  [ -n "$pom" ] || fail "$1 $version has no pom in $dir."
  echo "${pom%.pom}"
}

# The text of one element of a pom, searched in the pom and then up its parents in the repository (what a
# repository's checker reads is the pom with everything it inherits).
inherited() {
  local pom=$1 element=$2 parent
  while :; do
    grep -q "<$element[ >]" "$pom" && return 0
    parent=$(sed -n '/<parent>/,/<\/parent>/s:.*<artifactId>\(.*\)</artifactId>.*:\1:p' "$pom")
    [ -n "$parent" ] || return 1
    pom=$(base_of "$parent") || exit 1
    pom+=.pom
  done
}

entries() { unzip -Z1 "$1"; }

checked=0
for entry in "${published[@]}"; do
  read -r artifact module <<<"$entry"
  base=$(base_of "$artifact")
  for suffix in .jar -sources.jar -javadoc.jar .pom; do
    [ -s "$base$suffix" ] || fail "$artifact has no $(basename "$base$suffix") in the repository."
  done
  pom="$base.pom"
  grep -q "<description>" "$pom" || fail "$artifact's pom has no description of its own (it would show the parent's)."
  for element in licenses scm developers url; do
    inherited "$pom" "$element" || fail "$artifact's pom has no <$element>, neither itself nor through its parents."
  done
  sources=$(entries "$base-sources.jar")
  grep -q '^module-info\.java$' <<<"$sources" || fail "$artifact's sources jar has no module-info.java."
  [ "$(grep -c '\.java$' <<<"$sources")" -gt 1 ] || fail "$artifact's sources jar has no .java files besides module-info.java."
  grep -q '^index\.html$' <<<"$(entries "$base-javadoc.jar")" || fail "$artifact's javadoc jar has no index.html."
  grep -q '^module-info\.class$' <<<"$(entries "$base.jar")" || fail "$artifact's jar has no module-info.class."
  if unzip -p "$base.jar" META-INF/MANIFEST.MF | grep -qi '^Automatic-Module-Name:'; then
    fail "$artifact's manifest names an Automatic-Module-Name next to its module-info.class."
  fi
  named=$(jar --describe-module --file "$base.jar" | head -1 | sed 's/[@ ].*//')
  [ "$named" = "$module" ] || fail "$artifact's jar is module '$named', not '$module' as docs/embedding.md says."
  checked=$((checked + 1))
done

for artifact in "${parents[@]}"; do
  base=$(base_of "$artifact")
  for element in description licenses scm developers; do
    inherited "$base.pom" "$element" || fail "the parent pom $artifact has no <$element>."
  done
done

for artifact in "${unpublished[@]}"; do
  [ ! -e "$group_dir/$artifact" ] || fail "$artifact is published, but it is a test or desktop module (maven.deploy.skip)."
done

known=" ${parents[*]} ${unpublished[*]} "
for entry in "${published[@]}"; do known+="${entry%% *} "; done
for dir in "$group_dir"/*/; do
  artifact=$(basename "$dir")
  case "$known" in
    *" $artifact "*) ;;
    *) fail "$artifact is published but not checked: add it to the lists in packaging/check-release.sh." ;;
  esac
done

# The jars work as JPMS modules: a one-class application that requires only dev.sovereign.engine opens a SQLite
# file, takes a lease and gives it back on the module path, the SQLite backend bound as a service provider.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/mp" "$work/src/com/example" "$work/out"
for artifact in sovereign-engine-core sovereign-engine-jdbc sovereign-engine-sqlite; do
  cp "$(base_of "$artifact").jar" "$work/mp/$artifact.jar"
done
sqlite_jdbc=$(sed -n 's:.*<sqlite-jdbc.version>\(.*\)</sqlite-jdbc.version>.*:\1:p' pom.xml)
mvn -B -ntp -q dependency:copy -Dartifact="org.xerial:sqlite-jdbc:$sqlite_jdbc" -DoutputDirectory="$work/mp" \
  || fail "could not copy sqlite-jdbc $sqlite_jdbc for the module-path check."
cat >"$work/src/module-info.java" <<'JAVA'
module com.example.agent {
    requires dev.sovereign.engine;
}
JAVA
cat >"$work/src/com/example/Agent.java" <<'JAVA'
package com.example;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import java.nio.file.Path;
import java.time.Duration;

public class Agent {
    public static void main(String[] args) {
        try (Engine engine = Engine.open(EngineConfig.forDatabase(Path.of(args[0])).build())) {
            engine.actors().add("reporter");
            var lease = engine.leases().acquire("reporter", Duration.ofSeconds(30));
            System.out.println("module path: token " + lease.token() + ", released "
                    + engine.leases().release("reporter", lease.token()));
        }
    }
}
JAVA
javac -d "$work/out" --module-path "$work/mp" "$work/src/module-info.java" "$work/src/com/example/Agent.java" \
  || fail "an application module requiring dev.sovereign.engine does not compile against the published jars."
said=$(java --module-path "$work/mp:$work/out" -m com.example.agent/com.example.Agent "$work/ledger.db" 2>&1) \
  || fail "the published jars do not run on the module path: ${said%%$'\n'*}"
[ "$said" = "module path: token 1, released true" ] || fail "on the module path the lease example said '$said'."

echo "check-release: $checked modules published with sources, javadoc, module-info and the pom metadata in $repo."
