# gestured — build, test, benchmark and demo. `make demo` and `make test` work alone on a fresh Debian
# machine: both install the Debian packages they need first (`make deps`).
SWIFT      ?= swift
PREFIX     ?= /usr/local
DESTDIR    ?=
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Debian packages the build and the tests need.
DEB_PACKAGES := pkg-config libevdev-dev libudev-dev libsystemd-dev libtomlplusplus-dev evemu-tools socat

.PHONY: deps build release test bench demo clean

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed$$' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: deps
	$(SWIFT) build -c release --product gestured-bench
	$$($(SWIFT) build -c release --show-bin-path)/gestured-bench Tests/Fixtures

demo: deps
	$(SWIFT) build --product gesturectl
	@bin=$$($(SWIFT) build --show-bin-path); \
	for r in Tests/Fixtures/demo/*.events; do \
	  echo "== $$r"; $$bin/gesturectl replay --device "$${r%%.*}.desc" --pretty "$$r"; \
	done

clean:
	rm -rf .build
