#if canImport(Glibc)
import Glibc
#endif
import GestureCore
import SystemCalls
import PlainText

/// Sets recognizer keys for one device in a configuration file's text, the way a person would: in the
/// [[device]] section that matches the device (a key already there gets its new value, keeping what
/// follows it on the line; a new key goes after the section's last key, or into its subtable when the
/// section has one for the key's table), or in a new section at the end that matches the device by name.
/// Every other byte of the file stays as it was. The result is read back: it must load, and the device's
/// settings from it must be the ones wanted (`gesturectl tune --write`).
public struct DeviceSectionEdit: Sendable {
    /// The file's new text.
    public let text: String
    /// The line (1-based) of the section that was changed or added.
    public let sectionLine: Int
    /// Whether the section was added at the end.
    public let addedSection: Bool

    /// `values`: keys relative to [recognizer] ("edge_swipe.left.zone_mm") and their new values.
    /// `expected`: the device's recognizer settings the new file must give (the read-back check).
    public init(
        text original: String, fileName: String, device: DeviceDescription, paths: [String], values: [(key: String, value: Double)],
        expected: RecognizerSettings
    ) throws(ConfigError) {
        let configuration = try Configuration.parse(text: original, fileName: fileName)
        var lines = DeviceSectionEdit.lines(original)
        let matching = configuration.devices.indices.filter { configuration.devices[$0].matches(device, paths: paths) }
        var sectionLine: Int
        var added = false
        if let last = matching.last, DeviceSectionEdit.isSpecific(configuration.devices[last]),
            let line = DeviceSectionEdit.headerLine(of: last, in: configuration, lines: lines)
        {
            sectionLine = line
            for (key, value) in values { DeviceSectionEdit.set(key, to: value, sectionAt: line, in: &lines) }
        } else {
            // A last line without a line ending gets one first.
            if let last = lines.indices.last, lines[last].ending.isEmpty { lines[last].ending = "\n" }
            if !original.isEmpty { lines.append(Line(text: "", ending: "\n")) }
            lines.append(Line(text: "# Added by gesturectl tune for \"\(escapingControlCharacters(device.name))\".", ending: "\n"))
            sectionLine = lines.count + 1
            lines.append(Line(text: "[[device]]", ending: "\n"))
            lines.append(Line(text: "match_name = \(DeviceSectionEdit.tomlString(DeviceSectionEdit.globEscaped(device.name)))", ending: "\n"))
            for (key, value) in values { lines.append(Line(text: "\(key) = \(formatNumber(value))", ending: "\n")) }
            added = true
        }
        let text = lines.map { $0.text + $0.ending }.joined()
        // Read back: the file must load and give the device exactly the settings wanted.
        let reread = try Configuration.parse(text: text, fileName: fileName)
        let resolved = reread.resolve(for: device, paths: paths).recognizer
        guard resolved == expected else {
            throw ConfigError(diagnostics: [
                ConfigDiagnostic(
                    location: ConfigLocation(file: fileName, line: sectionLine), keyPath: nil,
                    message: "the edited file would not give \(escapingControlCharacters(device.name)) the proposed settings "
                        + "(another section or key overrides them); the file is left as it is: add the lines above by hand")
            ])
        }
        self.text = text
        self.sectionLine = sectionLine
        self.addedSection = added
    }

    struct Line {
        var text: String
        var ending: String
    }

    /// The text's lines with their endings ("\n", "\r\n", or none for a last line without one).
    static func lines(_ text: String) -> [Line] {
        var result: [Line] = []
        var current = ""
        for c in text {
            if c == "\n" || c == "\r\n" {
                result.append(Line(text: current, ending: String(c)))
                current = ""
            } else {
                current.append(c)
            }
        }
        if !current.isEmpty { result.append(Line(text: current, ending: "")) }
        return result
    }

    /// A section that names this device alone, as far as the file can tell: by id or path, or by a name
    /// without glob characters. A broader one (match_name = "*") is not edited: a new section follows it.
    static func isSpecific(_ section: DeviceSection) -> Bool {
        if section.matchID != nil || section.matchPath != nil { return true }
        guard let name = section.matchName else { return false }
        return !name.contains(where: { "*?[".contains($0) })
    }

    /// The line (1-based) of the `index`th [[device]] header: where the decoder says the section starts,
    /// if that line is a [[device]] header, else the `index`th such header in the file.
    static func headerLine(of index: Int, in configuration: Configuration, lines: [Line]) -> Int? {
        if let line = configuration.devices[index].location.line, line >= 1, line <= lines.count, isDeviceHeader(lines[line - 1].text) {
            return line
        }
        var seen = -1
        for (i, l) in lines.enumerated() where isDeviceHeader(l.text) {
            seen += 1
            if seen == index { return i + 1 }
        }
        return nil
    }

    static func trimmed(_ s: String) -> Substring {
        var t = Substring(s)
        while let f = t.first, f == " " || f == "\t" { t = t.dropFirst() }
        while let l = t.last, l == " " || l == "\t" { t = t.dropLast() }
        return t
    }

    /// The text of a header line without its trailing comment: "[[device]]", "[device.edge_swipe]".
    static func header(_ line: String) -> Substring? {
        let t = trimmed(line)
        guard t.first == "[" else { return nil }
        guard let close = t.lastIndex(of: "]") else { return nil }
        return t[...close]
    }

    static func isDeviceHeader(_ line: String) -> Bool {
        guard let h = header(line) else { return false }
        return h.filter { $0 != " " && $0 != "\t" } == "[[device]]"
    }

    /// The dotted name of a subtable header of a [[device]] section ("[device.edge_swipe.left]" →
    /// "edge_swipe.left"); nil for any other line.
    static func subtable(_ line: String) -> String? {
        guard let h = header(line), !h.hasPrefix("[[") else { return nil }
        let inner = h.dropFirst().dropLast().filter { $0 != " " && $0 != "\t" }
        guard inner.hasPrefix("device.") else { return nil }
        return String(inner.dropFirst("device.".count))
    }

    /// The key a `key = value` line sets (dots kept, spaces around them dropped); nil for other lines.
    static func assignedKey(_ line: String) -> String? {
        let t = trimmed(line)
        guard let first = t.first, first != "#", first != "[", let eq = t.firstIndex(of: "=") else { return nil }
        let key = t[..<eq].filter { $0 != " " && $0 != "\t" }
        return key.isEmpty ? nil : String(key)
    }

    /// Sets `key` in the section whose header is at line `headerLine`.
    static func set(_ key: String, to value: Double, sectionAt headerLine: Int, in lines: inout [Line]) {
        // The section's lines: after its header, up to the next header that is not one of its subtables.
        var end = headerLine
        while end < lines.count {
            let text = lines[end].text
            if header(text) != nil, subtable(text) == nil { break }
            end += 1
        }
        // Where each table of the section starts: nil for the section's own keys, else the subtable's name.
        var table: String? = nil
        var tableOf: [Int: String?] = [:]
        var lastKeyLine: [String: Int] = [:]  // the table's name ("" for the section's own) -> its last key line
        var headerOf: [String: Int] = ["": headerLine - 1]
        for i in headerLine..<end {
            if let sub = subtable(lines[i].text) {
                table = sub
                headerOf[sub] = i
                continue
            }
            tableOf[i] = table
            if assignedKey(lines[i].text) != nil { lastKeyLine[table ?? ""] = i }
        }
        // A key already set: in the section itself, or in the subtable it falls under.
        for i in headerLine..<end {
            guard let written = assignedKey(lines[i].text), let t = tableOf[i] else { continue }
            let full = t.map { $0 + "." + written } ?? written
            if full == key {
                lines[i].text = replacingValue(lines[i].text, with: formatNumber(value))
                return
            }
        }
        // A new key: into the deepest subtable whose name is a prefix of the key, else the section itself.
        var target = ""
        for name in headerOf.keys where !name.isEmpty && key.hasPrefix(name + ".") && name.count > target.count { target = name }
        let relative = target.isEmpty ? key : String(key.dropFirst(target.count + 1))
        let after = lastKeyLine[target] ?? headerOf[target]!
        let ending = lines[after].ending.isEmpty ? "\n" : lines[after].ending
        if lines[after].ending.isEmpty { lines[after].ending = ending }
        lines.insert(Line(text: "\(relative) = \(formatNumber(value))", ending: ending), at: after + 1)
    }

    /// The line with its value replaced by `value`: what precedes the value and a trailing comment kept.
    static func replacingValue(_ line: String, with value: String) -> String {
        guard let eq = line.firstIndex(of: "=") else { return line }
        let afterEq = line[line.index(after: eq)...]
        let leading = afterEq.prefix { $0 == " " || $0 == "\t" }
        let rest = afterEq.dropFirst(leading.count)
        var comment = ""
        if let hash = rest.firstIndex(of: "#") {
            let beforeHash = rest[..<hash]
            let spaces = beforeHash.reversed().prefix { $0 == " " || $0 == "\t" }
            comment = String(spaces.reversed()) + rest[hash...]
        }
        return String(line[...eq]) + String(leading) + value + comment
    }

    /// `name` as a glob that matches it alone (every glob character escaped with a backslash).
    public static func globEscaped(_ name: String) -> String {
        var s = ""
        for c in name {
            if "*?[]\\".contains(c) { s.append("\\") }
            s.append(c)
        }
        return s
    }

    /// A TOML basic string.
    public static func tomlString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if u.value < 0x20 || u.value == 0x7f {
                    let hex = String(u.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}

extension DeviceSectionEdit {
    /// The configuration file's text, with the daemon's checks and limit; nil when there is no file.
    public static func readText(path: String) throws(ConfigError) -> String? {
        do {
            _ = try SystemCall.stat(path)
        } catch {
            if error.errno == ENOENT { return nil }
        }
        do {
            return String(decoding: try ConfigFile.contents(path: path), as: UTF8.self)
        } catch {
            throw ConfigError(diagnostics: [ConfigDiagnostic(location: ConfigLocation(file: path), keyPath: nil, message: error.message)])
        }
    }

    /// Edits the configuration file at `path` whole, as `change` makes its new text of the old one ("" for
    /// a file that does not exist yet), and returns the file written:
    /// - through a symbolic link, the file it leads to is edited (a link to nothing is refused), never
    ///   replaced by a regular file;
    /// - the new text goes into a new file beside it, made with a fresh name each time (mkostemp: O_EXCL,
    ///   so no file or link another user made there is written through, and one left behind blocks
    ///   nothing), given the old file's mode and owner (0644 and the writer's for a new file; refused when
    ///   the owner cannot be kept), flushed to the disk, then renamed over it, so that a reader (the daemon
    ///   on a reload) sees the old file or the new one, never a part;
    /// - while it edits, it holds an exclusive lock on the file's directory: a second edit at the same
    ///   time is refused (`FileEditError.busy`) rather than lose one of the two.
    public static func editFile(_ path: String, _ change: (String) throws(ConfigError) -> String) throws(FileEditError) -> String {
        let target = try resolvedTarget(path)
        let slash = target.lastIndex(of: "/")!
        let directory = slash == target.startIndex ? "/" : String(target[..<slash])
        let base = String(target[target.index(after: slash)...])
        let lock: Int32
        let locked: Bool
        do throws(SystemError) {
            lock = try SystemCall.open(directory, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            do throws(SystemError) {
                locked = try SystemCall.tryLockExclusively(lock, path: directory)
            } catch {
                _ = SystemCall.close(lock)
                throw error
            }
        } catch {
            throw .system(error)
        }
        defer { _ = SystemCall.close(lock) }
        guard locked else { throw .busy("another gesturectl tune is writing in \(directory) now; try again when it is done") }
        let original: String?
        let text: String
        do {
            original = try readText(path: target)
            text = try change(original ?? "")
        } catch {
            throw .config(error)
        }
        var mode: mode_t = 0o644
        var owner: (uid: uid_t, gid: gid_t)?
        if original != nil, let status = try? SystemCall.stat(target) {
            mode = status.st_mode & 0o7777
            if status.st_uid != geteuid() || status.st_gid != getegid() { owner = (status.st_uid, status.st_gid) }
        }
        let temporary: (fd: Int32, path: String)
        do {
            temporary = try SystemCall.makeTemporaryFile(prefix: directory + "/." + base + ".gesturectl-tune.")
        } catch {
            throw .system(error)
        }
        var open = true
        do throws(SystemError) {
            try SystemCall.changeMode(temporary.fd, mode, path: temporary.path)
            if let owner {
                do {
                    try SystemCall.changeOwner(temporary.fd, uid: owner.uid, gid: owner.gid, path: temporary.path)
                } catch {
                    var e = error
                    e.path = target
                    e.hint = "\(target) belongs to uid \(owner.uid) (group \(owner.gid)); writing it would give it to uid \(geteuid()): run this as its owner or as root"
                    throw e
                }
            }
            var bytes = Array(text.utf8)
            let wrote = bytes.withUnsafeMutableBytes { SystemCall.writeAll(temporary.fd, UnsafeRawBufferPointer($0)) }
            guard wrote else { throw SystemError(errno: errno, operation: "write", path: temporary.path) }
            try SystemCall.fsync(temporary.fd, path: temporary.path)
            open = false
            if let error = SystemCall.close(temporary.fd) { throw error }
            try SystemCall.rename(temporary.path, to: target)
        } catch {
            if open { _ = SystemCall.close(temporary.fd) }
            _ = SystemCall.unlink(temporary.path)
            throw .system(error)
        }
        return target
    }

    /// The file an edit of `path` writes: the file a symbolic link leads to (all the way), else `path` in
    /// its directory's real place; a link that leads nowhere is refused.
    private static func resolvedTarget(_ path: String) throws(FileEditError) -> String {
        do throws(SystemError) {
            if try SystemCall.lstatIfPresent(path) != nil {
                do {
                    return try SystemCall.realPath(path)
                } catch {
                    var e = error
                    if e.errno == ENOENT { e.hint = "\(path) is a symbolic link to a file that does not exist: point it at the configuration, or name the file itself" }
                    throw e
                }
            }
            let slash = path.lastIndex(of: "/")
            let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
            let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
            let real = try SystemCall.realPath(directory)
            return (real == "/" ? "" : real) + "/" + base
        } catch {
            throw .system(error)
        }
    }
}

/// Why `DeviceSectionEdit.editFile` did not write.
public enum FileEditError: Error, CustomStringConvertible {
    /// The file's text is not a configuration it can edit.
    case config(ConfigError)
    /// A system call failed (its errno, the file, and what to do).
    case system(SystemError)
    /// Another edit holds the lock.
    case busy(String)

    public var description: String {
        switch self {
        case .config(let e): return e.description
        case .system(let e): return e.description
        case .busy(let message): return message
        }
    }
}
