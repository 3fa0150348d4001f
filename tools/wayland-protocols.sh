#!/bin/sh
# Generates the client code of the protocols in protocols/ with wayland-scanner (Debian's libwayland-bin)
# into Sources/CWaylandProtocols/: a header per protocol in include/, its interface tables in a .c file.
# `make wayland-protocols` runs it; WaylandProtocolCodeTests checks the files in the tree are its output.
# OUT=DIR writes elsewhere (the test's scratch directory).
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-Sources/CWaylandProtocols}
mkdir -p "$out/include"
for xml in protocols/*.xml; do
	name=$(basename "$xml" .xml)
	wayland-scanner client-header "$xml" "$out/include/$name-client-protocol.h"
	wayland-scanner private-code "$xml" "$out/$name-protocol.c"
done
