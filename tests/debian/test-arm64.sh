#!/usr/bin/env bash
# make test-arm64: the arm64 packages (make deb ARCH=arm64: cross-compiled by Debian trixie's Swift, the
# Swift runtime linked in as in the amd64 package) installed with dpkg in an arm64 trixie root filesystem
# (mmdebstrap --arch=arm64, cached like the others under .build/debian/) and run there under emulation
# (qemu-user-static through binfmt_misc: the arm64 programs are arm64's, the kernel this machine's):
#   - the arm64 gesturectl replays every golden recording (Tests/Fixtures/golden/manifest.tsv), with
#     --forward for the passthrough ones, and its output is byte for byte the golden file: what the amd64
#     build prints (GoldenReplayTests holds the amd64 build to them in make test and make test-debian);
#   - gestured --check-config on the installed configuration; gestured replaying a recording to a client
#     (gesturectl monitor) that gets every gesture the offline replay finds; the Python client's package
#     (python3-gestured) connected to the same daemon, taking its hello and two gestures.
# docs/testing.md, "Debian's Swift", says what it costs.
set -euo pipefail
debian_tag=test-arm64
. "$(dirname "$0")/root.sh"

version=$(sed -n 's/^ *public static let daemonVersion = "\([^"]*\)".*/\1/p' "$debian_top/Sources/GestureProtocol/Protocol.swift")
"$debian_here/package.sh" arm64
debs=$debian_top/.build/deb/trixie-arm64
[ -f "$debs/gestured_${version}_arm64.deb" ] || die "make deb ARCH=arm64 made no $debs/gestured_${version}_arm64.deb"

# What gestured's package depends on, and what the checks use: python3 for the Python client's package.
depends=$(dpkg-deb -f "$debs/gestured_${version}_arm64.deb" Depends | sed -e 's/([^)]*)//g' -e 's/|[^,]*//g' -e 's/,/ /g')
debian_root trixie-arm64 trixie arm64 minbase "$depends python3 systemd"

started=$(date +%s)
say "installing the arm64 packages in the arm64 root and running them there (emulated)"
DEBIAN_BINDS="$debs:/debs $debian_top/Tests/Fixtures:/fixtures $debian_here:/rig" \
    debian_enter "$root" "$debian_top/.build/debian" "/rig/arm64-checks.sh $version" > "$debian_cache/test-arm64.log" 2>&1 \
    || { cat "$debian_cache/test-arm64.log"; die "the arm64 checks failed (log: $debian_cache/test-arm64.log)"; }
cat "$debian_cache/test-arm64.log"
say "the arm64 checks ran in $(( $(date +%s) - started ))s"
