#!/usr/bin/env bash
# make test-debian: the project built with Debian trixie's own Swift (swiftlang 6.0.3) against trixie's
# headers, in a trixie root (tests/debian/root.sh: made by mmdebstrap, cached under .build/debian/), and
# every Swift test run there, the compositor tests against sway, labwc, phoc and cage as trixie ships them.
# The build is SwiftPM's, in .build/debian/swiftpm (incremental, apart from the host's .build), with the
# check that every module declares the modules it imports (--explicit-target-dependency-import-check).
# docs/testing.md, "Debian's Swift", says more. Environment: DEBIAN_COMPOSITORS (default: all four),
# DEBIAN_TEST_FILTER (passed to swift test --filter).
set -euo pipefail
debian_tag=test-debian
. "$(dirname "$0")/root.sh"

# The Swift build (g++ for libc6-dev and libstdc++'s development files, which swiftlang's link needs and
# does not depend on) and the tests' tools (as the Makefile's DEB_PACKAGES: man pages rendered, the plot's SVG
# rendered, nm, busybox's sh, evemu, socat, the Python client's virtual environment, tmux for tune), and
# the compositors with what the tests drive them with: wlr-randr (output transforms) and wlrctl (focus).
TEST_PACKAGES="swiftlang g++ make pkg-config libevdev-dev libudev-dev libwayland-dev libwayland-bin libxkbcommon-dev
  scdoc man-db groff-base librsvg2-bin binutils busybox-static evemu-tools socat procps
  python3 python3-venv python3-pip python3-setuptools python3-wheel tmux xkb-data
  sway labwc phoc cage wlr-randr wlrctl"
COMPOSITORS=${DEBIAN_COMPOSITORS:-sway labwc phoc cage}

debian_root trixie-test trixie amd64 minbase "$TEST_PACKAGES"
swiftlang=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f '${Version}' swiftlang)
scratch=.build/debian/swiftpm
started=$(date +%s)
say "building with swiftlang $swiftlang (swift build --build-tests, scratch path $scratch)"
debian_enter "$root" "$debian_top" \
    "swift build --scratch-path $scratch --build-tests --explicit-target-dependency-import-check error" \
    || die "the build with trixie's Swift failed (above)"
say "built in $(( $(date +%s) - started ))s; running the Swift tests (compositors: $COMPOSITORS)"
started=$(date +%s)
filter=""
if [ -n "${DEBIAN_TEST_FILTER:-}" ]; then filter="--filter '$DEBIAN_TEST_FILTER'"; fi
rc=0
debian_enter "$root" "$debian_top" \
    "GESTURED_COMPOSITORS='$COMPOSITORS' swift test --skip-build --scratch-path $scratch $filter" || rc=$?
say "the tests ran in $(( $(date +%s) - started ))s"
[ "$rc" = 0 ] || die "the Swift tests failed with trixie's Swift (above)"
say "passed: built and tested with trixie's swiftlang $swiftlang"
