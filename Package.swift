// swift-tools-version:6.0
// gestured: a Linux touchscreen gesture daemon. No package dependencies: C libraries come from Debian.
import PackageDescription

let package = Package(
    name: "gestured",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "gestured", targets: ["gestured"]),
        .executable(name: "gesturectl", targets: ["gesturectl"]),
        .library(name: "GestureClient", targets: ["GestureClient"]),
        .library(name: "GestureVocabulary", targets: ["GestureVocabulary"]),
        .library(name: "GestureCore", targets: ["GestureCore"]),
    ],
    targets: [
        // System libraries (Debian -dev packages, found through pkg-config).
        .systemLibrary(name: "CLibevdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CLibudev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        // Linux headers Glibc's module lacks (epoll, timerfd, signalfd); no library to link.
        .systemLibrary(name: "CLinux"),
        // libxkbcommon: keysym names and the virtual keyboard's keymap (gesturectl only).
        .systemLibrary(name: "CXkbCommon", pkgConfig: "xkbcommon", providers: [.apt(["libxkbcommon-dev"])]),
        // libwayland-client and the client code wayland-scanner generated from protocols/*.xml
        // (tools/wayland-protocols.sh): gesturectl's side of the compositor, never the daemon's.
        .target(name: "CWaylandProtocols", linkerSettings: [.linkedLibrary("wayland-client")]),

        // The system calls every program here makes, wrapped once: errno carried, EINTR retried in one place.
        .target(name: "SystemCalls", dependencies: ["CLinux"]),
        // How text is read and written, no dependencies: the one decimal scanner of every parser (recordings,
        // JSON, TOML), numbers written for people, values from outside escaped for messages.
        .target(name: "PlainText"),
        // The one reader of every program's command line (gestured, gesturectl, the bench and soak tools).
        .target(name: "CommandLineArguments"),

        // The words the daemon and its clients share: gesture events, kinds, phases, edges, directions.
        // Double.squareRoot() becomes a call to libm's sqrt in unoptimized builds: a client that links this
        // library alone (no other module brings libm in) needs it named.
        .target(name: "GestureVocabulary", dependencies: ["PlainText"], linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        // Pure Swift: evdev events -> touch frames -> recognizers -> gesture events. No I/O, no clock, no
        // Glibc (not even libm).
        .target(name: "GestureCore", dependencies: ["GestureVocabulary", "PlainText"]),
        // The recording formats: evemu's and `libinput record`'s parsers (told apart by content), the evemu
        // writer, and reading a recording and its device description from files, with one size limit.
        .target(name: "RecordingFormats", dependencies: ["GestureCore", "GestureVocabulary", "PlainText", "SystemCalls"]),
        // Passthrough's touch ownership: the forwarder that turns a panel's events and the recognizer's touch
        // decisions into what its virtual copy receives, and the replay of a recording through it.
        .target(name: "TouchForwarding", dependencies: ["GestureCore", "GestureVocabulary", "PlainText"]),
        // Wire messages and their JSON-lines encoding, shared by the daemon and its clients; needs the
        // vocabulary, not the recognizer.
        .target(name: "GestureProtocol", dependencies: ["GestureVocabulary", "PlainText"]),
        // TOML (our own TOML 1.0 parser, pure Swift) -> typed, validated configuration.
        .target(
            name: "GestureConfig", dependencies: ["GestureCore", "GestureVocabulary", "GestureProtocol", "SystemCalls", "PlainText"]),
        // `gesturectl bind`'s bindings file (read with GestureConfig's TOML reader and messages) and the
        // matcher that turns the daemon's events into firings; key chords for `keys`. The daemon does not
        // link it.
        .target(
            name: "GestureBindings", dependencies: ["GestureConfig", "GestureVocabulary", "GestureProtocol", "PlainText"]),
        // Adapters: evdev devices, udev discovery, the epoll loop, the socket server, signals, sd_notify
        // (spoken directly, without libsystemd: SdNotify.swift).
        .target(
            name: "GestureDaemon",
            dependencies: [
                "GestureVocabulary", "GestureCore", "GestureProtocol", "GestureConfig", "SystemCalls", "RecordingFormats", "TouchForwarding", "PlainText",
                "CLibevdev",
                "CLibudev", "CLinux",
            ],
            // The loop runs on one thread and every build the tests run (debug, sanitizers) keeps the run-time
            // exclusivity checks; the release daemon leaves them out: one per access to a class property on
            // the hot path, about a tenth of a frame's instructions (docs/architecture.md, "What a frame costs").
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
        ),
        // The compositor connection of `gesturectl` (one module owns it): outputs and their transforms, the
        // focused app (wlr-foreign-toplevel-management), keys typed through zwp_virtual_keyboard_v1 with a
        // keymap compiled by libxkbcommon. Driven from the caller's poll loop; no thread.
        .target(
            name: "WaylandSession", dependencies: ["CWaylandProtocols", "CXkbCommon", "GestureBindings", "GestureProtocol", "SystemCalls"]),
        // Client library for Swift programs that subscribe to gestures.
        .target(name: "GestureClient", dependencies: ["GestureVocabulary", "GestureProtocol", "SystemCalls"]),

        // Linked by lld with the code the daemon runs at start, idle and replaying laid out first
        // (link-order.txt, made by `make link-order`), and its relative relocations packed (DT_RELR,
        // glibc 2.36): fewer of the binary's pages resident (docs/architecture.md, "Memory").
        .executableTarget(
            name: "gestured", dependencies: ["GestureDaemon", "GestureConfig", "GestureProtocol", "CommandLineArguments"],
            exclude: ["link-order.txt"],
            linkerSettings: [
                .unsafeFlags([
                    "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                    "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/gestured/link-order.txt",
                    "-Xlinker", "--no-warn-symbol-ordering",
                    "-Xlinker", "--no-export-dynamic",
                ])
            ]),
        .executableTarget(
            name: "gesturectl",
            dependencies: [
                "GestureVocabulary", "GestureCore", "GestureProtocol", "GestureConfig", "GestureBindings", "GestureClient",
                "SystemCalls", "RecordingFormats", "TouchForwarding", "WaylandSession", "CommandLineArguments", "PlainText", "CLinux",
            ],
            // Linked by lld, as gestured is: with Debian trixie's Swift 6.0.3 the default linker (gold) left
            // gesturectl without its RELRO segment in spite of `-z relro` (lintian: hardening-no-relro).
            linkerSettings: [.unsafeFlags(["-use-ld=lld"])]
        ),
        // A small Wayland client for the tests: a window with a given app_id that prints the keys it
        // receives, decoded with the keymap the compositor sends (Tests/IntegrationTests/WaylandTests.swift).
        .executableTarget(name: "wayland-test-client", dependencies: ["CWaylandProtocols", "CXkbCommon"]),
        .executableTarget(name: "gestured-bench", dependencies: ["GestureCore", "RecordingFormats", "CommandLineArguments"]),
        // The TOML parser's trees as tagged JSON (TOMLTaggedJSON, here: only this tool and the TOML tests use
        // it), the request parser's trees and decoded requests, and the number writer's texts, for the
        // differential checks against Python's tomllib, json and decimal (tools/toml-differential.py,
        // tools/json-differential.py).
        .executableTarget(name: "conformance-dump", dependencies: ["GestureConfig", "GestureProtocol"]),
        // Starting a real gestured and talking to it from outside (the socket bench and the soak).
        .target(name: "DaemonUnderTest"),
        // Events per second through the daemon's socket, and the idle daemon's memory (`make bench-socket`).
        .executableTarget(
            name: "gestured-socket-bench",
            dependencies: ["GestureCore", "GestureProtocol", "RecordingFormats", "DaemonUnderTest", "CommandLineArguments"]),
        // The daemon under a long, busy load: 64 clients, looping replays, SIGHUPs (`make soak`).
        .executableTarget(
            name: "gestured-soak",
            dependencies: [
                "GestureVocabulary", "GestureCore", "GestureProtocol", "RecordingFormats", "DaemonUnderTest", "CommandLineArguments",
            ]),

        .testTarget(
            name: "GestureCoreTests", dependencies: ["GestureVocabulary", "GestureCore", "GestureProtocol", "RecordingFormats", "TouchForwarding", "PlainText"]),
        // A gesture kind added by a rule written against GestureCore's public API alone (no @testable):
        // docs/architecture.md, "Adding a gesture kind".
        .testTarget(name: "GestureRuleTests", dependencies: ["GestureVocabulary", "GestureCore", "GestureProtocol", "GestureBindings", "GestureConfig"]),
        .testTarget(name: "WaylandSessionTests", dependencies: ["WaylandSession", "GestureBindings", "GestureProtocol"]),
        .testTarget(name: "GestureProtocolTests", dependencies: ["GestureVocabulary", "GestureProtocol"]),
        .testTarget(
            name: "GestureConfigTests", dependencies: ["GestureVocabulary", "GestureConfig", "GestureCore", "GestureProtocol", "conformance-dump"]),
        .testTarget(name: "GestureBindingsTests", dependencies: ["GestureVocabulary", "GestureCore", "GestureBindings", "GestureConfig", "GestureProtocol", "PlainText"]),
        .testTarget(
            name: "GestureDaemonTests",
            dependencies: [
                "GestureVocabulary", "GestureDaemon", "GestureCore", "GestureProtocol", "GestureConfig", "SystemCalls", "RecordingFormats",
                "CommandLineArguments", "CLibevdev", "CLinux", "TouchForwarding",
            ]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "GestureVocabulary", "GestureClient", "GestureProtocol", "GestureCore", "GestureBindings", "RecordingFormats",
                "DaemonUnderTest",
            ]),
    ]
)

// Coverage-guided fuzz targets (libFuzzer), only when GESTURED_FUZZ=1: they link libFuzzer, which only the
// fuzzer build flags bring in, so a plain `swift build` must not see them. `make fuzz` builds and runs them
// (docs/testing.md, "Fuzzing").
if Context.environment["GESTURED_FUZZ"] == "1" {
    package.targets += [
        // LLVMFuzzerRunDriver, libFuzzer's entry point for a program with its own main.
        .target(name: "CFuzzer", path: "Fuzz/Sources/CFuzzer"),
        // The driver, the engine harness and the invariants every gesture stream keeps.
        .target(name: "FuzzSupport", dependencies: ["CFuzzer", "GestureCore", "GestureVocabulary", "RecordingFormats", "TouchForwarding"], path: "Fuzz/Sources/FuzzSupport"),
        .executableTarget(name: "fuzz-evemu", dependencies: ["FuzzSupport", "GestureCore", "GestureVocabulary", "RecordingFormats"], path: "Fuzz/Sources/fuzz-evemu"),
        .executableTarget(
            name: "fuzz-request", dependencies: ["FuzzSupport", "GestureProtocol", "GestureCore", "GestureVocabulary"],
            path: "Fuzz/Sources/fuzz-request"),
        .executableTarget(
            name: "fuzz-config", dependencies: ["FuzzSupport", "GestureConfig", "GestureCore", "GestureVocabulary"],
            path: "Fuzz/Sources/fuzz-config"),
        .executableTarget(name: "fuzz-engine", dependencies: ["FuzzSupport", "GestureCore", "GestureVocabulary", "TouchForwarding"], path: "Fuzz/Sources/fuzz-engine"),
    ]
}
