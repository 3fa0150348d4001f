import Glibc
import SystemCalls
import Testing

@testable import GestureDaemon

private let screen = UdevInputDevice(
    devnode: "/dev/input/event7", syspath: "/sys/devices/virtual/input/input9/event7", name: "Goodix Capacitive TouchScreen",
    properties: ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"])

private func change(_ action: UdevDeviceChange.Action, _ device: UdevInputDevice = screen) -> UdevDeviceChange {
    UdevDeviceChange(action: action, device: device)
}

private let denied = EvdevError.permissionDenied(
    path: screen.devnode, SystemError(errno: EACCES, operation: "open", path: screen.devnode))

@Suite struct HotplugTrackerTests {
    @Test func opensAWantedDeviceAndClosesItOnRemove() {
        var tracker = HotplugTracker()
        #expect(tracker.handle(change(.add), wanted: true) == .open(screen))
        tracker.opened(screen.devnode)
        #expect(tracker.nodes == [screen.devnode: .open])
        #expect(tracker.handle(change(.change), wanted: true) == .ignore)
        #expect(tracker.handle(change(.remove), wanted: true) == .close(devnode: screen.devnode))
        tracker.closed(screen.devnode)
        #expect(tracker.nodes.isEmpty)
        // Plugged in again: opened again.
        #expect(tracker.handle(change(.add), wanted: true) == .open(screen))
    }

    @Test func ignoresUnwantedDevices() {
        var tracker = HotplugTracker()
        #expect(tracker.handle(change(.add), wanted: false) == .ignore)
        #expect(tracker.handle(change(.change), wanted: false) == .ignore)
        #expect(tracker.handle(change(.remove), wanted: false) == .ignore)
        #expect(tracker.nodes.isEmpty)
    }

    @Test func aDeviceBothEnumeratedAndAnnouncedIsOpenedOnce() {
        var tracker = HotplugTracker()
        #expect(tracker.discovered(screen, wanted: true) == .open(screen))
        tracker.opened(screen.devnode)
        #expect(tracker.handle(change(.add), wanted: true) == .ignore)
    }

    @Test func permissionDeniedOnAddIsRetriedOnChangeAndLoggedOnce() {
        var tracker = HotplugTracker()
        #expect(tracker.handle(change(.add), wanted: true) == .open(screen))
        #expect(tracker.openFailed(screen.devnode, denied) == true)
        #expect(tracker.nodes == [screen.devnode: .waitingForPermission])
        // udevd's rules finish, the group changes: a `change` arrives and the open is retried.
        #expect(tracker.handle(change(.change), wanted: true) == .open(screen))
        #expect(tracker.openFailed(screen.devnode, denied) == false)  // already logged
        #expect(tracker.handle(change(.change), wanted: true) == .open(screen))
        tracker.opened(screen.devnode)
        #expect(tracker.nodes == [screen.devnode: .open])
        // Once it has worked, a later permission failure is news again.
        #expect(tracker.handle(change(.remove), wanted: true) == .close(devnode: screen.devnode))
        tracker.closed(screen.devnode)
        #expect(tracker.handle(change(.add), wanted: true) == .open(screen))
        #expect(tracker.openFailed(screen.devnode, denied) == true)
    }

    @Test func aRemovedWaitingNodeIsForgotten() {
        var tracker = HotplugTracker()
        _ = tracker.handle(change(.add), wanted: true)
        tracker.openFailed(screen.devnode, denied)
        #expect(tracker.handle(change(.remove), wanted: true) == .ignore)
        #expect(tracker.nodes.isEmpty)
    }

    @Test func aRefusedDeviceIsNotRetriedOnChangeButIsOnANewAdd() {
        var tracker = HotplugTracker()
        _ = tracker.handle(change(.add), wanted: true)
        let refusal = EvdevError.unsupported(path: screen.devnode, name: screen.name, reason: .touchpad)
        #expect(tracker.openFailed(screen.devnode, refusal) == true)
        #expect(tracker.handle(change(.change), wanted: true) == .ignore)
        #expect(tracker.handle(change(.add), wanted: true) == .open(screen))
    }

    @Test func aNodeThatVanishedBeforeOpeningIsNotLoggedAsAProblem() {
        var tracker = HotplugTracker()
        _ = tracker.handle(change(.add), wanted: true)
        #expect(tracker.openFailed(screen.devnode, .removed(path: screen.devnode)) == false)
        #expect(tracker.nodes.isEmpty)
        _ = tracker.handle(change(.add), wanted: true)
        let gone = EvdevError.system(SystemError(errno: ENOENT, operation: "open", path: screen.devnode))
        #expect(tracker.openFailed(screen.devnode, gone) == false)
        #expect(tracker.nodes.isEmpty)
    }

    @Test func otherSystemErrorsAreLoggedAndNotRetriedOnChange() {
        var tracker = HotplugTracker()
        _ = tracker.handle(change(.add), wanted: true)
        let busy = EvdevError.system(SystemError(errno: EIO, operation: "libevdev_set_clock_id(CLOCK_MONOTONIC)"))
        #expect(tracker.openFailed(screen.devnode, busy) == true)
        #expect(tracker.nodes == [screen.devnode: .refused])
        #expect(tracker.handle(change(.change), wanted: true) == .ignore)
    }

    @Test func aLateTouchscreenTagOpensOnChange() {
        var tracker = HotplugTracker()
        #expect(tracker.handle(change(.add), wanted: false) == .ignore)
        #expect(tracker.handle(change(.change), wanted: true) == .open(screen))
    }

    @Test func aReadThatFindsTheDeviceGoneClosesItWithoutAUdevEvent() {
        var tracker = HotplugTracker()
        _ = tracker.handle(change(.add), wanted: true)
        tracker.opened(screen.devnode)
        tracker.closed(screen.devnode)  // readAvailable threw .removed
        #expect(tracker.handle(change(.remove), wanted: true) == .ignore)
    }

    @Test func otherActionsAreIgnored() {
        var tracker = HotplugTracker()
        #expect(tracker.handle(change(.other("bind")), wanted: true) == .ignore)
    }
}
