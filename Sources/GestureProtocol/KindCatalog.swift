import GestureVocabulary

/// The lists of kinds and of their fields that people read, generated from the kinds' declarations
/// (GestureKind, EventFields.swift) instead of written by hand: `gesturectl monitor --help`, the plot's
/// colours, the docs' tables and the commands' environment. KindListTests checks the text files that cannot
/// be generated (completions, man pages, docs) against the same lists.
public enum KindCatalog {
    /// "edge-swipe, pan, pinch, tap, hold": the kinds, in their order.
    public static func names(_ kinds: [GestureKind] = GestureKind.allCases) -> String {
        kinds.map(\.rawValue).joined(separator: ", ")
    }

    /// Colours a plot tells kinds apart by, in the kinds' order; visible on white, and none black, which is
    /// the colour of a kind the plot was not told about.
    public static let palette = [
        "#e6550d", "#3182bd", "#756bb1", "#31a354", "#636363", "#8c564b", "#d6616b", "#17becf", "#bcbd22",
    ]

    /// `kind`'s colour among `kinds`: its place in the list picks it from the palette; black for a kind
    /// not in the list.
    public static func colour(of kind: GestureKind, among kinds: [GestureKind] = GestureKind.allCases) -> String {
        guard let i = kinds.firstIndex(of: kind) else { return "#000000" }
        return palette[i % palette.count]
    }

    /// One row of the gesture events' field table (docs/protocol.md): a field and the kinds that carry it.
    public struct FieldRow: Equatable, Sendable {
        public var field: EventField
        public var kinds: [GestureKind]

        public init(field: EventField, kinds: [GestureKind]) {
            self.field = field
            self.kinds = kinds
        }
    }

    /// Every field `kinds` declare, once each, with the kinds that carry it, in the kinds' order.
    public static func fieldRows(_ kinds: [GestureKind] = GestureKind.allCases) -> [FieldRow] {
        var rows: [FieldRow] = []
        for kind in kinds {
            for field in kind.fields {
                if let i = rows.firstIndex(where: { $0.field == field }) { rows[i].kinds.append(kind) } else {
                    rows.append(FieldRow(field: field, kinds: [kind]))
                }
            }
        }
        return rows
    }

    /// The variables commands get for the declared fields: "GESTURE_EDGE", ... (the common ones,
    /// GESTURE_KIND and the rest, are docs/bindings.md's too).
    public static func environmentNames(_ kinds: [GestureKind] = GestureKind.allCases) -> [String] {
        fieldRows(kinds).filter(\.field.inEnvironment).map(\.field.environmentName)
    }
}
