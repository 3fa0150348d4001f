import Testing

@testable import GestureProtocol

@Suite struct LineFramerTests {
    private func lines(_ framer: inout LineFramer) -> [String] {
        var out: [String] = []
        while let o = framer.next() {
            switch o {
            case .line(let l): out.append(String(decoding: l, as: UTF8.self))
            case .lineTooLong: out.append("<too long>"); return out
            }
        }
        return out
    }

    @Test func splitsLinesAndHoldsBackAHalfLine() {
        var f = LineFramer(maximumLineBytes: 100)
        f.append(Array("one\ntwo\r\nthr".utf8))
        #expect(lines(&f) == ["one", "two"])
        #expect(f.pendingByteCount == 3)
        f.append(Array("ee".utf8))
        #expect(lines(&f) == [])
        f.append(Array("\n\n".utf8))
        #expect(lines(&f) == ["three", ""])
        #expect(f.pendingByteCount == 0)
    }

    @Test func byteAtATimeGivesTheSameLines() {
        var f = LineFramer(maximumLineBytes: 100)
        var got: [String] = []
        for b in Array("{\"type\":\"ping\"}\nsecond\n".utf8) {
            f.append([b])
            got += lines(&f)
        }
        #expect(got == ["{\"type\":\"ping\"}", "second"])
    }

    @Test func aLineAtTheLimitPassesOneByteMoreDoesNot() {
        var f = LineFramer(maximumLineBytes: 10)
        f.append(Array(String(repeating: "a", count: 10).utf8) + [0x0a])
        #expect(lines(&f) == [String(repeating: "a", count: 10)])
        f.append(Array(String(repeating: "b", count: 11).utf8) + [0x0a])
        #expect(lines(&f) == ["<too long>"])
        // Once over, the stream cannot be framed again.
        f.append(Array("ok\n".utf8))
        #expect(f.next() == .lineTooLong)
    }

    @Test func anOverlongLineIsRefusedBeforeItsNewlineArrives() {
        var f = LineFramer(maximumLineBytes: 1024)
        for _ in 0..<3 { f.append([UInt8](repeating: 0x41, count: 1000)) }
        #expect(f.next() == .lineTooLong)
        #expect(f.pendingByteCount == 0)  // nothing kept
    }

    @Test func remainderAtEndOfStream() {
        var f = LineFramer(maximumLineBytes: 100)
        f.append(Array("a\nlast".utf8))
        #expect(lines(&f) == ["a"])
        #expect(f.takeRemainder() == Array("last".utf8))
        #expect(f.takeRemainder() == nil)
    }

    @Test func manyLinesInOneLongStreamStayCompact() {
        var f = LineFramer(maximumLineBytes: 64)
        var count = 0
        for i in 0..<10_000 {
            f.append(Array("line \(i)\n".utf8))
            count += lines(&f).count
        }
        #expect(count == 10_000)
        #expect(f.pendingByteCount == 0)
    }
}
