import Testing

@testable import GestureProtocol
import GestureVocabulary

@Suite struct RequestDecodingTests {
    private func decode(_ text: String) -> Result<RequestMessage, ProtocolError> {
        RequestMessage.decode(line: Array(text.utf8))
    }

    @Test func decodesEveryRequestWithItsID() throws {
        #expect(try decode(#"{"type":"ping"}"#).get() == RequestMessage(.ping))
        #expect(try decode(#"{"type":"ping","id":"abc"}"#).get() == RequestMessage(id: .string("abc"), .ping))
        #expect(try decode(#"{"id":7.50,"type":"devices"}"#).get() == RequestMessage(id: .number("7.50"), .devices))
        #expect(try decode(#"{"type":"unsubscribe","id":null}"#).get() == RequestMessage(id: .null, .unsubscribe))
        // App touches only when asked (`app_touches`); `.all` asks for them.
        #expect(try decode(#"{"type":"subscribe"}"#).get() == RequestMessage(.subscribe(SubscriptionFilter())))
        #expect(try decode(#"{"type":"subscribe","app_touches":true}"#).get() == RequestMessage(.subscribe(.all)))
        let full = try decode(
            #"{"type":"subscribe","id":1,"kinds":["pan","edge-swipe"],"edges":["left"],"fingers":[2,3],"devices":["event5","Panel"],"updates":false}"#
        ).get()
        #expect(
            full
                == RequestMessage(
                    id: .number("1"),
                    .subscribe(
                        SubscriptionFilter(
                            kinds: [.pan, .edgeSwipe], edges: [.left], fingers: [2, 3], devices: ["event5", "Panel"], updates: false))))
    }

    @Test func emptyListsMeanNothingOfThatKind() throws {
        let message = try decode(#"{"type":"subscribe","kinds":[]}"#).get()
        #expect(message.request == .subscribe(SubscriptionFilter(kinds: [])))
    }

    @Test(arguments: [
        ("not json", ProtocolError.Code.invalidJSON, "not valid JSON: invalid literal (expected null) at byte 0", false),
        ("[1,2]", .invalidRequest, "a request is a JSON object, not an array", false),
        ("{\"id\":1}", .invalidRequest, "the request has no \"type\"", true),
        ("{\"type\":3,\"id\":1}", .invalidRequest, "\"type\" must be a string, not a number", true),
        ("{\"type\":\"dance\",\"id\":1}", .unknownRequest, "unknown request type \"dance\" (known: subscribe, unsubscribe, devices, ping, orientation, focus, exclude, reload, claim)", true),
        ("{\"type\":\"orientation\",\"id\":1}", .invalidRequest, "an orientation request needs \"orientation\": 0, 90, 180 or 270 (degrees clockwise)", true),
        ("{\"type\":\"orientation\",\"id\":1,\"orientation\":-90}", .invalidRequest, "\"orientation\" holds -90; it is one of 0, 90, 180 or 270 (degrees clockwise)", true),
        ("{\"type\":\"orientation\",\"id\":1,\"orientation\":null}", .invalidRequest, "\"orientation\" holds null; it is one of 0, 90, 180 or 270 (degrees clockwise)", true),
        ("{\"type\":\"orientation\",\"id\":1,\"orientation\":90,\"device\":5}", .invalidRequest, "\"device\" must be a device's id, name or vvvv:pppp (a non-empty string), not 5; leave it out for every device", true),
        ("{\"type\":\"orientation\",\"id\":1,\"orientation\":90,\"edges\":[]}", .invalidRequest, "unknown field \"edges\" in a orientation request (allowed: device, id, orientation, type)", true),
        ("{\"type\":\"ping\",\"id\":1,\"extra\":true}", .invalidRequest, "unknown field \"extra\" in a ping request (allowed: id, type)", true),
        ("{\"type\":\"subscribe\",\"id\":1,\"kinds\":\"pan\"}", .invalidRequest, "\"kinds\" must be an array of strings, not a string", true),
        ("{\"type\":\"subscribe\",\"id\":1,\"kinds\":[\"swipe\"]}", .invalidRequest, "\"kinds\" holds \"swipe\"; allowed: \"edge-swipe\", \"pan\", \"pinch\", \"tap\", \"hold\"", true),
        ("{\"type\":\"subscribe\",\"id\":1,\"edges\":[1]}", .invalidRequest, "\"edges\" holds 1; allowed: \"left\", \"right\", \"top\", \"bottom\", \"top-left\", \"top-right\", \"bottom-left\", \"bottom-right\"", true),
        ("{\"type\":\"subscribe\",\"id\":1,\"fingers\":[0]}", .invalidRequest, "\"fingers\" holds 0; finger counts are whole numbers 1...20", true),
        ("{\"type\":\"subscribe\",\"id\":1,\"fingers\":[1.5]}", .invalidRequest, "\"fingers\" holds 1.5; finger counts are whole numbers 1...20", true),
        ("{\"type\":\"subscribe\",\"id\":1,\"fingers\":2}", .invalidRequest, "\"fingers\" must be an array of numbers, not a number", true),
        ("{\"type\":\"subscribe\",\"id\":1,\"devices\":[true]}", .invalidRequest, "\"devices\" holds a boolean; device ids and names are strings", true),
        ("{\"type\":\"subscribe\",\"id\":1,\"updates\":\"no\"}", .invalidRequest, "\"updates\" must be true or false, not a string", true),
        ("{\"type\":\"ping\",\"id\":[1]}", .invalidRequest, "\"id\" must be a string or a number, not an array", false),
        ("{\"type\":\"ping\",\"id\":{}}", .invalidRequest, "\"id\" must be a string or a number, not an object", false),
        ("{\"type\":null,\"id\":1}", .invalidRequest, "\"type\" must be a string, not null", true),
        ("{\"type\":\"subscribe\",\"id\":1,\"devices\":{}}", .invalidRequest, "\"devices\" must be an array of strings, not an object", true),
        ("{\"type\":\"subscribe\",\"id\":1,\"devices\":[[]]}", .invalidRequest, "\"devices\" holds an array; device ids and names are strings", true),
    ])
    func refusesBadRequestsNamingTheProblem(text: String, code: ProtocolError.Code, message: String, echoesID: Bool) {
        switch decode(text) {
        case .success(let m):
            Issue.record("decoded \(m)")
        case .failure(let error):
            #expect(error.code == code)
            #expect(error.message == message)
            #expect(error.id == (echoesID ? .number("1") : nil))
        }
    }

    @Test func requestsRoundTrip() throws {
        let messages = [
            RequestMessage(id: .integer(3), .ping), RequestMessage(.devices), RequestMessage(id: .string("u"), .unsubscribe),
            RequestMessage(
                id: .integer(9),
                .subscribe(SubscriptionFilter(kinds: [.pinch], edges: [.top, .bottom], fingers: [4], devices: ["x"], updates: false))),
            RequestMessage(id: .integer(10), .orientation(.clockwise90, device: "event5")),
            RequestMessage(.orientation(.normal, device: nil)),
        ]
        for m in messages {
            #expect(try decode(m.encoded).get() == m)
        }
    }
}

@Suite struct ServerMessageTests {
    private let device = DeviceInfo(
        id: "event5", name: "ELAN \"Touch\"", vendorProduct: "04f3:2234", path: "/dev/input/event5", source: .evdev, slots: 10)

    @Test func everyMessageRoundTrips() throws {
        let messages: [ServerMessage] = [
            .hello(Hello(devices: [device])),
            .subscribed(id: .integer(1), filter: SubscriptionFilter(kinds: [.pan], fingers: [2], updates: false)),
            .subscribed(id: nil, filter: .all),
            .unsubscribed(id: .string("x")),
            .devices(id: .integer(2), devices: [device]),
            .pong(id: nil),
            .error(ProtocolError(.unknownRequest, "unknown request type \"x\"", id: .integer(4))),
            .error(ProtocolError(.rateLimited, "send it again in 0.03 s", id: .integer(6), retryAfter: 0.03)),
            .deviceAdded(device),
            .deviceAdded(
                DeviceInfo(
                    id: "event6", name: "Panel", vendorProduct: "04f3:2234", path: "/dev/input/event6", source: .evdev,
                    slots: 10, virtualPath: "/dev/input/event9")),
            .deviceRemoved(DeviceInfo(id: "replay1", name: "r", vendorProduct: "0000:0000", path: nil, source: .replay, slots: 1)),
            .oriented(id: .integer(5), devices: [DeviceInfo(id: "event5", name: "p", vendorProduct: "04f3:2234", path: nil, source: .evdev, slots: 10, orientation: .clockwise270)]),
            .oriented(id: nil, devices: []),
            .oriented(id: .string("turn"), devices: [], claimedTouches: 2),
            .deviceChanged(DeviceInfo(id: "event5", name: "p", vendorProduct: "04f3:2234", path: nil, source: .evdev, slots: 10, orientation: .upsideDown)),
        ]
        for m in messages {
            let line = m.encoded
            #expect(!line.contains("\n"))
            #expect(try ServerMessage.decode(line: Array(line.utf8)) == m)
        }
    }

    /// A device's pens (touch arbitration): said, read back, and absent when there are none.
    @Test func penArbitrationAndPensRoundTrip() throws {
        var d = device
        d.penArbitration = .on
        d.pens = [
            PairedPen(path: "/dev/input/event6", name: "Wacom HID 5146 Pen", pairedBy: .group),
            PairedPen(path: "/dev/input/event9", name: "USB Pen", pairedBy: .configuration),
        ]
        let line = ServerMessage.deviceChanged(d).encoded
        #expect(line.contains(#""pen_arbitration":"on","pens":[{"path":"/dev/input/event6","name":"Wacom HID 5146 Pen","paired_by":"group"},{"path":"/dev/input/event9","name":"USB Pen","paired_by":"configuration"}]"#))
        #expect(try ServerMessage.decode(line: Array(line.utf8)) == .deviceChanged(d))
        var off = device
        off.penArbitration = .off
        let offLine = ServerMessage.deviceChanged(off).encoded
        #expect(offLine.contains(#""pen_arbitration":"off""#) && !offLine.contains("pens"))
        #expect(try ServerMessage.decode(line: Array(offLine.utf8)) == .deviceChanged(off))
        #expect(!ServerMessage.deviceChanged(device).encoded.contains("pen"))
    }

    @Test func helloCarriesTheProtocolVersionAndDevices() throws {
        let line = ServerMessage.hello(Hello(devices: [device])).encoded
        #expect(line.hasPrefix(#"{"type":"hello","protocol":1,"daemon":"gestured","version":""#))
        #expect(line.contains(#""devices":[{"id":"event5","name":"ELAN \"Touch\"","vendor_product":"04f3:2234","path":"/dev/input/event5","source":"evdev","slots":10,"orientation":0}]"#))
    }

    /// The reply to `orientation` says how many held-back touches the turn claimed; an older daemon's reply,
    /// without the key, claimed none.
    @Test func orientedCarriesTheClaimedTouches() throws {
        #expect(ServerMessage.oriented(id: nil, devices: [], claimedTouches: 1).encoded == #"{"type":"oriented","devices":[],"claimed_touches":1}"#)
        let old = #"{"type":"oriented","id":3,"devices":[]}"#
        #expect(try ServerMessage.decode(line: Array(old.utf8)) == .oriented(id: .integer(3), devices: [], claimedTouches: 0))
    }

    @Test func aDeviceFromADaemonWithoutOrientationIsNotTurned() throws {
        let old = #"{"type":"device-added","device":{"id":"event5","name":"p","slots":10}}"#
        guard case .deviceAdded(let d) = try ServerMessage.decode(line: Array(old.utf8)) else {
            Issue.record("device-added did not decode")
            return
        }
        #expect(d.orientation == .normal)
        let changed = #"{"type":"device-changed","device":{"id":"event5","name":"p","orientation":90}}"#
        #expect(try ServerMessage.decode(line: Array(changed.utf8)) == .deviceChanged(DeviceInfo(
            id: "event5", name: "p", vendorProduct: "0000:0000", path: nil, source: .evdev, slots: 1, orientation: .clockwise90)))
    }

    @Test func aPassthroughDeviceNamesItsVirtualNode() {
        var panel = device
        panel.virtualPath = "/dev/input/event9"
        #expect(ServerMessage.deviceAdded(panel).encoded.hasSuffix(#""slots":10,"orientation":0,"virtual_path":"/dev/input/event9"}}"#))
        #expect(!ServerMessage.deviceAdded(device).encoded.contains("virtual_path"))
    }

    /// A touchscreen with a WL_OUTPUT udev property names its output; without one the key is absent.
    @Test func aDeviceNamesItsOutputWhenItHasOne() throws {
        var panel = device
        panel.output = "DSI-1"
        let line = ServerMessage.deviceAdded(panel).encoded
        #expect(line.hasSuffix(#""slots":10,"orientation":0,"output":"DSI-1"}}"#))
        #expect(try ServerMessage.decode(line: Array(line.utf8)) == .deviceAdded(panel))
        #expect(!ServerMessage.deviceAdded(device).encoded.contains("output"))
        guard case .deviceAdded(let plain) = try ServerMessage.decode(line: Array(ServerMessage.deviceAdded(device).encoded.utf8)) else {
            Issue.record("device-added did not decode")
            return
        }
        #expect(plain.output == nil)
    }

    @Test func errorsHaveCodeMessageAndID() {
        let line = ServerMessage.error(ProtocolError(.invalidJSON, "bad", id: .string("q"))).encoded
        #expect(line == #"{"type":"error","id":"q","code":"invalid-json","message":"bad"}"#)
        let limited = ServerMessage.error(ProtocolError(.rateLimited, "later", id: .integer(3), retryAfter: 0.25)).encoded
        #expect(limited == #"{"type":"error","id":3,"code":"rate-limited","message":"later","retry_after":0.25}"#)
        // A retry_after that is no time is not one.
        for bad in ["-1", "\"soon\"", "1e999"] {
            let text = #"{"type":"error","code":"rate-limited","message":"m","retry_after":"# + bad + "}"
            guard case .error(let e)? = try? ServerMessage.decode(line: Array(text.utf8)) else { continue }
            #expect(e.retryAfter == nil, "\(text)")
        }
    }

    @Test func gestureEventsDecodeBackExactly() throws {
        let events = [
            GestureEvent(
                kind: .edgeSwipe, phase: .update, id: 4, timeMicroseconds: 1_330_495_962_276_924, fingers: 1, edge: .left,
                position: Vector2(0.12, 0.5), positionMM: Vector2(12, 80), translation: Vector2(0.11, 0.00625),
                translationMM: Vector2(11, 1), velocityMMPerSecond: Vector2(310.5, 4), progress: 0.11),
            GestureEvent(
                kind: .pan, phase: .end, id: 5, timeMicroseconds: 2_931_696, fingers: 2, committed: true, direction: .up,
                position: Vector2(0.489, 0.262)),
            GestureEvent(kind: .pan, phase: .end, id: 6, timeMicroseconds: 0, fingers: 3, committed: false),
            GestureEvent(
                kind: .pinch, phase: .cancel, id: 7, timeMicroseconds: -5, fingers: 3, scale: 0.62, rotationDegrees: -18.4,
                spanMM: 14.2),
        ]
        for e in events {
            let line = GestureEventJSON.encode(e, device: "event5")
            let decoded = try ServerMessage.decode(line: Array(line.utf8))
            #expect(decoded == .gesture(DeviceGestureEvent(event: e, device: "event5")))
        }
    }

    @Test func clientsIgnoreWhatTheyDoNotKnow() throws {
        let future = #"{"type":"weather","sky":"blue"}"#
        guard case .unknown(let type, _) = try ServerMessage.decode(line: Array(future.utf8)) else {
            Issue.record("an unknown type did not decode to .unknown")
            return
        }
        #expect(type == "weather")
        let extra = #"{"type":"pong","id":1,"new_field":[1,2,3]}"#
        #expect(try ServerMessage.decode(line: Array(extra.utf8)) == .pong(id: .integer(1)))
        let newCode = #"{"type":"error","code":"overheated","message":"too hot"}"#
        guard case .error(let e) = try ServerMessage.decode(line: Array(newCode.utf8)) else {
            Issue.record("an unknown error code did not decode to an error")
            return
        }
        #expect(e.message == "overheated: too hot")
    }

    @Test func exactMicrosecondsFromSeconds() {
        #expect(GestureEventDecoding.microseconds(fromSeconds: "1330495962.276924") == 1_330_495_962_276_924)
        #expect(GestureEventDecoding.microseconds(fromSeconds: "0.000005") == 5)
        #expect(GestureEventDecoding.microseconds(fromSeconds: "-0.5") == -500_000)
        #expect(GestureEventDecoding.microseconds(fromSeconds: "3") == 3_000_000)
        #expect(GestureEventDecoding.microseconds(fromSeconds: "1.5e-3") == 1500)
        #expect(GestureEventDecoding.microseconds(fromSeconds: "x") == nil)
    }

    /// Seconds whose whole part fits Int64 microseconds but whose fraction pushes it past Int64.max: the
    /// addition trapped, so a gesture line with such a time (from a broken or hostile socket) killed the
    /// client (`gesturectl monitor`) instead of giving it a decoding error.
    @Test func secondsAtTheEdgeOfInt64AreAnErrorNotATrap() {
        #expect(GestureEventDecoding.microseconds(fromSeconds: "9223372036854.999999") == nil)
        #expect(GestureEventDecoding.microseconds(fromSeconds: "-9223372036854.999999") == nil)
        #expect(GestureEventDecoding.microseconds(fromSeconds: "9223372036854.775807") == Int64.max)
        let line = #"{"type":"gesture","gesture":"pan","phase":"begin","id":1,"time":9223372036854.999999,"fingers":1,"#
            + #""position":{"x":0,"y":0},"position_mm":{"x":0,"y":0},"translation":{"x":0,"y":0},"#
            + #""translation_mm":{"x":0,"y":0},"velocity_mm_s":{"x":0,"y":0}}"#
        #expect(throws: ProtocolDecodingError.self) { try ServerMessage.decode(line: Array(line.utf8)) }
    }
}

@Suite struct SubscriptionFilterTests {
    private let panel = DeviceInfo(id: "event5", name: "Panel", vendorProduct: "04f3:2234", path: nil, source: .evdev, slots: 10)

    private func begin(_ kind: GestureKind, fingers: Int = 1, edge: Edge? = nil) -> GestureEvent {
        GestureEvent(kind: kind, phase: .begin, id: 1, timeMicroseconds: 0, fingers: fingers, edge: edge)
    }

    @Test func noFieldsTakesEverything() {
        for kind in GestureKind.allCases {
            #expect(SubscriptionFilter.all.acceptsGesture(beginning: begin(kind, edge: kind == .edgeSwipe ? .top : nil), on: panel))
        }
    }

    @Test func eachFieldNarrows() {
        #expect(!SubscriptionFilter(kinds: [.pan]).acceptsGesture(beginning: begin(.pinch, fingers: 2), on: panel))
        #expect(SubscriptionFilter(kinds: [.pan]).acceptsGesture(beginning: begin(.pan), on: panel))
        #expect(SubscriptionFilter(edges: [.left]).acceptsGesture(beginning: begin(.edgeSwipe, edge: .left), on: panel))
        #expect(!SubscriptionFilter(edges: [.left]).acceptsGesture(beginning: begin(.edgeSwipe, edge: .right), on: panel))
        // Edges say nothing about other kinds.
        #expect(SubscriptionFilter(edges: [.left]).acceptsGesture(beginning: begin(.pan), on: panel))
        #expect(SubscriptionFilter(fingers: [2, 3]).acceptsGesture(beginning: begin(.pan, fingers: 3), on: panel))
        #expect(!SubscriptionFilter(fingers: [2, 3]).acceptsGesture(beginning: begin(.pan, fingers: 1), on: panel))
        for name in ["event5", "Panel", "04f3:2234"] {
            #expect(SubscriptionFilter(devices: [name]).accepts(device: panel))
        }
        #expect(!SubscriptionFilter(devices: ["event6"]).accepts(device: panel))
        #expect(!SubscriptionFilter(devices: ["event6"]).acceptsGesture(beginning: begin(.pan), on: panel))
    }

    /// The documented lookup order: --socket, else $GESTURED_SOCKET, each alone; else the user's runtime
    /// directory, then the system's socket.
    @Test func socketPathPrecedence() {
        let runtime = ["XDG_RUNTIME_DIR": "/run/user/1000"]
        let system = "/run/gestured/gestured.sock"
        func paths(_ option: String?, _ environment: [String: String]) -> [String] {
            ProtocolConstants.socketPaths(option: option, environment: environment)
        }
        #expect(paths("/a", ["GESTURED_SOCKET": "/b"].merging(runtime) { a, _ in a }) == ["/a"])
        #expect(paths(nil, ["GESTURED_SOCKET": "/b"].merging(runtime) { a, _ in a }) == ["/b"])
        #expect(paths(nil, runtime) == ["/run/user/1000/gestured.sock", system])
        #expect(paths(nil, ["XDG_RUNTIME_DIR": "/run/user/1000/"]) == ["/run/user/1000/gestured.sock", system])
        #expect(paths(nil, [:]) == [system])
        #expect(paths("", ["GESTURED_SOCKET": ""]) == [system])
        // The specification: a relative or empty XDG_RUNTIME_DIR is ignored.
        #expect(paths(nil, ["XDG_RUNTIME_DIR": "run/user/1000"]) == [system])
        #expect(paths(nil, ["XDG_RUNTIME_DIR": ""]) == [system])
    }
}

/// The requests of issue 29: `focus` and `exclude` read back what they encode, and refuse what is wrong.
@Suite struct FocusAndExcludeDecodingTests {
    @Test func roundTrips() throws {
        for request in [
            RequestMessage(id: .integer(1), .focus(appID: "foot")), RequestMessage(id: .integer(2), .focus(appID: nil)),
            RequestMessage(id: .integer(3), .exclude([RequestedExclusion(edge: .left, from: 0.5, to: 1, device: "event5"), RequestedExclusion(edge: .topLeft)])),
        ] {
            #expect(try RequestMessage.decode(line: Array(request.encoded.utf8)).get() == request)
        }
    }

    @Test(arguments: [
        #"{"type":"exclude","exclusions":[{"edge":"lfet"}]}"#, #"{"type":"exclude","exclusions":[{"edge":"left","from":0.7,"to":0.2}]}"#,
        #"{"type":"exclude","exclusions":[{"edge":"top-left","from":0}]}"#, #"{"type":"exclude","exclusions":[{"edge":"left","size":3}]}"#,
        #"{"type":"exclude"}"#, #"{"type":"focus","app_id":""}"#, #"{"type":"focus"}"#,
    ])
    func refused(_ line: String) {
        guard case .failure(let error) = RequestMessage.decode(line: Array(line.utf8)) else {
            Issue.record("\(line) was taken")
            return
        }
        #expect(error.code == .invalidRequest)
    }
}

/// The request of issue 39: `claim` reads back what it encodes, the reply too, and it refuses what is wrong.
@Suite struct ClaimDecodingTests {
    @Test func roundTrips() throws {
        let claims = [
            HoldClaim(region: .normalized(x: 0.9...1, y: 0...0.1)), HoldClaim(region: .millimetres(x: 0...15, y: 10...25), device: "Wacom*"),
            HoldClaim(app: "org.kiosk.*"), HoldClaim(),
        ]
        for request in [RequestMessage(id: .integer(1), .claim(claims)), RequestMessage(id: .string("x"), .claim([]))] {
            #expect(try RequestMessage.decode(line: Array(request.encoded.utf8)).get() == request)
        }
        let reply = ServerMessage.claimed(id: .integer(1), holds: claims)
        #expect(try ServerMessage.decode(line: Array(reply.encoded.utf8)) == reply)
        #expect(reply.reply.isReply && reply.reply.id == .integer(1))
        #expect(
            RequestMessage(.claim([HoldClaim(region: .normalized(x: 0.9...1, y: 0...0.1), app: "kiosk")])).encoded
                == #"{"type":"claim","holds":[{"region":[0.9,0,1,0.1],"app":"kiosk"}]}"#)
    }

    @Test(arguments: [
        #"{"type":"claim"}"#, #"{"type":"claim","holds":{}}"#, #"{"type":"claim","holds":[1]}"#,
        #"{"type":"claim","holds":[{"region":[0.5,0,0.2,1]}]}"#, #"{"type":"claim","holds":[{"region":[0,0,1,1.5]}]}"#,
        #"{"type":"claim","holds":[{"region":[0,0,1]}]}"#, #"{"type":"claim","holds":[{"region":[0,0,1,1],"region_mm":[0,0,10,10]}]}"#,
        #"{"type":"claim","holds":[{"region_mm":[-1,0,10,10]}]}"#, #"{"type":"claim","holds":[{"device":""}]}"#,
        #"{"type":"claim","holds":[{"app":""}]}"#, #"{"type":"claim","holds":[{"fingers":1}]}"#,
        #"{"type":"claim","holds":[{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}]}"#,
    ])
    func refused(_ line: String) {
        guard case .failure(let error) = RequestMessage.decode(line: Array(line.utf8)) else {
            Issue.record("\(line) was taken")
            return
        }
        #expect(error.code == .invalidRequest)
    }

    /// A device says its pointer; its mode is private.
    @Test func aDeviceSaysItsPointer() throws {
        var d = DeviceInfo(id: "event5", name: "Panel", vendorProduct: "1234:5678", path: "/dev/input/event5", source: .evdev, slots: 10)
        d.virtualPath = "/dev/input/event9"
        d.pointerPath = "/dev/input/event10"
        d.pointerMode = .longPress
        let back = try DeviceInfo(json: d.json)
        #expect(back == d)
        #expect(d.json.serialized.contains(#""virtual_path":"/dev/input/event9","pointer_path":"/dev/input/event10","pointer_mode":"long-press""#))
        #expect(d.publicView.pointerMode == nil && d.publicView.pointerPath == "/dev/input/event10")
    }
}

/// What a client reads from the socket may be anything (a broken or hostile daemon, a fuzzer): numbers out
/// of every range are decoding errors or text, never a trap.
@Suite struct OutOfRangeNumbersTests {
    /// An explanation whose start is past Int64's microseconds (14 digits of seconds): the multiplication
    /// trapped, and CI's fuzzer (fuzz-request) found it; it is now a decoding error, as for a gesture's time.
    @Test func anExplanationTimePastInt64IsAnErrorNotATrap() {
        for line in [
            #"{"type":"explanation","start":99999999999999,"end":1}"#,
            #"{"type":"explanation","start":0,"end":-99999999999999.5}"#,
        ] {
            #expect(throws: ProtocolDecodingError.self) { try ServerMessage.decode(line: Array(line.utf8)) }
        }
        let fine = #"{"type":"explanation","start":12.000001,"end":12.5}"#
        guard case .explanation(let x, _) = try? ServerMessage.decode(line: Array(fine.utf8)) else {
            Issue.record("a well-formed explanation did not decode")
            return
        }
        #expect(x.startMicroseconds == 12_000_001 && x.endMicroseconds == 12_500_000)
    }

    /// A finger-count reason read from outside may hold any number: its text converted it to Int, which
    /// trapped on 1e300 and on NaN.
    @Test func aFingerCountReasonOfAnyValueHasText() {
        func text(_ value: Double) -> String {
            Reason(kind: .pan, cause: .fingerCount, measurements: [Measurement(.fingers, value, key: "pan.fingers", setting: 1)]).description
        }
        #expect(text(2) == "pan: 2 fingers (pan.fingers 1)")
        #expect(text(1) == "pan: 1 finger (pan.fingers 1)")
        #expect(text(1e300).contains("finger"))
        #expect(text(.nan) == "pan: nan fingers (pan.fingers 1)")
    }

    /// An integer field of an added kind is kept as a Double, where Int.max becomes 2^63, one past it:
    /// reading it back trapped.
    @Test func anAddedIntegerFieldAtIntMaxReadsBack() {
        let count = EventField(
            "fuzz_count", .extra(slot: 1, .integer), .afterMotion, decimals: 0, text: .phrase(prefix: " ", decimals: 0, suffix: ""),
            binding: .range(0...10), values: "a count", meaning: "a test's count")
        var e = GestureEvent(kind: .pan, phase: .update, id: 1, timeMicroseconds: 0, fingers: 1)
        e[count] = .integer(.max)
        #expect(e[count] == .integer(.max))
        e[count] = .integer(.min)
        #expect(e[count] == .integer(.min))
        e[count] = .integer(41)
        #expect(e[count] == .integer(41))
    }
}

/// A device's public view (issue 36, hole 8): the focused app, the exclusions and the pointer's mode are the
/// seat's; every other field a client of any user sees.
@Suite struct DevicePublicViewTests {
    @Test func theSeatsDetailsAreLeftOutAndTheRestKept() {
        var d = DeviceInfo(
            id: "event5", name: "Panel", vendorProduct: "04f3:2234", path: "/dev/input/event5", source: .evdev, slots: 10,
            orientation: .clockwise90, virtualPath: "/dev/input/event9", output: "DSI-1",
            size: PanelSize(widthMM: 70, heightMM: 150, source: .resolution))
        d.penArbitration = .on
        d.pens = [PairedPen(path: "/dev/input/event6", name: "Pen", pairedBy: .group)]
        d.seat = "seat1"
        d.replayClock = ReplayClock(speed: 2, offsetMicroseconds: 5)
        d.pointerPath = "/dev/input/event10"
        var full = d
        full.focusedApp = "org.secret.Diary"
        full.pointerMode = .mouse
        full.exclusions = [ExclusionInForce(edge: .left, from: 0, to: 0.2, source: "client 3 (uid 1000, pid 4242 diary)")]
        #expect(full.publicView == d)
        #expect(!full.publicView.json.serialized.contains("Diary") && !full.publicView.json.serialized.contains("4242"))
    }
}
