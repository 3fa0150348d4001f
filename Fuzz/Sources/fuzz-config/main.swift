// The configuration loader end to end: the file read (Configuration.load, from an unlinked temporary file, so any bytes
// reach the parser as they would from disk), GestureConfig's TOML parser (TOMLParser), the decoder's validation, and a
// loaded configuration resolved for a few devices. A file is either loaded or refused with a diagnostic.
import FuzzSupport
import GestureConfig
import GestureCore
import GestureVocabulary

#if canImport(Glibc)
import Glibc
#endif

/// An unlinked temporary file, reached by its /proc/self/fd path.
let memoryFile: Int32 = {
    var template = Array("\(getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp")/fuzz-config-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    if fd < 0 { printError("fuzz-config: mkstemp: \(String(cString: strerror(errno)))\n"); exit(1) }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return fd
}()
let memoryFilePath = "/proc/self/fd/\(memoryFile)"

let devices: [DeviceDescription] = [
    DeviceDescription(
        name: "Goodix Capacitive TouchScreen", busType: 0x18, vendor: 0x0416, product: 0x038f,
        properties: [INPUT_PROP.direct],
        axes: [ABS.mtPositionX: AxisInfo(minimum: 0, maximum: 719), ABS.mtPositionY: AxisInfo(minimum: 0, maximum: 1439),
               ABS.mtSlot: AxisInfo(minimum: 0, maximum: 9)]),
    DeviceDescription(
        name: "Wacom ISDv4 E6 Finger", busType: 3, vendor: 0x056a, product: 0x00e6, properties: [INPUT_PROP.direct],
        axes: [ABS.x: AxisInfo(minimum: 0, maximum: 2776, resolution: 10), ABS.y: AxisInfo(minimum: 0, maximum: 1569, resolution: 10)]),
]

runFuzzer(name: "fuzz-config") { bytes in
    fuzzCount("files")
    guard ftruncate(memoryFile, 0) == 0, pwrite(memoryFile, bytes.baseAddress, bytes.count, 0) == bytes.count else {
        fuzzCheck(false, "cannot write the memory file: \(String(cString: strerror(errno)))")
        return
    }
    do throws(ConfigError) {
        let configuration = try Configuration.load(path: memoryFilePath)
        fuzzCount("accepted")
        for device in devices {
            _ = configuration.resolve(for: device, path: "/dev/input/event3")
        }
        _ = configuration.checkConfigSummary()
    } catch {
        fuzzCheck(!error.diagnostics.isEmpty, "a refused configuration with no diagnostic")
        fuzzCount("refused")
    }
}
