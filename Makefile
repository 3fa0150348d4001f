# gestured — build, test, benchmark and demo. `make demo` and `make test` work alone on a fresh Debian
# machine: both install the Debian packages they need first (`make deps`).
SWIFT      ?= swift
PREFIX     ?= /usr/local
DESTDIR    ?=
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# The version, from its one source: GestureProtocol.daemonVersion (`--version`, the protocol's hello, the
# man pages' footer; debian/changelog must agree, which a test and `make deb` check).
VERSION := $(shell sed -n 's/^ *public static let daemonVersion = "\([^"]*\)".*/\1/p' Sources/GestureProtocol/Protocol.swift)
# Debian's Python 3, not whatever `python3` is first on PATH (a pyenv or venv may shadow it).
PYTHON     ?= /usr/bin/python3

# Debian packages the build and the tests need (scdoc and man-db: the man pages are built and rendered
# with `man --warnings` by a test; librsvg2-bin: a test renders `gesturectl plot`'s SVG to check its pixels;
# binutils: a test reads the daemon's imported symbols with nm; busybox-static (the test-vm rig's busybox
# too): a test checks the OpenRC service script with busybox's sh, postmarketOS's; libwayland-dev,
# libwayland-bin (wayland-scanner) and libxkbcommon-dev: gesturectl's compositor side and its generated
# protocol code; sway: the tests run it headless as the real compositor; python3-venv, -pip, -setuptools,
# -wheel: the Python client's wheel is built and installed in a fresh virtual environment, offline; tmux:
# `gesturectl tune` is driven in a real terminal).
DEB_PACKAGES := pkg-config libevdev-dev libudev-dev evemu-tools socat python3 \
                scdoc man-db groff-base librsvg2-bin binutils busybox-static \
                libwayland-dev libwayland-bin libxkbcommon-dev sway \
                python3-venv python3-pip python3-setuptools python3-wheel tmux
# What `make deb` needs on top: the Debian packaging toolchain and lintian, g++ for libstdc++'s static
# archive (static-libstdcxx below; build-essential, so not in debian/control's Build-Depends), and dh-python
# with pybuild's pyproject plugin for python3-gestured.
DEB_PACKAGING_PACKAGES := dpkg-dev debhelper fakeroot lintian g++ \
                          dh-python python3-all pybuild-plugin-pyproject

.PHONY: deps deb-deps deps-examples wayland-protocols build release test test-examples bench bench-socket bench-explain frame-cost link-order demo demo-gui readme-screenshots clean man fuzz soak test-sanitize

# $(call apt_install,PACKAGES): install those of PACKAGES that are not installed yet, nothing else
# (tools/apt-install.sh: one lock for every apt call of the project's targets).
define apt_install
@tools/apt-install.sh $(1)
endef

deps:
	$(call apt_install,$(DEB_PACKAGES))

deb-deps: deps
	$(call apt_install,$(DEB_PACKAGING_PACKAGES))

build: deps
	$(SWIFT) build

# Sources/CWaylandProtocols/ from protocols/*.xml with wayland-scanner (tools/wayland-protocols.sh); run it
# after adding or updating a protocol's XML. WaylandProtocolCodeTests checks the tree holds its output.
wayland-protocols: deps
	tools/wayland-protocols.sh

release: deps
	$(SWIFT) build -c release

# The Swift suites, then the TOML parser's differential check against tomllib, the JSON request parser's
# against Python's json and the number writer's against decimal, then the Python client (clients/python) against the daemon replaying a recording, then
# the examples' frame pacing on simulated updates (examples/common/test_motion.py; no display needed), then
# `gesturectl plot`'s SVG rendered by rsvg-convert and checked pixel by pixel (tests/plot), then the README's
# commands (tests/readme).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	@# The TOML parser against Python's tomllib on generated and mutated documents (tools/toml-differential.py;
	@# about 2 s here, longer with --count).
	$(PYTHON) tools/toml-differential.py --dump "$$($(SWIFT) build --show-bin-path)/conformance-dump" --count 4000
	@# The request parser against Python's json, and the event number writer against decimal
	@# (tools/json-differential.py through conformance-dump; about 2 s here, longer with --count).
	$(PYTHON) tools/json-differential.py --dump "$$($(SWIFT) build --show-bin-path)/conformance-dump" --count 20000
	GESTURED_BIN=$$($(SWIFT) build --show-bin-path) $(PYTHON) -m unittest discover -s clients/python -t clients/python
	@# The Python client as a package: its wheel installed in a fresh virtual environment and the tests
	@# above run again against that installation (tools/test-python-package.sh; about 15 s).
	tools/test-python-package.sh $(PYTHON) "$$($(SWIFT) build --show-bin-path)"
	$(PYTHON) -m unittest discover -s examples/common -t examples/common
	GESTURED_BIN=$$($(SWIFT) build --show-bin-path) $(PYTHON) -m unittest discover -s tests/plot -t tests/plot
	@# The README's commands as they are written (tests/readme: which sections run, and why the others do not).
	GESTURED_BIN=$$($(SWIFT) build --show-bin-path) $(PYTHON) -m unittest discover -s tests/readme -t tests/readme
	@# The README's other command, on the build above (about 10 s): it failed unnoticed once when the
	@# recognizer's output changed under a hard-coded gesture count.
	$(MAKE) --no-print-directory demo > "$$($(SWIFT) build --show-bin-path)/demo.log" 2>&1 \
	  || { tail -20 "$$($(SWIFT) build --show-bin-path)/demo.log"; echo "make test: make demo failed (log above)" >&2; exit 1; }

# The test suite under the address sanitizer (Swift and C; leaks included) and, for the C code (the inline
# helpers of the system-library shims' headers), the undefined-behaviour sanitizer: swiftc has no -sanitize=undefined on Linux,
# and Swift code traps on overflow and out-of-bounds access by itself. The integration tests run the
# sanitized gestured and gesturectl. Then the thread sanitizer over the in-process suites: the daemon has
# one thread, but the tests run in parallel threads and share the libraries' globals (the log). The
# integration tests talk to a daemon in another process, where it has nothing to watch, and under its
# slowdown their readers fall behind the replays they read (they ran under ASan above).
SANITIZE_FLAGS := --sanitize=address \
	-Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined \
	-Xswiftc -Xclang-linker -Xswiftc -fsanitize=undefined
SANITIZE_ENV := SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitize/lsan.supp \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
test-sanitize: deps
	$(SWIFT) build --build-path .build/sanitize --build-tests $(SANITIZE_FLAGS)
	$(SANITIZE_ENV) $(SWIFT) test --build-path .build/sanitize --skip-build $(SANITIZE_FLAGS)
	$(SWIFT) build --build-path .build/sanitize-thread --build-tests --sanitize=thread
	SWIFT_BACKTRACE=enable=no TSAN_OPTIONS=halt_on_error=1 \
	  $(SWIFT) test --build-path .build/sanitize-thread --skip-build --sanitize=thread --skip IntegrationTests

bench: deps
	$(SWIFT) build -c release --product gestured-bench
	$$($(SWIFT) build -c release --show-bin-path)/gestured-bench Tests/Fixtures

# Events per second through the daemon's socket to 1 and 50 clients, and the idle daemon's memory, of the
# gestured that ships: built as `make install` and the package build it (SWIFT_BUILD_FLAGS: the Swift runtime
# and libstdc++ linked in), in a build directory of its own (.build/shipped) so that the plain release the
# other benchmarks use is not rebuilt. BENCH_SOCKET_ARGS passes more options (say `--memory-only --gestured
# OTHER` to compare another build in the same run).
SHIPPED_BUILD = $(SWIFT) build $(SWIFT_BUILD_FLAGS) --build-path .build/shipped
BENCH_SOCKET_ARGS ?=
bench-socket: deps
	$(call apt_install,g++)
	@$(MAKE) --no-print-directory static-libstdcxx
	@tools/drop-stale-gestured.sh "$$($(SHIPPED_BUILD) --show-bin-path)"
	$(SHIPPED_BUILD) --product gestured
	$(SWIFT) build -c release --product gestured-socket-bench
	@echo "bench-socket: measuring $$($(SHIPPED_BUILD) --show-bin-path)/gestured, the build make install and the package ship"
	$$($(SWIFT) build -c release --show-bin-path)/gestured-socket-bench \
	  --gestured $$($(SHIPPED_BUILD) --show-bin-path)/gestured $(BENCH_SOCKET_ARGS) Tests/Fixtures

# Sources/gestured/link-order.txt: the code the daemon runs at start, idle and replaying, which the linker
# lays out first (Package.swift), from callgrind profiles of the package's build (tools/link-order.sh;
# docs/architecture.md, "Memory"). Run it after a change that moves much of what the idle daemon runs.
link-order: deps
	$(call apt_install,valgrind)
	SWIFT=$(SWIFT) tools/link-order.sh

# What one input frame costs the release daemon: instructions (callgrind) and system calls (strace) per frame
# of a replayed recording, with a client taking every update, one with updates off, and none. BASELINE=FILE,
# another build of gestured (say main's, from a second worktree), is measured in the same run and compared;
# FRAME_COST_ARGS passes more options (tools/frame-cost.py --help). docs/architecture.md, "What a frame costs".
PROFILE_PACKAGES := valgrind strace
BASELINE ?=
FRAME_COST_ARGS ?=
frame-cost: deps
	$(call apt_install,$(PROFILE_PACKAGES))
	$(SWIFT) build -c release --product gestured
	SWIFT=$(SWIFT) $(PYTHON) tools/frame-cost.py --gestured $$($(SWIFT) build -c release --show-bin-path)/gestured \
	  $(if $(BASELINE),--baseline $(BASELINE)) $(FRAME_COST_ARGS)

# What explaining one long touch sequence costs (issue 36): a finger resting while another taps N times
# (tools/resting-taps.py), explained offline by `gesturectl explain` (2 500, 10 000, 20 000 taps) and by
# the daemon for one client while another pings it: the longest loop turn (strace's epoll_wait) and the
# ping round trips. BASELINE_BIN=DIR, another build's directory of gestured and gesturectl (say main's
# release), is measured in the same run. docs/testing.md, "Explanations' cost".
BASELINE_BIN ?=
BENCH_EXPLAIN_ARGS ?=
bench-explain: deps
	$(call apt_install,strace)
	$(SWIFT) build -c release --product gestured
	$(SWIFT) build -c release --product gesturectl
	$(PYTHON) tools/explain-bench.py --bin $$($(SWIFT) build -c release --show-bin-path) \
	  $(if $(BASELINE_BIN),--baseline-bin $(BASELINE_BIN)) $(BENCH_EXPLAIN_ARGS)

# Coverage-guided fuzzing (libFuzzer + address sanitizer) of the evemu parser, the request decoder, the
# configuration loader and the engine; FUZZ_SECONDS per target (docs/testing.md, "Fuzzing").
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) tests/fuzz/run.sh

# The release daemon under load for SOAK_SECONDS: looping replays, 64 clients (readers that must receive
# every event, subscribers that come and go, one that stalls, one that reconnects), SIGHUP every 10 s;
# checks memory stays flat and the log stays clean (docs/testing.md, "Soak").
SOAK_SECONDS ?= 600
# The daemon soaked is the one that ships (SWIFT_BUILD_FLAGS, as make install and the package build it),
# and the build is the one make test-vm and make deb use next.
soak: deps
	$(call apt_install,g++)
	@$(MAKE) --no-print-directory static-libstdcxx
	@tools/drop-stale-gestured.sh "$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)"
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product gestured
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product gestured-soak
	$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)/gestured-soak $(SOAK_SECONDS) Tests/Fixtures

# `make demo`: the whole path with no touchscreen. The daemon replays a real recording as a virtual device
# on a private socket and `gesturectl monitor` prints what a subscribed client receives; then
# `gesturectl replay` shows what the recognizer makes of more recordings, offline.
DEMO_DIR        := Tests/Fixtures/recordings
DEMO_DAEMON     := dell_canvas_touch.evemu
# Offline replays: "events-file:device-file[:configuration]" (device-file "-" when the events file has its own
# header; the configuration from Tests/Fixtures/golden/configs). The Wacom top swipe with 15 mm zones is an
# edge swipe from the left, which `gesturectl explain` then explains.
DEMO_RECORDINGS := Wacom_ISDv4_E6_Finger.single-center-scroll.events:Wacom_ISDv4_E6_Finger.desc \
                   Wacom_ISDv4_E6_Finger.double-top-swipe.events:Wacom_ISDv4_E6_Finger.desc \
                   Wacom_ISDv4_E6_Finger.single-top-swipe.events:Wacom_ISDv4_E6_Finger.desc:wacom-zones-15-rot0.toml \
                   Atmel_maXTouch_Touchscreen.4-finger-drag-down.events:Atmel_maXTouch_Touchscreen.desc \
                   n4.events:n4.desc
DEMO_CONFIGS    := Tests/Fixtures/golden/configs

# The gestures to expect (a pass's worth) are counted offline before the daemon starts replaying, and the
# replay loops: the recording's first gesture comes 0.18 s after the daemon starts, and on a busy machine
# the monitor (started once the daemon's log says ready: its socket file exists a moment before it accepts)
# connected after it had gone and waited for it until the timeout; now it takes the next pass's.
demo: deps
	$(SWIFT) build --product gestured
	$(SWIFT) build --product gesturectl
	@set -u; bin=$$($(SWIFT) build --show-bin-path); dir=$$(mktemp -d /tmp/gestured-demo-XXXXXX); \
	printf '[daemon]\nsocket_group = ""\n' > $$dir/demo.toml; \
	want=$$($$bin/gesturectl replay --no-updates $(DEMO_DIR)/$(DEMO_DAEMON) | grep -c '"type":"gesture"'); \
	$$bin/gestured --no-udev --config $$dir/demo.toml --socket $$dir/gestured.sock \
	  --replay $(DEMO_DIR)/$(DEMO_DAEMON) --speed 2 --loop 2> $$dir/gestured.log & pid=$$!; \
	for i in $$(seq 100); do grep -q ' ready: ' $$dir/gestured.log && break; sleep 0.1; done; \
	echo "== gestured --replay $(DEMO_DIR)/$(DEMO_DAEMON) --speed 2 --loop (a 27-inch Dell Canvas), as gesturectl monitor --no-updates sees a pass's worth of it"; \
	timeout 60 $$bin/gesturectl monitor --socket $$dir/gestured.sock --no-updates --count $$want; status=$$?; \
	kill $$pid; wait $$pid; echo "== the daemon's log"; cat $$dir/gestured.log; rm -rf $$dir; \
	[ $$status = 0 ] || { echo "make demo: the client did not receive the gestures (status $$status)" >&2; exit 1; }; \
	for pair in $(DEMO_RECORDINGS); do \
	  events=$${pair%%:*}; rest=$${pair#*:}; desc=$${rest%%:*}; config=""; \
	  case "$$rest" in *:*) config=$${rest#*:} ;; esac; \
	  args=""; [ "$$desc" = - ] || args="--device $(DEMO_DIR)/$$desc"; \
	  [ -z "$$config" ] || args="$$args --config $(DEMO_CONFIGS)/$$config"; \
	  echo; echo "== gesturectl replay --pretty --no-updates $${config:+--config $$config }$$events (offline; drop --no-updates to see every update)"; \
	  $$bin/gesturectl replay --pretty --no-updates $$args "$(DEMO_DIR)/$$events" || exit 1; \
	  if [ -n "$$config" ]; then \
	    echo "== gesturectl explain --config $$config $$events (why each touch became what it did)"; \
	    $$bin/gesturectl explain $$args "$(DEMO_DIR)/$$events" || exit 1; \
	  fi; \
	done

# --- the GTK examples (examples/) ----------------------------------------------------------------------------
# Python 3 + GTK 4 from Debian; Xvfb and ImageMagick (import, convert) for the screenshot tests.
EXAMPLE_PACKAGES := python3-gi gir1.2-gtk-4.0 xvfb imagemagick
EXAMPLE         ?= control-centre
EXAMPLE_RECORDING = $(if $(filter pinch-view,$(EXAMPLE)),pinch,$(EXAMPLE))

deps-examples:
	$(call apt_install,$(EXAMPLE_PACKAGES))

# Each example under Xvfb against gestured replaying its recording; screenshots mid-gesture and after each
# end are checked pixel by pixel (examples/test-examples.py says how).
test-examples: deps deps-examples
	$(SWIFT) build --product gestured
	$(SWIFT) build --product gesturectl
	$(PYTHON) examples/test-examples.py $$($(SWIFT) build --show-bin-path)

# `make demo-gui [EXAMPLE=name]`, a directory of examples/: the example in a window, on its recording played
# in a loop by gestured; no touchscreen needed, a display is.
demo-gui: deps deps-examples
	@if [ -z "$${DISPLAY:-}" ] && [ -z "$${WAYLAND_DISPLAY:-}" ]; then \
	  echo "make demo-gui: no display (neither DISPLAY nor WAYLAND_DISPLAY is set). Run it in a graphical session;" >&2; \
	  echo "  without one, make test-examples runs the examples under Xvfb and checks their screenshots." >&2; \
	  exit 1; \
	fi
	@[ -f examples/$(EXAMPLE)/$(EXAMPLE).py ] || { echo "make demo-gui: no example '$(EXAMPLE)'; EXAMPLE= one of:$$(for d in examples/*/; do n=$$(basename $$d); [ -f $$d$$n.py ] && printf ' %s' $$n; done)" >&2; exit 1; }
	$(SWIFT) build --product gestured
	$(SWIFT) build --product gesturectl
	@set -u; bin=$$($(SWIFT) build --show-bin-path); dir=$$(mktemp -d /tmp/gestured-demo-gui-XXXXXX); \
	printf '[daemon]\nsocket_group = ""\n' > $$dir/demo.toml; \
	$$bin/gestured --no-udev --config $$dir/demo.toml --socket $$dir/gestured.sock \
	  --replay examples/recordings/$(EXAMPLE_RECORDING).evemu --loop 2> $$dir/gestured.log & pid=$$!; \
	trap 'kill $$pid 2>/dev/null; wait $$pid 2>/dev/null; rm -rf $$dir' EXIT; trap 'exit 130' INT TERM; \
	echo "== examples/$(EXAMPLE) on examples/recordings/$(EXAMPLE_RECORDING).evemu, played in a loop; close the window to stop"; \
	$(PYTHON) examples/$(EXAMPLE)/$(EXAMPLE).py --socket $$dir/gestured.sock

# The README's screenshot sequence of the control centre, from the screenshots make test-examples checks.
readme-screenshots: deps deps-examples
	$(SWIFT) build --product gestured
	$(SWIFT) build --product gesturectl
	@set -e; dir=$$(mktemp -d /tmp/gestured-shots-XXXXXX); \
	$(PYTHON) examples/test-examples.py $$($(SWIFT) build --show-bin-path) control-centre --keep $$dir; \
	convert $$dir/control-centre-1-mid.png $$dir/control-centre-1-after.png $$dir/control-centre-2-mid.png \
	  $$dir/control-centre-2-after.png -resize 50% -bordercolor '#8a93a0' -border 1 +append docs/images/control-centre.png; \
	rm -rf $$dir; echo "wrote docs/images/control-centre.png"

clean:
	rm -rf .build

# --- man pages ------------------------------------------------------------------------------------------------
# scdoc sources in man/, built into .build/man/ with the version filled in. Tests (ManPageTests) render
# each with `man --warnings` and check that every configuration key, gestured option and gesturectl
# command and option is on its page.
MAN_PAGES := $(patsubst man/%.scd,.build/man/%,$(wildcard man/*.scd))

man: $(MAN_PAGES)

.build/man/%: man/%.scd Sources/GestureProtocol/Protocol.swift
	@mkdir -p .build/man
	sed 's/@VERSION@/$(VERSION)/g' $< | scdoc > $@.tmp && mv $@.tmp $@

# --- install / uninstall ----------------------------------------------------------------------------------
# `make install` builds a release and installs binaries, the init system's files (systemd units and the
# sysusers.d file, or an OpenRC service: INIT), the default configuration (never over an existing one) and
# the docs. PREFIX and DESTDIR work as usual; distributions packaging for /usr use PREFIX=/usr.
# docs/installation.md walks through it.
#
# The release both `make install` and the package install (debian/rules reads these flags from here:
# `make print-swift-build-flags`): the Swift runtime linked in (--static-swift-stdlib), so the installed
# binaries run where no Swift toolchain is (a toolchain's directory moves or goes, the binaries do not
# notice); libstdc++, which that runtime needs, linked in from its static archive (static-libstdcxx below);
# and -z relro -z now.
SWIFT_BUILD_FLAGS ?= -c release --static-swift-stdlib -Xlinker -L$(STATIC_LIBSTDCXX_DIR) \
                     -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now $(SWIFT_CROSS_FLAGS)
# Cross-compiling (make deb ARCH=arm64, through debian/rules): SWIFT_SYSROOT is a directory of the target's
# Debian packages unpacked (tools/arm64-sysroot.sh), SWIFT_TRIPLE the target. The target's Swift runtime
# and modules are the sysroot's swiftlang's: -resource-dir names its static ones (--static-swift-stdlib);
# -sdk goes to swiftc as well, or the link step does not see the sysroot (SwiftPM's --sdk alone stops at
# the compile steps); lld links, which knows every target (the build machine's binutils know its own).
SWIFT_SYSROOT ?=
SWIFT_TRIPLE  ?= aarch64-unknown-linux-gnu
SWIFT_CROSS_FLAGS = $(if $(SWIFT_SYSROOT),--triple $(SWIFT_TRIPLE) --sdk $(SWIFT_SYSROOT) -Xswiftc -sdk -Xswiftc $(SWIFT_SYSROOT) \
                    -Xswiftc -resource-dir -Xswiftc $(SWIFT_SYSROOT)/usr/libexec/swift/lib/swift_static -Xswiftc -use-ld=lld)
BINDIR        ?= $(PREFIX)/bin
UNITDIR       ?= $(PREFIX)/lib/systemd/system
# systemd user units (gesturectl-bind.service, gesturectl-orientation.service): the user manager's search
# path for packaged units.
USERUNITDIR   ?= $(PREFIX)/lib/systemd/user
SYSUSERSDIR   ?= $(PREFIX)/lib/sysusers.d
DOCDIR        ?= $(PREFIX)/share/doc/gestured
MANDIR        ?= $(PREFIX)/share/man
BASHCOMPDIR   ?= $(PREFIX)/share/bash-completion/completions
# zsh's own search path: site-functions for /usr/local, Debian's vendor-completions for /usr.
ZSHCOMPDIR    ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)
SYSCONFDIR    ?= /etc
# udev reads rules from /usr/lib/udev/rules.d (packages) and /etc/udev/rules.d (local), not /usr/local.
UDEVRULESDIR  ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/udev/rules.d,$(SYSCONFDIR)/udev/rules.d)
LIBEXECDIR    ?= $(PREFIX)/libexec/gestured
CONFIG_FILE   := $(SYSCONFDIR)/gestured/gestured.toml
INSTALL_DOCS   = $(wildcard README.md docs/*.md)
# The init system whose files are installed: systemd (gestured.service and .socket, the user units, the
# sysusers.d file) or openrc (the service script $(INITDIR)/gestured and its settings $(CONFDDIR)/gestured).
# By default the running system's: openrc where OpenRC's openrc-run is and systemd is not running.
INIT          ?= $(if $(wildcard /sbin/openrc-run),$(if $(wildcard /run/systemd/system),systemd,openrc),systemd)
INITDIR       ?= $(SYSCONFDIR)/init.d
CONFDDIR      ?= $(SYSCONFDIR)/conf.d

.PHONY: install install-files install-init uninstall static-libstdcxx print-swift-build-flags

print-swift-build-flags:
	@echo '$(strip $(SWIFT_BUILD_FLAGS))'

# Both `make install`'s and the package's build link libstdc++, which the Swift runtime needs, into gestured
# as well: their flags put this directory, holding only the static archive, on the linker's search path, so
# the `-lstdc++` swiftc passes finds the archive before the shared library. On a device where nothing else
# uses libstdc++ (a shell or kiosk written in C), the shared library made 1 MB of the idle daemon's PSS; the
# code the runtime takes from the archive is under 100 KB resident (docs/architecture.md, "Memory").
# Cross-compiling, the sysroot's archive (libstdc++-NN-dev of the target).
STATIC_LIBSTDCXX_DIR := .build/static-libstdc++$(if $(SWIFT_SYSROOT),-$(SWIFT_TRIPLE))
LIBSTDCXX_ARCHIVE = $(if $(SWIFT_SYSROOT),$(lastword $(sort $(wildcard $(SWIFT_SYSROOT)/usr/lib/gcc/*-linux-gnu/*/libstdc++.a))),$$($(CC) -print-file-name=libstdc++.a))
static-libstdcxx:
	@archive=$(LIBSTDCXX_ARCHIVE); \
	[ -f "$$archive" ] || { echo "make: no libstdc++.a ('$$archive'): install g++ (make deb-deps does), or for a cross build libstdc++-NN-dev of the target in SWIFT_SYSROOT" >&2; exit 1; }; \
	mkdir -p $(STATIC_LIBSTDCXX_DIR) && ln -sfn "$$archive" $(STATIC_LIBSTDCXX_DIR)/libstdc++.a

# g++ for libstdc++'s static archive (static-libstdcxx).
install: deps
	$(call apt_install,g++)
	@$(MAKE) --no-print-directory install-files

# install without the apt step: debian/rules calls this (Build-Depends installed the packages).
install-files: $(MAN_PAGES) $(if $(findstring $(STATIC_LIBSTDCXX_DIR),$(SWIFT_BUILD_FLAGS)),static-libstdcxx)
	@case "$(INIT)" in systemd|openrc) ;; *) echo "make install: INIT=$(INIT): say systemd or openrc" >&2; exit 2 ;; esac
	@tools/drop-stale-gestured.sh "$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)"
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product gestured
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product gesturectl
	@set -e; bin=$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path); \
	install -d -m 755 "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(DOCDIR)" \
	  "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man5" "$(DESTDIR)$(MANDIR)/man8" \
	  "$(DESTDIR)$(BASHCOMPDIR)" "$(DESTDIR)$(ZSHCOMPDIR)" "$(DESTDIR)$(UDEVRULESDIR)" "$(DESTDIR)$(LIBEXECDIR)"; \
	install -m 755 "$$bin/gestured" "$$bin/gesturectl" "$(DESTDIR)$(BINDIR)/"; \
	install -m 755 systemd/gestured-passthrough-properties "$(DESTDIR)$(LIBEXECDIR)/"; \
	sed -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' systemd/95-gestured-passthrough.rules > "$(DESTDIR)$(UDEVRULESDIR)/95-gestured-passthrough.rules.tmp"; \
	chmod 644 "$(DESTDIR)$(UDEVRULESDIR)/95-gestured-passthrough.rules.tmp"; \
	mv "$(DESTDIR)$(UDEVRULESDIR)/95-gestured-passthrough.rules.tmp" "$(DESTDIR)$(UDEVRULESDIR)/95-gestured-passthrough.rules"; \
	for page in $(MAN_PAGES); do install -m 644 "$$page" "$(DESTDIR)$(MANDIR)/man$${page##*.}/"; done; \
	install -m 644 completions/gesturectl.bash "$(DESTDIR)$(BASHCOMPDIR)/gesturectl"; \
	install -m 644 completions/_gesturectl "$(DESTDIR)$(ZSHCOMPDIR)/_gesturectl"; \
	install -m 644 config/bindings.toml "$(DESTDIR)$(DOCDIR)/bindings.toml"; \
	for doc in $(INSTALL_DOCS); do install -m 644 "$$doc" "$(DESTDIR)$(DOCDIR)/"; done; \
	if [ ! -f config/gestured.toml ]; then \
	  echo "make install: config/gestured.toml is missing; no default configuration installed" >&2; \
	elif [ -e "$(DESTDIR)$(CONFIG_FILE)" ]; then \
	  echo "make install: keeping the existing $(DESTDIR)$(CONFIG_FILE); the default is in $(DESTDIR)$(DOCDIR)/gestured.toml"; \
	else \
	  install -d -m 755 "$(DESTDIR)$(SYSCONFDIR)/gestured"; install -m 644 config/gestured.toml "$(DESTDIR)$(CONFIG_FILE)"; \
	fi; \
	if [ -f config/gestured.toml ]; then install -m 644 config/gestured.toml "$(DESTDIR)$(DOCDIR)/gestured.toml"; fi
	@$(MAKE) --no-print-directory install-init
	@set -e; if [ -n "$(DESTDIR)" ]; then exit 0; fi; \
	if [ "$(INIT)" = systemd ] && [ -d /run/systemd/system ]; then \
	  systemd-sysusers "$(SYSUSERSDIR)/gestured.conf"; systemctl daemon-reload; \
	  udevadm control --reload 2>/dev/null && udevadm trigger --action=change --sysname-match=uinput 2>/dev/null || true; \
	  echo "make install: done. Start it with: systemctl enable --now gestured.socket (or gestured.service)"; \
	  echo "  and, as each user who wants gestures to run commands: systemctl --user enable --now gesturectl-bind"; \
	  echo "  and, on a phone or convertible: systemctl --user enable --now gesturectl-orientation"; \
	elif [ "$(INIT)" = openrc ]; then \
	  udevadm control --reload 2>/dev/null && udevadm trigger --action=change --sysname-match=uinput 2>/dev/null || true; \
	  if ! id gestured >/dev/null 2>&1; then \
	    echo "make install: there is no user gestured for the service yet; create it (or set gestured_user in $(CONFDDIR)/gestured):"; \
	    echo "  addgroup -S gestured && adduser -S -D -H -h /dev/null -s /sbin/nologin -G gestured gestured && addgroup gestured input"; \
	  fi; \
	  if ! id -nG gestured 2>/dev/null | grep -qw gestured-input; then \
	    echo "make install: for passthrough, the udev rule gives /dev/uinput to group gestured-input, with user gestured its only member:"; \
	    echo "  addgroup -S gestured-input && addgroup gestured gestured-input && udevadm trigger --action=change --sysname-match=uinput"; \
	    echo "  (never add a person to gestured-input: a member can type into any session)"; \
	  fi; \
	  echo "make install: done. Start it with: rc-update add gestured default && rc-service gestured start"; \
	fi

# The init system's files alone (no build; tests stage them with DESTDIR). systemd: the units, ExecStart=
# and Documentation= rewritten to BINDIR and DOCDIR, and the sysusers.d file. openrc: the service script
# with the binary's and the configuration's paths filled in, and its conf.d file unless there is one.
install-init:
	@set -e; case "$(INIT)" in \
	systemd) \
	  install -d -m 755 "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(USERUNITDIR)" "$(DESTDIR)$(SYSUSERSDIR)"; \
	  for unit in gestured.service gestured.socket; do \
	    sed -e 's|/usr/local/bin/|$(BINDIR)/|g' -e 's|/usr/local/share/doc/gestured|$(DOCDIR)|g' \
	      "systemd/$$unit" > "$(DESTDIR)$(UNITDIR)/$$unit.tmp"; \
	    chmod 644 "$(DESTDIR)$(UNITDIR)/$$unit.tmp"; mv "$(DESTDIR)$(UNITDIR)/$$unit.tmp" "$(DESTDIR)$(UNITDIR)/$$unit"; \
	  done; \
	  for unit in gesturectl-bind.service gesturectl-orientation.service; do \
	    sed -e 's|/usr/local/bin/|$(BINDIR)/|g' -e 's|/usr/local/share/doc/gestured|$(DOCDIR)|g' \
	      "systemd/$$unit" > "$(DESTDIR)$(USERUNITDIR)/$$unit.tmp"; \
	    chmod 644 "$(DESTDIR)$(USERUNITDIR)/$$unit.tmp"; mv "$(DESTDIR)$(USERUNITDIR)/$$unit.tmp" "$(DESTDIR)$(USERUNITDIR)/$$unit"; \
	  done; \
	  install -m 644 systemd/gestured.sysusers "$(DESTDIR)$(SYSUSERSDIR)/gestured.conf" ;; \
	openrc) \
	  install -d -m 755 "$(DESTDIR)$(INITDIR)" "$(DESTDIR)$(CONFDDIR)"; \
	  sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@CONFIG_FILE@|$(CONFIG_FILE)|g' openrc/gestured.initd > "$(DESTDIR)$(INITDIR)/gestured.tmp"; \
	  chmod 755 "$(DESTDIR)$(INITDIR)/gestured.tmp"; mv "$(DESTDIR)$(INITDIR)/gestured.tmp" "$(DESTDIR)$(INITDIR)/gestured"; \
	  if [ -e "$(DESTDIR)$(CONFDDIR)/gestured" ]; then \
	    echo "make install: keeping the existing $(DESTDIR)$(CONFDDIR)/gestured"; \
	  else \
	    install -m 644 openrc/gestured.confd "$(DESTDIR)$(CONFDDIR)/gestured"; \
	  fi ;; \
	*) echo "make install: INIT=$(INIT): say systemd or openrc" >&2; exit 2 ;; \
	esac

uninstall:
	@set -e; \
	if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
	  systemctl disable --now gestured.service gestured.socket 2>/dev/null || true; \
	fi; \
	if [ -z "$(DESTDIR)" ] && [ -x "$(INITDIR)/gestured" ] && command -v rc-service >/dev/null; then \
	  rc-service gestured stop 2>/dev/null || true; rc-update del gestured 2>/dev/null || true; \
	fi; \
	rm -f "$(DESTDIR)$(BINDIR)/gestured" "$(DESTDIR)$(BINDIR)/gesturectl" \
	  "$(DESTDIR)$(UNITDIR)/gestured.service" "$(DESTDIR)$(UNITDIR)/gestured.socket" \
	  "$(DESTDIR)$(USERUNITDIR)/gesturectl-bind.service" "$(DESTDIR)$(USERUNITDIR)/gesturectl-orientation.service" \
	  "$(DESTDIR)$(SYSUSERSDIR)/gestured.conf" "$(DESTDIR)$(UDEVRULESDIR)/95-gestured-passthrough.rules" \
	  "$(DESTDIR)$(INITDIR)/gestured" \
	  "$(DESTDIR)$(LIBEXECDIR)/gestured-passthrough-properties" \
	  "$(DESTDIR)$(MANDIR)/man8/gestured.8" "$(DESTDIR)$(MANDIR)/man1/gesturectl.1" \
	  "$(DESTDIR)$(MANDIR)/man5/gestured.toml.5" \
	  "$(DESTDIR)$(BASHCOMPDIR)/gesturectl" "$(DESTDIR)$(ZSHCOMPDIR)/_gesturectl"; \
	if [ -f "$(DESTDIR)$(CONFDDIR)/gestured" ] && cmp -s "$(DESTDIR)$(CONFDDIR)/gestured" openrc/gestured.confd; then \
	  rm -f "$(DESTDIR)$(CONFDDIR)/gestured"; \
	elif [ -f "$(DESTDIR)$(CONFDDIR)/gestured" ]; then \
	  echo "make uninstall: keeping $(DESTDIR)$(CONFDDIR)/gestured: it differs from the default"; \
	fi; \
	if [ -f "$(DESTDIR)$(CONFIG_FILE)" ] && cmp -s "$(DESTDIR)$(CONFIG_FILE)" "$(DESTDIR)$(DOCDIR)/gestured.toml"; then \
	  rm -f "$(DESTDIR)$(CONFIG_FILE)"; rmdir "$(DESTDIR)$(SYSCONFDIR)/gestured" 2>/dev/null || true; \
	elif [ -f "$(DESTDIR)$(CONFIG_FILE)" ]; then \
	  echo "make uninstall: keeping $(DESTDIR)$(CONFIG_FILE): it differs from the default"; \
	fi; \
	rm -rf "$(DESTDIR)$(DOCDIR)"; rmdir "$(DESTDIR)$(LIBEXECDIR)" 2>/dev/null || true; \
	if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi; \
	echo "make uninstall: done (the system user and group 'gestured' are left in place, as sysusers.d expects)"

# --- Debian package ------------------------------------------------------------------------------------------
# `make deb`: the binary package with the Debian toolchain (debian/: dpkg-buildpackage, debhelper with
# systemd and sysusers support), then lintian, which must report no errors. The .deb, the debug symbols'
# .deb, .buildinfo and .changes go to .build/deb/. The Swift build is the same incremental release build
# (with the Swift runtime linked in) as the one the QEMU rig stages. docs/installation.md has the details.
DEB_DIR  := .build/deb
DEB_ARCH  = $(shell dpkg --print-architecture)
DEB_BASE  = $(DEB_DIR)/gestured_$(VERSION)_$(DEB_ARCH)
# Without Debian's swiftlang installed (bookworm has none), the build profile that takes swift from PATH
# (debian/control).
DEB_SWIFT_PROFILE = $(if $(shell dpkg-query -W -f='$${Status}' swiftlang 2>/dev/null | grep 'ok installed'),,-Ppkg.gestured.swift-from-path)

#
# `make deb ARCH=arm64`: the arm64 packages (gestured and python3-gestured), cross-compiled by Debian
# trixie's Swift in a clean trixie root against a sysroot of trixie's arm64 packages (tools/arm64-sysroot.sh),
# lintian there; into .build/deb/trixie-arm64/ (tests/debian/package.sh). `make deb-debian`: the source
# package and the amd64 packages built the same way, natively, as a Debian builder would build them
# (dpkg-buildpackage in a trixie root with debian/control's build dependencies: swiftlang), into
# .build/deb/trixie-amd64/. Both cache their roots under .build/debian/ (docs/testing.md, "Debian's Swift").
ARCH ?=
.PHONY: deb deb-package deb-debian
ifneq ($(filter-out $(shell dpkg --print-architecture),$(ARCH)),)
deb:
	tests/debian/package.sh $(ARCH)
else
deb: deb-package
	lintian --fail-on error $(DEB_BASE).changes \
	  || { echo "make deb: lintian reports errors (above)" >&2; exit 1; }
	@echo "make deb: $(DEB_BASE).deb"
endif

deb-debian:
	tests/debian/package.sh amd64

# The package without lintian (the QEMU rig uses this).
deb-package: deb-deps
	@mkdir -p $(DEB_DIR); rm -f $(DEB_DIR)/*.deb $(DEB_DIR)/*.changes $(DEB_DIR)/*.buildinfo
	DEB_OUTPUT_DIR=$(CURDIR)/$(DEB_DIR) SWIFT="$(SWIFT)" dpkg-buildpackage -b -us -uc $(DEB_SWIFT_PROFILE) \
	  --buildinfo-option=-u$(DEB_DIR) --changes-option=-u$(DEB_DIR) \
	  --buildinfo-file=$(DEB_BASE).buildinfo --changes-file=$(DEB_BASE).changes

# --- real-kernel end-to-end tests ---------------------------------------------------------------------------
# Boots a Debian kernel in QEMU with systemd and udev, installs gestured there (make install) and drives uinput
# touchscreens from recordings. Installs its own host packages; caches kernel and image under .build/vm/.
# docs/testing.md explains it and how to debug a failure.
.PHONY: test-vm
test-vm: deps
	tests/vm/run.sh

# --- Debian's own Swift, arm64 ----------------------------------------------------------------------------
# `make test-debian`: built with Debian trixie's swiftlang (6.0.3) against trixie's headers in a trixie root,
# and every Swift test run there, the compositor tests against sway, labwc, phoc and cage as trixie ships
# them (tests/debian/test.sh). `make test-arm64`: the arm64 package (make deb ARCH=arm64) checked: its
# binaries replay every golden recording under qemu-aarch64 byte for byte as the amd64 build does, and it
# installs and runs in an emulated arm64 trixie root (tests/debian/test-arm64.sh). Both install their own
# host packages (mmdebstrap, qemu-user-static) and cache their roots under .build/debian/; docs/testing.md,
# "Debian's Swift", says what they cost.
.PHONY: test-debian test-arm64
test-debian:
	tests/debian/test.sh

test-arm64:
	tests/debian/test-arm64.sh
