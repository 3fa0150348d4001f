#!/bin/sh
# mmdebstrap customize hook of the build root (tests/debian/package.sh; $1 = the root's directory, on the
# host): debian/control's build dependencies, installed as a distribution's builder installs them
# (apt-get build-dep of the source's debian/, alternatives and build profiles resolved by apt), and the
# unprivileged user the packages are built as.
set -eu
root=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$root/tmp/gestured-control/debian"
cp "$top/debian/control" "$top/debian/changelog" "$root/tmp/gestured-control/debian/"
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q /tmp/gestured-control > /dev/null
rm -rf "$root/tmp/gestured-control"
chroot "$root" useradd --create-home --shell /bin/sh builder
