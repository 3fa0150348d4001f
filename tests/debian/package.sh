#!/usr/bin/env bash
# The Debian packages built the way a distribution's builder builds them: in a clean Debian trixie root
# with debian/control's build dependencies (swiftlang, Debian's Swift, among them) and nothing else
# installed, by an unprivileged user, from the source package; then lintian there, which must report no
# error. The root is cached (tests/debian/root.sh, keyed by debian/control among the rest) and entered
# through a fresh overlay, so every build starts clean.
#
# Usage: tests/debian/package.sh amd64   make deb-debian: the source package and the amd64 binary packages
#        tests/debian/package.sh arm64   make deb ARCH=arm64: the arm64 packages, cross-compiled by trixie's
#                                        Swift (amd64) against tools/arm64-sysroot.sh's sysroot
# The results go to .build/deb/trixie-amd64/ or .build/deb/trixie-arm64/ (the .debs, .buildinfo, .changes,
# for amd64 the .dsc and its tarball, and lintian's report, lintian.txt).
set -euo pipefail
arch=${1:-amd64}
debian_tag=deb-$arch
. "$(dirname "$0")/root.sh"
case "$arch" in amd64|arm64) ;; *) die "say amd64 or arm64, not '$arch'" ;; esac
[ "$(dpkg --print-architecture)" = amd64 ] || die "the build root is amd64's: run this on an amd64 machine"

version=$(sed -n 's/^ *public static let daemonVersion = "\([^"]*\)".*/\1/p' "$debian_top/Sources/GestureProtocol/Protocol.swift")
out=$debian_top/.build/deb/trixie-$arch
rm -rf "$out"; mkdir -p "$out"

# build-essential (the buildd variant), lintian, the build dependencies (the setup hook), and for the
# arm64 build the cross binutils dh_strip and dh_shlibdeps use on the arm64 binaries.
DEBIAN_ROOT_KEY_FILES="$debian_top/debian/control" \
    debian_root trixie-build trixie amd64 buildd "lintian binutils-aarch64-linux-gnu" "$debian_here/build-root-setup.sh"

# The source: the files git knows in the working tree (committed or not, untracked ones too unless
# ignored), as a source package holds them: no .build, no .git.
src=$(mktemp -d "$debian_cache/source-XXXXXX")
trap 'rm -rf "$src"' EXIT
mkdir -p "$src/gestured-$version"
(cd "$debian_top" && git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    [ -e "$f" ] && printf '%s\0' "$f"; done | tar --null -T - -cf -) | tar -xf - -C "$src/gestured-$version"

binds="$src:/build-src"
if [ "$arch" = amd64 ]; then
    # The source package and every binary package, as an upload's build; the tests debian/rules runs.
    build="dpkg-buildpackage -us -uc"
    changes=gestured_${version}_amd64.changes
else
    sysroot=$("$debian_top/tools/arm64-sysroot.sh" | tail -1)
    binds="$binds $sysroot:/sysroot"
    # The binary packages for arm64 (and python3-gestured, Architecture: all). -d: the build
    # dependencies of arm64 are the sysroot's, which dpkg does not know as installed packages.
    build="DEB_BUILD_OPTIONS=nocheck GESTURED_SYSROOT=/sysroot dpkg-buildpackage -a arm64 -d -b -us -uc"
    changes=gestured_${version}_arm64.changes
fi
started=$(date +%s)
say "building in a clean trixie root: $build"
rc=0
DEBIAN_BINDS=$binds debian_enter "$root" "$out" "
    set -e
    cp -a /build-src /build && chown -R builder: /build
    cd /build/gestured-$version
    runuser -u builder -- env HOME=/home/builder $build > /build/build.log 2>&1 || { tail -40 /build/build.log; cp /build/build.log /src/; exit 1; }
    cp /build/build.log /build/*.deb /build/*.changes /build/*.buildinfo /src/
    cp /build/*.dsc /build/*.tar.* /src/ 2>/dev/null || true
    cd /src && runuser -u builder -- lintian --fail-on error $changes > lintian.txt 2>&1 || { cat lintian.txt; exit 3; }
" || rc=$?
case "$rc" in
    0) ;;
    3) die "lintian reports errors (above; $out/lintian.txt)" ;;
    *) die "dpkg-buildpackage failed in the trixie root (log: $out/build.log)" ;;
esac
say "built in $(( $(date +%s) - started ))s; lintian: $(grep -c '^W:' "$out/lintian.txt" || true) warnings, no errors ($out/lintian.txt)"
for deb in "$out"/*.deb; do say "  $(basename "$deb")"; done
