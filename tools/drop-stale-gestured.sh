#!/bin/sh
# tools/drop-stale-gestured.sh BIN_DIR: removes BIN_DIR/gestured when Sources/gestured/link-order.txt is
# newer than it, so the next `swift build` links it again. SwiftPM relinks a program only when one of its
# objects changed: a new link order alone (make link-order) would otherwise never reach the binary that
# ships (make install, the package) and the memory it saves would be measured on the old layout.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:?usage: drop-stale-gestured.sh BIN_DIR}
if [ -e "$bin/gestured" ] && [ "$top/Sources/gestured/link-order.txt" -nt "$bin/gestured" ]; then
    echo "drop-stale-gestured: $bin/gestured predates Sources/gestured/link-order.txt: linked again"
    rm -f "$bin/gestured"
fi
