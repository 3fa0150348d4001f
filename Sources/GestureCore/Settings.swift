import GestureVocabulary

/// The zone of one screen edge.
public struct EdgeZone: Equatable, Sendable {
    public var enabled: Bool
    /// Width of the zone measured inward from the edge, in millimetres.
    public var widthMM: Double

    public init(enabled: Bool = true, widthMM: Double = RecognizerSettings.defaultEdgeZoneWidthMM) {
        self.enabled = enabled
        self.widthMM = widthMM
    }
}

/// Edge swipe recognizer thresholds.
public struct EdgeSwipeSettings: Equatable, Sendable {
    public var enabled: Bool = true
    public var zones: [Edge: EdgeZone] = [
        .left: EdgeZone(), .right: EdgeZone(), .top: EdgeZone(), .bottom: EdgeZone(),
    ]
    /// Fewest and most fingers an edge swipe may have (every finger must land in the same edge's zone).
    public var minFingers: Int = 1
    public var maxFingers: Int = 1
    /// Progress (fraction of the screen along the swipe axis) at which a release commits.
    public var commitProgress: Double = 0.5
    /// Inward release velocity that commits whatever the progress; the same speed outward cancels.
    public var flingVelocityMMPerSecond: Double = 200
    /// Fingers landing in the zones of two sides and moving inward along the corner's diagonal (within
    /// 45°) swipe from the corner ("top-left", ...). On: corner swipes are common bindings (Sxmo's), and a
    /// swipe along one side's inward axis still goes to that side.
    public var corners: Bool = true
    /// With passthrough, touches that land in an edge zone are held back from applications until the edge
    /// swipe is decided; if it is still undecided this long after the landing (the finger has not moved
    /// past the slop), the touch is delivered and its edge swipe fails. 0.12 s: long enough for a finger
    /// that starts a swipe at once to pass the 3 mm slop (60 mm/s suffices at 0.05 s), short enough that
    /// a press by the edge reaches the application about as late as a typical display frame or two.
    public var withholdMaxSeconds: Double = 0.12

    public init() {}

    public func zone(_ edge: Edge) -> EdgeZone { zones[edge] ?? EdgeZone(enabled: false) }
}

/// Pan (and swipe) recognizer thresholds.
public struct PanSettings: Equatable, Sendable {
    public var enabled: Bool = true
    public var minFingers: Int = 1
    public var maxFingers: Int = 5
    /// Distance of the centroid from where the fingers landed at which a release commits.
    public var commitDistanceMM: Double = 15
    /// Release velocity that commits whatever the distance.
    public var flingVelocityMMPerSecond: Double = 200
    /// The directions a committed pan's `end` is classified into: 4 (up, down, left, right, within the
    /// angle tolerance, else none) or 8 (also up-left, up-right, down-left, down-right; each 45° wide).
    public var directions: Int = 4
    /// With passthrough, pans with `claimMinFingers`...`claimMaxFingers` fingers are system gestures:
    /// when one begins, its touches already delivered to applications are cancelled.
    public var claim: Bool = false
    public var claimMinFingers: Int = 3
    public var claimMaxFingers: Int = 5

    public init() {}
}

/// Tap recognizer thresholds: fingers that land and lift without moving.
public struct TapSettings: Equatable, Sendable {
    public var enabled: Bool = true
    public var minFingers: Int = 1
    public var maxFingers: Int = 5
    /// Longest time from the first finger landing to the last lifting: a longer press is not a tap.
    public var maxDurationSeconds: Double = 0.4
    /// Longest time from one tap's last lift to the next tap's first landing for the two to be one
    /// sequence (a double tap).
    public var multiTapIntervalSeconds: Double = 0.3
    /// Farthest a further tap may land from the sequence's first tap, millimetres.
    public var multiTapDistanceMM: Double = 15
    /// Taps after which a sequence ends at once (2: double taps end without waiting).
    public var maxTaps: Int = 2

    public init() {}
}

/// Hold (long press) recognizer thresholds.
public struct HoldSettings: Equatable, Sendable {
    public var enabled: Bool = true
    public var minFingers: Int = 1
    public var maxFingers: Int = 5
    /// Time the fingers must stay within the slop after the last one landed.
    public var holdSeconds: Double = 0.5

    public init() {}
}

/// Pinch (with rotation) recognizer thresholds.
public struct PinchSettings: Equatable, Sendable {
    public var enabled: Bool = true
    public var minFingers: Int = 2
    public var maxFingers: Int = 5
    /// Change of the fingers' mean distance from their centroid that begins a pinch.
    public var beginSpanChangeMM: Double = 3
    /// Rotation of the fingers around their centroid that begins a pinch.
    public var beginRotationDegrees: Double = 10
    /// A release commits when |1 - scale| reaches this ...
    public var commitScaleChange: Double = 0.4
    /// ... or when |rotation| reaches this.
    public var commitRotationDegrees: Double = 45
    /// With passthrough, pinches with `claimMinFingers`...`claimMaxFingers` fingers are system gestures:
    /// when one begins, its touches already delivered to applications are cancelled.
    public var claim: Bool = false
    public var claimMinFingers: Int = 3
    public var claimMaxFingers: Int = 5

    public init() {}
}

/// Every threshold the recognizers use. Defaults are chosen to hold on any panel, phones to 32-inch
/// monitors; docs/gestures.md gives each one's reason.
public struct RecognizerSettings: Equatable, Sendable {
    public static let defaultEdgeZoneWidthMM: Double = 5

    /// Distance a finger must move before anything is recognized: below it a touch is a tap or a resting
    /// finger with jitter.
    public var slopMM: Double = 3
    /// How far off an axis a movement may point and still count as along it: edge swipes inward, and
    /// pan swipe directions.
    public var angleToleranceDegrees: Double = 30
    /// Velocities are measured over the samples of this window (and are zero when the fingers have not
    /// moved for this long).
    public var velocityWindowSeconds: Double = 0.08
    /// Two or more fingers are a pinch rather than a pan when the part of their motion that differs
    /// between fingers is at least this fraction of the motion they share.
    public var pinchDifferentialRatio: Double = 0.5
    /// Fingers of one hand land up to this far apart (each within this time of the previous one): they are
    /// one gesture. A pan or pinch that could still gain fingers begins only once this time has passed
    /// since the last landing (or at once when flung, or at the lift), so a hand still landing is not
    /// seen as a gesture begun and cancelled. A finger landing later than this does not join: the fingers
    /// already down rest (they take part in nothing until they lift) and the new ones are recognized on
    /// their own.
    public var fingerLandingWindowSeconds: Double = 0.2

    public var edgeSwipe = EdgeSwipeSettings()
    public var pan = PanSettings()
    public var pinch = PinchSettings()
    public var tap = TapSettings()
    public var hold = HoldSettings()

    /// The device's touches go through gestured (passthrough): the recognizer says which touches to hold
    /// back, deliver or cancel (`EngineOutput.touch`). Set from the device's configuration, not a
    /// [recognizer] key.
    public var withholdsTouches: Bool = false

    public init() {}
}

/// The device's mounting relative to the screen, clockwise.
public enum Rotation: Int, CaseIterable, Sendable {
    case none = 0, clockwise90 = 90, upsideDown = 180, clockwise270 = 270
}

/// How device coordinates map onto the screen and onto millimetres.
public struct GeometrySettings: Equatable, Sendable {
    /// Rotation of the touch panel relative to the screen as the user sees it, applied after the flips.
    public var rotation: Rotation = .none
    public var flipX: Bool = false
    public var flipY: Bool = false
    /// A libinput-style calibration matrix [a, b, c, d, e, f] on normalised coordinates:
    /// x' = a·x + b·y + c, y' = d·x + e·y + f. Applied after rotation and flips; nil means identity.
    public var calibration: [Double]? = nil
    /// Physical size of the touch area (width × height in millimetres, in the device's own axes),
    /// for devices that report no axis resolution.
    public var panelSizeMM: (width: Double, height: Double)? = nil

    public init() {}

    /// Diagonal assumed for a landscape panel (wider than tall in its own axes) that reports no
    /// resolution and has no configured size: tablets, convertibles, kiosks and monitors.
    public static let assumedLandscapeDiagonalMM: Double = 350
    /// Diagonal assumed for a portrait panel (taller than wide in its own axes) with no resolution and no
    /// configured size: panels built portrait are phones and small tablets (PinePhone, Librem 5, Nexus).
    public static let assumedPortraitDiagonalMM: Double = 150

    /// The diagonal assumed for a panel whose axes span `widthUnits` × `heightUnits`.
    public static func assumedDiagonalMM(widthUnits: Double, heightUnits: Double) -> Double {
        heightUnits > widthUnits * 1.2 ? assumedPortraitDiagonalMM : assumedLandscapeDiagonalMM
    }

    public static func == (a: GeometrySettings, b: GeometrySettings) -> Bool {
        a.rotation == b.rotation && a.flipX == b.flipX && a.flipY == b.flipY && a.calibration == b.calibration
            && a.panelSizeMM?.width == b.panelSizeMM?.width && a.panelSizeMM?.height == b.panelSizeMM?.height
    }
}
