#!/usr/bin/env bash
# Builds the Kikwiflow test host (engines/kikwiflow-host) on the real engine, and prints the path of its
# runnable jar on its last line. The engine's io.kikwiflow artifacts are not on Maven Central, so they
# are built from the vendored source (atoxfy/kikwiflow@3b62f35, ../shared/vendor/kikwiflow, read-only):
# copied to .cache/kikwiflow-src, then `mvn install` of only the modules the host needs.
# Idempotent: when the jar exists and no input changed (vendored source, host source, this script,
# Boot version), nothing is rebuilt. Exits non-zero on any failure.
#
# Environment:
#   KIKWIFLOW_SOURCE       vendored engine source (default ../shared/vendor/kikwiflow, else
#                          /work/shared/vendor/kikwiflow)
#   KIKWIFLOW_JAVA_HOME    JDK used by Maven (default /usr/lib/jvm/temurin-25-jdk-amd64; target is 21)
#   KIKWIFLOW_BOOT_VERSION spring-boot-dependencies for engine and host (default: the engine's own
#                          3.5.4, which the registry serves; set 3.5.7 where 3.5.4 is not served)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$PWD

engine_boot=3.5.4
boot=${KIKWIFLOW_BOOT_VERSION:-$engine_boot}
java_home=${KIKWIFLOW_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
source_dir=${KIKWIFLOW_SOURCE:-}
if [ -z "$source_dir" ]; then
  for candidate in "$repo/../shared/vendor/kikwiflow" /work/shared/vendor/kikwiflow; do
    if [ -f "$candidate/pom.xml" ]; then source_dir=$candidate; break; fi
  done
fi
host=engines/kikwiflow-host
cache=.cache
src_copy=$cache/kikwiflow-src
jar=$cache/kikwiflow-host.jar
stamp=$cache/kikwiflow-host.sha256
log=$cache/kikwiflow-build.log
# Only what the host depends on; -am adds their in-repo dependencies (model, core, APIs...).
modules=kikwi-spring-boot-starter,kikwi-in-memory-spring-boot-starter,kikwi-management-rest-spring-boot-starter

die() { echo "kikwiflow.sh: $*" >&2; exit 1; }
[ -n "$source_dir" ] && [ -f "$source_dir/pom.xml" ] \
  || die "vendored Kikwiflow source not found (set KIKWIFLOW_SOURCE; expected ../shared/vendor/kikwiflow)"
[ -x "$java_home/bin/java" ] || die "no JDK at $java_home (set KIKWIFLOW_JAVA_HOME to a JDK >= 21)"
command -v mvn >/dev/null 2>&1 || die "mvn is not installed (apt-get install -y maven)"

# Everything that decides what the jar contains, hashed in a stable order.
inputs_hash() {
  {
    (cd "$source_dir" && find . -type f -not -path './.git/*' -print0 | sort -z | xargs -0 sha256sum)
    find "$host/pom.xml" "$host/src" -type f -print0 | sort -z | xargs -0 sha256sum
    sha256sum scripts/kikwiflow.sh
    echo "boot=$boot"
  } | sha256sum | cut -d' ' -f1
}

mkdir -p "$cache"
want=$(inputs_hash)
if [ -f "$jar" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  echo "kikwiflow.sh: up to date (inputs unchanged), not rebuilding" >&2
  echo "$repo/$jar"
  exit 0
fi

export JAVA_HOME=$java_home
mvn_flags=(-B -q -DskipTests -Dgpg.skip=true -Dmaven.javadoc.skip=true -Dmaven.source.skip=true)
: > "$log"

echo "kikwiflow.sh: copying $source_dir to $src_copy" >&2
rm -rf "$src_copy"
cp -R "$source_dir" "$src_copy"
chmod -R u+w "$src_copy"
if [ "$boot" != "$engine_boot" ]; then
  # The engine's root pom hard-codes the BOM version (no property), so the copy is edited; the vendored
  # tree never is.
  grep -q "<version>$engine_boot</version>" "$src_copy/pom.xml" \
    || die "engine pom no longer imports spring-boot-dependencies $engine_boot; update this script"
  sed -i "s#<version>$engine_boot</version>#<version>$boot</version>#" "$src_copy/pom.xml"
  echo "kikwiflow.sh: building the engine against spring-boot-dependencies $boot (engine pins $engine_boot)" >&2
fi

echo "kikwiflow.sh: mvn install of the engine modules the host needs (log: $log)" >&2
(cd "$src_copy" && mvn "${mvn_flags[@]}" -pl "$modules" -am install) >>"$log" 2>&1 \
  || { tail -n 40 "$log" >&2; die "engine build failed (full log: $log)"; }

echo "kikwiflow.sh: mvn package of $host" >&2
(cd "$host" && mvn "${mvn_flags[@]}" -Dspring-boot.version="$boot" clean package) >>"$log" 2>&1 \
  || { tail -n 40 "$log" >&2; die "host build failed (full log: $log)"; }

cp "$host/target/kikwiflow-host.jar" "$jar.tmp"
mv "$jar.tmp" "$jar"
echo "$want" > "$stamp"
echo "kikwiflow.sh: built $jar (Kikwiflow 0.1.68 @3b62f35, Spring Boot $boot)" >&2
echo "$repo/$jar"
