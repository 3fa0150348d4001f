import GestureVocabulary

/// What every rule reads: the thresholds, the screen they apply to, and the rules in their arbitration
/// order.
public struct RecognizerContext: Sendable {
    public let settings: RecognizerSettings
    public let screenSizeMM: (width: Double, height: Double)
    /// cos(angle tolerance): a movement is along a direction when its component along it is at least this
    /// fraction of its length.
    public let cosAngleTolerance: Double
    /// `settings.rules`, their array taken once.
    let rules: [any GestureRule]
    /// The parts of the edges that are no edge zone now (an app keeps them): set by the engine's driver
    /// when the focused app or a client's exclusions change, not per frame.
    public internal(set) var exclusions = EdgeExclusions()

    public init(settings: RecognizerSettings, screenSizeMM: (width: Double, height: Double)) {
        self.settings = settings
        self.screenSizeMM = screenSizeMM
        cosAngleTolerance = Angles.cosine(degrees: settings.angleToleranceDegrees)
        rules = settings.rules.elements
    }

    /// The sides whose zone in force every finger landed in (`settings.edgeZones`, enabled sides only,
    /// without the parts `exclusions` takes out).
    public func zonesLandedIn(_ fingers: FingerSet) -> EdgeSet {
        settings.edgeZones.landedIn(fingers, screenSizeMM: screenSizeMM, excluding: exclusions)
    }

    /// The sides some rule's gesture may begin from for these fingers (`GestureRule.startEdges`: an edge
    /// swipe's).
    public func startEdges(_ fingers: FingerSet) -> EdgeSet {
        var edges = EdgeSet()
        for rule in rules { edges.formUnion(rule.startEdges(fingers, context: self)) }
        return edges
    }
}
