import GestureVocabulary

/// What every gesture kind's rules read: the thresholds, and the screen they apply to.
struct RecognizerContext {
    let settings: RecognizerSettings
    let screenSizeMM: (width: Double, height: Double)
    /// cos(angle tolerance): a movement is along a direction when its component along it is at least this
    /// fraction of its length.
    let cosAngleTolerance: Double

    init(settings: RecognizerSettings, screenSizeMM: (width: Double, height: Double)) {
        self.settings = settings
        self.screenSizeMM = screenSizeMM
        cosAngleTolerance = Angles.cosine(degrees: settings.angleToleranceDegrees)
    }
}

/// A gesture kind's answer, once the fingers have moved past the slop, to "does your gesture begin?".
enum Verdict {
    /// It begins now.
    case begins(ActiveKind)
    /// Not yet, but it may: kinds after it in the arbitration order must not begin on this motion.
    case waits
    /// It cannot begin for these fingers any more; kinds after it may.
    case fails
    /// It does not apply to these fingers; kinds after it may.
    case doesNotApply
}

/// The gesture kinds in the order they may claim fingers that moved past the slop, declared once: an edge
/// swipe first (a pan requires it to fail, UIKit's require-to-fail), then a pinch (fingers whose motion
/// differs between them are never a pan), then a pan.
enum Candidate: CaseIterable {
    case edgeSwipe, pinch, pan
    static let arbitrationOrder: [Candidate] = [.edgeSwipe, .pinch, .pan]
}

/// The gesture running, with what its kind needs to report it.
enum ActiveKind: Equatable {
    /// The edge or corner, and where along it the fingers landed (0...1).
    case edgeSwipe(Edge, landing: Double)
    case pan
    case pinch(spanAtBeginMM: Double)
    /// A hold (fingers that stayed still), followed by any dragging.
    case hold

    var gestureKind: GestureKind {
        switch self {
        case .edgeSwipe: return .edgeSwipe
        case .pan: return .pan
        case .pinch: return .pinch
        case .hold: return .hold
        }
    }

    /// Fills in the kind's own fields of an event whose common fields (position, translation, velocity)
    /// are set.
    func snapshot(_ e: inout GestureEvent, fingers: FingerSet, rotationAtBeginDegrees: Double) {
        e.kind = gestureKind
        switch self {
        case .edgeSwipe(let edge, let landing): EdgeSwipeRule.snapshot(edge, landing: landing, &e)
        case .pan, .hold: break
        case .pinch(let spanAtBegin): PinchRule.snapshot(spanAtBeginMM: spanAtBegin, &e, fingers: fingers, rotationAtBeginDegrees: rotationAtBeginDegrees)
        }
    }

    /// Sets `committed` (and a pan's `direction`) on an `end` event, from its last values and the
    /// velocity at release.
    func decideCommit(_ e: inout GestureEvent, context: RecognizerContext) {
        switch self {
        case .edgeSwipe(let edge, _): EdgeSwipeRule.decideCommit(edge, &e, context: context)
        case .pan: PanRule.decideCommit(&e, context: context)
        case .pinch: PinchRule.decideCommit(&e, context: context)
        case .hold: e.committed = true  // a hold that lasted until the lift always happened
        }
    }
}
