import GestureCore
import GestureProtocol
import SystemCalls

extension Daemon: SessionHost {
    /// The `orientation` request: turns the screen of the devices `device` names (id, name or vvvv:pppp),
    /// or of every device, on top of their configured geometry. For each device whose orientation changes,
    /// gestures in flight are cancelled (recognition restarts once the fingers now down have lifted), edges
    /// and directions follow at once, and subscribed clients get `device-changed`. A device already in that
    /// orientation is left alone. The orientation lasts while the device stays open: a reload keeps it; a
    /// device added (plugged in again, or after a restart) starts at 0, as the compositor sets the display's
    /// orientation again then (docs/protocol.md).
    public func setOrientation(
        _ orientation: DeviceOrientation, device: String?, requestedBy session: ClientSession
    ) -> Result<[DeviceInfo], ProtocolError> {
        let named = devices.filter { slot in device.map(slot.info.isNamed(by:)) ?? true }
        if let device, named.isEmpty {
            let known = devices.map { "\($0.info.id) \"\($0.info.name)\"" }
            return .failure(
                ProtocolError(
                    .unknownDevice,
                    "no device has the id, name or vendor:product \"\(device)\"; the daemon reads "
                        + (known.isEmpty ? "no devices" : known.joined(separator: ", "))))
        }
        let now = SystemCall.monotonicMicroseconds()
        for slot in named where slot.info.orientation != orientation {
            let previous = slot.info.orientation
            slot.info.orientation = orientation
            let time = slot.source.eventMicroseconds(forMonotonic: now)
            let geometry = slot.effectiveGeometry
            // The engine's own settings: with passthrough they withhold touches, which the file's do not say.
            runEngine(slot, at: time) {
                $0.reconfigure(settings: $0.settings, geometry: geometry, atMicroseconds: time, into: &$1, touches: &$2)
            }
            Log.info("\(slot.info.id): orientation \(orientation.rawValue) (was \(previous.rawValue)), set by \(session.label)")
            notifyClients(.deviceChanged(slot.info), about: slot.info)
        }
        return .success(named.map(\.info))
    }
}
