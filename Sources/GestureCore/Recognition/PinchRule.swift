import GestureVocabulary

/// Pinch with rotation (UIPinchGestureRecognizer + UIRotationGestureRecognizer) on two or more fingers
/// whose motion differs between them. Its begin test, what its events carry and when it commits;
/// docs/gestures.md gives the reasons for each threshold.
enum PinchRule {
    /// Two or more fingers are pinch-like when the part of their motion that differs between them is at
    /// least `pinchDifferentialRatio` of the motion they share. A pinch-like motion is never a pan: the
    /// pinch begins once the span or the rotation changed enough (when pinches are allowed), and until
    /// then nothing does.
    static func evaluate(_ fingers: FingerSet, context: RecognizerContext) -> Verdict {
        let n = fingers.count
        let settings = context.settings
        guard n >= 2, fingers.differentialMoveMM >= settings.pinchDifferentialRatio * fingers.centroidMoveMM.length
        else { return .doesNotApply }
        let pinch = settings.pinch
        guard pinch.enabled && n >= pinch.minFingers && n <= pinch.maxFingers else { return .waits }
        let spanChange = abs(fingers.spanMM - fingers.spanAtBaselineMM)
        if spanChange >= pinch.beginSpanChangeMM || abs(fingers.rotationSinceBaselineDegrees) >= pinch.beginRotationDegrees {
            return .begins(.pinch(spanAtBeginMM: max(fingers.spanMM, 0.001)))
        }
        return .waits
    }

    static func snapshot(spanAtBeginMM: Double, _ e: inout GestureEvent, fingers: FingerSet, rotationAtBeginDegrees: Double) {
        let span = fingers.spanMM
        e.spanMM = span
        e.scale = span / spanAtBeginMM
        e.rotationDegrees = fingers.rotationSinceBaselineDegrees - rotationAtBeginDegrees
    }

    /// Commits when the scale or the rotation changed past their commit thresholds.
    static func decideCommit(_ e: inout GestureEvent, context: RecognizerContext) {
        let pinch = context.settings.pinch
        e.committed = abs(1 - (e.scale ?? 1)) >= pinch.commitScaleChange
            || abs(e.rotationDegrees ?? 0) >= pinch.commitRotationDegrees
    }
}
