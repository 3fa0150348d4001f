// The fields each kind's events carry beyond the ones every event has, declared once per kind: the JSON
// encoder and the text rendering write what the event's kind declares (docs/protocol.md documents each
// field). A kind's declaration is its `GestureKind.fields`.

/// A field a kind's events carry beyond the ones every event has (kind, phase, id, time, fingers,
/// `committed`, position, translation, velocity): its key on the wire, where it goes, its value with its
/// unit, and how `gesturectl monitor` shows it.
public struct EventField: Sendable {
    /// Where the field goes, in the JSON object and in the text line alike.
    public enum Place: Sendable, Equatable {
        /// After `fingers` (and `device`), before `committed`: what the gesture is (its edge, its taps).
        case beforeCommitted
        /// On an `end` only, after `committed`, written as null when the event has no value (a pan's
        /// direction).
        case atEnd
        /// After the common motion fields: what follows the fingers (progress, scale, rotation, span).
        case afterMotion
    }

    /// The value, read from the event: its type (the JSON's), and for a number its unit and decimals.
    public enum Value: Sendable {
        case edge(@Sendable (GestureEvent) -> Edge?)
        case direction(@Sendable (GestureEvent) -> SwipeDirection?)
        case integer(@Sendable (GestureEvent) -> Int?)
        case number(@Sendable (GestureEvent) -> Double?, unit: String?, decimals: Int)
    }

    /// How the text line shows it: `prefix`, the value (a number to `decimals`), `suffix`; for a count,
    /// the value and the singular or plural noun. nil: not shown.
    public enum Text: Sendable {
        case phrase(prefix: StaticString, decimals: Int = 0, suffix: StaticString = "")
        case count(prefix: StaticString, singular: StaticString, plural: StaticString)
        /// On an end: `prefix` and the value, or `none` when it has none.
        case orNone(prefix: StaticString, none: StaticString)
    }

    /// The key on the wire: "edge_position".
    public let key: StaticString
    public let place: Place
    public let value: Value
    public let text: Text?

    public init(_ key: StaticString, _ place: Place, _ value: Value, text: Text?) {
        self.key = key
        self.place = place
        self.value = value
        self.text = text
    }
}

/// A kind's fields, in the order they are written within each place.
public protocol KindFields {
    static var fields: [EventField] { get }
}

/// The fields of a kind that declares none beyond the common ones.
public enum NoFields: KindFields {
    public static let fields: [EventField] = []
}

/// An edge swipe's: the edge (or corner) and where along it the fingers landed; its progress.
public enum EdgeSwipeFields: KindFields {
    public static let fields: [EventField] = [
        EventField("edge", .beforeCommitted, .edge { $0.edge }, text: .phrase(prefix: "  from ")),
        EventField(
            "edge_position", .beforeCommitted, .number({ $0.edgePosition }, unit: nil, decimals: 5),
            text: .phrase(prefix: " at ", decimals: 2, suffix: " along it")),
        EventField(
            "progress", .afterMotion, .number({ $0.progress }, unit: "of the screen", decimals: 5),
            text: .phrase(prefix: "  progress ", decimals: 2)),
    ]
}

/// A pan's: the edge zone it began in, if any; the direction it ended in (null when none).
public enum PanFields: KindFields {
    public static let fields: [EventField] = [
        EventField(
            "start_edge", .beforeCommitted, .edge { $0.startEdge }, text: .phrase(prefix: "  started at the ", suffix: " edge")),
        EventField("direction", .atEnd, .direction { $0.direction }, text: .orNone(prefix: "  direction ", none: "none")),
    ]
}

/// A pinch's: scale, rotation and span.
public enum PinchFields: KindFields {
    public static let fields: [EventField] = [
        EventField("scale", .afterMotion, .number({ $0.scale }, unit: nil, decimals: 5), text: .phrase(prefix: "  scale ", decimals: 2)),
        EventField(
            "rotation", .afterMotion, .number({ $0.rotationDegrees }, unit: "degrees", decimals: 2),
            text: .phrase(prefix: "  rotation ", decimals: 1, suffix: "°")),
        EventField("span_mm", .afterMotion, .number({ $0.spanMM }, unit: "mm", decimals: 2), text: nil),
    ]
}

/// A tap's: the taps so far.
public enum TapFields: KindFields {
    public static let fields: [EventField] = [
        EventField("taps", .beforeCommitted, .integer { $0.taps }, text: .count(prefix: "  ", singular: " tap", plural: " taps"))
    ]
}
