import RecordingFormats
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import GestureCore
import TouchForwarding

/// Issue 28, item 9: a byte order mark before a recording, and slot ranges no kernel makes.
@Suite struct RecordingRobustnessTests {
    static let bom = "\u{FEFF}"

    static var touchscreen: DeviceDescription {
        DeviceDescription(
            name: "Goodix Capacitive TouchScreen", busType: 0x18, vendor: 0x416, product: 0x38f, version: 0x100,
            properties: [INPUT_PROP.direct],
            axes: [
                ABS.mtSlot: AxisInfo(minimum: 0, maximum: 9),
                ABS.mtPositionX: AxisInfo(minimum: 0, maximum: 1079, resolution: 12),
                ABS.mtPositionY: AxisInfo(minimum: 0, maximum: 2339, resolution: 12),
                ABS.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
            ],
            keys: [BTN.touch])
    }

    static let events = [
        InputEvent(timeMicroseconds: 0, type: EV.abs, code: ABS.mtTrackingID, value: 1),
        InputEvent(timeMicroseconds: 0, type: EV.abs, code: ABS.mtPositionX, value: 100),
        InputEvent(timeMicroseconds: 0, type: EV.abs, code: ABS.mtPositionY, value: 200),
        InputEvent(timeMicroseconds: 0, type: EV.syn, code: SYN.report, value: 0),
        InputEvent(timeMicroseconds: 8000, type: EV.abs, code: ABS.mtTrackingID, value: -1),
        InputEvent(timeMicroseconds: 8000, type: EV.syn, code: SYN.report, value: 0),
    ]

    @Test func aByteOrderMarkBeforeALibinputRecordingIsSkipped() throws {
        let text = LibinputRecordTests.libinputText(Self.touchscreen, Self.events)
        #expect(RecordingFormat.of(Self.bom + text) == .libinputRecord)
        let plain = try RecordingParser.parse(text: text, fileName: "r.yml")
        let marked = try RecordingParser.parse(text: Self.bom + text, fileName: "r.yml")
        #expect(marked.device == plain.device)
        #expect(marked.events == plain.events && marked.events.count == Self.events.count)
        // The loader, from a file as an editor saved it.
        let path = "/tmp/gestured-bom-\(getpid()).yml"
        try RecordingFile.write(Self.bom + text, to: path)
        defer { unlink(path) }
        #expect(try RecordingFile.load(path).device.name == "Goodix Capacitive TouchScreen")
    }

    @Test func aByteOrderMarkBeforeAnEvemuRecordingIsSkipped() throws {
        let text = EvemuParserTests.header + "E: 0.000000 0003 0039 1\nE: 0.000000 0000 0000 0\n"
        #expect(RecordingFormat.of(Self.bom + text) == .evemu)
        let marked = try RecordingParser.parse(text: Self.bom + text, fileName: "r.evemu")
        #expect(marked.device?.name == "Test Panel" && marked.events.count == 2)
        // Its first line is still line 1.
        do {
            _ = try RecordingParser.parse(text: Self.bom + "X: nonsense\n", fileName: "r.evemu")
            Issue.record("read a line of nonsense")
        } catch {
            #expect(error.line == 1 && error.message.contains("unknown line type \"X:\""), "\(error)")
        }
    }

    @Test func aUTF16RecordingIsToldToBeConverted() throws {
        let path = "/tmp/gestured-utf16-\(getpid()).evemu"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let bytes: [UInt8] = [0xFF, 0xFE] + Array("N: x\n".utf8).flatMap { [$0, 0] }
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        defer { unlink(path) }
        #expect(throws: RecordingFileError(
            "\(path): is UTF-16 text (it starts with a UTF-16 byte order mark); recordings are UTF-8, as evemu-record "
                + "and libinput record write them: convert it with iconv -f UTF-16 -t UTF-8")) {
            try RecordingFile.load(path)
        }
    }

    @Test func aSlotRangePastTheCapIsCappedWithAWarningNamingTheDevice() throws {
        var device = Self.touchscreen
        device.axes[ABS.mtSlot] = AxisInfo(minimum: 0, maximum: Int32.max)
        #expect(device.slotAxis == .capped(declared: 2_147_483_648))
        #expect(device.touchProtocol == .multitouchSlots(slotCount: FrameAssembler.maximumSlots))
        let engine = try GestureEngine(device: device)
        #expect(
            engine.deviceWarnings.map(\.message) == [
                "Goodix Capacitive TouchScreen declares 2147483648 slots (ABS_MT_SLOT 0...2147483647); gestured follows "
                    + "the first 256, and touches in the others are ignored"
            ])
        // The passthrough copy declares the slots followed, not 2^31 of them.
        #expect(TouchForwarder.virtualDescription(of: device).axes[ABS.mtSlot] == AxisInfo(minimum: 0, maximum: 255))
        // 256 itself is no warning.
        device.axes[ABS.mtSlot] = AxisInfo(minimum: 0, maximum: 255)
        #expect(device.slotAxis == .slots(256))
        #expect(try GestureEngine(device: device).deviceWarnings.isEmpty)
    }

    @Test(arguments: [(Int32(-5), Int32(-1)), (-1, 9), (1, 10), (Int32.min, Int32.max)])
    func aSlotRangeThatDoesNotStartAtZeroIsRefusedNamingTheDevice(minimum: Int32, maximum: Int32) {
        var device = Self.touchscreen
        device.axes[ABS.mtSlot] = AxisInfo(minimum: minimum, maximum: maximum)
        #expect(device.slotAxis == .nonsense(minimum: minimum, maximum: maximum))
        #expect(device.touchProtocol == .unusable)
        #expect(throws: UnsupportedDeviceError(
            deviceName: "Goodix Capacitive TouchScreen",
            reason: "its ABS_MT_SLOT axis has the range \(minimum)...\(maximum), but the kernel numbers slots 0 to N-1 "
                + "(ABS_MT_SLOT 0...N-1); the device description is broken")) {
            try GestureEngine(device: device)
        }
    }

    /// A recording that says so, replayed: the device is refused, or followed on 256 slots with a warning.
    @Test func recordingsWithNonsenseSlotRangesReplayAsSaid() throws {
        var capped = Self.touchscreen
        capped.axes[ABS.mtSlot] = AxisInfo(minimum: 0, maximum: Int32.max)
        let text = LibinputRecordTests.libinputText(capped, Self.events)
        let recording = try RecordingParser.parse(text: text, fileName: "capped.yml")
        #expect(recording.device?.touchProtocol == .multitouchSlots(slotCount: 256))
        var negative = Self.touchscreen
        negative.axes[ABS.mtSlot] = AxisInfo(minimum: -5, maximum: -1)
        let refused = try RecordingParser.parse(text: LibinputRecordTests.libinputText(negative, Self.events), fileName: "neg.yml")
        #expect(throws: UnsupportedDeviceError.self) { try GestureEngine(device: refused.device!) }
    }
}
