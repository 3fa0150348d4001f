// What a session companion (`gesturectl orientation --follow`, an iio-sensor-proxy helper) wants the daemon
// to hold, one value per key (a device's orientation), and when to send it (issue 28): the daemon bounds how
// fast a user may change its state and refuses what comes faster with `rate-limited` and a `retry_after`;
// a companion that gave up on a refusal would leave the daemon at an old value for good. The pacer keeps
// only the latest wanted value per key, has at most one request in flight per key, and after a refusal
// sends the latest value once `retry_after` has passed. Pure: the caller gives the times, sends the
// requests `due` names, and reports the daemon's answers.
import GestureProtocol

public struct RequestPacer<Key: Hashable & Sendable, Value: Equatable & Sendable>: Sendable {
    /// One key's state.
    public enum State: Equatable, Sendable {
        /// Nothing to send: the daemon holds `held` (nil: not known), which is what is wanted, or a
        /// refusal other than `rate-limited` ended the attempt.
        case settled(held: Value?)
        /// `wanted` should be sent (the daemon holds `held`), not before `notBefore` (after a refusal).
        case pending(wanted: Value, held: Value?, notBefore: Int64)
        /// The request `id` for `sent` is in flight; `wanted` is what is wanted now (`sent` or newer).
        case inFlight(id: Int, sent: Value, wanted: Value, held: Value?)
    }

    public private(set) var states: [Key: State] = [:]
    /// The wait after a refusal that says no `retry_after` (an older daemon): a rate of two a second.
    public static var defaultRetryAfterSeconds: Double { 0.5 }

    public init() {}

    /// What the daemon holds for `key`, as last known.
    public func held(_ key: Key) -> Value? {
        switch states[key] {
        case .settled(let held)?, .pending(_, let held, _)?, .inFlight(_, _, _, let held)?: return held
        case nil: return nil
        }
    }

    /// `value` is wanted for `key` now: sent (by `due`) unless the daemon holds it already, or always with
    /// `force`. A value wanted while another is in flight or refused replaces it: only the latest is sent.
    public mutating func want(_ value: Value, for key: Key, force: Bool = false) {
        switch states[key] ?? .settled(held: nil) {
        case .settled(let held):
            guard force || held != value else { return }
            states[key] = .pending(wanted: value, held: held, notBefore: .min)
        case .pending(_, let held, let notBefore):
            states[key] = .pending(wanted: value, held: held, notBefore: notBefore)
        case .inFlight(let id, let sent, _, let held):
            states[key] = .inFlight(id: id, sent: sent, wanted: value, held: held)
        }
    }

    /// The daemon says it holds `value` for `key` (a notification, or the first list of devices): a value
    /// still pending that equals it needs no request.
    public mutating func daemonHolds(_ value: Value, for key: Key) {
        switch states[key] ?? .settled(held: nil) {
        case .settled:
            states[key] = .settled(held: value)
        case .pending(let wanted, _, let notBefore):
            states[key] = wanted == value ? .settled(held: value) : .pending(wanted: wanted, held: value, notBefore: notBefore)
        case .inFlight(let id, let sent, let wanted, _):
            states[key] = .inFlight(id: id, sent: sent, wanted: wanted, held: value)
        }
    }

    /// What to send at `now`: each key's latest wanted value, when none is in flight for it and its wait
    /// after a refusal is over. The caller sends each and calls `sent`.
    public func due(now: Int64) -> [(key: Key, value: Value)] {
        states.compactMap { key, state in
            guard case .pending(let wanted, _, let notBefore) = state, notBefore <= now else { return nil }
            return (key, wanted)
        }
    }

    /// When the next refused value may be sent (nil: none waits).
    public var nextDeadline: Int64? {
        states.values.compactMap { state -> Int64? in
            guard case .pending(_, _, let notBefore) = state, notBefore > .min else { return nil }
            return notBefore
        }.min()
    }

    /// The request `id` for `value` (from `due`) is sent.
    public mutating func sent(_ value: Value, for key: Key, id: Int) {
        states[key] = .inFlight(id: id, sent: value, wanted: value, held: held(key))
    }

    /// The daemon's answer to a request `id`, and what came of it.
    public enum Answer: Sendable {
        case accepted
        /// Refused; `error.code == .rateLimited` makes the value wait `retryAfter` and go again.
        case refused(ProtocolError)
    }

    /// The key and value of request `id` (nil when it is none of ours), after applying the answer at `now`
    /// (µs or ms, as the caller's other times): accepted, the daemon holds it and a newer wanted value is
    /// pending; refused as rate-limited, the latest value waits `retry_after`; refused otherwise, the
    /// attempt ends (sent again only when another value is wanted).
    @discardableResult
    public mutating func answered(id: Int, _ answer: Answer, now: Int64, unitsPerSecond: Double) -> (key: Key, value: Value)? {
        guard let (key, state) = states.first(where: { if case .inFlight(id, _, _, _) = $0.value { return true } else { return false } }),
            case .inFlight(_, let sent, let wanted, let held) = state
        else { return nil }
        switch answer {
        case .accepted:
            states[key] = wanted == sent ? .settled(held: sent) : .pending(wanted: wanted, held: sent, notBefore: .min)
        case .refused(let error) where error.code == .rateLimited:
            let wait = error.retryAfter ?? Self.defaultRetryAfterSeconds
            states[key] = .pending(wanted: wanted, held: held, notBefore: now + Int64((wait * unitsPerSecond).rounded(.up)))
        case .refused:
            states[key] = wanted == sent ? .settled(held: held) : .pending(wanted: wanted, held: held, notBefore: .min)
        }
        return (key, sent)
    }

    /// Forgets `key` (its device went away).
    public mutating func forget(_ key: Key) { states[key] = nil }

    /// Forgets everything (a new connection: nothing is in flight, and the daemon says what it holds).
    public mutating func reset() { states = [:] }
}
