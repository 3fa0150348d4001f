#!/usr/bin/env bash
# Assembles the sysroot gestured is cross-compiled for arm64 against (make deb ARCH=arm64): Debian trixie's
# arm64 packages of what the build links (glibc, libgcc, libstdc++, libevdev, libudev, libwayland-client,
# libxkbcommon, their headers and pkg-config files) and of swiftlang (the aarch64 Swift standard library,
# static and shared, and its modules), each unpacked with dpkg-deb -x: nothing of arm64 runs to make it.
# trixie's linux-libc-dev is one package for every architecture (Architecture: all), so the amd64 index's.
#
# Usage: tools/arm64-sysroot.sh        prints the sysroot's directory (made when missing) on its last line
# It is cached under .build/debian/sysroot-arm64-KEY, KEY from the packages' exact versions and this script,
# like the roots of tests/debian/root.sh; the .debs are kept in .build/debian/debs-arm64 for the next one.
set -euo pipefail
debian_tag=${debian_tag:-arm64-sysroot}
. "$(cd "$(dirname "$0")/.." && pwd)/tests/debian/root.sh"

SUITE=trixie
ARCH=arm64
# The packages, by name; their dependencies are not followed (what the link needs is named).
SYSROOT_PACKAGES="libc6 libc6-dev libgcc-s1 libgcc-14-dev libstdc++6 libstdc++-14-dev
  libevdev2 libevdev-dev libudev1 libudev-dev libwayland-client0 libwayland-dev libffi8
  libxkbcommon0 libxkbcommon-dev swiftlang libswiftlang"
ALL_PACKAGES="linux-libc-dev"

apt_dir=$debian_cache/apt-$SUITE
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
echo "deb [arch=amd64,$ARCH signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $DEBIAN_MIRROR $SUITE main" > "$apt_dir/sources.list"
apt_options=(-o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache" -o Dir::State::status=/dev/null
    -o APT::Architecture=amd64 -o APT::Architectures::=amd64 -o APT::Architectures::="$ARCH"
    -o Debug::NoLocking=true -o APT::Sandbox::User="$(id -un)")
# The archive's index, at most a day old.
if [ -z "$(find "$apt_dir/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null)" ]; then
    say "apt-get update ($SUITE, amd64 and $ARCH indexes)"
    apt-get "${apt_options[@]}" -qq update
fi
# Each package's candidate version, from one apt-cache call (each call reads both indexes: 2 s).
names=$(for p in $SYSROOT_PACKAGES; do echo "$p:$ARCH"; done; echo $ALL_PACKAGES)
versions=$(apt-cache "${apt_options[@]}" show --no-all-versions $names 2>/dev/null \
    | awk '/^Package:/ {p = $2} /^Architecture:/ {a = $2} /^Version:/ {v = $2} /^$/ && p != "" {print p (a == "all" ? "" : ":" a) "=" v; p = ""}
           END {if (p != "") print p (a == "all" ? "" : ":" a) "=" v}' | tr '\n' ' ')
for p in $names; do
    case " $versions" in *" $p="*) ;; *) die "$SUITE has no $p" ;; esac
done
key=$( { echo "$versions"; cat "$0"; } | hash16)
sysroot=$debian_cache/sysroot-$ARCH-$key
if [ -f "$sysroot/.gestured-sysroot" ]; then
    say "cached ($sysroot)"
    echo "$sysroot"
    exit 0
fi

started=$(date +%s)
debs=$debian_cache/debs-$ARCH
mkdir -p "$debs"
missing=""
for pv in $versions; do
    name=${pv%%=*}; name=${name%%:*}; version=${pv#*=}
    ls "$debs/${name}_${version//:/%3a}_"*.deb >/dev/null 2>&1 || missing="$missing $pv"
done
if [ -n "$missing" ]; then
    say "downloading$missing"
    (cd "$debs" && apt-get "${apt_options[@]}" -qq download $missing)
fi
tmp=$debian_cache/tmp-sysroot-$ARCH
rm -rf "$tmp"; mkdir -p "$tmp"
# Each package unpacked, and its shlibs file (which package and version each library's users depend on)
# added to gestured-shlibs: debian/rules hands it to dpkg-shlibdeps for a cross build's dependencies.
: > "$tmp/gestured-shlibs"
for pv in $versions; do
    name=${pv%%=*}; name=${name%%:*}; version=${pv#*=}
    deb=$(ls "$debs/${name}_${version//:/%3a}_"*.deb | awk 'NR == 1')
    dpkg-deb -x "$deb" "$tmp"
    dpkg-deb -I "$deb" shlibs >> "$tmp/gestured-shlibs" 2>/dev/null || true
done
# Of swiftlang, only the target's Swift runtime and modules are used (lib/swift, lib/swift_static): its
# programs and their libraries (the compiler, lldb, sourcekit: 1.2 GB of the 2.2) go; lib/clang stays:
# the C headers of the resource directory (swift_static/clang) are its.
swift=$tmp/usr/libexec/swift
[ -d "$swift/lib/swift_static" ] || die "swiftlang:$ARCH has no usr/libexec/swift/lib/swift_static: the sysroot would have no static Swift runtime"
rm -rf "$swift/bin" "$swift/libexec" "$swift/share"
find "$swift/lib" -maxdepth 1 \( -type f -o -type l \) -delete
# trixie's /lib, /lib64 and /bin are /usr's (merged /usr): the packages' absolute paths through either
# (ld-linux's, the linker scripts') resolve.
for d in lib lib64 bin sbin; do [ -e "$tmp/$d" ] || ln -s "usr/$d" "$tmp/$d"; done
echo "$versions" > "$tmp/.gestured-sysroot"
rm -rf "$sysroot"; mv "$tmp" "$sysroot"
debian_prune "$debian_cache/sysroot-$ARCH-" "$sysroot"
say "made in $(( $(date +%s) - started ))s ($(du -sm "$sysroot" | cut -f1) MB)"
echo "$sysroot"
