import GestureVocabulary

/// One gesture kind's rule: everything the recognizer needs to know about a kind, in one value that also
/// holds the kind's thresholds (its [recognizer] table, with their defaults as the initial values).
///
/// The recognizer (GestureRecognizer) is one state machine for every kind: it follows the fingers, and at
/// each occasion asks the rules, in their order in `RecognizerSettings.rules`, whether their gesture begins
/// (`evaluate`). The first rule to answer `.begins` wins, unless an earlier one answered `.waits`; a rule
/// that answers `.fails` is not asked again until the fingers change. A rule never sees another rule's
/// answer and has no state of its own: what it needs is in the fingers (FingerSet), the attempt
/// (AttemptFacts: the hand's landing and stillness, a gesture waiting for this touch) and the context
/// (every threshold, the screen's size). docs/architecture.md, "Adding a gesture kind", walks through
/// writing one.
public protocol GestureRule: Sendable, Equatable {
    /// The kind of the events it begins.
    var kind: GestureKind { get }

    /// The fingers of an attempt have landed (or changed before anything was recognized): whether the
    /// rule can begin for them at all, a time at which to be asked again (`Occasion.deadline`), and
    /// whether, with passthrough, their touches are held back from applications until it decides.
    func attemptStarted(_ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> RuleInterest

    /// Whether its gesture begins on `occasion`. Motion rules usually answer `.doesNotApply` until a finger
    /// moved past the slop (`fingers.maximumMoveMM >= context.settings.slopMM`).
    func evaluate(_ occasion: Occasion, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> Verdict

    /// Fills in the begin event's own fields (an edge swipe's edge and position along it, a pan's start
    /// edge). The event already has the common ones (position, translation, velocity of the fingers), which
    /// a rule may replace (a tap reports where the fingers landed).
    func began(_ e: inout GestureEvent, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext)

    /// Brings the fields that follow the fingers up to date (progress, scale, rotation, span) on the begin
    /// event and on every update; the common fields are already set. A function of the fingers, `start` and
    /// the begin event's own fields only, never of what an earlier call left: while no client takes updates
    /// (`GestureEngine.reportsUpdates` off) it is not called at every frame, but once, for the last frame,
    /// before the gesture ends or is cancelled.
    func update(_ e: inout GestureEvent, _ start: GestureStart, fingers: FingerSet, context: RecognizerContext)

    /// Sets `committed` (and a pan's `direction`) on an `end` event, from its last values and the velocity
    /// at release.
    func decideCommit(_ e: inout GestureEvent, context: RecognizerContext)

    /// Whether a gesture of this kind that would begin now waits for the hand to finish landing (a pan
    /// with fewer fingers than it may have: a hand landing finger by finger, already moving).
    func mayStillGainFingers(_ fingers: Int) -> Bool

    /// Its fling velocity: faster than this, a gesture held back while the hand lands begins at once (it
    /// was flung); nil for kinds never held back.
    var flingThresholdMMPerSecond: Double? { get }

    /// Whether, with passthrough, a gesture of this kind with `fingers` fingers owns its touches: the ones
    /// held back are never delivered, the ones delivered are cancelled.
    func claims(fingers: Int) -> Bool

    /// For a gesture that began when every finger lifted (`Occasion.lifted`): whether it ends now or waits
    /// for a further touch that may continue it (a tap sequence).
    func afterLift(_ e: GestureEvent, context: RecognizerContext) -> AfterLift

    /// Whether the attempt that just lifted continues `waiting` (its last event), a gesture of this kind
    /// waiting for a further touch (a second tap near the first); `start` is where it began.
    func continues(_ waiting: GestureEvent, start: GestureStart, _ attempt: AttemptFacts, context: RecognizerContext) -> Bool

    /// Updates a waiting gesture's event for the touch that continued it (one more tap).
    func continued(_ e: inout GestureEvent, _ attempt: AttemptFacts, context: RecognizerContext)

    /// Whether its gesture, beginning while `waiting` (another kind's) waits for a further touch, takes its
    /// place: the waiting gesture is then cancelled (it did not happen on its own) rather than ended.
    func supersedes(_ waiting: GestureEvent) -> Bool

    /// Why it began, for the trace ("moved inward from the left edge").
    func beginReason(_ e: GestureEvent) -> String

    /// The sides of the screen a gesture of this kind may begin from for these fingers (an edge swipe's
    /// zones they landed in, when it allows their count); empty for a kind that begins anywhere. Other
    /// rules ask `RecognizerContext.startEdges`, never the edge swipe itself.
    func startEdges(_ fingers: FingerSet, context: RecognizerContext) -> EdgeSet

    /// Why its gesture does not begin for these fingers on `occasion`, with the numbers it measured and the
    /// settings it held them against (RuleExplanations.swift); nil when nothing stands in its way. Asked
    /// only while the engine explains or traces: when the rule fails, and when the attempt ends without
    /// its gesture (every finger lifted, or another kind began).
    func explainNotBegun(_ occasion: Occasion, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> Reason?

    /// Why a gesture of this kind ended as `e` (its `end`) did: not committed, or without a direction; nil
    /// when there is nothing to explain. Asked only while the engine explains or traces.
    func explainEnd(_ e: GestureEvent, context: RecognizerContext) -> Reason?
}

extension GestureRule {
    public func mayStillGainFingers(_ fingers: Int) -> Bool { false }
    public var flingThresholdMMPerSecond: Double? { nil }
    public func claims(fingers: Int) -> Bool { false }
    public func afterLift(_ e: GestureEvent, context: RecognizerContext) -> AfterLift { .end }
    public func continues(
        _ waiting: GestureEvent, start: GestureStart, _ attempt: AttemptFacts, context: RecognizerContext
    ) -> Bool { false }
    public func continued(_ e: inout GestureEvent, _ attempt: AttemptFacts, context: RecognizerContext) {}
    public func supersedes(_ waiting: GestureEvent) -> Bool { false }
    public func began(_ e: inout GestureEvent, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) {}
    public func update(_ e: inout GestureEvent, _ start: GestureStart, fingers: FingerSet, context: RecognizerContext) {}
    public func startEdges(_ fingers: FingerSet, context: RecognizerContext) -> EdgeSet { EdgeSet() }
    public func explainNotBegun(_ occasion: Occasion, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> Reason? { nil }
    public func explainEnd(_ e: GestureEvent, context: RecognizerContext) -> Reason? { nil }
}

/// What a rule is asked about.
public enum Occasion: Sendable, Equatable {
    /// The attempt's fingers moved (none landed or lifted).
    case moved
    /// Every finger of the attempt lifted before anything was recognized.
    case lifted
    /// The time the rule asked for (`RuleInterest.deadlineMicroseconds`) has come; only that rule is asked.
    case deadline
}

/// A rule's answer to "does your gesture begin?".
public enum Verdict: Sendable, Equatable {
    /// It begins now.
    case begins
    /// Not yet, but it may: rules after it in the arbitration order must not begin on this occasion.
    case waits
    /// It cannot begin for these fingers any more (the reason is traced); rules after it may.
    case fails(StaticString)
    /// It does not apply to these fingers on this occasion; rules after it may.
    case doesNotApply

    public static func == (a: Verdict, b: Verdict) -> Bool {
        switch (a, b) {
        case (.begins, .begins), (.waits, .waits), (.doesNotApply, .doesNotApply): return true
        case (.fails(let x), .fails(let y)): return x.description == y.description
        case (.begins, _), (.waits, _), (.fails, _), (.doesNotApply, _): return false
        }
    }
}

/// A rule's interest in an attempt, when its fingers landed or changed.
public struct RuleInterest: Sendable, Equatable {
    /// false: the rule cannot begin for these fingers (it is not asked until they change).
    public var applies: Bool
    /// Ask the rule again at this time (event clock, microseconds) with `Occasion.deadline`.
    public var deadlineMicroseconds: Int64?
    /// With passthrough, the fingers' touches are held back from applications until the rule decides.
    public var withholdsTouches: Bool

    public init(applies: Bool, deadlineMicroseconds: Int64? = nil, withholdsTouches: Bool = false) {
        self.applies = applies
        self.deadlineMicroseconds = deadlineMicroseconds
        self.withholdsTouches = withholdsTouches
    }

    public static let applies = RuleInterest(applies: true)
    public static let doesNotApply = RuleInterest(applies: false)
}

/// What becomes of a gesture that began when every finger lifted.
public enum AfterLift: Sendable, Equatable {
    /// It ends now.
    case end
    /// It waits until this time (event clock, microseconds) for a further touch that may continue it;
    /// then it ends.
    case waitForNextTouch(untilMicroseconds: Int64)
}

/// Whether the fingers of a hand have stayed where they landed.
public enum Stillness: Sendable, Equatable {
    /// No finger moved past the slop from where it landed.
    case still
    /// A finger moved past the slop from where it landed, none as far as twice the slop
    /// (`RecognizerSettings.rollLimitMM`): a finger rolling as it presses. Still a tap when every finger
    /// lifts before any gesture began (a one-finger pan waits for the hand to land), never a hold.
    case rolled
    /// A finger moved from where it landed past twice the slop, or past the slop before a gesture began.
    case moved
    /// A finger was lost (it turned into a palm), or the attempt did not start with a landing: stillness
    /// cannot be judged.
    case unknown
}

/// The hand an attempt belongs to: the fingers that landed together (each within the landing window of
/// the previous), followed across the attempt's restarts as fingers join or lift before anything is
/// recognized.
public struct Hand: Sendable, Equatable {
    /// When its first finger landed, microseconds (event clock).
    public var firstLandingMicroseconds: Int64
    /// The most fingers it had down at once.
    public var mostFingers: Int
    /// Where those fingers landed (their landing centroid, normalised and in millimetres).
    public var landingAtMostN: Vector2
    public var landingAtMostMM: Vector2
    public var stillness: Stillness
}

/// What a rule sees of an attempt besides its fingers.
public struct AttemptFacts: Sendable {
    public var hand: Hand
    /// The time of the occasion, microseconds (event clock).
    public var timeMicroseconds: Int64
    /// A gesture that began at an earlier touch and waits for a further one (a tap sequence); nil when
    /// none waits.
    public var waiting: WaitingGesture?
}

/// A gesture waiting for a further touch, as a rule sees it.
public struct WaitingGesture: Sendable, Equatable {
    public var kind: GestureKind
    public var id: UInt64
    public var fingers: Int
    /// Taps so far, for a tap sequence.
    public var taps: Int?
}

/// Where the fingers were when a gesture began (or, for one held back while the hand landed, when it
/// would have begun): pinch scale and rotation count from here, a further tap must land near it.
public struct GestureStart: Sendable, Equatable {
    /// The fingers' mean distance from their centroid, millimetres.
    public var spanMM: Double
    /// The fingers' cumulative rotation around their centroid since the attempt's baseline, degrees.
    public var rotationDegrees: Double
    /// Where the gesture's event put it at its begin (the fingers' centroid, or a tap's landing).
    public var positionMM: Vector2
}
