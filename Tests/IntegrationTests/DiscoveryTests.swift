import Foundation
import Testing

/// The real daemon looking for touchscreens on this machine through udev (issue 25, item 11): with none
/// found, its log says what it looked at and why nothing matched, before `ready`. What it must say follows
/// from what this machine has, looked at here independently of udev: /dev/input and the kernel's event
/// devices in /sys/class/input (the build machine has neither; the QEMU guest has both, and its check is
/// tests/vm/guest/tests/22-discovery.sh).
@Suite struct DiscoveryTests {
    @Test func withNoTouchscreenTheLogSaysWhatWasLookedAtAndWhy() throws {
        let daemon = try Daemon([], udev: true)
        try daemon.waitForLog(" ready: ")
        let log = daemon.log
        let kernelEvents = ((try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/input")) ?? []).filter { $0.hasPrefix("event") }
        let devInput = FileManager.default.fileExists(atPath: "/dev/input")
        if log.contains(" added: ") {
            // A machine with a touchscreen gestured can read: nothing to explain.
            #expect(!log.contains("no touchscreen found"), "\(log)")
            return
        }
        let headline = try #require(log.split(separator: "\n").first { $0.contains("no touchscreen found") }, "\(log)")
        #expect(headline.hasPrefix("<5>"), "at notice, which the default level shows: \(headline)")
        if !devInput {
            #expect(headline.contains("there is no /dev/input"), "\(headline)")
            #expect(headline.contains(kernelEvents.isEmpty ? "the kernel has no input event devices" : "though the kernel has \(kernelEvents.count) input event device"))
        } else if kernelEvents.isEmpty {
            #expect(headline.contains("the kernel has no input event devices (/sys/class/input)"), "\(headline)")
        } else {
            // Every event device the kernel lists is accounted for, by its node (at most 20 of them).
            for event in kernelEvents.sorted().prefix(20) where FileManager.default.fileExists(atPath: "/dev/input/" + event) {
                #expect(log.contains("  /dev/input/\(event) \""), "/dev/input/\(event) missing from\n\(log)")
            }
        }
        // Said before ready, once.
        let ready = try #require(log.range(of: " ready: 0 devices"))
        #expect(log.range(of: "no touchscreen found")!.lowerBound < ready.lowerBound)
        #expect(log.ranges(of: "no touchscreen found").count == 1)
        #expect(try daemon.terminate() == 0)
    }

    /// With --no-udev the daemon was told not to look: it says nothing about touchscreens.
    @Test func withoutUdevNothingIsSaid() throws {
        let daemon = try Daemon([])
        try daemon.waitForLog(" ready: ")
        #expect(!daemon.log.contains("no touchscreen found"))
        #expect(try daemon.terminate() == 0)
    }
}
