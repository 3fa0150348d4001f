// Reads TOML documents from standard input and writes each one's tagged tree (TOMLTaggedJSON) as one line of
// JSON, or `error LINE:COLUMN MESSAGE`. Each document is preceded by its length in bytes on a line of its
// own, so one process checks thousands of documents (tools/toml-differential.py drives it against tomllib).
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

var input: [UInt8] = []
var chunk = [UInt8](repeating: 0, count: 65536)
while true {
    let n = read(0, &chunk, chunk.count)
    if n < 0 && errno == EINTR { continue }
    if n < 0 {
        emit("toml-dump: cannot read standard input: \(String(cString: strerror(errno)))\n", to: 2)
        exit(1)
    }
    if n == 0 { break }
    input.append(contentsOf: chunk[0..<n])
}

var output = ""
var position = 0
while position < input.count {
    guard let newline = input[position...].firstIndex(of: 0x0A),
        let length = Int(String(decoding: input[position..<newline], as: UTF8.self)),
        newline + 1 + length <= input.count
    else {
        emit("toml-dump: expected a byte count on a line of its own at byte \(position)\n", to: 2)
        exit(1)
    }
    let document = Array(input[(newline + 1)..<(newline + 1 + length)])
    position = newline + 1 + length
    switch TOMLTaggedJSON.render(bytes: document) {
    case .success(let tree):
        JSONSerializer.write(tree, into: &output)
    case .failure(let error):
        output += "error \(error.line):\(error.column) "
        JSONSerializer.writeString(error.message, into: &output)
    }
    output += "\n"
    if output.utf8.count > 65536 {
        emit(output, to: 1)
        output = ""
    }
}
emit(output, to: 1)
