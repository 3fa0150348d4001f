import GestureVocabulary

/// Pan (UIPanGestureRecognizer) with 1...N fingers that move together; its `end` classifies the swipe
/// direction. Its begin test and commit rule; docs/gestures.md gives the reasons for each threshold.
enum PanRule {
    /// Begins when the fingers' shared motion passed the slop and a pan with this many fingers is allowed.
    static func evaluate(_ fingers: FingerSet, context: RecognizerContext) -> Verdict {
        let pan = context.settings.pan
        let n = fingers.count
        guard pan.enabled && n >= pan.minFingers && n <= pan.maxFingers else { return .doesNotApply }
        return fingers.centroidMoveMM.length >= context.settings.slopMM ? .begins(.pan) : .waits
    }

    /// Commits when flung or moved past the commit distance. A committed pan's direction is where it was
    /// flung, else where it went; none for a pan that did not commit (it went nowhere in particular) or
    /// that went off-axis.
    static func decideCommit(_ e: inout GestureEvent, context: RecognizerContext) {
        let v = e.velocityMMPerSecond
        let pan = context.settings.pan
        let flung = v.length >= pan.flingVelocityMMPerSecond
        let committed = flung || e.translationMM.length >= pan.commitDistanceMM
        e.committed = committed
        e.direction = committed ? direction(of: flung ? v : e.translationMM, context: context) : nil
    }

    /// The eight directions by 45° sector, clockwise from right (screen y points down).
    private static let sectors: [SwipeDirection] = [.right, .downRight, .down, .downLeft, .left, .upLeft, .up, .upRight]

    /// With 8 directions, the one whose 45° sector `v` points into; with 4, up/down/left/right when `v`
    /// points along an axis within the angle tolerance, else nil.
    static func direction(of v: Vector2, context: RecognizerContext) -> SwipeDirection? {
        let length = v.length
        guard length > 0 else { return nil }
        if context.settings.pan.directions == 8 {
            // Sectors of 45° centred on the axes and diagonals (screen y points down).
            let sector = Int(((Angles.degrees(of: v) + 360 + 22.5) / 45).rounded(.down)) % 8
            return sectors[sector]
        }
        let threshold = context.cosAngleTolerance * length
        if v.x >= threshold { return .right }
        if -v.x >= threshold { return .left }
        if v.y >= threshold { return .down }
        if -v.y >= threshold { return .up }
        return nil
    }
}
