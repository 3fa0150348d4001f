import GestureVocabulary

// Each rule's reasons with their numbers (`Reason`, GestureVocabulary/Explanation.swift): asked by the
// recognizer only while the engine explains or traces (`GestureEngine.explaining`, `tracing`), when a rule
// fails, when an attempt ends without a rule's gesture, and when a gesture ends without committing. The
// tests a reason gives are the rule's own, in the order its `evaluate` makes them; the keys are the ones a
// user writes under [recognizer] (RecognizerSettings.keys).

extension RecognizerContext {
    /// Where a point landed (millimetres): its distance from each side and the zones in force it is in.
    public func landing(at p: Vector2) -> Landing {
        let zones = settings.edgeZones.zones(at: p, screenSizeMM: screenSizeMM, excluding: exclusions)
        return Landing(positionMM: p, screenSizeMM: screenSizeMM, zones: Edge.sides.filter { zones.contains($0) })
    }

    /// The key that set a side's zone width in force (`EdgeZone.widthKey`): the side's own
    /// (`edge_swipe.left.zone_mm`), or `edge_swipe.zone_mm` where that shorthand decided it.
    func zoneKey(_ edge: Edge) -> String { settings.edgeZones[edge].widthKey.key(edge) }

    /// The movement past the slop (`slop_mm`) of the finger that moved most from its baseline.
    func slopMeasurement(_ fingers: FingerSet) -> Measurement {
        Measurement(.movement, fingers.maximumMoveMM, key: "slop_mm", setting: settings.slopMM)
    }

    /// The movement from where it landed of the finger that moved most (a tap's or a hold's stillness).
    func stillnessMeasurement(_ fingers: FingerSet) -> Measurement {
        var m = 0.0
        for f in fingers.fingers { m = max(m, (f.currentMM - f.landingMM).length) }
        return Measurement(.movement, m, key: "slop_mm", setting: settings.slopMM)
    }
}

/// A rule with `enabled`, `min_fingers` and `max_fingers` keys in its table (every rule here).
protocol FingerCountedRule: ConfigurableRule {
    var enabled: Bool { get }
    var minFingers: Int { get }
    var maxFingers: Int { get }
}

extension FingerCountedRule {
    /// Why it does not begin for `n` fingers, from those keys alone: switched off, or a finger count under
    /// `min_fingers` or over `max_fingers`; nil when they allow it.
    func fingerCountReason(fingers n: Int) -> Reason? {
        let table = Self.configTable
        if !enabled { return Reason(kind: kind, cause: .disabled, measurements: [Measurement(.enabled, 0, key: "\(table).enabled", setting: 0)]) }
        if n < minFingers {
            return Reason(kind: kind, cause: .fingerCount, measurements: [Measurement(.fingers, Double(n), key: "\(table).min_fingers", setting: Double(minFingers))])
        }
        if n > maxFingers {
            return Reason(kind: kind, cause: .fingerCount, measurements: [Measurement(.fingers, Double(n), key: "\(table).max_fingers", setting: Double(maxFingers))])
        }
        return nil
    }
}

extension EdgeSwipeRule: FingerCountedRule {}
extension PanRule: FingerCountedRule {}
extension TapRule: FingerCountedRule {}
extension HoldRule: FingerCountedRule {}
extension PinchRule: FingerCountedRule {}

/// The fingers a rule counts: at the lift (the fingers followed are the last to lift), the most the hand
/// had down at once.
func handFingers(_ occasion: Occasion, _ attempt: AttemptFacts, _ fingers: FingerSet) -> Int {
    occasion == .lifted ? max(fingers.count, attempt.hand.mostFingers) : fingers.count
}

/// The angle between `v` and the unit vector `direction`, degrees (0...180).
func degreesBetween(_ v: Vector2, _ direction: Vector2) -> Double {
    let along = v.x * direction.x + v.y * direction.y
    let across = v.x * direction.y - v.y * direction.x
    return abs(Angles.atan2(across, along) * Angles.degreesPerRadian)
}

extension EdgeSwipeRule {
    /// Switched off; a finger count it does not allow; no zone landed in (the side it came closest to: a
    /// near miss when within twice its width and the fingers moved inward from it; excluded when the zone
    /// was there but an app keeps that part); the withhold limit passed; moved, but not inward; did not
    /// move past the slop. Nil when it would begin.
    public func explainNotBegun(_ occasion: Occasion, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> Reason? {
        if let r = fingerCountReason(fingers: handFingers(occasion, attempt, fingers)) { return r }
        let settings = context.settings
        let edges = candidates(fingers, context: context)
        if edges.isEmpty { return outsideZoneReason(fingers, context: context) }
        let moved = fingers.maximumMoveMM >= settings.slopMM
        if occasion == .deadline && !moved {
            let waited = Double(attempt.timeMicroseconds - fingers.groupLandingTime) / 1_000_000
            return Reason(
                kind: kind, cause: .withholdExpired, edge: edges.landingEdge,
                measurements: [
                    context.slopMeasurement(fingers),
                    Measurement(.downSeconds, waited, key: "edge_swipe.withhold_max_seconds", setting: withholdMaxSeconds),
                ])
        }
        guard moved else { return Reason(kind: kind, cause: .didNotMove, edge: edges.landingEdge, measurements: [context.stillnessMeasurement(fingers)]) }
        guard direction(fingers, context: context) == nil else { return nil }
        // The candidate side the motion points closest to.
        let move = fingers.centroidMoveMM
        var best: (edge: Edge, degrees: Double)?
        for edge in Edge.sides where edges.contains(edge) {
            let angle = degreesBetween(move, EdgeZones.inward(edge))
            if best == nil || angle < best!.degrees { best = (edge, angle) }
        }
        guard let best else { return nil }
        return Reason(
            kind: kind, cause: .notInward, edge: best.edge,
            measurements: [Measurement(.angleFromInward, best.degrees, key: "angle_tolerance_degrees", setting: settings.angleToleranceDegrees)])
    }

    /// The fingers landed in no zone of an enabled side: a near miss from the nearest side they landed
    /// within twice the zone's width of and moved inward from; else the side whose zone they came closest
    /// to (the farthest finger's distance), as an exclusion or a landing outside.
    func outsideZoneReason(_ fingers: FingerSet, context: RecognizerContext) -> Reason? {
        let zones = context.settings.edgeZones
        let size = context.screenSizeMM
        let settings = context.settings
        let move = fingers.centroidMoveMM
        let moved = fingers.maximumMoveMM >= settings.slopMM
        var best: (edge: Edge, distance: Double)?
        var miss: (edge: Edge, distance: Double, angle: Double)?
        var excluded: (edge: Edge, distance: Double)?
        for edge in Edge.sides where zones[edge].enabled {
            var d = 0.0
            for f in fingers.fingers { d = max(d, EdgeZones.distanceFromEdge(edge, f.baselineMM, screenSizeMM: size)) }
            if best == nil || d < best!.distance { best = (edge, d) }
            let width = zones[edge].widthMM
            // Inside a zone's width, yet no candidate: an app keeps that part of the edge.
            if d <= width, excluded == nil || d < excluded!.distance { excluded = (edge, d) }
            let angle = degreesBetween(move, EdgeZones.inward(edge))
            if moved, d > width, d <= 2 * width, angle <= settings.angleToleranceDegrees, miss == nil || d < miss!.distance {
                miss = (edge, d, angle)
            }
        }
        if let excluded { best = excluded }
        if excluded == nil, let miss {
            return Reason(
                kind: kind, cause: .nearMiss, edge: miss.edge,
                measurements: [
                    Measurement(.distanceFromEdge, miss.distance, key: context.zoneKey(miss.edge), setting: zones[miss.edge].widthMM),
                    Measurement(.angleFromInward, miss.angle, key: "angle_tolerance_degrees", setting: settings.angleToleranceDegrees),
                ])
        }
        guard let (edge, distance) = best else { return nil }
        let width = zones[edge].widthMM
        let zoneMeasurement = Measurement(.distanceFromEdge, distance, key: context.zoneKey(edge), setting: width)
        if distance <= width {
            // Inside the zone's width, yet no candidate: an app keeps that part of the edge.
            let p = fingers.baselineCentroidMM
            let along: Double
            switch edge {
            case .left, .right: along = size.height > 0 ? p.y / size.height : 0
            case .top, .bottom, .topLeft, .topRight, .bottomLeft, .bottomRight: along = size.width > 0 ? p.x / size.width : 0
            }
            let exclusion = context.exclusions.all.first { $0.edge == edge && ($0.from...$0.to).contains(along) }
            return Reason(
                kind: kind, cause: .excluded, edge: edge, measurements: [zoneMeasurement], excludedRange: exclusion.map { $0.from...$0.to },
                exclusionSource: exclusion.flatMap { $0.source.isEmpty ? nil : $0.source })
        }
        return Reason(kind: kind, cause: .outsideZone, edge: edge, measurements: [zoneMeasurement])
    }

    /// Flung back outward, or released short of every commit test: its inward travel, its inward release
    /// speed and (a side's) progress, each against its setting.
    public func explainEnd(_ e: GestureEvent, context: RecognizerContext) -> Reason? {
        guard let edge = e.edge, e.committed == false else { return nil }
        let dir = EdgeZones.inward(edge)
        let inwardVelocity = e.velocityMMPerSecond.x * dir.x + e.velocityMMPerSecond.y * dir.y
        let fling = Measurement(.releaseVelocity, inwardVelocity, key: "edge_swipe.fling_velocity_mm_per_s", setting: flingVelocityMMPerSecond)
        if inwardVelocity <= -flingVelocityMMPerSecond {
            var outward = fling
            outward.value = -inwardVelocity
            return Reason(kind: kind, cause: .flungBack, edge: edge, measurements: [outward], gestureID: e.id)
        }
        var measurements = [
            Measurement(.travel, EdgeSwipeRule.inwardTravelMM(edge, e), key: "edge_swipe.commit_distance_mm", setting: commitDistanceMM),
            fling,
        ]
        if !edge.isCorner {
            measurements.append(Measurement(.progress, e.progress ?? 0, key: "edge_swipe.commit_progress", setting: commitProgress))
        }
        return Reason(kind: kind, cause: .notCommitted, edge: edge, measurements: measurements, gestureID: e.id)
    }
}

extension PanRule {
    /// Switched off; a finger count it does not allow; no finger moved past the slop; the fingers moved
    /// apart (their centroid did not pass the slop). Nil when it would begin.
    public func explainNotBegun(_ occasion: Occasion, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> Reason? {
        if let r = fingerCountReason(fingers: handFingers(occasion, attempt, fingers)) { return r }
        let slop = context.settings.slopMM
        guard fingers.maximumMoveMM >= slop else { return Reason(kind: kind, cause: .didNotMove, measurements: [context.stillnessMeasurement(fingers)]) }
        let centroid = fingers.centroidMoveMM.length
        guard centroid >= slop else {
            return Reason(kind: kind, cause: .notTogether, measurements: [Measurement(.centroidMovement, centroid, key: "slop_mm", setting: slop)])
        }
        return nil
    }

    /// Released short of the commit distance and slower than the fling; or committed off every axis (4
    /// directions): how far off the nearest axis.
    public func explainEnd(_ e: GestureEvent, context: RecognizerContext) -> Reason? {
        let v = e.velocityMMPerSecond
        if e.committed == false {
            return Reason(
                kind: kind, cause: .notCommitted,
                measurements: [
                    Measurement(.travel, e.translationMM.length, key: "pan.commit_distance_mm", setting: commitDistanceMM),
                    Measurement(.releaseVelocity, v.length, key: "pan.fling_velocity_mm_per_s", setting: flingVelocityMMPerSecond),
                ], gestureID: e.id)
        }
        guard e.committed == true, e.direction == nil, directions == 4 else { return nil }
        // The closer to an axis of what was tested: the stroke overall, and the release when flung.
        let tested = v.length >= flingVelocityMMPerSecond ? [e.translationMM, v] : [e.translationMM]
        let axes = [Vector2(1, 0), Vector2(-1, 0), Vector2(0, 1), Vector2(0, -1)]
        let off = tested.flatMap { along in axes.map { degreesBetween(along, $0) } }.min() ?? 0
        return Reason(
            kind: kind, cause: .offAxis,
            measurements: [Measurement(.angleOffAxis, off, key: "angle_tolerance_degrees", setting: context.settings.angleToleranceDegrees)],
            gestureID: e.id)
    }
}

extension TapRule {
    /// Switched off; a finger moved past the slop; stillness unknown (a palm); at the lift, a finger
    /// count it does not allow or down longer than the tap time; before it, already down longer. Nil
    /// when it would happen.
    public func explainNotBegun(_ occasion: Occasion, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> Reason? {
        let hand = attempt.hand
        if !enabled { return fingerCountReason(fingers: 0) }
        switch hand.stillness {
        case .moved: return Reason(kind: kind, cause: .moved, measurements: [context.stillnessMeasurement(fingers)])
        case .rolled where occasion != .lifted:
            // Rolled a little past the slop, but a gesture began before the lift.
            return Reason(kind: kind, cause: .moved, measurements: [context.stillnessMeasurement(fingers)])
        case .unknown: return Reason(kind: kind, cause: .stillnessUnknown)
        case .still, .rolled: break
        }
        if occasion == .lifted, let r = fingerCountReason(fingers: hand.mostFingers) { return r }
        let down = Double(attempt.timeMicroseconds - hand.firstLandingMicroseconds) / 1_000_000
        if down > maxDurationSeconds {
            return Reason(kind: kind, cause: .downTooLong, measurements: [Measurement(.downSeconds, down, key: "tap.max_duration_seconds", setting: maxDurationSeconds)])
        }
        return nil
    }
}

extension HoldRule {
    /// Switched off; a finger count it does not allow; a finger moved past the slop; a finger by an edge
    /// moved inward by half the slop; lifted before the hold time. Nil when it would begin.
    public func explainNotBegun(_ occasion: Occasion, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> Reason? {
        if let r = fingerCountReason(fingers: max(fingers.count, attempt.hand.mostFingers)) { return r }
        switch attempt.hand.stillness {
        case .moved, .rolled: return Reason(kind: kind, cause: .moved, measurements: [context.stillnessMeasurement(fingers)])
        case .unknown: return Reason(kind: kind, cause: .stillnessUnknown)
        case .still: break
        }
        let edges = context.startEdges(fingers)
        for edge in Edge.sides where edges.contains(edge) {
            let inward = EdgeZones.inward(edge)
            var most = 0.0
            for f in fingers.fingers {
                let moved = f.currentMM - f.landingMM
                most = max(most, moved.x * inward.x + moved.y * inward.y)
            }
            if most >= context.settings.slopMM / 2 {
                return Reason(
                    kind: kind, cause: .movedInward, edge: edge,
                    measurements: [Measurement(.inwardMovement, most, key: "slop_mm", setting: context.settings.slopMM)])
            }
        }
        let down = Double(attempt.timeMicroseconds - fingers.groupLandingTime) / 1_000_000
        if down < holdSeconds {
            return Reason(kind: kind, cause: .liftedTooSoon, measurements: [Measurement(.downSeconds, down, key: "hold.hold_seconds", setting: holdSeconds)])
        }
        return nil
    }
}

extension PinchRule {
    /// Fewer than two fingers, or a count it does not allow; switched off; no finger moved past the slop;
    /// the fingers moved together (their differential motion under `pinch_differential_ratio` of the
    /// shared); the span and rotation changed too little. Nil when it would begin.
    public func explainNotBegun(_ occasion: Occasion, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> Reason? {
        if let r = fingerCountReason(fingers: handFingers(occasion, attempt, fingers)) { return r }
        let settings = context.settings
        guard fingers.maximumMoveMM >= settings.slopMM else {
            return Reason(kind: kind, cause: .didNotMove, measurements: [context.stillnessMeasurement(fingers)])
        }
        let shared = fingers.centroidMoveMM.length
        let ratio = shared > 0 ? fingers.differentialMoveMM / shared : .infinity
        if ratio < settings.pinchDifferentialRatio {
            return Reason(
                kind: kind, cause: .movedTogether,
                measurements: [Measurement(.differentialRatio, ratio, key: "pinch_differential_ratio", setting: settings.pinchDifferentialRatio)])
        }
        let spanChange = abs(fingers.spanMM - fingers.spanAtBaselineMM)
        let rotation = abs(fingers.rotationSinceBaselineDegrees)
        if spanChange < beginSpanChangeMM && rotation < beginRotationDegrees {
            return Reason(
                kind: kind, cause: .tooLittleSpread,
                measurements: [
                    Measurement(.spanChange, spanChange, key: "pinch.begin_span_change_mm", setting: beginSpanChangeMM),
                    Measurement(.rotation, rotation, key: "pinch.begin_rotation_degrees", setting: beginRotationDegrees),
                ])
        }
        return nil
    }

    /// Released with the scale and the rotation short of their commit thresholds.
    public func explainEnd(_ e: GestureEvent, context: RecognizerContext) -> Reason? {
        guard e.committed == false else { return nil }
        return Reason(
            kind: kind, cause: .notCommitted,
            measurements: [
                Measurement(.scaleChange, abs(1 - (e.scale ?? 1)), key: "pinch.commit_scale_change", setting: commitScaleChange),
                Measurement(.rotation, abs(e.rotationDegrees ?? 0), key: "pinch.commit_rotation_degrees", setting: commitRotationDegrees),
            ], gestureID: e.id)
    }
}
