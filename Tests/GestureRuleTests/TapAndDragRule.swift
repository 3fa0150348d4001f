import GestureCore
import GestureVocabulary

/// A gesture kind gestured does not have, added the way docs/architecture.md ("Adding a gesture kind")
/// says: one rule, written against GestureCore's public API alone (this file imports it without
/// @testable), put in the settings' rules where it must be asked. Nothing in the recognizer knows about it.
///
/// A three-finger tap-and-drag: three fingers tap, then, before the tap sequence is over (within the
/// multi-tap interval), three fingers land again and move. It takes the waiting tap's place (the tap is
/// cancelled: it was the first half of this gesture), and it commits when the fingers moved at least
/// `commitDistanceMM`.
struct TapAndDragRule: GestureRule {
    /// The kind, and the one field its events carry beyond the common ones: how far the fingers dragged,
    /// kept in the event's first extra slot. Declared here alone, it reaches the JSON, the text line, a
    /// bindings key (`drag_mm = [from, to]`) and the commands' environment (`GESTURE_DRAG_MM`)
    /// (KindDescriptorTests).
    static let dragMM = EventField(
        "drag_mm", .extra(slot: 0, .number(decimals: 2)), .afterMotion, decimals: 2,
        text: .phrase(prefix: "  dragged ", decimals: 1, suffix: " mm"), binding: .range(0...2000),
        values: "millimetres", meaning: "how far the fingers dragged since they landed again")
    static let kind = GestureKind("tap-and-drag", fields: [dragMM])

    /// Its thresholds, with their defaults (a rule that is configurable declares them as a
    /// ConfigurableRule; this one is set in code).
    var fingers = 3
    var commitDistanceMM = 10.0

    var kind: GestureKind { TapAndDragRule.kind }

    /// It applies only to a touch that follows a tap of as many fingers, with as many fingers.
    func attemptStarted(_ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> RuleInterest {
        guard let waiting = attempt.waiting, waiting.kind == .tap, waiting.fingers == self.fingers,
            fingers.count == self.fingers
        else { return .doesNotApply }
        return .applies
    }

    /// It begins as soon as a finger moved past the slop.
    func evaluate(_ occasion: Occasion, _ attempt: AttemptFacts, fingers: FingerSet, context: RecognizerContext) -> Verdict {
        switch occasion {
        case .moved: return fingers.maximumMoveMM >= context.settings.slopMM ? .begins : .doesNotApply
        case .lifted: return .fails("the fingers lifted without dragging")
        case .deadline: return .doesNotApply
        }
    }

    func update(_ e: inout GestureEvent, _ start: GestureStart, fingers: FingerSet, context: RecognizerContext) {
        e[TapAndDragRule.dragMM] = .number(e.translationMM.length)
    }

    func decideCommit(_ e: inout GestureEvent, context: RecognizerContext) {
        e.committed = e.translationMM.length >= commitDistanceMM
    }

    func supersedes(_ waiting: GestureEvent) -> Bool { waiting.kind == .tap }

    func beginReason(_ e: GestureEvent) -> String { "a tap, then the same fingers landed again and moved" }
}
