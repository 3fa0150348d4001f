// The fields a kind's events carry beyond the ones every event has, declared once, beside the kind: the
// JSON encoder, the text line, the protocol's subscription filter, the bindings file's keys, the bindings'
// matching and the environment variables of the commands they run all follow these declarations, and so do
// the generated lists of kinds and fields (KindCatalog). docs/architecture.md, "Adding a gesture kind".

/// A value of an event field.
public enum EventFieldValue: Equatable, Sendable {
    case edge(Edge)
    case direction(SwipeDirection)
    case integer(Int)
    case number(Double)
    case flag(Bool)
}

/// Where a field's value lives in a `GestureEvent`: one of the stored properties of the fields gestured
/// ships, or, for a kind added from outside (docs/architecture.md), one of the event's `extraFields` slots,
/// read as the given type.
public enum EventFieldStorage: Equatable, Sendable {
    case edge, edgePosition, startEdge, taps, direction, progress, scale, rotationDegrees, spanMM
    case extra(slot: Int, ExtraFieldType)
}

/// The type of a field kept in an `extraFields` slot.
public enum ExtraFieldType: Equatable, Sendable {
    case number(decimals: Int)
    case integer
    case flag
}

/// A field some kinds' events carry beyond the common ones (kind, phase, id, time, fingers, `committed`,
/// position, translation, velocity): its key on the wire and in the bindings file, where its value lives,
/// where it goes in a line, how a person reads it, how a binding matches it, and what the docs say.
public struct EventField: Sendable, Equatable {
    /// Where the field goes, in the JSON object and in the text line alike.
    public enum Place: Equatable, Sendable {
        /// After `fingers` (and `device`), before `committed`: what the gesture is (its edge, its taps).
        case beforeCommitted
        /// On an `end` only, after `committed`; JSON writes null when the event has no value (a pan's
        /// direction). Known at the end only: a binding that matches it fires on `end`.
        case atEnd
        /// After the common motion fields: what follows the fingers (progress, scale, rotation, span).
        case afterMotion
    }

    /// How the text line (`gesturectl monitor`, `replay --pretty`) shows it.
    public enum Text: Sendable {
        /// Not shown.
        case hidden
        /// `prefix`, the value (a number to `decimals`), `suffix`.
        case phrase(prefix: StaticString, decimals: Int = 0, suffix: StaticString = "")
        /// "  3 taps": the value and the noun, singular or plural.
        case count(singular: StaticString, plural: StaticString)
        /// `prefix` and the value, or `none` when the event has none.
        case orNone(prefix: StaticString, none: StaticString)

        /// The plural noun of a count (" taps"), for messages.
        public var countNoun: String? {
            if case .count(_, let plural) = self { return plural.description }
            return nil
        }
    }

    /// How a binding (`gesturectl bind`'s file) matches the field, under the field's key.
    public enum BindingMatch: Equatable, Sendable {
        /// An edge or corner name, or a list of them.
        case edges
        /// A direction name, or a list of them.
        case directions
        /// A whole number in the range, exactly.
        case integer(ClosedRange<Int>)
        /// `[from, to]` inside the range: the value in it.
        case range(ClosedRange<Double>)
        /// `true` or `false`.
        case flag
    }

    /// The key on the wire and in the bindings file: "edge_position".
    public let key: StaticString
    public let storage: EventFieldStorage
    public let place: Place
    /// Decimals on the wire, for numbers.
    public let decimals: Int
    public let text: Text
    /// How a binding matches it; nil: no binding key.
    public let binding: BindingMatch?
    /// Whether commands get it as `GESTURE_<KEY>` (upper case: `GESTURE_EDGE_POSITION`).
    public let inEnvironment: Bool
    /// For the docs' tables: the values it takes and their unit ("0…1", "millimetres"), and what it means.
    public let values: StaticString
    public let meaning: StaticString

    public init(
        _ key: StaticString, _ storage: EventFieldStorage, _ place: Place, decimals: Int = 0, text: Text,
        binding: BindingMatch? = nil, inEnvironment: Bool = true, values: StaticString, meaning: StaticString
    ) {
        self.key = key
        self.storage = storage
        self.place = place
        self.decimals = decimals
        self.text = text
        self.binding = binding
        self.inEnvironment = inEnvironment
        self.values = values
        self.meaning = meaning
    }

    /// The wire key as a String.
    public var name: String { key.description }

    /// The environment variable commands get it in: "GESTURE_EDGE_POSITION".
    public var environmentName: String { "GESTURE_" + name.uppercased() }

    /// The same field: the same key (a kind's fields have distinct keys; fields of different kinds with
    /// one key are one field, as `edge` would be).
    public static func == (a: EventField, b: EventField) -> Bool {
        a.key.withUTF8Buffer { x in b.key.withUTF8Buffer { y in x.elementsEqual(y) } }
    }
}

/// Values of fields kept in an event's `extraFields`: a fixed number of slots held inline (an event copies
/// as plain bytes), NaN where a slot holds nothing.
public struct ExtraFieldValues: Equatable, Sendable {
    /// How many fields of its own a kind added from outside may declare.
    public static let slots = 4

    private var values: (Double, Double, Double, Double) = (.nan, .nan, .nan, .nan)

    public init() {}

    public subscript(slot: Int) -> Double? {
        get {
            let v: Double
            switch slot {
            case 0: v = values.0
            case 1: v = values.1
            case 2: v = values.2
            case 3: v = values.3
            default: return nil
            }
            return v.isNaN ? nil : v
        }
        set {
            let v = newValue ?? .nan
            switch slot {
            case 0: values.0 = v
            case 1: values.1 = v
            case 2: values.2 = v
            case 3: values.3 = v
            default: preconditionFailure("extra field slot \(slot) is not in 0..<\(ExtraFieldValues.slots)")
            }
        }
    }

    public static func == (a: ExtraFieldValues, b: ExtraFieldValues) -> Bool {
        (0..<slots).allSatisfy { a[$0] == b[$0] }
    }
}

extension GestureEvent {
    /// The value of `field` on this event; nil when the event does not carry it.
    @inlinable public subscript(field: EventField) -> EventFieldValue? {
        get {
            switch field.storage {
            case .edge: return edge.map(EventFieldValue.edge)
            case .edgePosition: return edgePosition.map(EventFieldValue.number)
            case .startEdge: return startEdge.map(EventFieldValue.edge)
            case .taps: return taps.map(EventFieldValue.integer)
            case .direction: return direction.map(EventFieldValue.direction)
            case .progress: return progress.map(EventFieldValue.number)
            case .scale: return scale.map(EventFieldValue.number)
            case .rotationDegrees: return rotationDegrees.map(EventFieldValue.number)
            case .spanMM: return spanMM.map(EventFieldValue.number)
            case .extra(let slot, let type):
                guard let v = extraFields[slot] else { return nil }
                switch type {
                case .number: return .number(v)
                // Stored as a Double: Int.max comes back as 2^63, one past it, which Int(_:) traps on.
                case .integer: return .integer(Int(exactly: v) ?? (v < 0 ? .min : .max))
                case .flag: return .flag(v != 0)
                }
            }
        }
        set {
            switch (field.storage, newValue) {
            case (.edge, .edge(let v)?): edge = v
            case (.edge, nil): edge = nil
            case (.edgePosition, .number(let v)?): edgePosition = v
            case (.edgePosition, nil): edgePosition = nil
            case (.startEdge, .edge(let v)?): startEdge = v
            case (.startEdge, nil): startEdge = nil
            case (.taps, .integer(let v)?): taps = v
            case (.taps, nil): taps = nil
            case (.direction, .direction(let v)?): direction = v
            case (.direction, nil): direction = nil
            case (.progress, .number(let v)?): progress = v
            case (.progress, nil): progress = nil
            case (.scale, .number(let v)?): scale = v
            case (.scale, nil): scale = nil
            case (.rotationDegrees, .number(let v)?): rotationDegrees = v
            case (.rotationDegrees, nil): rotationDegrees = nil
            case (.spanMM, .number(let v)?): spanMM = v
            case (.spanMM, nil): spanMM = nil
            case (.extra(let slot, .number), .number(let v)?): extraFields[slot] = v
            case (.extra(let slot, .integer), .integer(let v)?): extraFields[slot] = Double(v)
            case (.extra(let slot, .flag), .flag(let v)?): extraFields[slot] = v ? 1 : 0
            case (.extra(let slot, _), nil): extraFields[slot] = nil
            default: preconditionFailure("\(field.name) holds no \(String(describing: newValue))")
            }
        }
    }
}

/// What a kind declares beside its rule: its name, the fields its events carry and who receives them. Made once per kind (a
/// `static let`), and never freed: a `GestureKind` refers to it without counting references, so that an
/// event copies as plain bytes.
public final class KindDescriptor: Sendable {
    public let name: StaticString
    /// Its fields, in the order they are written within each place.
    public let fields: [EventField]
    /// The same, by place, for the writers.
    public let beforeCommitted: [EventField]
    public let atEnd: [EventField]
    public let afterMotion: [EventField]
    /// Who receives its gestures (`GestureAudience`, decided at each `begin`).
    public let audience: KindAudience

    init(name: StaticString, fields: [EventField], audience: KindAudience) {
        for (i, f) in fields.enumerated() {
            precondition(
                !f.name.isEmpty && f.name.utf8.allSatisfy { (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5f },
                "a field's key is lower-case letters, digits and underscores: \(f.name)")
            precondition(!fields[..<i].contains(f), "\(name) declares \(f.name) twice")
            if case .extra(let slot, _) = f.storage {
                precondition((0..<ExtraFieldValues.slots).contains(slot), "\(f.name): slot \(slot) is not in 0..<\(ExtraFieldValues.slots)")
                precondition(
                    !fields[..<i].contains { if case .extra(slot, _) = $0.storage { return true } else { return false } },
                    "\(name) keeps two fields in slot \(slot)")
            }
        }
        self.name = name
        self.fields = fields
        beforeCommitted = fields.filter { $0.place == .beforeCommitted }
        atEnd = fields.filter { $0.place == .atEnd }
        afterMotion = fields.filter { $0.place == .afterMotion }
        self.audience = audience
    }

    /// The descriptor of a kind declared with no fields of its own: private.
    static let bare = KindDescriptor(name: "", fields: [], audience: .seat)
}

/// The fields of the kinds gestured ships. One home for each: `edge` is the edge swipe's, `start_edge` the
/// pan's; docs/protocol.md documents each (KindListTests checks it).
public enum EventFields {
    public static let edge = EventField(
        "edge", .edge, .beforeCommitted, text: .phrase(prefix: "  from "), binding: .edges,
        values: "an edge or corner: `\"left\"`, `\"right\"`, `\"top\"`, `\"bottom\"`, `\"top-left\"`, `\"top-right\"`, `\"bottom-left\"`, `\"bottom-right\"`",
        meaning: "the edge or corner the fingers came from, as the user sees the screen")
    public static let edgePosition = EventField(
        "edge_position", .edgePosition, .beforeCommitted, decimals: 5,
        text: .phrase(prefix: " at ", decimals: 2, suffix: " along it"), binding: .range(0...1), values: "0…1",
        meaning: "where along its edge the fingers landed: from the left along top, bottom and the corners, from the top along left and right")
    public static let startEdge = EventField(
        "start_edge", .startEdge, .beforeCommitted, text: .phrase(prefix: "  started at the ", suffix: " edge"),
        binding: .edges, values: "as `edge`",
        meaning: "the edge zone the fingers landed in (they made no edge swipe), or the corner")
    public static let taps = EventField(
        "taps", .taps, .beforeCommitted, text: .count(singular: " tap", plural: " taps"), binding: .integer(1...10),
        values: "1…", meaning: "the taps so far in the sequence")
    public static let direction = EventField(
        "direction", .direction, .atEnd, text: .orNone(prefix: "  direction ", none: "none"), binding: .directions,
        values: "`\"up\"`, `\"down\"`, `\"left\"`, `\"right\"`, and with 8 directions the diagonals, or null",
        meaning: "the direction it ended in")
    public static let progress = EventField(
        "progress", .progress, .afterMotion, decimals: 5, text: .phrase(prefix: "  progress ", decimals: 2),
        values: "0…1", meaning: "fraction of the screen travelled inward")
    public static let scale = EventField(
        "scale", .scale, .afterMotion, decimals: 5, text: .phrase(prefix: "  scale ", decimals: 2),
        values: "ratio", meaning: "span now / span at begin")
    public static let rotation = EventField(
        "rotation", .rotationDegrees, .afterMotion, decimals: 2, text: .phrase(prefix: "  rotation ", decimals: 1, suffix: "°"),
        values: "degrees", meaning: "rotation since begin, clockwise positive")
    /// Kept in an extra slot: a field gestured ships needs no stored property of its own either.
    public static let downSeconds = EventField(
        "down_seconds", .extra(slot: 0, .number(decimals: 3)), .afterMotion, decimals: 3,
        text: .phrase(prefix: "  down ", decimals: 2, suffix: " s"), values: "seconds",
        meaning: "how long the fingers have been down, from the last one's landing")
    public static let spanMM = EventField(
        "span_mm", .spanMM, .afterMotion, decimals: 2, text: .hidden, values: "millimetres",
        meaning: "mean distance of the fingers from their centroid")

    /// Every field of the kinds gestured ships, once each, in the order the docs list them.
    public static let shipped: [EventField] = [
        edge, edgePosition, startEdge, taps, direction, progress, scale, rotation, spanMM, downSeconds,
    ]
}
