import Foundation
import Testing
@testable import GestureCore
import GestureVocabulary

/// How a person's casual strokes are read (issue 38, items 11 and 12), on panels of several sizes: a
/// phone, a 10-inch tablet, a 19-inch monitor, and a panel that reports no axis resolution (its size
/// assumed, a 350 mm diagonal). The rules (docs/gestures.md): a committed pan's direction is its release's
/// when that points along an axis, else its stroke's overall; a contact that passed the slop by less than
/// twice it and lifted before any gesture began is a tap.
@Suite struct CasualStrokeTests {
    struct Panel: CustomStringConvertible {
        var description: String
        var device: DeviceDescription
        /// Device units per millimetre, on each axis.
        var unitsPerMM: (x: Double, y: Double)
        var sizeMM: (width: Double, height: Double)

        /// A panel of `width` × `height` mm; `resolution` units/mm, or none reported (then the axes span
        /// 0…4095 both ways and the size is the engine's assumption).
        init(_ description: String, width: Double, height: Double, resolution: Int32?) throws {
            self.description = description
            let (maxX, maxY): (Int32, Int32) =
                resolution.map { (Int32(width * Double($0)), Int32(height * Double($0))) } ?? (4095, 4095)
            let r = resolution ?? 0
            device = DeviceDescription(
                name: "Test \(description)", busType: 0x18, vendor: 0x1234, product: 0x5678, properties: [INPUT_PROP.direct],
                axes: [
                    ABS.mtSlot: AxisInfo(minimum: 0, maximum: 9),
                    ABS.mtPositionX: AxisInfo(minimum: 0, maximum: maxX, resolution: r),
                    ABS.mtPositionY: AxisInfo(minimum: 0, maximum: maxY, resolution: r),
                    ABS.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
                ],
                keys: [BTN.touch])
            let size = try GestureEngine(device: device).geometry.screenSizeMM
            sizeMM = size
            unitsPerMM = (Double(maxX) / size.width, Double(maxY) / size.height)
        }

        func script() -> TouchScript {
            var s = TouchScript(device: device)
            s.unitsPerMM = unitsPerMM.x
            s.unitsPerMMY = unitsPerMM.y
            return s
        }
    }

    static func panels() throws -> [Panel] {
        [
            try Panel("phone", width: 68, height: 150, resolution: 16),
            try Panel("10-inch tablet", width: 217, height: 136, resolution: 20),
            try Panel("19-inch monitor", width: 420.6, height: 236.6, resolution: 10),
            try Panel("panel without resolution", width: 0, height: 0, resolution: nil),
        ]
    }

    /// One finger from the panel's lower left quarter, `segments` of (frames, mm a frame, degrees off vertical,
    /// clockwise: positive to the right), one frame every 10 ms, then lifted.
    static func stroke(_ panel: Panel, _ segments: [(frames: Int, mmPerFrame: Double, degreesOffUp: Double)]) -> [GestureEvent] {
        var s = panel.script()
        var x = panel.sizeMM.width / 4
        var y = panel.sizeMM.height * 0.8
        s.down(0, x, y); s.frame()
        for segment in segments {
            let radians = segment.degreesOffUp * Double.pi / 180
            for _ in 0..<segment.frames {
                x += segment.mmPerFrame * sin(radians)
                y -= segment.mmPerFrame * cos(radians)
                s.move(0, x, y); s.frame()
            }
        }
        s.up(0); s.frame()
        return (try? s.run()) ?? []
    }

    static func end(_ events: [GestureEvent]) -> GestureEvent? { events.first { $0.kind == .pan && $0.phase == .end } }

    // MARK: Item 11: a casual swipe's direction

    @Test func aCasualSwipeUpThatCurlsOffAsItLiftsIsUp() throws {
        for panel in try Self.panels() {
            // 47 mm at 20° off vertical at 500 mm/s, then 20 mm at 42° at 250 mm/s: overall 26° off
            // vertical, released 42° off (and flung: faster than 200 mm/s).
            let events = Self.stroke(panel, [(10, 5, 20), (8, 2.5, 42)])
            let end = try #require(Self.end(events), "\(panel): \(events.phases)")
            #expect(end.committed == true, "\(panel)")
            let v = end.velocityMMPerSecond
            #expect(v.length >= 200, "\(panel): released at \(v.length) mm/s")
            let releaseOff = abs(Angles.atan2(v.x, -v.y) * Angles.degreesPerRadian)
            let overallOff = abs(Angles.atan2(end.translationMM.x, -end.translationMM.y) * Angles.degreesPerRadian)
            #expect(releaseOff > 35 && overallOff < 30, "\(panel): release \(releaseOff)°, overall \(overallOff)°")
            #expect(end.direction == .up, "\(panel): \(String(describing: end.direction))")
        }
    }

    @Test func aRealDiagonalHasNoDirection() throws {
        for panel in try Self.panels() {
            // 60 mm at 45°, flung (400 mm/s): release and stroke both diagonal.
            let flung = try #require(Self.end(Self.stroke(panel, [(15, 4, 45)])))
            #expect(
                flung.committed == true && flung.direction == nil,
                "\(panel): \(String(describing: flung.direction)) translation \(flung.translationMM) velocity \(flung.velocityMMPerSecond)")
            // Slow (100 mm/s), 60 mm at 40°: the stroke decides, and it is off-axis.
            let slow = try #require(Self.end(Self.stroke(panel, [(60, 1, 40)])))
            #expect(slow.committed == true && slow.direction == nil, "\(panel): \(String(describing: slow.direction))")
            // Released along the diagonal after a stroke at 38°: neither is within 30°.
            let both = try #require(Self.end(Self.stroke(panel, [(10, 4, 35), (8, 3, 45)])))
            #expect(both.direction == nil, "\(panel): \(String(describing: both.direction))")
        }
    }

    @Test func aFlickAlongAnAxisDecidesOverTheStroke() throws {
        for panel in try Self.panels() {
            // A stroke 36° off vertical overall, ending with a flick straight up: up (the release decides
            // when it points along an axis).
            let end = try #require(Self.end(Self.stroke(panel, [(10, 4, 50), (8, 3, 0)])))
            #expect(end.direction == .up, "\(panel): \(String(describing: end.direction))")
        }
    }

    @Test func theReasonForNoDirectionIsTheCloserOfStrokeAndRelease() throws {
        let panel = try Panel("10-inch tablet", width: 217, height: 136, resolution: 20)
        var s = panel.script()
        s.down(0, 100, 110); s.frame()
        for _ in 0..<15 { s.drag([0], by: 4 * sin(45 * .pi / 180), -4 * cos(45 * .pi / 180), steps: 1) }
        s.up(0); s.frame()
        var engine = try GestureEngine(device: panel.device)
        engine.explaining = true
        var out = EngineOutput()
        engine.process(s.events, into: &out)
        engine.advance(toMicroseconds: s.time + 1_000_000, into: &out)
        let x = try #require(out.events.compactMap { o -> Explanation? in if case .explanation(let x) = o { return x } else { return nil } }.first)
        let reason = try #require(x.reasons.first { $0.cause == .offAxis })
        #expect(abs(try #require(reason.measurement(.angleOffAxis)).value - 45) < 1)
    }

    // MARK: Item 12: a short tap that rolled past the slop

    /// A contact of `seconds` at the panel's corner area (20 mm from the left and the top, outside the
    /// edge zones), sliding `mm` to the right and down evenly while down.
    static func contact(_ panel: Panel, seconds: Double, mm: Double) -> [GestureEvent] {
        var s = panel.script()
        s.down(0, 20, 20); s.frame()
        let frames = Int((seconds * 100).rounded())
        for i in 1..<frames {
            let d = mm * Double(i) / Double(frames - 1) / 2.squareRoot()
            s.move(0, 20 + d, 20 + d); s.frame()
        }
        s.up(0); s.frame()
        s.wait(1)
        s.frame()
        return (try? s.run()) ?? []
    }

    @Test func aShortTapThatRolledPastTheSlopIsATap() throws {
        for panel in try Self.panels() {
            // 0.1 s, 3.4 mm: past the 3 mm slop, well within twice it.
            let events = Self.contact(panel, seconds: 0.1, mm: 3.4)
            #expect(events.phases == ["tap:begin", "tap:end"], "\(panel): \(events.phases)")
            #expect(events.first?.taps == 1)
            // Reported where it landed.
            #expect(abs((events.first?.positionMM.x ?? 0) - 20) < 0.2, "\(panel)")
        }
    }

    @Test func aShortContactThatWentFartherIsNoTap() throws {
        for panel in try Self.panels() {
            // 0.1 s, 8 mm: past twice the slop; an uncommitted pan, as before.
            let events = Self.contact(panel, seconds: 0.1, mm: 8)
            #expect(events.phases == ["pan:begin", "pan:end"], "\(panel): \(events.phases)")
            #expect(Self.end(events)?.committed == false)
        }
    }

    @Test func aLongerContactThatRolledIsAPanOnceThePanBegan() throws {
        for panel in try Self.panels() {
            // 0.3 s, 3.4 mm: the one-finger pan began when the hand had landed (0.2 s), before the lift.
            let events = Self.contact(panel, seconds: 0.3, mm: 3.4)
            #expect(events.phases.first == "pan:begin" && events.phases.last == "pan:end", "\(panel): \(events.phases)")
            #expect(!events.contains { $0.kind == .tap }, "\(panel): \(events.phases)")
        }
    }

    @Test func aStillTapAndARolledDoubleTapAreTaps() throws {
        for panel in try Self.panels() {
            #expect(Self.contact(panel, seconds: 0.1, mm: 1).phases == ["tap:begin", "tap:end"], "\(panel)")
            // Two rolled taps in a row: a double tap.
            var s = panel.script()
            for _ in 0..<2 {
                s.down(0, 40, 40); s.frame()
                for i in 1...8 { s.move(0, 40 + 0.45 * Double(i), 40); s.frame() }
                s.up(0); s.frame()
                s.wait(0.1)
            }
            s.wait(1); s.frame()
            let events = try s.run()
            #expect(events.phases == ["tap:begin", "tap:update", "tap:end"], "\(panel): \(events.phases)")
            #expect(events.last?.taps == 2)
        }
    }

    @Test func aRolledTouchIsNoHold() throws {
        let panel = try Panel("10-inch tablet", width: 217, height: 136, resolution: 20)
        // Rolls 3.4 mm in its first 0.1 s, then stays for 0.8 s: a pan began at 0.2 s; never a hold.
        var s = panel.script()
        s.down(0, 60, 60); s.frame()
        for i in 1...10 { s.move(0, 60 + 0.34 * Double(i), 60); s.frame() }
        s.wait(0.8); s.frame()
        s.up(0); s.frame()
        let events = try s.run()
        #expect(!events.contains { $0.kind == .hold }, "\(events.phases)")
    }
}
