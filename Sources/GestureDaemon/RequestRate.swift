/// How fast one user's clients may change the daemon's state (today: the `orientation` request), so that
/// no client can deny the others: every change cancels every client's gestures in flight and notifies
/// every subscriber. A screen does not turn ten times a second: a burst of `burst` changes, then
/// `perSecond` a second, per uid (all of a user's connections share it). A token bucket, pure: the caller
/// gives the time.
struct RequestRate {
    static let burst = 4.0
    static let perSecond = 2.0
    /// Users whose buckets are kept; idle (full) buckets are dropped past it.
    static let keptUsers = 256

    private var buckets: [UInt32: (tokens: Double, atMicroseconds: Int64)] = [:]

    /// Users whose buckets are kept now.
    var userCount: Int { buckets.count }

    /// Whether `uid` may make a change at `now`; if not, how long until it may (microseconds).
    mutating func admit(uid: UInt32, now: Int64) -> (admitted: Bool, retryAfterMicroseconds: Int64) {
        var bucket = buckets[uid] ?? (RequestRate.burst, now)
        let elapsed = Double(max(0, now - bucket.atMicroseconds)) / 1_000_000
        bucket.tokens = min(RequestRate.burst, bucket.tokens + elapsed * RequestRate.perSecond)
        bucket.atMicroseconds = now
        defer {
            buckets[uid] = bucket
            if buckets.count > RequestRate.keptUsers { dropFullBuckets(now: now) }
        }
        guard bucket.tokens >= 1 else {
            return (false, Int64(((1 - bucket.tokens) / RequestRate.perSecond * 1_000_000).rounded(.up)))
        }
        bucket.tokens -= 1
        return (true, 0)
    }

    /// Drops the buckets that have refilled (their users are idle); should more than four times
    /// `keptUsers` still be busy (more users than a machine has), it forgets them all rather than grow.
    private mutating func dropFullBuckets(now: Int64) {
        buckets = buckets.filter { _, bucket in
            bucket.tokens + Double(max(0, now - bucket.atMicroseconds)) / 1_000_000 * RequestRate.perSecond < RequestRate.burst
        }
        if buckets.count > 4 * RequestRate.keptUsers { buckets.removeAll() }
    }
}
