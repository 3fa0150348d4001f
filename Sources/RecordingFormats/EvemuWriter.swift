import GestureCore
import GestureVocabulary

/// Writes an evemu recording (the format `evemu-record` writes and `EvemuParser` reads): the device header,
/// then one `E:` line per event. `gesturectl replay --forward` writes what a passthrough's virtual device
/// would receive with it.
public enum EvemuWriter {
    /// The header of `device` (N:, I:, P:, B:, A: lines), declaring also the event types and codes that
    /// `events` use beyond the description (MSC_TIMESTAMP and the like), then the events.
    public static func text(device: DeviceDescription, events: [InputEvent]) -> String {
        var out = "# EVEMU 1.3\n"
        out += "# Written by gestured (gesturectl replay --forward)\n"
        out += "N: \(device.name)\n"
        out += "I: \(hex(device.busType, 4)) \(hex(device.vendor, 4)) \(hex(device.product, 4)) \(hex(device.version, 4))\n"
        var properties = [UInt8](repeating: 0, count: 8)
        for p in device.properties where p >= 0 && p < 64 { properties[p / 8] |= 1 << (p % 8) }
        out += byteLines("P:", properties)
        // Event codes per type: what the description declares plus what the events use.
        var codes: [UInt16: Set<UInt16>] = [EV.syn: [SYN.report, SYN.config, SYN.dropped]]
        if !device.keys.isEmpty { codes[EV.key] = device.keys }
        if !device.axes.isEmpty { codes[EV.abs] = Set(device.axes.keys) }
        for e in events where e.type != EV.syn { codes[e.type, default: []].insert(e.code) }
        var types = [UInt8](repeating: 0, count: 8)
        for type in codes.keys where type < 32 { types[Int(type) / 8] |= 1 << (type % 8) }
        out += byteLines("B: 00", types)
        for type in codes.keys.sorted() where type != EV.syn && type < 32 {
            let set = codes[type]!
            let highest = Int(set.max() ?? 0)
            var bits = [UInt8](repeating: 0, count: max(8, (highest / 64 + 1) * 8))
            for code in set { bits[Int(code) / 8] |= 1 << (code % 8) }
            out += byteLines("B: \(hex(type, 2))", bits)
        }
        for (code, axis) in device.axes.sorted(by: { $0.key < $1.key }) {
            out += "A: \(hex(code, 2)) \(axis.minimum) \(axis.maximum) \(axis.fuzz) \(axis.flat) \(axis.resolution)\n"
        }
        for e in events {
            let seconds = e.timeMicroseconds / 1_000_000
            let micros = e.timeMicroseconds % 1_000_000
            let fraction = String(micros)
            out += "E: \(seconds).\(String(repeating: "0", count: 6 - fraction.count))\(fraction) "
                + "\(hex(e.type, 4)) \(hex(e.code, 4)) \(e.value)\n"
        }
        return out
    }

    private static func hex<T: BinaryInteger>(_ value: T, _ width: Int) -> String {
        let s = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// `prefix` followed by `bytes` in hex, eight to a line (as evemu writes them).
    private static func byteLines(_ prefix: String, _ bytes: [UInt8]) -> String {
        var out = ""
        var i = 0
        while i < bytes.count {
            let chunk = bytes[i..<min(i + 8, bytes.count)]
            out += prefix + " " + chunk.map { hex($0, 2) }.joined(separator: " ") + "\n"
            i += 8
        }
        return out
    }
}
