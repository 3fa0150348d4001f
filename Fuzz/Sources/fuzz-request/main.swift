// What a client can send the daemon: the bytes framed into lines as the daemon frames them (LineFramer,
// with the daemon's line limit), each line decoded as a request (RequestMessage.decode, over JSONParser)
// and answered. Checks: every accepted request encodes back to itself; every JSON value the parser accepts
// serializes and parses back to itself; every reply the daemon would send decodes, on the client's side
// (ServerMessage.decode), to the message sent. Each line is also read as a client reads the daemon's lines.
import FuzzSupport
import GestureCore
import GestureVocabulary
import GestureProtocol

runFuzzer(name: "fuzz-request") { bytes in
    var framer = LineFramer(maximumLineBytes: ProtocolConstants.maximumRequestLineBytes)
    framer.append(bytes)
    var lines: [[UInt8]] = []
    while let output = framer.next() {
        guard case .line(let line) = output else { break }
        lines.append(line)
    }
    if let last = framer.takeRemainder() { lines.append(last) }
    for line in lines {
        fuzzCount("request-lines")
        handleRequestLine(line)
        _ = try? ServerMessage.decode(line: line)
    }
}

func handleRequestLine(_ line: [UInt8]) {
    if let value = try? JSONParser.parse(line) {
        fuzzCount("json-values")
        let text = value.serialized
        let again = try? JSONParser.parse(text)
        fuzzCheck(again == value, "JSON \(text) does not parse back to the value it was written from")
    }
    let reply: ServerMessage
    switch RequestMessage.decode(line: line) {
    case .success(let message):
        fuzzCount("valid-requests")
        let encoded = message.encoded
        let decoded = RequestMessage.decode(line: Array(encoded.utf8))
        fuzzCheck(decoded == .success(message), "request \(encoded) does not decode back to itself: \(decoded)")
        switch message.request {
        case .subscribe(let filter): reply = .subscribed(id: message.id, filter: filter)
        case .unsubscribe: reply = .unsubscribed(id: message.id)
        case .devices: reply = .devices(id: message.id, devices: [])
        case .ping: reply = .pong(id: message.id)
        case .orientation(let orientation, let device):
            let turned = DeviceInfo(
                id: device ?? "event5", name: "fuzz", vendorProduct: "0000:0000", path: nil, source: .evdev, slots: 10,
                orientation: orientation)
            reply = .oriented(id: message.id, devices: [turned])
        case .focus(let appID): reply = .focused(id: message.id, appID: appID)
        case .exclude(let list):
            // Every other exclusion refused, in turn for each reason, so both halves of the reply are read back.
            var accepted: [RequestedExclusion] = []
            var refused: [RefusedExclusion] = []
            for (index, exclusion) in list.enumerated() {
                if index % 2 == 0 {
                    accepted.append(exclusion)
                } else {
                    let reasons = ExclusionRefusal.allCases
                    let reason = reasons[(index / 2) % reasons.count]
                    refused.append(RefusedExclusion(exclusion: exclusion, reason: reason, message: "refused: \(reason.rawValue)"))
                }
            }
            reply = .excluded(id: message.id, accepted: accepted, refused: refused)
        case .reload:
            // Applied, or refused with the file's problems (every other line), both read back.
            if line.count % 2 == 0 {
                reply = .reloaded(id: message.id, path: "/etc/gestured/gestured.toml")
            } else {
                reply = .error(
                    ProtocolError(.reloadFailed, "does not load", id: message.id, problems: ["gestured.toml:1:1: \(String(decoding: line.prefix(40), as: UTF8.self))"]))
            }
        }
        // Each request is answered by the reply its declaration names (or an error).
        if case .error = reply {} else {
            let type = (try? JSONParser.parse(Array(reply.encoded.utf8)))?["type"]?.stringValue
            fuzzCheck(type == message.request.type.declaration.reply, "\(message.request.type) answered with \(type ?? "?")")
        }
        fuzzCheck(reply.reply.isReply && reply.reply.id == message.id, "a reply that does not echo its request's id: \(reply)")
    case .failure(let error):
        fuzzCheck(!error.message.isEmpty, "an error without a message")
        reply = .error(error)
    }
    let encoded = reply.encoded
    fuzzCheck(!encoded.utf8.contains(0x0a), "a reply line holds a newline: \(encoded)")
    do {
        let read = try ServerMessage.decode(line: Array(encoded.utf8))
        fuzzCheck(read == reply, "the client reads reply \(encoded) as \(read)")
    } catch {
        fuzzCheck(false, "the client cannot read reply \(encoded): \(error)")
    }
}
