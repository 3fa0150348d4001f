import GestureCore
import GestureDaemon
import Testing

/// What a read collects is handed out in the order it was read: runs of events between the breaks.
@Suite struct InputReportsTests {
    private func event(_ n: Int64) -> InputEvent { InputEvent(timeMicroseconds: n, type: EV.abs, code: ABS.mtPositionX, value: Int32(n)) }

    @Test func runsAndBreaksKeepTheirOrder() {
        let read: [InputReport] = [
            .reset(atMicroseconds: 0), .event(event(1)), .event(event(2)), .dropped(atMicroseconds: 3),
            .dropped(atMicroseconds: 4), .event(event(5)), .reset(atMicroseconds: 6),
        ]
        var reports = InputReports()
        for r in read { reports.append(r) }
        var runs: [[Int64]] = []
        var order: [String] = []
        reports.forEach(
            run: { run in
                runs.append(run.map(\.timeMicroseconds))
                order.append("run")
            },
            breakReport: { order.append("\($0)") })
        #expect(runs == [[1, 2], [5]])
        #expect(order == ["reset(atMicroseconds: 0)", "run", "dropped(atMicroseconds: 3)", "dropped(atMicroseconds: 4)", "run", "reset(atMicroseconds: 6)"])
        #expect(reports.inOrder == read)
        reports.removeAll()
        #expect(reports.isEmpty && reports.inOrder.isEmpty)
    }

    @Test func eventsAloneAreOneRun() {
        var reports = InputReports()
        for n in 1...5 { reports.append(event(Int64(n))) }
        var runs = 0
        reports.forEach(run: { #expect($0.count == 5); runs += 1 }, breakReport: { Issue.record("no break was read: \($0)") })
        #expect(runs == 1)
    }
}
