import Testing
@testable import GestureCore

/// Random but plausible event streams (fingers landing, moving, lifting, palms, drops, garbage) must never
/// crash the engine, and every gesture must stay well formed: begin, updates, one end or cancel.
@Suite struct RandomStreamTests {
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// A random stream of 20,000 steps on `TouchScript.phone` (10 slots), the same for the same seed.
    static func stream(seed: Int) -> [InputEvent] {
        var g = Generator(state: UInt64(seed) &* 0x9E3779B97F4A7C15)
        var events: [InputEvent] = []
        var t: Int64 = 0
        var down = Set<Int>()
        var nextID: Int32 = 1
        func add(_ type: UInt16, _ code: UInt16, _ value: Int32) {
            events.append(InputEvent(timeMicroseconds: t, type: type, code: code, value: value))
        }
        for _ in 0..<20_000 {
            t += Int64(1 + g.next(30_000))
            let slot = g.next(12)  // sometimes beyond the 10 declared slots
            add(EV.abs, ABS.mtSlot, Int32(slot))
            switch g.next(20) {
            case 0, 1:
                add(EV.abs, ABS.mtTrackingID, nextID)
                nextID += 1
                down.insert(slot)
            case 2, 3:
                add(EV.abs, ABS.mtTrackingID, -1)
                down.remove(slot)
            case 4:
                add(EV.abs, ABS.mtToolType, Int32(g.next(3)))
            case 5:
                add(EV.syn, SYN.dropped, 0)
            case 6:
                add(UInt16(g.next(32)), UInt16(g.next(0x300)), Int32(truncatingIfNeeded: g.next(Int(Int32.max)) - 1_000_000))
            default:
                add(EV.abs, ABS.mtPositionX, Int32(g.next(1200)) - 100)
                add(EV.abs, ABS.mtPositionY, Int32(g.next(1800)) - 100)
            }
            if g.next(3) == 0 { add(EV.syn, SYN.report, 0) }
        }
        return events
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func randomStreamsStayWellFormed(seed: Int) throws {
        let events = RandomStreamTests.stream(seed: seed)
        let t = events.last!.timeMicroseconds
        var engine = try GestureEngine(device: TouchScript.phone)
        var out = EngineOutput()
        engine.process(events, into: &out)
        engine.cancelAll(atMicroseconds: t, into: &out)
        #expect(out.gestures.contains { $0.phase == .begin }, "the stream exercised recognition")
        #expect(out.gestures.contains { $0.phase == .cancel })
        RecordingGoldenTests.checkWellFormed(out.gestures)
        for e in out.gestures {
            #expect(e.position.x >= 0 && e.position.x <= 1 && e.position.y >= 0 && e.position.y <= 1)
            #expect(e.velocityMMPerSecond.x.isFinite && e.velocityMMPerSecond.y.isFinite)
            if let s = e.scale { #expect(s.isFinite && s >= 0) }
        }
    }
}
