import GestureCore
import GestureProtocol
import SystemCalls
import TouchForwarding

/// The virtual copy a panel in passthrough forwards its touches to: a uinput device
/// (`VirtualTouchscreen`), or in the tests one that records what is written. Made by the panel's source
/// (`InputSource.makeVirtualCopy`).
public protocol PassthroughCopy: AnyObject {
    /// The copy's event node (nil if it could not tell).
    var devnode: String? { get }
    /// The copy's sysfs path (nil if it could not tell).
    var syspath: String? { get }
    /// Writes `events` to the copy at once (one write(2) for a uinput device).
    func write(_ events: [InputEvent]) throws(SystemError)
}

extension VirtualTouchscreen: PassthroughCopy {}

/// A device in passthrough: its touch forwarder and its virtual copy, and its virtual pointer when the
/// configuration asks for one (DevicePointer.swift).
final class Passthrough {
    var forwarder: TouchForwarder
    let copy: any PassthroughCopy
    /// Events for the copy, written once per loop iteration that produced them.
    var writes: [InputEvent] = []
    /// The virtual pointer beside the copy (touch that points); changed only by `DeviceRuntime.refreshPointer`
    /// and `retirePointer`.
    var pointer: PointerState = .none

    init(forwarder: TouchForwarder, copy: any PassthroughCopy) {
        self.forwarder = forwarder
        self.copy = copy
        writes.reserveCapacity(64)
    }

    /// The node clients are told the copy is.
    var virtualPath: String { copy.devnode ?? copy.syspath ?? VirtualTouchscreen.uinputPath }
}

/// Passthrough copies whose panel went (unplugged, passthrough turned off, the daemon stopping), each kept
/// until its time: the kernel hands a device's readers nothing more once it is destroyed, so the copy
/// outlives its last writes (the cancel and lift of what it had down) long enough for the compositor to
/// read them. One for the daemon, shared by every device (a copy outlives its device).
final class RetiringCopies {
    /// How long a copy outlives its panel's passthrough: a compositor reads its input within
    /// milliseconds; this leaves room for a loaded machine.
    static let retirementMicroseconds: Int64 = 250_000

    private var copies: [(copy: any PassthroughCopy, untilMicroseconds: Int64)] = []

    func add(_ copy: any PassthroughCopy, now: Int64) {
        copies.append((copy, now + RetiringCopies.retirementMicroseconds))
    }

    /// How many copies are retiring (for tests).
    var count: Int { copies.count }

    /// When the next copy is due to go (CLOCK_MONOTONIC microseconds).
    var nextMicroseconds: Int64? {
        var earliest: Int64?
        for copy in copies { earliest = min(earliest ?? copy.untilMicroseconds, copy.untilMicroseconds) }
        return earliest
    }

    /// Destroys the copies whose time has come.
    func retire(now: Int64) {
        // Called every turn of the loop: an empty array's removeAll(where:) still makes a new buffer.
        guard copies.contains(where: { $0.untilMicroseconds <= now }) else { return }
        copies.removeAll { $0.untilMicroseconds <= now }
    }

    /// Waits until the last copy's time, then destroys them all (the daemon stops: the loop is over, so
    /// waiting holds up nothing but the exit, and lets the compositor read the cancels first).
    func retireAll() {
        if let last = copies.map(\.untilMicroseconds).max() {
            SystemCall.sleep(microseconds: max(0, last - SystemCall.monotonicMicroseconds()))
        }
        copies.removeAll()
    }
}
