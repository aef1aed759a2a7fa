#!/usr/bin/env bash
# A Maven local repository for offline builds of the Java sample projects of
# crates/lucid-code/tests/code_tools.rs and crates/lucid-cli/tests/agents/: JUnit 5, the
# surefire, compiler, resources and antrun plugins, and JaCoCo's agent and Ant tasks from
# Debian's packages (Maven Central is not reached), laid out as Debian's maven-repo.
#
# The packages and those they need that are not installed are fetched with `apt-get
# download` (no root needed) and unpacked with `dpkg -x`; their absolute links into
# /usr/share/java are pointed at the unpacked jars, and the result is merged, links
# followed, with the installed /usr/share/maven-repo (Maven's own packages). Kept once per
# set of package versions in a cache outside the clone.
#
# Prints the cache folder (the repository in repo/, and maven.config: the options that make
# Maven use it offline, with Debian's plugin versions); prints nothing (and says why on stderr) when java, javac,
# mvn or the packages are missing: the Java tests then skip.
set -euo pipefail

packages="junit5 libsurefire-java libmaven-compiler-plugin-java libmaven-resources-plugin-java libmaven-antrun-plugin-java libjacoco-java ant"

for tool in java javac mvn apt-get dpkg; do
  if ! command -v "$tool" >/dev/null; then
    echo "note: $tool not found; no Maven repository for the Java tests" >&2
    exit 0
  fi
done

versions() {
  # shellcheck disable=SC2086
  apt-cache show --no-all-versions $packages 2>/dev/null | grep -E '^(Package|Version):' | paste -sd' '
}
listed="$(versions)"
if [ -z "$listed" ]; then
  apt-get update -q >/dev/null 2>&1 || true
  listed="$(versions)"
fi
if [ -z "$listed" ]; then
  echo "note: Debian's Java packages are not known to apt; no Maven repository for the Java tests" >&2
  exit 0
fi
key="$(printf '%s %s' "$listed" "$(mvn -v 2>/dev/null | head -1)" | sha256sum | cut -c1-16)"
dir="${LUCID_CI_MAVENDIR:-/tmp/lucid-ci-maven-$key}"
if [ -f "$dir/ready" ]; then
  echo "$dir"
  exit 0
fi

rm -rf "$dir"
mkdir -p "$dir/debs" "$dir/root" "$dir/repo"
# The packages and what they need, less what is installed (its jars are in
# /usr/share/maven-repo already); only Java libraries, not fonts or tools.
# shellcheck disable=SC2086
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances $packages 2>/dev/null |
  grep -v '^ ' | grep -v '<' | sort -u >"$dir/closure"
dpkg-query -W -f='${Package}\n' | sed 's/:.*//' | sort -u >"$dir/installed"
comm -23 "$dir/closure" "$dir/installed" | grep -E -- '-java$|^ant$|^junit|^velocity$' >"$dir/fetch" || true
# shellcheck disable=SC2046
if ! (cd "$dir/debs" && apt-get download -q $(cat "$dir/fetch") >/dev/null 2>"$dir/download.log"); then
  echo "note: apt-get download failed (see $dir/download.log); no Maven repository for the Java tests" >&2
  exit 0
fi
for deb in "$dir"/debs/*.deb; do
  dpkg -x "$deb" "$dir/root"
done
# Links into /usr/share/java: to the unpacked jar where there is one, else the installed one.
find "$dir/root" -type l | while read -r link; do
  target="$(readlink "$link")"
  case "$target" in
    /*) if [ -e "$dir/root$target" ]; then ln -sfn "$dir/root$target" "$link"; fi ;;
  esac
done
find "$dir/root" -xtype l | while read -r link; do
  resolved="$(realpath -m "$link")"
  installed="${resolved#"$dir/root"}"
  if [ -e "$installed" ]; then ln -sfn "$installed" "$link"; fi
done
cp -rL /usr/share/maven-repo/. "$dir/repo/"
cp -rL "$dir/root/usr/share/maven-repo/." "$dir/repo/"
rm -rf "$dir/debs" "$dir/root"
# The options a sample project's .mvn/maven.config takes to build offline from it, with
# the versions Debian has (the pom's properties).
newest() { find "$dir/repo/$1" -mindepth 1 -maxdepth 1 -type d ! -name debian -printf '%f\n' | sort -V | tail -1; }
{
  echo "-o"
  echo "-Dmaven.repo.local=$dir/repo"
  echo "-Dsurefire.version=$(newest org/apache/maven/plugins/maven-surefire-plugin)"
  echo "-Djacoco.version=$(newest org/jacoco/org.jacoco.ant)"
  echo "-Djunit.version=$(newest org/junit/jupiter/junit-jupiter-engine)"
} >"$dir/maven.config"
touch "$dir/ready"
echo "$dir"
