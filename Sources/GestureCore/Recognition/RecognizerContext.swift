import GestureVocabulary

/// What every rule reads: the thresholds, the screen they apply to, and the rules in their arbitration
/// order.
public struct RecognizerContext: Sendable {
    public let settings: RecognizerSettings
    public let screenSizeMM: (width: Double, height: Double)
    /// cos(angle tolerance): a movement is along a direction when its component along it is at least this
    /// fraction of its length.
    public let cosAngleTolerance: Double
    /// `settings.rules`, made once.
    let rules: [any GestureRule]

    public init(settings: RecognizerSettings, screenSizeMM: (width: Double, height: Double)) {
        self.settings = settings
        self.screenSizeMM = screenSizeMM
        cosAngleTolerance = Angles.cosine(degrees: settings.angleToleranceDegrees)
        rules = settings.rules
    }
}
