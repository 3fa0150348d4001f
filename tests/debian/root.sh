#!/usr/bin/env bash
# Debian root filesystems for the checks on Debian's own systems (make test-debian, make deb-debian,
# make deb ARCH=arm64, make test-arm64): made by mmdebstrap from Debian's archive, cached under
# .build/debian/ keyed by what they contain (the suite, the architecture, the packages, the archive, this
# script), as tests/vm/run.sh caches the guest's image. A cached root is never changed: every run enters a
# fresh overlay on it (overlayfs, the changes thrown away at the end), so each build starts clean, as on a
# distribution's builder. docs/testing.md, "Debian's Swift", says more.
#
# Sourced by the other scripts of tests/debian (and tools/arm64-sysroot.sh): defines
#   debian_root NAME SUITE ARCH VARIANT PACKAGES   -> sets $root (the cached directory)
#   debian_enter ROOT SOURCE COMMAND...            runs COMMAND in a fresh overlay of ROOT, SOURCE at /src
# and the helpers say, die, hash16, host_packages.
# Environment: DEBIAN_MIRROR (default http://deb.debian.org/debian).
set -euo pipefail

debian_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
debian_top=$(cd "$debian_here/../.." && pwd)
debian_cache=$debian_top/.build/debian
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

debian_t0=${debian_t0:-$(date +%s)}
debian_tag=${debian_tag:-debian}
say() { printf '[%s %3ds] %s\n' "$debian_tag" "$(( $(date +%s) - debian_t0 ))" "$*"; }
die() { say "ERROR: $*"; exit 2; }
hash16() { sha256sum | cut -c1-16; }

# host_packages PACKAGES: install those that are missing (the Makefile's apt_install), nothing else.
host_packages() { "$debian_top/tools/apt-install.sh" --no-install-recommends "$@"; }

# A foreign architecture's programs run through qemu-user-static's binfmt_misc entries: mount binfmt_misc
# where nothing has, and enable the entry (a container may start without either).
enable_binfmt() { # enable_binfmt ARCH (debian's name)
    local qemu
    case "$1" in arm64) qemu=aarch64 ;; *) qemu=$1 ;; esac
    host_packages qemu-user-static binfmt-support arch-test
    [ -e /proc/sys/fs/binfmt_misc/status ] || $SUDO mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    [ -e "/proc/sys/fs/binfmt_misc/qemu-$qemu" ] || $SUDO update-binfmts --enable "qemu-$qemu" >/dev/null
    [ -e "/proc/sys/fs/binfmt_misc/qemu-$qemu" ] || die "binfmt_misc has no qemu-$qemu entry: $1 programs cannot run here"
}

# Keep only the newest cache entry of a kind: a root is one to three GB.
debian_prune() { # debian_prune <glob-prefix> <keep-path>
    local p
    for p in "$1"*; do
        [ "$p" = "$2" ] || [ ! -e "$p" ] || { say "removing the older $(basename "$p")"; $SUDO rm -rf "$p"; }
    done
}

# debian_root NAME SUITE ARCH VARIANT "PACKAGES" [SETUP]: the cached root $debian_cache/NAME-KEY, made when
# missing. SETUP, a script, runs last as mmdebstrap's customize hook (its argument: the root's directory);
# it and the files DEBIAN_ROOT_KEY_FILES names are part of the key. The .debs go through one shared
# download cache (.build/debian/debs-ARCH), so the roots that share packages (swiftlang is 444 MB) download
# them once.
debian_root() {
    local name=$1 suite=$2 arch=$3 variant=$4 setup=${6:-} packages key started tmp debs hooks=()
    packages=$(echo $5 | tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ',' | sed 's/,$//')
    key=$( { echo "$suite $arch $variant $DEBIAN_MIRROR"; echo "$packages"; cat "$debian_here/root.sh";
             [ -z "$setup" ] || cat "$setup"; [ -z "${DEBIAN_ROOT_KEY_FILES:-}" ] || cat $DEBIAN_ROOT_KEY_FILES; } | hash16)
    [ -z "$setup" ] || hooks=(--customize-hook="$setup \"\$1\"")
    root=$debian_cache/$name-$key
    if [ -f "$root/.gestured-root" ]; then say "$name: cached $suite $arch root ($root)"; return; fi
    host_packages mmdebstrap
    [ "$arch" = "$(dpkg --print-architecture)" ] || enable_binfmt "$arch"
    started=$(date +%s)
    debs=$debian_cache/debs-$arch
    mkdir -p "$debs"
    tmp=$debian_cache/tmp-$name; $SUDO rm -rf "$tmp"
    say "$name: mmdebstrap --variant=$variant --arch=$arch $suite with $packages"
    # No man pages, docs or translations in the root (path-exclude, which mmdebstrap keeps in the root's
    # dpkg.cfg.d: packages installed there later leave them out too); the downloaded .debs synced in from
    # and out to the shared cache (mmdebstrap's sync-in and sync-out hooks).
    if ! $SUDO mmdebstrap --variant="$variant" --arch="$arch" --include="$packages" \
            --aptopt='APT::Install-Recommends "false"' --aptopt='Acquire::Retries "3"' \
            --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
            --dpkgopt='path-include=/usr/share/doc/*/copyright' \
            --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
            --skip=download/empty \
            --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
            --setup-hook="sync-in $debs /var/cache/apt/archives/" \
            "${hooks[@]}" \
            --customize-hook="sync-out /var/cache/apt/archives $debs" \
            --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb' \
            "$suite" "$tmp" "deb $DEBIAN_MIRROR $suite main" > "$debian_cache/mmdebstrap-$name.log" 2>&1; then
        tail -20 "$debian_cache/mmdebstrap-$name.log"
        die "mmdebstrap failed, log: $debian_cache/mmdebstrap-$name.log"
    fi
    echo "$suite $arch $variant: $packages" | $SUDO tee "$tmp/.gestured-root" > /dev/null
    $SUDO rm -rf "$root"; $SUDO mv "$tmp" "$root"
    debian_prune "$debian_cache/$name-" "$root"
    # Older downloads of the same package (a point release replaced them) go.
    ls -t "$debs"/*.deb 2>/dev/null | awk -F_ '{ if (seen[$1]++) print }' | xargs -r rm -f
    say "$name: made in $(( $(date +%s) - started ))s ($($SUDO du -sm "$root" | cut -f1) MB)"
}

# debian_enter ROOT SOURCE COMMAND...: COMMAND (a shell command line) run as root in a fresh overlay of
# ROOT, with the directory SOURCE (read-write: its .build holds the build's own scratch directories) bound
# at /src, the host's /dev, /proc, /sys and a private /tmp and /run. The overlay goes at the end, whatever
# COMMAND did. Extra binds: DEBIAN_BINDS="HOSTDIR:/path/in/root ..." (read-only).
debian_enter() {
    local base=$1 source=$2 work mnt rc=0 bind previous
    shift 2
    # The caller's own EXIT trap (package.sh removes its exported source with one) runs after ours, and is
    # put back at the end.
    previous=$(trap -p EXIT | sed -n "s/^trap -- '\(.*\)' EXIT$/\1/p")
    work=$(mktemp -d "$debian_cache/overlay-XXXXXX")
    mnt=$work/root
    mkdir -p "$work/upper" "$work/work" "$mnt"
    $SUDO mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/work" "$mnt"
    # Everything mounted below $mnt is unmounted with it (lazily, recursively), even after a failure.
    debian_enter_cleanup() {
        $SUDO umount -R -l "$1" 2>/dev/null || true
        $SUDO rm -rf "$2"
    }
    trap "debian_enter_cleanup '$mnt' '$work'; $previous" EXIT
    $SUDO mount --rbind /dev "$mnt/dev" && $SUDO mount --make-rslave "$mnt/dev"
    $SUDO mount -t proc proc "$mnt/proc"
    $SUDO mount --rbind /sys "$mnt/sys" && $SUDO mount --make-rslave "$mnt/sys"
    $SUDO mount -t tmpfs -o mode=1777 tmpfs "$mnt/tmp"
    $SUDO mount -t tmpfs -o mode=755 tmpfs "$mnt/run"
    $SUDO mkdir -p "$mnt/src"
    $SUDO mount --bind "$source" "$mnt/src"
    for bind in ${DEBIAN_BINDS:-}; do
        $SUDO mkdir -p "$mnt${bind#*:}"
        $SUDO mount --bind "${bind%%:*}" "$mnt${bind#*:}"
        $SUDO mount -o remount,bind,ro "$mnt${bind#*:}"
    done
    # The host's resolver is not needed: nothing inside reaches the network.
    $SUDO chroot "$mnt" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
        LANG=C.UTF-8 TERM="${TERM:-dumb}" /bin/sh -c "cd /src && $*" || rc=$?
    debian_enter_cleanup "$mnt" "$work"
    if [ -n "$previous" ]; then trap "$previous" EXIT; else trap - EXIT; fi
    return $rc
}
