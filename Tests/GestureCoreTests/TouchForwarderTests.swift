import Testing
@testable import GestureCore
import GestureVocabulary
import TouchForwarding
import RecordingFormats

/// The passthrough's forwarding, from scripted touches and scripted recognizer decisions (by the index of
/// the frame whose SYN_REPORT they come with). What the virtual device shows is read back through a
/// FrameAssembler of its own, as a compositor would: contacts that appear, lift, or are lost (a palm:
/// libinput's touch cancel).
@Suite struct TouchForwarderTests {
    /// What a reader of the virtual device sees, frame by frame.
    struct Seen: Equatable, CustomStringConvertible {
        var down: [UInt64] = []
        var lifted: [UInt64] = []
        var lost: [UInt64] = []
        var description: String { "down \(down) lifted \(lifted) lost \(lost)" }
    }

    struct Run {
        var written: [InputEvent] = []
        var frames: [Seen] = []
        var forwarder: TouchForwarder
    }

    /// Runs `script` through an engine (for the contacts' serials) and a forwarder given `decisions` at
    /// the given frames (0 = the first SYN_REPORT), then reads the written events back.
    static func run(
        _ script: TouchScript, decisions: [Int: [TouchDecision]] = [:],
        finishAt finish: Int64? = nil, dropsBefore droppedFrames: Set<Int> = []
    ) throws -> Run {
        var engine = try GestureEngine(device: script.device)
        var forwarder = try TouchForwarder(device: script.device)
        var out: [InputEvent] = []
        var outputs = EngineOutput()
        var frame = 0
        var told: Set<Int> = []
        for e in script.events {
            if droppedFrames.contains(frame) && !told.contains(frame) {
                // libevdev's SYN_DROPPED: the forwarder is told before the resync's events arrive.
                told.insert(frame)
                forwarder.eventsDropped()
            }
            outputs.removeAll()
            engine.process(e, into: &outputs)
            var d: [TouchDecision] = []
            if e.type == EV.syn && e.code == SYN.report {
                d = decisions[frame] ?? []
                frame += 1
            }
            forwarder.process(e, decisions: d, serial: { engine.contactSerial(inSlot: $0) }, into: &out)
        }
        if let finish { forwarder.finish(atMicroseconds: finish, into: &out) }
        return Run(written: out, frames: read(out, device: TouchForwarder.virtualDescription(of: script.device)), forwarder: forwarder)
    }

    /// Reads events as the virtual device's reader would: one `Seen` per SYN_REPORT.
    static func read(_ events: [InputEvent], device: DeviceDescription) -> [Seen] {
        let geometry = DeviceGeometry(xAxis: device.positionAxes!.x, yAxis: device.positionAxes!.y, settings: GeometrySettings())
        var assembler = FrameAssembler(geometry: geometry, touchProtocol: device.touchProtocol)
        var seen: [Seen] = []
        for e in events where assembler.process(e) == .frame {
            seen.append(
                Seen(down: assembler.frame.contacts.map(\.serial), lifted: assembler.frame.lifted, lost: assembler.frame.lost))
        }
        return seen
    }

    /// Nothing is down at the end and every frame ends with SYN_REPORT.
    static func expectClean(_ run: Run) {
        #expect(run.frames.last?.down == [])
        #expect(run.written.last.map { $0.type == EV.syn && $0.code == SYN.report } ?? true)
        #expect(!run.forwarder.hasContactsDown)
    }

    static func centrePan() -> TouchScript {
        var s = TouchScript()
        s.raw(EV.msc, MSC.timestamp, 1000)
        s.down(0, 50, 80); s.down(1, 60, 80)
        s.raw(EV.key, BTN.touch, 1)
        s.frame()
        s.raw(EV.msc, MSC.timestamp, 2000)
        s.drag([0, 1], by: 0, -30, steps: 10)
        s.up(0); s.up(1)
        s.raw(EV.key, BTN.touch, 0)
        s.frame()
        return s
    }

    @Test func centrePanIsForwardedIdentically() throws {
        let s = TouchForwarderTests.centrePan()
        let run = try TouchForwarderTests.run(s)
        #expect(run.written == s.events)
        TouchForwarderTests.expectClean(run)
    }

    @Test func edgeSwipeNeverReachesTheVirtualDevice() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.raw(EV.key, BTN.touch, 1); s.frame()
        s.drag([0], by: 60, 0, steps: 20)
        s.up(0); s.raw(EV.key, BTN.touch, 0); s.frame()
        // Withheld when it lands (frame 0), claimed when the edge swipe begins (frame 3).
        let run = try TouchForwarderTests.run(s, decisions: [0: [.withhold([1])], 3: [.claim([1])]])
        #expect(run.written.isEmpty)
    }

    @Test func edgeTapReachesTheVirtualDeviceAsATap() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.raw(EV.key, BTN.touch, 1); s.frame()
        s.frame()
        s.up(0); s.raw(EV.key, BTN.touch, 0); s.frame()
        let run = try TouchForwarderTests.run(s, decisions: [0: [.withhold([1])], 2: [.release([1])]])
        // Nothing until the lift; then the landing, then the lift, as consecutive frames.
        #expect(run.frames.count == 2)
        #expect(run.frames[0].down.count == 1)
        #expect(run.frames[1].down == [] && run.frames[1].lifted == run.frames[0].down)
        // The tap lands where the finger landed, with BTN_TOUCH, and is lifted with it.
        let landing = Array(run.written.prefix { !($0.type == EV.syn) })
        #expect(landing.contains(InputEvent(timeMicroseconds: 1_020_000, type: EV.abs, code: ABS.mtPositionX, value: 10)))
        #expect(landing.contains(InputEvent(timeMicroseconds: 1_020_000, type: EV.key, code: BTN.touch, value: 1)))
        #expect(run.written.contains(InputEvent(timeMicroseconds: 1_020_000, type: EV.key, code: BTN.touch, value: 0)))
        TouchForwarderTests.expectClean(run)
    }

    @Test func alongEdgeStrokeIsForwardedWhole() throws {
        var s = TouchScript()
        s.down(0, 1, 40); s.frame()
        s.drag([0], by: 0, 60, steps: 20)
        s.up(0); s.frame()
        // Released at frame 4, when it moved along the edge past the slop.
        let run = try TouchForwarderTests.run(s, decisions: [0: [.withhold([1])], 4: [.release([1])]])
        let positions = TouchForwarderTests.yPositions(run.written)
        // The landing (40 mm), then where it is now, then every later frame live.
        let expected: [Int32] = [400, 520, 550]  // landing at 40 mm, then 4 and 5 steps of 3 mm on
        #expect(Array(positions.prefix(3)) == expected)
        #expect(positions.last == 1000)
        #expect(run.frames.count == 2 + 16 + 1)
        #expect(run.frames.dropLast().allSatisfy { $0.down.count == 1 })
        #expect(run.frames.last?.lifted.count == 1)
        // From the release on, the frames are the panel's own.
        let tail = Array(s.events.suffix(from: s.events.firstIndex { $0.timeMicroseconds == 1_050_000 }!))
        #expect(Array(run.written.suffix(tail.count)) == tail)
        TouchForwarderTests.expectClean(run)
    }

    static func yPositions(_ events: [InputEvent]) -> [Int32] {
        events.filter { $0.type == EV.abs && $0.code == ABS.mtPositionY }.map(\.value)
    }

    @Test func claimedThreeFingerPanIsCancelledWithPalmThenLift() throws {
        var s = TouchScript()
        s.down(0, 30, 80); s.down(1, 50, 80); s.down(2, 70, 80); s.raw(EV.key, BTN.touch, 1); s.frame()
        s.drag([0, 1, 2], by: 0, -40, steps: 10)
        s.up(0); s.up(1); s.up(2); s.raw(EV.key, BTN.touch, 0); s.frame()
        let run = try TouchForwarderTests.run(s, decisions: [2: [.claim([1, 2, 3])]])
        // Frames 0-1 delivered; at frame 2 the palm frame, then the lift; nothing more.
        #expect(run.frames.count == 4)
        #expect(run.frames[0].down.count == 3 && run.frames[1].down.count == 3)
        #expect(run.frames[2].lost.count == 3 && run.frames[2].down.isEmpty)
        #expect(run.frames[3].down.isEmpty && run.frames[3].lifted.isEmpty)
        // The palm frame has MT_TOOL_PALM on each slot and no lift; the lift comes in the next frame.
        let reports = run.written.indices.filter { run.written[$0].type == EV.syn }
        let palmFrame = run.written[(reports[1] + 1)..<reports[2]]
        #expect(palmFrame.filter { $0.code == ABS.mtToolType && $0.value == MTTool.palm }.count == 3)
        #expect(!palmFrame.contains { $0.code == ABS.mtTrackingID })
        let liftFrame = run.written[(reports[2] + 1)..<reports[3]]
        #expect(liftFrame.filter { $0.code == ABS.mtTrackingID && $0.value == -1 }.count == 3)
        #expect(liftFrame.contains(InputEvent(timeMicroseconds: liftFrame.first!.timeMicroseconds, type: EV.key, code: BTN.touch, value: 0)))
        // Later frames of those fingers and their lift are not forwarded.
        #expect(run.written.count == reports[3] + 1)
        TouchForwarderTests.expectClean(run)
    }

    @Test func newTouchAfterACancelIsAFingerAgain() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.drag([0], by: 0, -10, steps: 2)
        s.up(0); s.frame()
        s.down(0, 50, 80); s.frame()
        s.up(0); s.frame()
        let run = try TouchForwarderTests.run(s, decisions: [1: [.claim([1])]])
        // The slot's tool type was set to palm by the cancel: the next contact is announced as a finger,
        // before its tracking id (libinput reads the slot's tool type when the tracking id arrives, and never
        // reports a contact that starts as a palm).
        let afterCancel = Array(run.written.suffix(from: run.written.firstIndex { $0.code == ABS.mtTrackingID && $0.value == -1 }!))
        let finger = try #require(afterCancel.firstIndex { $0.code == ABS.mtToolType && $0.value == MTTool.finger })
        let newContact = try #require(afterCancel.firstIndex { $0.code == ABS.mtTrackingID && $0.value >= 0 })
        #expect(finger < newContact)
        #expect(run.frames.contains { $0.down.count == 1 && $0.lost.isEmpty })
        #expect(run.frames.last?.lifted.count == 1)
        TouchForwarderTests.expectClean(run)
    }

    @Test func withheldTouchReleasedAtTheLimitBetweenFrames() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.wait(0.2)
        s.move(0, 1.2, 80); s.frame()
        s.up(0); s.frame()
        var engine = try GestureEngine(device: s.device)
        var forwarder = try TouchForwarder(device: s.device)
        var out: [InputEvent] = []
        var outputs = EngineOutput()
        var reports = 0
        for e in s.events {
            if e.timeMicroseconds > 1_000_000 && reports == 1 && out.isEmpty {
                // The withhold limit passed while the finger rested: the engine's `advance` releases it.
                forwarder.apply([.release([1])], atMicroseconds: 1_120_000, into: &out)
                #expect(!out.isEmpty)
            }
            outputs.removeAll()
            engine.process(e, into: &outputs)
            let d: [TouchDecision] = (e.type == EV.syn && reports == 0) ? [.withhold([1])] : []
            if e.type == EV.syn { reports += 1 }
            forwarder.process(e, decisions: d, serial: { engine.contactSerial(inSlot: $0) }, into: &out)
        }
        let frames = TouchForwarderTests.read(out, device: TouchForwarder.virtualDescription(of: s.device))
        #expect(frames.count == 3)
        #expect(out.first?.timeMicroseconds == 1_120_000)
        #expect(frames[0].down.count == 1)
        #expect(TouchForwarderTests.yPositions(out) == [800])
        #expect(out.contains { $0.code == ABS.mtPositionX && $0.value == 12 })
        #expect(frames[2].lifted.count == 1)
        #expect(!forwarder.hasContactsDown)
    }

    @Test func framesAreWrittenAsTheyCameAgainAfterAnEdgeSwipe() throws {
        var s = TouchScript()
        s.down(0, 1, 80); s.frame()
        s.drag([0], by: 60, 0, steps: 10)
        s.up(0); s.frame()
        let edgeSwipeEnd = s.events.count
        // A new contact in slot 0 at the same height: the kernel sends no ABS_MT_POSITION_Y for it (the
        // slot's value is unchanged), so the copy, which never saw the swipe, must be told.
        s.raw(EV.abs, ABS.mtTrackingID, 300); s.raw(EV.abs, ABS.mtPositionX, 500); s.frame()
        for y: Int32 in [780, 760, 740] { s.raw(EV.abs, ABS.mtPositionY, y); s.frame() }
        s.raw(EV.abs, ABS.mtTrackingID, -1); s.frame()
        let run = try TouchForwarderTests.run(s, decisions: [0: [.withhold([1])], 2: [.claim([1])]])
        let landing = Array(run.written.prefix { $0.type != EV.syn })
        #expect(landing.contains { $0.code == ABS.mtPositionX && $0.value == 500 })
        #expect(landing.contains { $0.code == ABS.mtPositionY && $0.value == 800 })
        // From the next frame on, the panel's own events.
        let after = Array(s.events[edgeSwipeEnd...])
        let firstFrame = after.firstIndex { $0.type == EV.syn }! + 1
        #expect(Array(run.written.suffix(after.count - firstFrame)) == Array(after[firstFrame...]))
        #expect(run.frames.map(\.down.count) == [1, 1, 1, 1, 0])
        TouchForwarderTests.expectClean(run)
    }

    @Test func withheldAndCentreTouchesTogether() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.down(1, 1, 80); s.move(0, 50, 78); s.frame()
        s.move(0, 50, 76); s.move(1, 5, 80); s.frame()
        s.up(0); s.up(1); s.frame()
        // The centre finger stays live while the edge finger is withheld and then claimed.
        let run = try TouchForwarderTests.run(s, decisions: [1: [.withhold([2])], 2: [.claim([2])]])
        #expect(run.frames.map(\.down.count) == [1, 1, 1, 0])
        #expect(TouchForwarderTests.yPositions(run.written) == [800, 780, 760])
        TouchForwarderTests.expectClean(run)
    }

    @Test func removalCancelsWhatIsDown() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.down(1, 1, 80); s.raw(EV.key, BTN.touch, 1); s.frame()
        s.drag([0], by: 0, -10, steps: 3)
        let run = try TouchForwarderTests.run(s, decisions: [0: [.withhold([2])]], finishAt: 2_000_000)
        // The delivered finger is cancelled (palm, then lift); the withheld one never appears.
        #expect(run.frames.dropLast(2).allSatisfy { $0.down.count == 1 })
        #expect(run.frames.suffix(2).first?.lost.count == 1)
        #expect(run.written.last(where: { $0.code == BTN.touch })?.value == 0)
        TouchForwarderTests.expectClean(run)
    }

    @Test func synDroppedResynchronisesTheVirtualDevice() throws {
        // libevdev's resync after SYN_DROPPED: finger 0 lifted and finger 1 landed during the gap; the
        // resync frame says so in one frame, which the forwarder rebuilds from state.
        var s = TouchScript()
        s.down(0, 50, 80); s.frame()
        s.move(0, 50, 70); s.frame()
        s.up(0); s.down(1, 20, 20); s.frame()
        s.up(1); s.frame()
        let run = try TouchForwarderTests.run(s, dropsBefore: [2])
        #expect(run.frames.map(\.down.count) == [1, 1, 1, 0])
        #expect(run.frames[2].lifted.count == 1)
        TouchForwarderTests.expectClean(run)
    }

    @Test func rawSynDroppedDiscardsToTheNextReportAndKeepsNothingStuck() throws {
        var s = TouchScript()
        s.down(0, 50, 80); s.down(1, 1, 80); s.frame()
        s.move(0, 50, 70)
        s.raw(EV.syn, SYN.dropped, 0)
        s.move(0, 50, 60); s.frame()
        s.up(1); s.up(0); s.frame()
        // The edge finger was withheld; the engine released it when events were dropped.
        var decisions: [Int: [TouchDecision]] = [0: [.withhold([2])]]
        decisions[2] = [.release([2])]
        let run = try TouchForwarderTests.run(s, decisions: decisions)
        #expect(run.frames.first?.down.count == 1)
        TouchForwarderTests.expectClean(run)
    }

    @Test func unpluggedPanelLeavesNothingDownOnTheCopy() throws {
        // A finger down in the middle, forwarded; the panel is unplugged: the kernel releases its keys (a
        // BTN_TOUCH 0 frame whose SYN_REPORT has value 1) but not its slots, then the daemon finishes.
        // As the kernel sends it to a new reader: no ABS_MT_SLOT, slot 0 being current already.
        var s = TouchScript()
        s.raw(EV.abs, ABS.mtTrackingID, 100); s.raw(EV.abs, ABS.mtPositionX, 500); s.raw(EV.abs, ABS.mtPositionY, 800)
        s.raw(EV.key, BTN.touch, 1); s.frame()
        s.raw(EV.abs, ABS.mtPositionY, 700); s.frame()
        s.raw(EV.key, BTN.touch, 0); s.raw(EV.syn, SYN.report, 1)
        let run = try TouchForwarderTests.run(s, finishAt: 1_100_000)
        let lastRelease = try #require(run.written.lastIndex { $0.type == EV.key && $0.code == BTN.touch && $0.value == 0 })
        let after = Array(run.written[lastRelease...])
        #expect(run.written.contains { $0.code == ABS.mtToolType && $0.value == MTTool.palm })
        #expect(run.written.contains { $0.code == ABS.mtTrackingID && $0.value == -1 })
        #expect(run.frames.contains { $0.lost.count == 1 })
        #expect(!after.isEmpty)
        TouchForwarderTests.expectClean(run)
    }

    @Test func singleTouchPanelsAreRefused() {
        let device = DeviceDescription(
            name: "Old Panel", axes: [ABS.x: AxisInfo(minimum: 0, maximum: 100), ABS.y: AxisInfo(minimum: 0, maximum: 100)],
            keys: [BTN.touch])
        #expect(throws: TouchForwarder.UnsupportedError.self) { try TouchForwarder(device: device) }
    }

    @Test func virtualDeviceHasToolTypeEvenWhenThePanelLacksIt() {
        var device = TouchScript.phone
        device.axes[ABS.mtToolType] = nil
        let copy = TouchForwarder.virtualDescription(of: device)
        #expect(copy.axes[ABS.mtToolType] == AxisInfo(minimum: 0, maximum: 2))
        var pensAndFingers = TouchScript.phone
        pensAndFingers.axes[ABS.mtToolType] = AxisInfo(minimum: 0, maximum: 1)
        #expect(TouchForwarder.virtualDescription(of: pensAndFingers).axes[ABS.mtToolType]?.maximum == MTTool.palm)
        #expect(copy.name == device.name && copy.vendor == device.vendor && copy.axes[ABS.mtPositionX] == device.axes[ABS.mtPositionX])
    }

    @Test func evemuWriterRoundTripsTheVirtualDevice() throws {
        let s = TouchForwarderTests.centrePan()
        let device = TouchForwarder.virtualDescription(of: s.device)
        let text = EvemuWriter.text(device: device, events: s.events)
        let parsed = try EvemuParser.parse(text: text, fileName: "forward.evemu")
        #expect(parsed.device == device)
        #expect(parsed.events == s.events)
        // MSC_TIMESTAMP, used by the events, is declared though the description has no EV_MSC.
        #expect(text.contains("B: 04 20 00 00 00 00 00 00 00"))
    }
}
