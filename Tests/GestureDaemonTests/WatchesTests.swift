import Glibc
import SystemCalls
import Testing

@testable import GestureDaemon

/// Tokens name one registration for the daemon's lifetime, while the table behind them stays as small as
/// the most watches at once.
@Suite struct WatchesTests {
    @Test func tokensAreNeverReusedAndRemovedOnesFindNothing() throws {
        let watches = Watches(loop: try EventLoop())
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, 1 | 0o4000 | 0o2000000, 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var seen = Set<UInt64>()
        var live: [UInt64] = []
        for round in 0..<500 {
            let token = watches.upcomingToken
            #expect(!seen.contains(token), "token \(token) handed out twice")
            seen.insert(token)
            if round % 3 == 0 {
                // A descriptor registered, then unregistered at once so the next round may add it again
                // (its token stays live until removed below).
                try watches.add(fds[0], .signals, interest: .readable)
                watches.loop.remove(fds[0])
            } else {
                watches.addTokenOnly(.timer)
            }
            live.append(token)
            if live.count > 4 {
                let gone = live.removeFirst()
                watches.remove(gone, fd: nil)
                #expect(watches[gone] == nil)
            }
        }
        for token in live {
            guard case .some = watches[token] else {
                Issue.record("a live token finds nothing")
                continue
            }
        }
        #expect(watches.placeCount <= 5)
        // A token from before its place was reused finds nothing, not the place's new watch.
        let first = seen.min()!
        #expect(watches[first] == nil)
        #expect(watches[UInt64.max] == nil)
    }
}
