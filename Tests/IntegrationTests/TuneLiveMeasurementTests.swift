import Foundation
import GestureCore
import GestureProtocol
import GestureVocabulary
import RecordingFormats
import Testing

/// What live tuning reads: each explanation carries the measurements of its touches (`Explanation.touches`,
/// made by the Explainer while the engine explains), and through the protocol's JSON they give the tuner
/// the same attempts, outcomes and proposal as the recording measured directly (TuneRecording).
@Suite struct TuneLiveMeasurementTests {
    static let fixtures = Paths.packageRoot + "/Tests/Fixtures/tune/"

    /// The explanations the engine makes of a recording, as a client of the daemon's stream reads them
    /// (encoded and decoded).
    static func explanations(_ file: DeviceRecording, settings: RecognizerSettings) throws -> (offline: [Explanation], decoded: [Explanation]) {
        var engine = try GestureEngine(device: file.device, settings: settings, geometry: GeometrySettings())
        engine.explaining = true
        var replay = RecordingReplay(engine: engine)
        var made: [Explanation] = []
        replay.run(file.events) { outputs in
            for case .explanation(let x) in outputs { made.append(x) }
        }
        let decoded = try made.map { x in
            let line = ExplanationJSON.encode(x, device: "event5")
            guard case .explanation(let back, let device) = try ServerMessage.decode(line: Array(line.utf8)), device == "event5" else {
                throw TestFailure("not decoded back: \(line)")
            }
            return back
        }
        return (made, decoded)
    }

    @Test(arguments: ["narrow-bezel", "curved-edge", "inseparable"])
    func explanationsMeasureEveryTouchAsTheRecordingTuner(name: String) throws {
        let file = try RecordingFile.load(Self.fixtures + name + ".evemu", description: nil)
        let settings = RecognizerSettings()
        let recording = try TuneRecording(device: file.device, events: file.events, settings: settings, geometry: GeometrySettings())
        let measured = recording.measurements(settings: settings)
        let (outcomes, _) = recording.replayed(settings: settings)
        let (offline, decoded) = try Self.explanations(file, settings: settings)
        // Offline, the very numbers the recording tuner measures, touch for touch.
        let touches = offline.flatMap(TuneTouch.touches(of:))
        #expect(touches.map(\.measurement) == measured)
        #expect(touches.map(\.outcome) == outcomes)
        // Through the JSON: the same to 1e-4, and so the same attempts, predictions and proposal.
        let live = decoded.flatMap(TuneTouch.touches(of:))
        try #require(live.count == measured.count)
        for (a, b) in zip(live.map(\.measurement), measured) {
            #expect(a.fingers == b.fingers && a.startMicroseconds == b.startMicroseconds && a.endMicroseconds == b.endMicroseconds)
            #expect(abs(a.landingDistanceMM.left - b.landingDistanceMM.left) <= 5e-5 && abs(a.landingDistanceMM.bottom - b.landingDistanceMM.bottom) <= 5e-5)
            #expect((a.moveAtSlopMM == nil) == (b.moveAtSlopMM == nil))
            #expect(abs(a.travelMM.x - b.travelMM.x) <= 5e-5 && abs(a.releaseVelocityMMPerSecond.y - b.releaseVelocityMMPerSecond.y) <= 5e-5)
            #expect(abs(a.maximumMoveMM - b.maximumMoveMM) <= 5e-5 && a.measuredAtSlopMM == b.measuredAtSlopMM)
        }
        #expect(live.map(\.outcome) == outcomes)
        func attempts(_ m: [TouchMeasurement]) -> [TuneAttempt] {
            m.enumerated().map { i, m in
                TuneAttempt(intent: i < 5 ? .edgeSwipe(.left) : i < 10 ? .edgeSwipe(.right) : i < 13 ? .tap : .scroll, number: i + 1, measurement: m)
            }
        }
        let fromRecording = TuneProposal(edges: [.left, .right], attempts: attempts(measured), current: settings, screenSizeMM: recording.screenSizeMM)
        let fromStream = TuneProposal(edges: [.left, .right], attempts: attempts(live.map(\.measurement)), current: settings, screenSizeMM: recording.screenSizeMM)
        #expect(fromStream.changes == fromRecording.changes)
        #expect(fromStream.problems.count == fromRecording.problems.count)
        #expect(!fromRecording.changes.isEmpty)
    }

    /// The per-touch numbers the proposal needs, by hand on the narrow-bezel recording (tools/tune-recordings.py):
    /// the move direction of the swipes, the travel and release velocity, the landing of a touch farther
    /// than twice the zone (scrolling in the middle), which reasons alone do not give.
    @Test func theStreamCarriesWhatReasonsDoNot() throws {
        let file = try RecordingFile.load(Self.fixtures + "narrow-bezel.evemu", description: nil)
        let (_, decoded) = try Self.explanations(file, settings: RecognizerSettings())
        let touches = decoded.flatMap(\.touches)
        // The right edge's third swipe: 40 mm, 10° off inward; its move at the slop points the same way.
        let third = touches[7]
        #expect(abs(third.inwardTravelMM(.right) - 40 * cos(10 * Double.pi / 180)) < 0.1)
        #expect(abs((third.angleFromInwardDegrees(.right) ?? 0) - 10) < 0.5)
        #expect(third.inwardVelocityMMPerSecond(.right) > 0)
        // The scrolling lands far from every edge (farther than twice the 5 mm zone) and has an angle too.
        let scroll = touches[13]
        #expect(scroll.landingDistanceMM.left > 10 && scroll.landingDistanceMM.right > 10)
        #expect(scroll.angleFromInwardDegrees(.left) != nil)
        // Older clients' view: the key is named in the JSON.
        #expect(ExplanationJSON.encode(decoded[0]).contains(#""touches":[{"fingers":1,"start":"#))
    }
}
