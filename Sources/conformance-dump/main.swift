// The parsers and writers that read and write what other programs make, seen from outside, for the
// differential checks against Python's own (tools/toml-differential.py, tools/json-differential.py). Each
// mode reads standard input and writes one line per item:
//
//   conformance-dump toml      TOML documents, each preceded by its length in bytes on a line of its own:
//                              each one's tagged tree (TOMLTaggedJSON) as one line of JSON, or
//                              `error LINE:COLUMN MESSAGE`.
//   conformance-dump requests  Request lines, each preceded by its length in bytes on a line of its own, read
//                              as the daemon reads one: {"json": TREE} or {"json": null, "json_error":
//                              MESSAGE} (GestureProtocol's JSON parser), then what RequestMessage.decode
//                              makes of the line: "request": THE REQUEST AS ENCODED, or "code": THE ERROR
//                              CODE with "id" when the error carries one.
//   conformance-dump declarations  (no input) One line: every request type's declaration, {"TYPE":
//                              {"fields": [...], "right": ..., "reply": ...}, ...}, so that the differential
//                              knows every request the daemon takes from its one declaration.
//   conformance-dump numbers   Lines "fixed HEXBITS DECIMALS", "int N", "uint N" or "seconds MICROSECONDS":
//                              the text JSONObjectWriter writes for that number (a Double by its bit pattern).
import GestureConfig
import GestureProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `text` to file descriptor `fd`.
func emit(_ text: String, to fd: Int32) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { exit(1) }
        bytes = bytes.dropFirst(n)
    }
}

func fail(_ message: String) -> Never {
    emit("conformance-dump: \(message)\n", to: 2)
    exit(2)
}

func readStandardInput() -> [UInt8] {
    var input: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(0, &chunk, chunk.count)
        if n < 0 && errno == EINTR { continue }
        if n < 0 { fail("cannot read standard input: \(String(cString: strerror(errno)))") }
        if n == 0 { return input }
        input.append(contentsOf: chunk[0..<n])
    }
}

/// The items of `input`, each preceded by its length in bytes on a line of its own.
func lengthPrefixed(_ input: [UInt8]) -> [ArraySlice<UInt8>] {
    var items: [ArraySlice<UInt8>] = []
    var position = 0
    while position < input.count {
        guard let newline = input[position...].firstIndex(of: 0x0A),
            let length = Int(String(decoding: input[position..<newline], as: UTF8.self)),
            newline + 1 + length <= input.count
        else { fail("expected a byte count on a line of its own at byte \(position)") }
        items.append(input[(newline + 1)..<(newline + 1 + length)])
        position = newline + 1 + length
    }
    return items
}

func toml(_ input: [UInt8], into output: inout String) {
    for document in lengthPrefixed(input) {
        switch TOMLTaggedJSON.render(bytes: Array(document)) {
        case .success(let tree):
            JSONSerializer.write(tree, into: &output)
        case .failure(let error):
            output += "error \(error.line):\(error.column) "
            JSONSerializer.writeString(error.message, into: &output)
        }
        output += "\n"
    }
}

func requests(_ input: [UInt8], into output: inout String) {
    for line in lengthPrefixed(input) {
        var members: [(key: String, value: JSONValue)] = []
        do {
            members.append(("json", try JSONParser.parse(line)))
        } catch {
            members.append(("json", .null))
            members.append(("json_error", .string(error.description)))
        }
        switch RequestMessage.decode(line: line) {
        case .success(let message):
            guard let request = try? JSONParser.parse(message.encoded) else { fail("cannot read back \(message.encoded)") }
            members.append(("request", request))
        case .failure(let error):
            members.append(("code", .string(error.code.rawValue)))
            if let id = error.id { members.append(("id", id)) }
        }
        JSONSerializer.write(.object(members), into: &output)
        output += "\n"
    }
}

func declarations(_ input: [UInt8], into output: inout String) {
    let members = RequestType.allCases.map { type -> (key: String, value: JSONValue) in
        let d = type.declaration
        return (
            type.rawValue,
            .object([("fields", .array(d.fields.map(JSONValue.string))), ("right", .string(d.right.rawValue)), ("reply", .string(d.reply))])
        )
    }
    JSONSerializer.write(.object(members), into: &output)
    output += "\n"
}

/// The writer's text for one number: what it puts between `{"v":` and `}`.
func written(_ write: (inout JSONObjectWriter) -> Void) -> String {
    var writer = JSONObjectWriter(capacity: 64)
    write(&writer)
    let line = writer.finish()
    return String(line.dropFirst(5).dropLast())
}

func numbers(_ input: [UInt8], into output: inout String) {
    for line in input.split(separator: 0x0A) {
        let fields = String(decoding: line, as: UTF8.self).split(separator: " ")
        switch (fields.first, fields.count) {
        case ("fixed", 3):
            guard let bits = UInt64(fields[1], radix: 16), let decimals = Int(fields[2]) else { fail("bad line \(fields)") }
            output += written { $0.number("v", Double(bitPattern: bits), decimals: decimals) }
        case ("int", 2):
            guard let n = Int64(fields[1]) else { fail("bad line \(fields)") }
            output += written { $0.int("v", n) }
        case ("uint", 2):
            guard let n = UInt64(fields[1]) else { fail("bad line \(fields)") }
            output += written { $0.int("v", n) }
        case ("seconds", 2):
            guard let n = Int64(fields[1]) else { fail("bad line \(fields)") }
            output += written { $0.seconds("v", microseconds: n) }
        default:
            fail("unknown line \(fields)")
        }
        output += "\n"
    }
}

let modes: [String: ([UInt8], inout String) -> Void] = [
    "toml": toml, "requests": requests, "numbers": numbers, "declarations": declarations,
]
guard CommandLine.arguments.count == 2, let mode = modes[CommandLine.arguments[1]] else {
    fail("usage: conformance-dump toml|requests|numbers|declarations < input")
}
var output = ""
mode(readStandardInput(), &output)
emit(output, to: 1)
