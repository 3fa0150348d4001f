// swift-tools-version:6.0
// devprobe: the daemon's device adapters (Sources/GestureDaemon/Evdev*.swift, Udev*.swift, SystemCalls.swift,
// and GestureCore, through symlinks) in a small program, so they can be checked on a real kernel in the QEMU
// guest before and apart from the daemon. Built and run by ../probe.sh; not part of the product.
import PackageDescription

let package = Package(
    name: "devprobe",
    targets: [
        .systemLibrary(name: "CLibevdev", pkgConfig: "libevdev"),
        .systemLibrary(name: "CLibudev", pkgConfig: "libudev"),
        .target(name: "GestureCore", linkerSettings: [.linkedLibrary("m")]),
        .target(name: "Devices", dependencies: ["GestureCore", "CLibevdev", "CLibudev"]),
        .executableTarget(
            name: "devprobe", dependencies: ["Devices", "GestureCore"],
            swiftSettings: [.swiftLanguageMode(.v5)]),
    ]
)
