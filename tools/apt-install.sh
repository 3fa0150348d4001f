#!/bin/sh
# tools/apt-install.sh [--no-install-recommends] PACKAGE...: installs those of PACKAGES that are not
# installed yet (apt-get, as root or through sudo), nothing else, and says which. `tools/apt-install.sh --update` refreshes apt's package
# lists alone. Every apt call of the project's targets (the Makefile's apt_install, the QEMU rig's and the
# Debian roots' host packages) goes through here and holds one lock while apt runs (flock on
# /var/lib/apt/lists), so targets run side by side (.ci/run runs make test-arm64 beside make test-vm)
# wait for each other instead of meeting at apt's own locks, which fail at once.
set -eu
sudo=$([ "$(id -u)" = 0 ] || echo sudo)
locked() { $sudo flock /var/lib/apt/lists "$@"; }
if [ "${1:-}" = --update ]; then
    locked apt-get update -qq
    exit
fi
options=""
if [ "${1:-}" = --no-install-recommends ]; then options=$1; shift; fi
missing=""
for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing="$missing $p"
done
[ -n "$missing" ] || exit 0
echo "installing$missing" >&2
# shellcheck disable=SC2086 # the package names are words
locked sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $options $missing"
