#!/usr/bin/env bash
# Builds the Linux desktop package with JDK 17's jlink + jpackage (run by `mvn -B -ntp -Pdist package`,
# profile "dist" in console-ui/pom.xml; not part of `verify`):
#   OUT/sovereign/                      the app image: bin/sovereign (the CLI), bin/sovereign-console,
#                                        lib/app/ (both jars), lib/runtime/ (its own Java; bin/java kept,
#                                        because the console and the lab start worker JVMs),
#                                        share/applications/sovereign-console.desktop, share/icons/...,
#                                        share/doc/sovereign/ (the repository's docs/: the console's Help menu
#                                        opens them, HelpDocs.PACKAGED)
#   OUT/sovereign_DEBVERSION_amd64.deb  when dpkg-deb and fakeroot are there: installs to /opt/sovereign,
#                                        the desktop entry and icon, and /usr/bin/sovereign.
# One version, the pom's (what `sovereign --version` says): the .deb carries it in Debian's spelling, a pre-release's
# hyphen as a tilde (0.1.0-SNAPSHOT -> 0.1.0~SNAPSHOT, which sorts before the release 0.1.0, so the release upgrades
# it); jpackage's own app version must be numbers only (0.1.0), and is seen nowhere but its launcher's settings.
# Usage: build-dist.sh VERSION CLI_JAR CONSOLE_JAR OUT_DIR
set -euo pipefail
version="$1"; cli_jar="$2"; console_jar="$3"; out="$4"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
for tool in jlink jpackage; do
  [ -x "$java_home/bin/$tool" ] || { echo "build-dist: $java_home/bin/$tool is missing (a full JDK 17 is needed)" >&2; exit 2; }
done
[ -d "$java_home/jmods" ] || { echo "build-dist: $java_home/jmods is missing (Debian: apt-get install openjdk-17-jmods)" >&2; exit 2; }
# jpackage wants a plain version: 0.1.0-SNAPSHOT -> 0.1.0
app_version="${version%%-*}"
# Debian's spelling of the same version: the first hyphen (a pre-release) becomes a tilde
deb_version="${version/-/\~}"
description="Lease fencing on a SQLite file or a PostgreSQL server: CLI and desktop console"
docs="$here/../../docs"
[ -s "$docs/console.md" ] || { echo "build-dist: $docs/console.md is missing (the console's Help menu opens the docs)" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out/input" "$out/work"
cp "$cli_jar" "$out/input/sovereign-cli.jar"
cp "$console_jar" "$out/input/sovereign-console.jar"
# SQLite's native library for the package's platform, loaded from lib/app/native rather than extracted to a temporary
# file by every call (decision 0321); unpacked by engine/cli's build.
native="$(dirname "$cli_jar")/native/org/sqlite/native/Linux/x86_64/libsqlitejdbc.so"
[ -s "$native" ] || { echo "build-dist: $native is missing; build engine/cli first" >&2; exit 2; }
mkdir -p "$out/input/native"
cp "$native" "$out/input/native/"

echo "build-dist: jlink runtime"
# java.se + jdk.unsupported (JavaFX, sun.misc.Signal) + jdk.zipfs + jdk.httpserver (sovereign metrics --listen);
# no --strip-native-commands: the CLI starts the console, and the console's demo and lab start workers, with this
# runtime's bin/java.
# --generate-cds-archive: the runtime's own class-data sharing archive, which every start maps (and which the CLI's
# archive, lib/app/sovereign-cli.jsa, is made on top of).
"$java_home/bin/jlink" --add-modules java.se,jdk.unsupported,jdk.zipfs,jdk.crypto.ec,jdk.localedata,jdk.httpserver \
  --strip-debug --no-header-files --no-man-pages --compress=2 --generate-cds-archive --output "$out/work/runtime"

cat > "$out/work/sovereign-console.properties" <<PROPS
main-jar=sovereign-console.jar
main-class=dev.sovereign.console.Launcher
java-options=-XX:TieredStopAtLevel=1 -Dorg.sqlite.lib.path=\$APPDIR/native
description=Sovereign console: leases, fencing tokens and rejections, live
icon=$here/sovereign.png
PROPS

# The CLI's JVM options: a CLI call's start as the repository's launcher makes it (decision 0321): C1 only (no
# collector: one named in JAVA_TOOL_OPTIONS would stop the JVM), SQLite's library from lib/app/native, and the CLI's
# class-data sharing archive, which is made
# where the package is installed (lib/make-start-archive, run by the .deb's postinst); where it is missing or does not
# fit, the JVM starts without it and says nothing.
common=(--name sovereign --app-version "$app_version" --vendor "Sovereign"
  --description "$description"
  --input "$out/input" --main-jar sovereign-cli.jar --main-class dev.sovereign.engine.cli.Main
  --java-options '-Dsovereign.console.jar=$APPDIR/sovereign-console.jar'
  --java-options '-XX:TieredStopAtLevel=1' --java-options '-Xshare:auto'
  --java-options '-Xlog:cds=off' --java-options '-Xlog:cds+dynamic=off'
  --java-options '-Dorg.sqlite.lib.path=$APPDIR/native' --java-options '-XX:SharedArchiveFile=$APPDIR/sovereign-cli.jsa'
  --runtime-image "$out/work/runtime" --icon "$here/sovereign.png"
  --add-launcher "sovereign-console=$out/work/sovereign-console.properties")

echo "build-dist: app image"
"$java_home/bin/jpackage" --type app-image --dest "$out" "${common[@]}"
# The launchers look for ../lib/app/<name>.cfg; the desktop entry and icon ride along for a tarball install.
mkdir -p "$out/sovereign/share/applications" "$out/sovereign/share/icons/hicolor/256x256/apps" "$out/sovereign/share/man/man1" \
  "$out/sovereign/share/bash-completion/completions"
cp "$here/sovereign.png" "$out/sovereign/share/icons/hicolor/256x256/apps/sovereign.png"
install -m 755 "$here/make-start-archive" "$out/sovereign/lib/make-start-archive"
sed -e "s|@EXEC@|sovereign-console|" "$here/sovereign-console.desktop" > "$out/sovereign/share/applications/sovereign-console.desktop"
# Generated by engine/cli's package phase (picocli AutoComplete, ManPageGenerator + asciidoctor): required.
cli_target="$(dirname "$cli_jar")"
[ -s "$cli_target/sovereign_completion" ] && [ -s "$cli_target/man/man1/sovereign.1" ] || {
  echo "build-dist: $cli_target has no sovereign_completion or man/man1/sovereign.1; build engine/cli first" >&2; exit 2; }
cp "$cli_target/sovereign_completion" "$out/sovereign/share/bash-completion/completions/sovereign"
cp "$cli_target"/man/man1/*.1 "$out/sovereign/share/man/man1/"
# The docs, where the console's Help menu looks from its jar (HelpDocs.PACKAGED): without them every Help item
# said "(docs not installed)". The whole folder, so the guides' pictures and links to other pages work.
mkdir -p "$out/sovereign/share/doc/sovereign"
cp -R "$docs"/. "$out/sovereign/share/doc/sovereign/"

if command -v dpkg-deb >/dev/null && command -v fakeroot >/dev/null; then
  echo "build-dist: .deb"
  # Built from the finished app image, so the package holds exactly what was checked above, plus the
  # links that put `sovereign` on the PATH and the desktop entry where desktops look.
  pkg="$out/work/deb"
  mkdir -p "$pkg/DEBIAN" "$pkg/opt" "$pkg/usr/bin" "$pkg/usr/share/applications" \
    "$pkg/usr/share/icons/hicolor/256x256/apps" "$pkg/usr/share/man/man1" "$pkg/usr/share/bash-completion/completions"
  cp -a "$out/sovereign" "$pkg/opt/sovereign"
  ln -s /opt/sovereign/bin/sovereign "$pkg/usr/bin/sovereign"
  ln -s /opt/sovereign/bin/sovereign-console "$pkg/usr/bin/sovereign-console"
  cp "$here/sovereign.png" "$pkg/usr/share/icons/hicolor/256x256/apps/sovereign.png"
  sed -e "s|@EXEC@|/opt/sovereign/bin/sovereign-console|" "$here/sovereign-console.desktop" \
    > "$pkg/usr/share/applications/sovereign-console.desktop"
  for page in "$out"/sovereign/share/man/man1/*.1; do
    gzip -9n < "$page" > "$pkg/usr/share/man/man1/$(basename "$page").gz"
  done
  cp "$out/sovereign/share/bash-completion/completions/sovereign" "$pkg/usr/share/bash-completion/completions/sovereign"
  size="$(du -sk "$pkg" | cut -f1)"
  cat > "$pkg/DEBIAN/control" <<CONTROL
Package: sovereign
Version: $deb_version
Section: utils
Priority: optional
Architecture: amd64
Maintainer: Sovereign <sovereign@localhost>
Installed-Size: $size
Depends: libc6, zlib1g, libx11-6, libgtk-3-0, libgl1, util-linux
Recommends: bash-completion
Description: Lease fencing on a SQLite file or a PostgreSQL server
 The sovereign command (on the PATH) and the Sovereign desktop console, with
 their own Java runtime: no Java needs to be installed. Leases, fencing tokens
 and a journal in one SQLite file, or on a PostgreSQL server shared by hosts.
 Bash completion of the sovereign command needs the bash-completion package.
CONTROL
  # The CLI's start archive is bound to /opt/sovereign: made there after installing, removed with the package.
  cat > "$pkg/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
case "$1" in
  # configure, and the abort-* cases, in which the old package's prerm already removed the archive
  configure | abort-*)
    timeout 120 /opt/sovereign/lib/make-start-archive \
      || echo "sovereign: no start archive made; the CLI starts without it" >&2
    ;;
esac
POSTINST
  cat > "$pkg/DEBIAN/prerm" <<'PRERM'
#!/bin/sh
set -e
rm -f /opt/sovereign/lib/app/sovereign-cli.jsa /opt/sovereign/lib/app/sovereign-cli.jsa.*.partial
PRERM
  chmod 755 "$pkg/DEBIAN/postinst" "$pkg/DEBIAN/prerm"
  fakeroot dpkg-deb --build -Zxz "$pkg" "$out/sovereign_${deb_version}_amd64.deb" >/dev/null
else
  echo "build-dist: no dpkg-deb/fakeroot here: app image only"
fi
rm -rf "$out/input"
echo "build-dist: done: $out"
ls -1 "$out"
