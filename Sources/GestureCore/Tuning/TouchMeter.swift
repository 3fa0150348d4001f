import GestureVocabulary

/// The running measurement of one touch sequence (first finger down to last finger up), frame by frame:
/// the tuner's numbers (`TouchMeasurement`), for a recording (TuneRecording) and, while the engine
/// explains, for each explanation (Explainer).
struct TouchMeter: Sendable {
    let start: Int64
    let slopMM: Double
    let screenSizeMM: (width: Double, height: Double)
    var landings: [UInt64: Vector2] = [:]
    var fingers = 0
    var farthest = SideDistances(left: 0, right: 0, top: 0, bottom: 0)
    var moveAtSlop: Vector2? = nil
    var maximumMove = 0.0
    var travel = Vector2.zero
    var velocity: VelocityTracker
    var lastTime: Int64

    init(start: Int64, slopMM: Double, windowSeconds: Double, screenSizeMM: (width: Double, height: Double)) {
        self.start = start
        self.slopMM = slopMM
        self.screenSizeMM = screenSizeMM
        velocity = VelocityTracker(windowSeconds: windowSeconds)
        lastTime = start
    }

    mutating func add(_ frame: TouchFrame) {
        lastTime = frame.timeMicroseconds
        // Lifted fingers' landings are not needed again (serials are never reused): the meter holds the
        // fingers down, however many landed in one touch (a finger resting while another taps).
        for serial in frame.lifted { landings[serial] = nil }
        for serial in frame.lost { landings[serial] = nil }
        guard !frame.contacts.isEmpty else { return }
        fingers = max(fingers, frame.contacts.count)
        var sum = Vector2.zero
        var baseline = Vector2.zero
        var frameMove = 0.0
        for c in frame.contacts {
            if landings[c.serial] == nil {
                let p = c.positionMM
                landings[c.serial] = p
                farthest.left = max(farthest.left, EdgeZones.distanceFromEdge(.left, p, screenSizeMM: screenSizeMM))
                farthest.right = max(farthest.right, EdgeZones.distanceFromEdge(.right, p, screenSizeMM: screenSizeMM))
                farthest.top = max(farthest.top, EdgeZones.distanceFromEdge(.top, p, screenSizeMM: screenSizeMM))
                farthest.bottom = max(farthest.bottom, EdgeZones.distanceFromEdge(.bottom, p, screenSizeMM: screenSizeMM))
            }
            let landing = landings[c.serial]!
            sum = sum + c.positionMM
            baseline = baseline + landing
            frameMove = max(frameMove, (c.positionMM - landing).length)
        }
        let n = Double(frame.contacts.count)
        let move = Vector2(sum.x / n - baseline.x / n, sum.y / n - baseline.y / n)
        maximumMove = max(maximumMove, frameMove)
        if moveAtSlop == nil, frameMove >= slopMM { moveAtSlop = move }
        travel = move
        velocity.add(time: frame.timeMicroseconds, position: move)
    }

    func measurement(end: Int64) -> TouchMeasurement {
        TouchMeasurement(
            fingers: fingers, startMicroseconds: start, endMicroseconds: end, landingDistanceMM: farthest, moveAtSlopMM: moveAtSlop,
            measuredAtSlopMM: slopMM, travelMM: travel, releaseVelocityMMPerSecond: velocity.velocity(at: end), maximumMoveMM: maximumMove)
    }
}
