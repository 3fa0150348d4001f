import GestureCore
import GestureVocabulary

#if canImport(Glibc)
import Glibc
import RecordingFormats
#endif

/// Reads a whole file; nil (and a message on stderr) when it cannot.
public func readFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else {
        printError("\(path): \(String(cString: strerror(errno)))\n")
        return nil
    }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&chunk, 1, chunk.count, f)
        if n == 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return bytes
}

/// Writes `bytes` to `path`; false (and a message) on failure.
public func writeFile(_ path: String, _ bytes: [UInt8]) -> Bool {
    guard let f = fopen(path, "wb") else {
        printError("\(path): \(String(cString: strerror(errno)))\n")
        return false
    }
    defer { fclose(f) }
    return fwrite(bytes, 1, bytes.count, f) == bytes.count
}

/// `fuzz-engine --seed OUT_DIR RECORDING...`: each recording (a whole evemu file, or "DESC:EVENTS" for a
/// description and events apart) becomes one engine-stream input in OUT_DIR. Returns the exit status.
public func seedEngineCorpus(_ arguments: [String]) -> Int32 {
    guard let dir = arguments.first else {
        printError("usage: fuzz-engine --seed OUT_DIR RECORDING|DESC:EVENTS...\n")
        return 2
    }
    var written = 0
    for argument in arguments.dropFirst() {
        let parts = argument.split(separator: ":", maxSplits: 1).map(String.init)
        var text = ""
        for part in parts {
            guard let bytes = readFile(part) else { return 1 }
            text += String(decoding: bytes, as: UTF8.self) + "\n"
        }
        let recording: EvemuRecording
        do {
            recording = try EvemuParser.parse(text: text, fileName: argument)
        } catch {
            printError("\(error)\n")
            return 1
        }
        guard let device = recording.device,
            let bytes = EngineStream.encode(device: device, events: recording.events)
        else {
            printError("\(argument): no usable device description; skipped\n")
            continue
        }
        let name = parts.last!.split(separator: "/").last.map(String.init) ?? "seed"
        guard writeFile("\(dir)/\(name).stream", bytes) else { return 1 }
        written += 1
    }
    printError("fuzz-engine: \(written) seed streams written to \(dir)\n")
    return 0
}

/// `fuzz-engine --print INPUT`: the device, geometry and settings an input decodes to, its operations (an
/// evemu-like listing), then the gesture events, so a crash can be read and turned into a test.
public func printEngineStream(_ path: String) -> Int32 {
    guard let bytes = readFile(path) else { return 1 }
    let stream = bytes.withUnsafeBytes { EngineStream(bytes: $0) }
    var text = "device: \(stream.device.touchProtocol)\n"
    for (code, axis) in stream.device.axes.sorted(by: { $0.key < $1.key }) {
        text += "  axis 0x\(String(code, radix: 16)): \(axis.minimum)...\(axis.maximum) resolution \(axis.resolution)\n"
    }
    text += "geometry: \(stream.geometry)\nsettings: \(stream.settings)\n"
    var now = stream.startMicroseconds
    for op in stream.operations {
        switch op {
        case .event(let type, let code, let value):
            text += "E: \(now / 1_000_000).\(String(now % 1_000_000).leftPadded(6)) \(type) \(code) \(value)\n"
        case .wait(let us):
            let (later, overflow) = now.addingReportingOverflow(us)
            now = overflow ? (us > 0 ? .max : .min) : later
        default:
            text += "\(op) at \(now)\n"
        }
    }
    text += "gestures:\n"
    for g in runEngine(stream) ?? [] { text += "  \(g)\n" }
    printError(text)
    return 0
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
