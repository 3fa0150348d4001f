import GestureVocabulary
import RecordingFormats
import Testing

@testable import GestureCore

/// Real recordings (Tests/Fixtures/recordings, see its README for origin and licence), each asserting
/// what a person watching the finger paths (drawn with `gesturectl plot`) says it shows. Panels
/// without axis resolution run at the assumed size, as they would in the daemon with no configuration.
@Suite struct RecordingGoldenTests {
    static let fixtures: String = {
        // Tests/GestureCoreTests/RecordingGoldenTests.swift -> Tests/Fixtures/recordings
        var path = #filePath
        for _ in 0..<2 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path + "/Fixtures/recordings/"
    }()

    /// Replays `events` (with the device from `desc`, or from the events file itself).
    static func replay(
        _ events: String, desc: String? = nil, settings: RecognizerSettings = RecognizerSettings()
    ) throws -> [GestureEvent] {
        let recording = try RecordingFile.load(fixtures + events, description: desc.map { fixtures + $0 })
        let result = try RecordingReplay.gestures(of: recording.events, device: recording.device, settings: settings)
        checkWellFormed(result.gestures)
        return result.gestures
    }

    /// Every gesture is begin, updates, then exactly one end or cancel; gestures do not overlap; ids grow.
    static func checkWellFormed(_ events: [GestureEvent], sourceLocation: SourceLocation = #_sourceLocation) {
        var open: UInt64?
        var lastID: UInt64 = 0
        for e in events {
            switch e.phase {
            case .begin:
                #expect(open == nil, "gesture \(e.id) begins while \(open ?? 0) is open", sourceLocation: sourceLocation)
                #expect(e.id > lastID, sourceLocation: sourceLocation)
                open = e.id
                lastID = e.id
            case .update:
                #expect(open == e.id, sourceLocation: sourceLocation)
            case .end, .cancel:
                #expect(open == e.id, sourceLocation: sourceLocation)
                #expect((e.phase == .end) == (e.committed != nil), sourceLocation: sourceLocation)
                open = nil
            }
        }
        #expect(open == nil, "a gesture was left open", sourceLocation: sourceLocation)
    }

    /// The gestures that completed: "kind fingers detail" for each `end` with committed = true.
    static func committed(_ events: [GestureEvent]) -> [String] {
        events.filter { $0.phase == .end && $0.committed == true }.map(describe)
    }

    static func describe(_ e: GestureEvent) -> String {
        var s = "\(e.kind.rawValue) \(e.fingers)"
        if let edge = e.edge { s += " from \(edge.rawValue)" }
        if e.kind == .pan { s += " \(e.direction?.rawValue ?? "off-axis")" }
        return s
    }

    // MARK: Wacom ISDv4 E6 (0..2776 × 0..1569, no resolution: assumed 305 × 172 mm)

    @Test func oneFingerSwipeRightAlongTheTop() throws {
        let events = try Self.replay("Wacom_ISDv4_E6_Finger.single-top-swipe.events", desc: "Wacom_ISDv4_E6_Finger.desc")
        #expect(Self.committed(events) == ["pan 1 right"])
        #expect(events.ends.count == 1)
        #expect(events.last!.translation.x > 0.85)
    }

    @Test func sameSwipeIsALeftEdgeSwipeWithAWiderZone() throws {
        // It lands 16 mm from the left edge (at the assumed size): a 20 mm zone makes it an edge swipe.
        var settings = RecognizerSettings()
        settings.edgeZones[.left] = EdgeZone(enabled: true, widthMM: 20)
        let events = try Self.replay(
            "Wacom_ISDv4_E6_Finger.single-top-swipe.events", desc: "Wacom_ISDv4_E6_Finger.desc", settings: settings)
        #expect(Self.committed(events) == ["edge-swipe 1 from left"])
        #expect(events.last!.progress! > 0.85)
        #expect(!events.contains { $0.kind == .pan })
    }

    @Test func twoFingerSwipeRightAlongTheTop() throws {
        let events = try Self.replay("Wacom_ISDv4_E6_Finger.double-top-swipe.events", desc: "Wacom_ISDv4_E6_Finger.desc")
        #expect(Self.committed(events) == ["pan 2 right"])
        #expect(events.ends.count == 1)
    }

    @Test func oneAndTwoFingerScrollDown() throws {
        let one = try Self.replay("Wacom_ISDv4_E6_Finger.single-center-scroll.events", desc: "Wacom_ISDv4_E6_Finger.desc")
        #expect(Self.committed(one) == ["pan 1 down"])
        #expect(one.ends.count == 1)
        let two = try Self.replay("Wacom_ISDv4_E6_Finger.double-center-scroll.events", desc: "Wacom_ISDv4_E6_Finger.desc")
        #expect(Self.committed(two) == ["pan 2 down"])
        #expect(two.ends.count == 1)
    }

    /// Real taps: one finger, and two fingers (the "double tap" recording holds one two-finger tap: two
    /// tracking ids, landing and lifting together).
    @Test(arguments: [
        ("Wacom_ISDv4_E6_Finger.single-tap-center.events", 1), ("Wacom_ISDv4_E6_Finger.2fg-tap.events", 2),
        ("Wacom_ISDv4_E6_Finger.2fg-double-tap.events", 2),
    ])
    func tapsAreTaps(file: String, fingers: Int) throws {
        let events = try Self.replay(file, desc: "Wacom_ISDv4_E6_Finger.desc")
        #expect(events.phases == ["tap:begin", "tap:end"])
        #expect(events.allSatisfy { $0.fingers == fingers && $0.taps == 1 })
        #expect(events.last?.committed == true)
        // The end waits the multi-tap interval for a second tap that never came.
        #expect(events[1].timeMicroseconds - events[0].timeMicroseconds == 300_000)
    }

    @Test func twoFingersCirclingTogetherAreAPanNotAPinch() throws {
        let events = try Self.replay("Wacom_ISDv4_E6_Finger.double-center-circle.events", desc: "Wacom_ISDv4_E6_Finger.desc")
        #expect(Set(events.map(\.kind)) == [.pan])
        #expect(events.allSatisfy { $0.fingers == 2 })
        #expect(events.ends.count == 1)
    }

    @Test func oneFingerCircleEndsWhereItStartedAndDoesNotCommit() throws {
        let events = try Self.replay("Wacom_ISDv4_E6_Finger.single-center-circle.events", desc: "Wacom_ISDv4_E6_Finger.desc")
        #expect(events.ends.count == 1)
        let end = events.last!
        #expect(end.kind == .pan && end.fingers == 1 && end.phase == .end)
        #expect(end.committed == false)
        // On the way round it went well away from the start.
        #expect(events.map(\.translationMM.length).max()! > 40)
    }

    // MARK: EP0430M09 (0..1279 × 0..767, no resolution)

    @Test func twoFingersMovingUp() throws {
        // Named "scroll down" after what the content does; the fingers move up the screen.
        let events = try Self.replay("EP0430M09.2-finger-scroll-down.events", desc: "EP0430M09.desc")
        #expect(Self.committed(events) == ["pan 2 up"])
        #expect(events.ends.count == 1)
    }

    @Test func fourFingersMovingUp() throws {
        let events = try Self.replay("EP0430M09.4-finger-drag-down.events", desc: "EP0430M09.desc")
        #expect(Self.committed(events) == ["pan 4 up"])
    }

    /// Two fingers resting half a second and lifting: a two-finger hold, ended at the lift.
    @Test func twoFingersTouchAndReleaseIsAHold() throws {
        let events = try Self.replay("EP0430M09.2-fingers-touch-release.events", desc: "EP0430M09.desc")
        #expect(events.allSatisfy { $0.kind == .hold })
        #expect(events.first?.phase == .begin && events.last?.phase == .end && events.ends.count == 1)
        #expect(events.allSatisfy { $0.fingers == 2 })
        #expect(events.last?.committed == true)
    }

    @Test func oneFingerDownAndBackUp() throws {
        let events = try Self.replay("EP0430M09.1-finger-drag-up-down.events", desc: "EP0430M09.desc")
        #expect(events.ends.count == 1)
        #expect(events.last!.kind == .pan && events.last!.committed == false)
        #expect(events.map(\.translation.y).max()! > 0.5)  // went more than half the screen down first
    }

    // MARK: Atmel maXTouch (0..799 × 0..479, no resolution)

    @Test func fourFingersLandingOneAfterAnotherThenDraggingDown() throws {
        let events = try Self.replay("Atmel_maXTouch_Touchscreen.4-finger-drag-down.events", desc: "Atmel_maXTouch_Touchscreen.desc")
        #expect(Self.committed(events) == ["pan 4 down"])
        // The fourth finger lands 111 ms after the first: the pan waits for the hand to land, so clients
        // see one four-finger pan and no start with fewer fingers.
        #expect(events.phases == ["pan:begin", "pan:update", "pan:end"])
        #expect(events.allSatisfy { $0.fingers == 4 })
    }

    /// Nine quick taps, about 140 ms apart from lift to landing: four double taps and a last single tap
    /// (a sequence ends at its second tap).
    @Test func fastTapsAreDoubleTaps() throws {
        let events = try Self.replay("Atmel_maXTouch_Touchscreen.1-finger-fast-taps.events", desc: "Atmel_maXTouch_Touchscreen.desc")
        #expect(events.allSatisfy { $0.kind == .tap && $0.fingers == 1 })
        let ends = events.filter { $0.phase == .end }
        #expect(ends.map { $0.taps } == [2, 2, 2, 2, 1])
        #expect(events.filter { $0.phase == .update }.count == 4)
    }

    @Test func oneFingerUpAndBackDown() throws {
        let events = try Self.replay("Atmel_maXTouch_Touchscreen.1-finger-drag-up-down.events", desc: "Atmel_maXTouch_Touchscreen.desc")
        #expect(events.ends.count == 1)
        #expect(events.last!.committed == false)
        #expect(events.map(\.translation.y).min()! < -0.3)
    }

    @Test func twoFingersTouchAndReleaseCommitNothing() throws {
        // The fingers drift 13 units (2.7 % of the height) while resting: at the assumed size that passes the
        // slop, so an uncommitted pan is reported; nothing commits.
        let events = try Self.replay("Atmel_maXTouch_Touchscreen.2-fingers-touch-release.events", desc: "Atmel_maXTouch_Touchscreen.desc")
        #expect(Self.committed(events).isEmpty)
    }

    // MARK: Dell Canvas 27" (resolution 55 × 98 units/mm: 596 × 334 mm)

    @Test func dellCanvasSession() throws {
        let events = try Self.replay("dell_canvas_touch.evemu")
        // Two fingers touch briefly at the start (a two-finger tap). Four fingers land over 280 ms and move up
        // and back down: one four-finger pan, never a one- or two-finger pan begun and cancelled. Later five
        // fingers close in (a grab); last, one finger drags diagonally up and right.
        #expect(Self.committed(events) == ["tap 2", "pan 4 off-axis", "pan 1 off-axis"])
        #expect(!events.contains { $0.phase == .cancel })
        let pinch = try #require(events.last { $0.kind == .pinch && $0.phase == .end })
        #expect(pinch.fingers == 5)
        #expect(pinch.scale! < 0.7)
        #expect(!events.contains { $0.kind == .edgeSwipe })
    }

    // MARK: Nexus 4 (0..1535 × 0..2559, no resolution)

    @Test func nexus4Session() throws {
        let events = try Self.replay("n4.events", desc: "n4.desc")
        let ends = events.filter { $0.phase == .end }
        // Five strokes end: one finger, two fingers, three and four fingers closing in, then two fingers
        // swiping up while an older finger rests (which used to block them); nothing is cancelled.
        try #require(ends.count == 5)
        #expect(!events.contains { $0.phase == .cancel })
        // A long one-finger scribble ending low on the screen.
        #expect(Self.describe(ends[0]) == "pan 1 down" && ends[0].committed == true)
        // Two fingers drag far down and come back to where they started: not a swipe.
        #expect(ends[1].kind == .pan && ends[1].fingers == 2 && ends[1].committed == false)
        #expect(events.filter { $0.id == ends[1].id }.map(\.translation.y).max()! > 0.4)
        // Three fingers close in and turn: a pinch, past the scale to commit.
        #expect(ends[2].kind == .pinch && ends[2].fingers == 3 && ends[2].committed == true)
        #expect(ends[2].scale! < 0.6 && ends[2].rotationDegrees! > 20)
        // Four fingers close in: a pinch.
        #expect(ends[3].kind == .pinch && ends[3].fingers == 4)
        #expect(ends[3].scale! < 0.5 && ends[3].committed == true)
        // Two new fingers swipe up beside a resting one.
        #expect(Self.describe(ends[4]) == "pan 2 up" && ends[4].committed == true)
    }

    // MARK: Protocol A

    @Test func protocolADeviceIsRefused() throws {
        let desc = try RecordingFile.parse(Self.fixtures + "N-Trig_MultiTouch.desc")
        let device = try #require(desc.device)
        #expect(device.touchProtocol == .multitouchProtocolA)
        #expect(throws: UnsupportedDeviceError.self) { try GestureEngine(device: device) }
    }

    @Test func quantaOneFingerStrokes() throws {
        let events = try Self.replay("QUANTA_OpticalTouchScreen.events", desc: "QUANTA_OpticalTouchScreen.desc")
        // A one-finger panel (350 mm assumed), nine touches: six pans (three drags down, two to the right
        // committed with their direction, one committed off-axis at 59°, one short one not committed), a
        // touch that never moves (a tap), and two touches that rest half a second before moving (holds,
        // one dragged 21 mm down).
        #expect(events.allSatisfy { $0.fingers == 1 })
        let ends = events.filter { $0.phase == .end }
        #expect(ends.map(\.kind) == [.pan, .pan, .tap, .hold, .pan, .pan, .hold, .pan, .pan])
        #expect(Self.committed(events) == [
            "pan 1 off-axis", "pan 1 down", "tap 1", "hold 1", "pan 1 down", "hold 1", "pan 1 right", "pan 1 right",
        ])
        #expect(ends[5].committed == false)
        #expect(ends[3].translationMM.y > 20)  // hold and drag
        let offAxis = ends[0].translationMM
        #expect(offAxis.x > 10 && offAxis.y > 20)
    }
}
