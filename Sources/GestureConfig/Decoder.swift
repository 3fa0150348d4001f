import GestureVocabulary
import GestureCore
import PlainText

/// Turns the TOML tree into a Configuration, collecting every problem rather than stopping at the first.
struct ConfigDecoder {
    /// The widest aspect `panel_aspect` takes: 4:1, beyond 32:9 (3.6:1), the widest monitors sold.
    static let maximumPanelAspect = 4.0

    let file: String
    private(set) var diagnostics: [ConfigDiagnostic] = []
    private(set) var warnings: [ConfigDiagnostic] = []

    init(file: String) {
        self.file = file
    }

    static func decode(_ root: TOMLValue, fileName: String) throws(ConfigError) -> Configuration {
        var decoder = ConfigDecoder(file: fileName)
        let configuration = decoder.decodeRoot(root)
        if !decoder.diagnostics.isEmpty {
            throw ConfigError.inSourceOrder(decoder.diagnostics, unlistedCount: decoder.unlisted)
        }
        return configuration
    }

    // MARK: Reporting

    /// Most problems listed. Past it they are only counted ("and N more"), and no message is built for
    /// them: a file of 60 000 misspelt keys would otherwise cost a did-you-mean each, seconds of the
    /// daemon's loop at a reload, and as many log lines.
    static let maximumListedProblems = 100
    /// Problems found past `maximumListedProblems`.
    private(set) var unlisted = 0
    /// Every problem found, listed or not.
    private var problemCount: Int { diagnostics.count + unlisted }
    private var listIsFull: Bool { diagnostics.count >= ConfigDecoder.maximumListedProblems }

    private mutating func error(_ position: SourcePosition, _ keyPath: String?, _ message: @autoclosure () -> String) {
        guard !listIsFull else {
            unlisted += 1
            return
        }
        diagnostics.append(
            ConfigDiagnostic(location: ConfigLocation(file: file, position), keyPath: keyPath, message: message()))
    }

    private mutating func warn(_ position: SourcePosition, _ keyPath: String?, _ message: String) {
        warnings.append(
            ConfigDiagnostic(location: ConfigLocation(file: file, position), keyPath: keyPath, message: message))
    }

    private func join(_ prefix: String, _ key: String) -> String {
        prefix.isEmpty ? key : "\(prefix).\(key)"
    }

    /// Reports a key that is not allowed where it is written: where it belongs if it is a key of another
    /// table, else the closest allowed key, else the allowed keys. `here` is the table's canonical name
    /// ("" for the top level, "daemon", "recognizer.pan", "device", "device.pan").
    private mutating func unknown(_ member: TOMLMember, path: String, allowed: @autoclosure () -> [String], here: String) {
        guard !listIsFull else {
            unlisted += 1
            return
        }
        let what: String
        if case .table = member.value.kind { what = "unknown table" } else { what = "unknown key" }
        let inDevice = here == "device" || here.hasPrefix("device.")
        let section = ConfigDecoder.display(here, inDevice: false)
        if let home = ConfigDecoder.home(of: member.key, inDevice: inDevice), home != here {
            error(
                member.keyPosition, path,
                "\(what) in \(section); \(member.key) belongs in \(ConfigDecoder.display(home, inDevice: inDevice))")
        } else if let suggestion = closest(to: member.key, among: allowed()) {
            error(member.keyPosition, path, "\(what) in \(section); did you mean \(suggestion)?")
        } else {
            error(
                member.keyPosition, path,
                "\(what) in \(section); allowed here: \(allowed().joined(separator: ", "))")
        }
    }

    /// How a canonical table name reads in a message.
    private static func display(_ table: String, inDevice: Bool) -> String {
        switch table {
        case "": return "the top level"
        case "device": return inDevice ? "the [[device]] section itself" : "a [[device]] section"
        default: return "[\(table)]"
        }
    }

    /// The canonical name of the table a key (a last component) is at home in, when it is unique. Inside
    /// a [[device]] section the recognizer keys are at home in the device's own tables ("device.pan").
    private static func home(of key: String, inDevice: Bool) -> String? {
        let root = inDevice ? "device" : "recognizer"
        var homes: Set<String> = []
        if daemonKeys.contains(key) { homes.insert("daemon") }
        if deviceOwnKeys.contains(key) { homes.insert("device") }
        for k in recognizerKeys {
            let parts = k.components
            if parts.last.map(String.init) == key { homes.insert(([root] + parts.dropLast().map(String.init)).joined(separator: ".")) }
        }
        for table in recognizerTables {
            let parts = table.split(separator: ".")
            if parts.last.map(String.init) == key { homes.insert(([root] + parts.dropLast().map(String.init)).joined(separator: ".")) }
        }
        if topLevelKeys.contains(key) { homes.insert("") }
        return homes.count == 1 ? homes.first : nil
    }

    // MARK: Values

    private static func unitSuffix(_ unit: String?) -> String { unit.map { " (\($0))" } ?? "" }

    private mutating func convert(
        _ value: TOMLValue, spec: ValueSpec, keyPath: String, at position: SourcePosition
    ) -> SettingValue? {
        switch spec {
        case .bool:
            guard case .boolean(let b) = value.kind else {
                error(position, keyPath, "expected true or false, got \(value.described)")
                return nil
            }
            return .bool(b)
        case .integer(let range, let unit):
            guard case .integer(let i) = value.kind else {
                error(position, keyPath, "expected a whole number\(ConfigDecoder.unitSuffix(unit)), got \(value.described)")
                return nil
            }
            guard i >= Int64(range.lowerBound), i <= Int64(range.upperBound) else {
                error(
                    position, keyPath,
                    "must be between \(range.lowerBound) and \(range.upperBound)\(ConfigDecoder.unitSuffix(unit)), got \(i)")
                return nil
            }
            return .integer(Int(i))
        case .number(let range, let unit):
            let d: Double
            switch value.kind {
            case .integer(let i): d = Double(i)
            case .float(let f): d = f
            default:
                error(position, keyPath, "expected a number\(ConfigDecoder.unitSuffix(unit)), got \(value.described)")
                return nil
            }
            guard range.contains(d) else {
                error(
                    position, keyPath,
                    "must be between \(formatNumber(range.lowerBound)) and \(formatNumber(range.upperBound))"
                        + "\(ConfigDecoder.unitSuffix(unit)), got \(formatNumber(d))")
                return nil
            }
            return .number(d)
        }
    }

    /// The glob string `member` holds; nil, the problem said, when it holds no string (`expecting` says
    /// what it should), an empty one (`ifEmpty` is the message), or no valid glob.
    private mutating func nonEmptyGlob(_ member: TOMLMember, keyPath: String, expecting: String, ifEmpty: String) -> String? {
        guard let s = string(member, keyPath: keyPath, expecting: expecting) else { return nil }
        if s.isEmpty {
            error(member.keyPosition, keyPath, ifEmpty)
            return nil
        }
        if let problem = Glob.problem(in: s) {
            error(member.keyPosition, keyPath, "is not a valid glob: \(problem)")
            return nil
        }
        return s
    }

    private mutating func string(_ member: TOMLMember, keyPath: String, expecting: String = "a string") -> String? {
        guard case .string(let s) = member.value.kind else {
            error(member.keyPosition, keyPath, "expected \(expecting), got \(member.value.described)")
            return nil
        }
        return s
    }

    private mutating func bool(_ member: TOMLMember, keyPath: String) -> Bool? {
        if case .bool(let b)? = convert(member.value, spec: .bool, keyPath: keyPath, at: member.keyPosition) {
            return b
        }
        return nil
    }

    /// The member's integer within `range` (in `unit`), or nil with the error recorded.
    private mutating func integer(_ member: TOMLMember, keyPath: String, in range: ClosedRange<Int>, unit: String) -> Int? {
        if case .integer(let i)? = convert(member.value, spec: .integer(range, unit: unit), keyPath: keyPath, at: member.keyPosition) {
            return i
        }
        return nil
    }

    private mutating func tableMembers(_ member: TOMLMember, keyPath: String, header: String) -> [TOMLMember]? {
        guard case .table(let members) = member.value.kind else {
            error(member.keyPosition, keyPath, "expected a table (\(header)), got \(member.value.described)")
            return nil
        }
        return members
    }

    // MARK: Sections

    private mutating func decodeRoot(_ root: TOMLValue) -> Configuration {
        var configuration = Configuration()
        guard case .table(let members) = root.kind else { return configuration }
        var recognizerOverrides: [String: SettingValue] = [:]
        var recognizerPositions: [String: SourcePosition] = [:]
        var deviceElements: [TOMLValue] = []
        for member in members {
            switch member.key {
            case "daemon":
                if let daemon = tableMembers(member, keyPath: "daemon", header: "[daemon]") {
                    configuration.daemon = decodeDaemon(daemon)
                }
            case "recognizer":
                if let table = tableMembers(member, keyPath: "recognizer", header: "[recognizer]") {
                    for m in table {
                        if !readRecognizerMember(
                            m, relativePrefix: "", displayPrefix: "recognizer", into: &recognizerOverrides,
                            positions: &recognizerPositions)
                        {
                            unknown(m, path: "recognizer.\(m.key)", allowed: ConfigDecoder.recognizerNames(at: ""), here: "recognizer")
                        }
                    }
                }
            case "device":
                switch member.value.kind {
                case .array(let elements):
                    deviceElements = elements
                case .table:
                    error(
                        member.keyPosition, "device",
                        "device sections are an array of tables: write [[device]], not [device]")
                default:
                    error(
                        member.keyPosition, "device",
                        "expected [[device]] sections, got \(member.value.described)")
                }
            case "exclusion":
                switch member.value.kind {
                case .array(let elements):
                    for (index, element) in elements.enumerated() {
                        if let section = decodeExclusion(element, index: index) { configuration.exclusions.append(section) }
                    }
                case .table:
                    error(member.keyPosition, "exclusion", "exclusion sections are an array of tables: write [[exclusion]], not [exclusion]")
                default:
                    error(member.keyPosition, "exclusion", "expected [[exclusion]] sections, got \(member.value.described)")
                }
            case "pointer":
                switch member.value.kind {
                case .array(let elements):
                    for (index, element) in elements.enumerated() {
                        if let section = decodePointer(element, index: index) { configuration.pointers.append(section) }
                    }
                case .table:
                    error(
                        member.keyPosition, "pointer",
                        "pointer sections are an array of tables: write [[pointer]], not [pointer] (a panel's own mode is pointer = \"...\" in its [[device]] section)")
                default:
                    error(member.keyPosition, "pointer", "expected [[pointer]] sections, got \(member.value.described)")
                }
            default:
                unknown(member, path: member.key, allowed: topLevelKeys, here: "")
            }
        }

        var recognizer = RecognizerSettings()
        recognizer.apply(recognizerOverrides)
        warnShadowedShorthands(recognizerPositions, displayPrefix: "recognizer")
        checkFingers(
            recognizer, setKeys: recognizerPositions, displayPrefix: "recognizer", base: "the built-in defaults")
        configuration.recognizer = recognizer

        for (index, element) in deviceElements.enumerated() {
            if let section = decodeDevice(element, index: index, base: recognizer) {
                configuration.devices.append(section)
            }
        }
        configuration.warnings = warnings
        return configuration
    }

    private mutating func decodeDaemon(_ members: [TOMLMember]) -> DaemonSettings {
        var daemon = DaemonSettings()
        for member in members {
            let path = "daemon.\(member.key)"
            switch member.key {
            case "socket_path":
                guard let s = string(member, keyPath: path, expecting: "a path string") else { continue }
                if !s.hasPrefix("/") {
                    error(member.keyPosition, path, "must be an absolute path (starting with /), got \(quoted(s))")
                } else if s.utf8.contains(0) {
                    error(member.keyPosition, path, "must not contain a NUL character")
                } else if s.utf8.count > Limits.socketPathBytes {
                    error(
                        member.keyPosition, path,
                        "is \(s.utf8.count) bytes long; a Unix socket path can be at most \(Limits.socketPathBytes)")
                } else if s.hasSuffix("/") {
                    error(member.keyPosition, path, "must name a file, not a directory, got \(quoted(s))")
                } else {
                    daemon.socketPath = s
                }
            case "socket_mode":
                if case .integer(let i) = member.value.kind {
                    let quoting = member.value.written.flatMap { ConfigDecoder.quotingAdvice(key: member.key, written: $0) }
                        ?? "write the mode in quotes, such as \(member.key) = \"0660\""
                    error(
                        member.keyPosition, path,
                        "expected an octal mode in a string such as \"0660\", got the integer \(i); \(quoting)")
                    continue
                }
                guard let s = string(member, keyPath: path, expecting: "an octal mode in a string such as \"0660\"")
                else { continue }
                if let mode = ConfigDecoder.octalMode(s) {
                    daemon.socketMode = mode
                    if mode & 0o002 != 0 {
                        warn(
                            member.keyPosition, path,
                            "\(s) lets every local user connect and watch gestures (touches on an on-screen "
                                + "keyboard among them); 0660 with socket_group limits it to that group")
                    }
                } else {
                    error(
                        member.keyPosition, path,
                        "must be an octal mode from \"0000\" to \"0777\" such as \"0660\", got \(quoted(s))")
                }
            case "socket_group":
                guard let s = string(member, keyPath: path, expecting: "a group name") else { continue }
                if s.isEmpty || ConfigDecoder.isGroupName(s) {
                    daemon.socketGroup = s
                } else {
                    error(
                        member.keyPosition, path,
                        "must be a group name (letters, digits, _, - and .), or empty to "
                            + "keep the daemon's group, got \(quoted(s))")
                }
            case "app_touches_for":
                let expected = "an array of user names and %groups such as [\"alice\", \"%kiosk\"] (letters, digits, _, - and .)"
                guard case .array(let items) = member.value.kind else {
                    error(member.keyPosition, path, "expected \(expected), got \(member.value.described)")
                    continue
                }
                var viewers: [AppTouchViewer] = []
                for item in items {
                    guard case .string(let s) = item.kind, let viewer = AppTouchViewer(s) else {
                        error(member.keyPosition, path, "expected \(expected), got \(item.described)")
                        break
                    }
                    viewers.append(viewer)
                }
                if viewers.count == items.count { daemon.appTouchesFor = viewers }
            case "max_clients":
                if let i = integer(member, keyPath: path, in: Limits.maxClients, unit: "clients") { daemon.maxClients = i }
            case "max_clients_per_uid":
                if let i = integer(member, keyPath: path, in: Limits.maxClients, unit: "clients") { daemon.maxClientsPerUID = i }
            case "client_buffer_bytes":
                if let i = integer(member, keyPath: path, in: Limits.clientBufferBytes, unit: "bytes") {
                    daemon.clientBufferBytes = i
                }
            case "log_level":
                let names = LogLevel.allCases.map(\.rawValue)
                guard let s = string(member, keyPath: path, expecting: "one of \(names.joined(separator: ", "))")
                else { continue }
                if let level = LogLevel(rawValue: s) {
                    daemon.logLevel = level
                } else {
                    let hint = closest(to: s, among: names).map { " (did you mean \($0)?)" } ?? ""
                    error(
                        member.keyPosition, path,
                        "must be one of \(names.joined(separator: ", ")), got \(quoted(s))\(hint)")
                }
            default:
                unknown(member, path: path, allowed: daemonKeys, here: "daemon")
            }
        }
        return daemon
    }

    /// "0660", "660", "0o660" -> 0o660; nil unless it is an octal mode up to 0777.
    /// The dotted keys whose value is a mode string, for the TOML reader's message about `0660`.
    static let modeKeys: Set<String> = ["daemon.socket_mode"]

    /// How to write the mode a number spelled `written` (`0660`, `660`, `0o660`) means, as a string:
    /// `write it in quotes: socket_mode = "0660"`; nil when the digits are no mode.
    static func quotingAdvice(key: String, written: String) -> String? {
        var digits = Substring(written)
        if digits.hasPrefix("+") { digits = digits.dropFirst() }
        guard let mode = octalMode(String(digits.filter { $0 != "_" })) else { return nil }
        let octal = String(mode, radix: 8)
        return "write it in quotes: \(key) = \"\(String(repeating: "0", count: max(0, 4 - octal.count)) + octal)\""
    }

    static func octalMode(_ s: String) -> UInt32? {
        var digits = Substring(s)
        if digits.hasPrefix("0o") { digits = digits.dropFirst(2) }
        guard (1...4).contains(digits.count), digits.allSatisfy({ ("0"..."7").contains($0) }),
            let mode = UInt32(digits, radix: 8), mode <= 0o777
        else { return nil }
        return mode
    }

    static func isGroupName(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, s.utf8.count <= 32 else { return false }
        func ok(_ c: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "_" || c == "-"
                || c == "."
        }
        return first != "-" && s.unicodeScalars.allSatisfy(ok)
    }

    /// The keys and sub-tables allowed directly in the recognizer table at `prefix` ("" for the top).
    private static func recognizerNames(at prefix: String) -> [String] { recognizerNamesByTable[prefix] ?? [] }

    /// The keys and sub-tables allowed directly in each recognizer table ("" for [recognizer] itself), in
    /// file order; made once.
    private static let recognizerNamesByTable: [String: [String]] = {
        var names: [String: [String]] = [:]
        for key in recognizerKeys + recognizerShorthandKeys {
            let parts = key.components.map(String.init)
            for depth in 0..<parts.count {
                let prefix = parts[0..<depth].joined(separator: ".")
                if names[prefix, default: []].contains(parts[depth]) == false { names[prefix, default: []].append(parts[depth]) }
            }
        }
        return names
    }()

    /// Reads one member of a recognizer-shaped table (the [recognizer] table, a [[device]] section, or one
    /// of their sub-tables). Returns false when the member is not a recognizer key or table at this level.
    private mutating func readRecognizerMember(
        _ member: TOMLMember, relativePrefix: String, displayPrefix: String,
        into overrides: inout [String: SettingValue], positions: inout [String: SourcePosition]
    ) -> Bool {
        let relative = join(relativePrefix, member.key)
        let path = join(displayPrefix, relative)
        if let key = recognizerKeysByName[relative] {
            if let value = convert(member.value, spec: key.spec, keyPath: path, at: member.keyPosition) {
                overrides[relative] = value
                positions[relative] = member.keyPosition
            }
            return true
        }
        guard recognizerTables.contains(relative) else { return false }
        guard let members = tableMembers(member, keyPath: path, header: "[\(path)]") else { return true }
        for m in members {
            if !readRecognizerMember(
                m, relativePrefix: relative, displayPrefix: displayPrefix, into: &overrides, positions: &positions)
            {
                unknown(
                    m, path: join(path, m.key), allowed: ConfigDecoder.recognizerNames(at: relative),
                    here: path.replacingDeviceIndex())
            }
        }
        return true
    }

    /// Warns about a shorthand (`edge_swipe.zone_mm`) written in a table that also sets keys it covers
    /// (`edge_swipe.left.zone_mm`): those win, whatever the order, so the shorthand changes nothing for
    /// them (or nothing at all, when it covers no other key).
    private mutating func warnShadowedShorthands(_ setKeys: [String: SourcePosition], displayPrefix: String) {
        for shorthand in recognizerShorthandKeys {
            guard let position = setKeys[shorthand.key] else { continue }
            let covered = RecognizerSettings.keys(coveredBy: shorthand.key)
            let winners = covered.filter { setKeys[$0] != nil }
            guard !winners.isEmpty else { continue }
            let lines = winners.compactMap { setKeys[$0].map { "\($0.line)" } }
            let rest = covered.filter { setKeys[$0] == nil }
            let what =
                rest.isEmpty
                ? "so it changes nothing: remove it, or set the value in those keys"
                : "so it sets only " + rest.map { "\(displayPrefix).\($0)" }.joined(separator: ", ")
            warn(
                position, "\(displayPrefix).\(shorthand.key)",
                "is shadowed by \(winners.map { "\(displayPrefix).\($0)" }.joined(separator: ", ")) "
                    + "(line\(lines.count == 1 ? "" : "s") \(lines.joined(separator: ", "))), which win\(winners.count == 1 ? "s" : "") over it wherever \(winners.count == 1 ? "it is" : "they are") written, \(what)")
        }
    }

    /// Reports what the kinds' rules find wrong with values each within its range (pan.directions must be
    /// 4 or 8), and pairs out of order (min_fingers above max_fingers, claim_min_fingers above
    /// claim_max_fingers) for the tables whose keys this table sets.
    private mutating func checkFingers(
        _ settings: RecognizerSettings, setKeys: [String: SourcePosition], displayPrefix: String, base: String
    ) {
        for table in RecognizerSettings.tables {
            for problem in table.problems(settings) {
                guard let position = setKeys[problem.key] else { continue }
                error(position, join(displayPrefix, problem.key), problem.message)
            }
            for pair in table.orderedKeys {
                guard case .integer(let low)? = recognizerKeysByName[pair.low]?.get(settings),
                    case .integer(let high)? = recognizerKeysByName[pair.high]?.get(settings), low > high
                else { continue }
                let positions = [setKeys[pair.low], setKeys[pair.high]].compactMap { $0 }
                guard let position = positions.max() else { continue }
                let lowName = pair.low.split(separator: ".").last.map(String.init) ?? pair.low
                let highName = pair.high.split(separator: ".").last.map(String.init) ?? pair.high
                let note: String
                if setKeys[pair.low] == nil {
                    note = " (\(highName) set here, \(lowName) from \(base))"
                } else if setKeys[pair.high] == nil {
                    note = " (\(lowName) set here, \(highName) from \(base))"
                } else {
                    note = ""
                }
                error(
                    position, join(displayPrefix, table.name),
                    "\(lowName) (\(low)) must not be more than \(highName) (\(high))\(note)")
            }
        }
    }

    private mutating func decodeDevice(_ element: TOMLValue, index: Int, base: RecognizerSettings) -> DeviceSection? {
        let prefix = "device[\(index + 1)]"
        guard case .table(let members) = element.kind else {
            error(element.position, prefix, "expected a [[device]] table, got \(element.described)")
            return nil
        }
        var section = DeviceSection(location: ConfigLocation(file: file, element.position))
        var positions: [String: SourcePosition] = [:]
        var overridePositions: [String: SourcePosition] = [:]
        let errorsBefore = problemCount
        for member in members {
            let path = "\(prefix).\(member.key)"
            positions[member.key] = member.keyPosition
            switch member.key {
            case "match_name":
                if let s = nonEmptyGlob(member, keyPath: path, expecting: "a glob string", ifEmpty: "must not be empty (\"*\" matches every name)") {
                    section.matchName = s
                }
            case "match_id":
                guard let s = string(member, keyPath: path, expecting: "a \"vvvv:pppp\" string") else { continue }
                if let id = ConfigDecoder.vendorProduct(s) {
                    section.matchID = id
                } else {
                    error(
                        member.keyPosition, path,
                        "must be \"vvvv:pppp\": vendor and product as 4 hex digits each (see `gesturectl devices` "
                            + "or /proc/bus/input/devices), got \(quoted(s))")
                }
            case "match_path":
                guard let s = string(member, keyPath: path, expecting: "a path glob string") else { continue }
                if !s.hasPrefix("/") {
                    error(
                        member.keyPosition, path,
                        "must be an absolute path or glob such as \"/dev/input/by-path/*-event\", got \(quoted(s))")
                } else if let problem = Glob.problem(in: s) {
                    error(member.keyPosition, path, "is not a valid glob: \(problem)")
                } else {
                    section.matchPath = s
                }
            case "rotation":
                guard case .integer(let i) = member.value.kind else {
                    error(member.keyPosition, path, "expected 0, 90, 180 or 270 (degrees clockwise), got \(member.value.described)")
                    continue
                }
                if let rotation = Rotation(rawValue: Int(i)), Int64(rotation.rawValue) == i {
                    section.rotation = rotation
                } else {
                    error(member.keyPosition, path, "must be 0, 90, 180 or 270 (degrees clockwise), got \(i)")
                }
            case "flip_x": section.flipX = bool(member, keyPath: path)
            case "flip_y": section.flipY = bool(member, keyPath: path)
            case "ignore": section.ignore = bool(member, keyPath: path)
            case "grab": section.grab = bool(member, keyPath: path)
            case "passthrough": section.passthrough = bool(member, keyPath: path)
            case "pen_arbitration": section.penArbitration = bool(member, keyPath: path)
            case "pointer": section.pointerMode = pointerMode(member, keyPath: path)
            case "pointer_scroll_mm":
                if case .number(let d)? = convert(
                    member.value, spec: .number(Limits.pointerScrollMM, unit: "mm"), keyPath: path, at: member.keyPosition)
                {
                    section.pointerScrollMM = d
                }
            case "pointer_fling": section.pointerFling = bool(member, keyPath: path)
            case "pen":
                guard let s = string(member, keyPath: path, expecting: "the pen's name (a glob) or its \"vvvv:pppp\"") else { continue }
                if s.isEmpty {
                    error(member.keyPosition, path, "must name a pen: its name as `libinput list-devices` shows it (a glob), or its \"vvvv:pppp\"")
                } else if ConfigDecoder.vendorProduct(s) == nil, ConfigDecoder.looksLikeShortVendorProduct(s) {
                    error(member.keyPosition, path, "must be \"vvvv:pppp\" with 4 hex digits each (see /proc/bus/input/devices), got \(quoted(s))")
                } else if let problem = Glob.problem(in: s) {
                    error(member.keyPosition, path, "is not a valid glob: \(problem)")
                } else {
                    section.pen = ConfigDecoder.vendorProduct(s) ?? s
                }
            case "calibration":
                section.calibration = calibration(member, keyPath: path)
            case "panel_width_mm", "panel_height_mm":
                if case .number(let d)? = convert(
                    member.value, spec: .number(Limits.panelMM, unit: "mm"), keyPath: path, at: member.keyPosition)
                {
                    if member.key == "panel_width_mm" { section.panelWidthMM = d } else { section.panelHeightMM = d }
                }
            case "panel_diagonal_inches":
                if case .number(let d)? = convert(
                    member.value, spec: .number(Limits.panelInches, unit: "inches"), keyPath: path, at: member.keyPosition)
                {
                    section.panelDiagonalInches = d
                }
            case "panel_aspect":
                guard case .string(let text) = member.value.kind else {
                    error(member.keyPosition, path, "expected the panel's aspect as a string such as \"16:9\", got \(member.value.described)")
                    break
                }
                guard let aspect = PanelAspect(parsing: text) else {
                    error(
                        member.keyPosition, path,
                        "expected the panel's aspect as two positive numbers and a colon, such as \"16:9\", \"16:10\" or \"3:2\", got \(quoted(text))")
                    break
                }
                guard aspect.ratio <= ConfigDecoder.maximumPanelAspect else {
                    error(
                        member.keyPosition, path,
                        "an aspect of \(aspect) is wider than any panel (at most \(formatNumber(ConfigDecoder.maximumPanelAspect)):1); check the two numbers")
                    break
                }
                section.panelAspect = aspect
            default:
                if !readRecognizerMember(
                    member, relativePrefix: "", displayPrefix: prefix, into: &section.recognizerOverrides,
                    positions: &overridePositions)
                {
                    unknown(member, path: path, allowed: deviceOwnKeys + ConfigDecoder.recognizerNames(at: ""), here: "device")
                }
            }
        }
        if positions["match_name"] == nil, positions["match_id"] == nil, positions["match_path"] == nil {
            error(
                element.position, prefix,
                "a [[device]] section needs match_name, match_id or match_path (match_name = \"*\" matches every device)")
        }
        switch (positions["panel_width_mm"], positions["panel_height_mm"]) {
        case (let w?, nil):
            error(w, "\(prefix).panel_width_mm", "panel_height_mm must be given too (both panel sizes, or neither)")
        case (nil, let h?):
            error(h, "\(prefix).panel_height_mm", "panel_width_mm must be given too (both panel sizes, or neither)")
        case (_?, _?), (nil, nil):
            break
        }
        if let aspect = positions["panel_aspect"], positions["panel_diagonal_inches"] == nil {
            error(
                aspect, "\(prefix).panel_aspect",
                "panel_aspect goes with panel_diagonal_inches in the same section (with panel_width_mm and panel_height_mm the aspect is already known)")
        }
        if let diagonal = positions["panel_diagonal_inches"], positions["panel_width_mm"] != nil || positions["panel_height_mm"] != nil {
            error(
                diagonal, "\(prefix).panel_diagonal_inches",
                "give the panel's size once: panel_diagonal_inches, or panel_width_mm and panel_height_mm, not both")
        }
        var combined = base
        combined.apply(section.recognizerOverrides)
        warnShadowedShorthands(overridePositions, displayPrefix: prefix)
        checkFingers(combined, setKeys: overridePositions, displayPrefix: prefix, base: "[recognizer]")
        return problemCount == errorsBefore ? section : nil
    }

    /// One [[exclusion]] section: `edges` required; `app`, `edge_position` and `device` optional.
    private mutating func decodeExclusion(_ element: TOMLValue, index: Int) -> ExclusionSection? {
        let prefix = "exclusion[\(index + 1)]"
        guard case .table(let members) = element.kind else {
            error(element.position, prefix, "expected an [[exclusion]] table, got \(element.described)")
            return nil
        }
        let errorsBefore = problemCount
        var section = ExclusionSection(location: ConfigLocation(file: file, element.position))
        var edges: [Edge]?
        var part: (from: Double, to: Double)?
        var partPosition: SourcePosition?
        for member in members {
            let path = "\(prefix).\(member.key)"
            switch member.key {
            case "app":
                section.apps = appGlobs(member, keyPath: path, ifEmpty: "must name at least one app (leave app out for every app)")
            case "edges":
                let items: [TOMLValue]
                if case .array(let elements) = member.value.kind { items = elements } else { items = [member.value] }
                var list: [Edge] = []
                let names = Edge.allCases.map(\.rawValue)
                for item in items {
                    guard case .string(let s) = item.kind, let edge = Edge(rawValue: s) else {
                        let hint: String
                        if case .string(let s) = item.kind, let near = closest(to: s, among: names) { hint = " (did you mean \(near)?)" } else { hint = "" }
                        error(member.keyPosition, path, "expected sides and corners (\(names.joined(separator: ", "))), got \(item.described)\(hint)")
                        continue
                    }
                    list.append(edge)
                }
                if items.isEmpty { error(member.keyPosition, path, "must name at least one side or corner") }
                edges = list
            case "edge_position":
                if case .array(let e) = member.value.kind, e.count == 2, let lo = ConfigDecoder.number(e[0]), let hi = ConfigDecoder.number(e[1]),
                    0 <= lo, lo < hi, hi <= 1
                {
                    part = (lo, hi)
                    partPosition = member.keyPosition
                } else {
                    error(
                        member.keyPosition, path,
                        "expected a range [from, to] with 0 <= from < to <= 1 (0 is the top end of left and right, the left end of top and bottom), got \(member.value.described)")
                }
            case "device":
                if let s = nonEmptyGlob(
                    member, keyPath: path, expecting: "a device name glob or \"vvvv:pppp\"",
                    ifEmpty: "must not be empty (leave device out for every device)")
                {
                    section.device = s
                }
            default:
                unknown(member, path: path, allowed: exclusionKeys, here: "exclusion")
            }
        }
        guard let edges else {
            error(element.position, prefix, "an [[exclusion]] section needs edges (such as edges = [\"left\"])")
            return nil
        }
        if let partPosition, edges.contains(where: \.isCorner) {
            error(partPosition, "\(prefix).edge_position", "a corner is excluded whole: edge_position applies to sides; give the corners their own section")
        }
        section.exclusions = edges.map { EdgeExclusion(edge: $0, from: part?.from ?? 0, to: part?.to ?? 1) }
        return problemCount == errorsBefore ? section : nil
    }

    /// An `app` key: a glob on the focused app's app_id, or a list of them.
    private mutating func appGlobs(_ member: TOMLMember, keyPath path: String, ifEmpty: String) -> [String] {
        var globs: [String] = []
        let items: [TOMLValue]
        if case .array(let elements) = member.value.kind { items = elements } else { items = [member.value] }
        for item in items {
            guard case .string(let s) = item.kind, !s.isEmpty else {
                error(member.keyPosition, path, "expected an app_id glob (\"org.gnome.Maps\", \"krita*\") or a list of them, got \(item.described)")
                continue
            }
            if let problem = Glob.problem(in: s) {
                error(member.keyPosition, path, "is not a valid glob: \(problem)")
                continue
            }
            globs.append(s)
        }
        if items.isEmpty { error(member.keyPosition, path, ifEmpty) }
        return globs
    }

    /// A pointer mode: "touch", "long-press" or "mouse".
    private mutating func pointerMode(_ member: TOMLMember, keyPath path: String) -> PointerMode? {
        let names = PointerMode.allCases.map(\.rawValue)
        let expected = names.dropLast().map { "\"\($0)\"" }.joined(separator: ", ") + " or \"\(names.last!)\""
        guard case .string(let text) = member.value.kind else {
            error(member.keyPosition, path, "expected \(expected), got \(member.value.described)")
            return nil
        }
        guard let mode = PointerMode(rawValue: text) else {
            let hint = closest(to: text, among: names).map { " (did you mean \($0)?)" } ?? ""
            error(member.keyPosition, path, "expected \(expected), got \(quoted(text))\(hint)")
            return nil
        }
        return mode
    }

    /// One [[pointer]] section: `app` and `mode` required, `device` optional.
    private mutating func decodePointer(_ element: TOMLValue, index: Int) -> PointerSection? {
        let prefix = "pointer[\(index + 1)]"
        guard case .table(let members) = element.kind else {
            error(element.position, prefix, "expected a [[pointer]] table, got \(element.described)")
            return nil
        }
        let errorsBefore = problemCount
        var apps: [String]?
        var mode: PointerMode?
        var device: String?
        for member in members {
            let path = "\(prefix).\(member.key)"
            switch member.key {
            case "app":
                apps = appGlobs(member, keyPath: path, ifEmpty: "must name at least one app (a panel's mode for every app is pointer = \"...\" in its [[device]] section)")
            case "mode":
                mode = pointerMode(member, keyPath: path)
            case "device":
                device = nonEmptyGlob(
                    member, keyPath: path, expecting: "a device name glob or \"vvvv:pppp\"",
                    ifEmpty: "must not be empty (leave device out for every device)")
            default:
                unknown(member, path: path, allowed: pointerKeys, here: "pointer")
            }
        }
        if apps == nil {
            error(
                element.position, prefix,
                "a [[pointer]] section needs app (such as app = [\"org.remmina.Remmina\"]); a panel's mode for every app is pointer = \"...\" in its [[device]] section")
        }
        if mode == nil && problemCount == errorsBefore {
            error(element.position, prefix, "a [[pointer]] section needs mode: \"touch\", \"long-press\" or \"mouse\"")
        }
        guard problemCount == errorsBefore, let apps, let mode else { return nil }
        return PointerSection(apps: apps, mode: mode, device: device, location: ConfigLocation(file: file, element.position))
    }

    /// A TOML number (integer or float) as a Double.
    static func number(_ v: TOMLValue) -> Double? {
        switch v.kind {
        case .integer(let i): return Double(i)
        case .float(let d): return d.isFinite ? d : nil
        default: return nil
        }
    }

    private mutating func calibration(_ member: TOMLMember, keyPath: String) -> [Double]? {
        guard case .array(let elements) = member.value.kind else {
            error(
                member.keyPosition, keyPath,
                "expected an array of 6 numbers [a, b, c, d, e, f], got \(member.value.described)")
            return nil
        }
        guard elements.count == 6 else {
            error(
                member.keyPosition, keyPath,
                "expected 6 numbers [a, b, c, d, e, f], got \(elements.count)")
            return nil
        }
        var numbers: [Double] = []
        var ok = true
        for (i, element) in elements.enumerated() {
            let d: Double
            switch element.kind {
            case .integer(let n): d = Double(n)
            case .float(let f): d = f
            default:
                error(element.position, "\(keyPath)[\(i + 1)]", "expected a number, got \(element.described)")
                ok = false
                continue
            }
            guard d.isFinite else {
                error(element.position, "\(keyPath)[\(i + 1)]", "must be a finite number, got \(formatNumber(d))")
                ok = false
                continue
            }
            numbers.append(d)
        }
        return ok ? numbers : nil
    }

    /// "04F3:2A1c" -> "04f3:2a1c"; nil unless it is 4 hex digits, a colon and 4 hex digits.
    /// "56a:5248": hex digits on both sides of one colon, too few of them for a "vvvv:pppp" (a name glob
    /// would hardly look so).
    static func looksLikeShortVendorProduct(_ s: String) -> Bool {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { (1...4).contains($0.count) && $0.allSatisfy { $0.isHexDigit && $0.isASCII } }
    }

    static func vendorProduct(_ s: String) -> String? {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ $0.count == 4 && $0.allSatisfy { $0.isHexDigit && $0.isASCII } })
        else { return nil }
        return s.lowercased()
    }
}

extension String {
    /// "device[2].pan" -> "device.pan", the TOML header that opens that table.
    fileprivate func replacingDeviceIndex() -> String {
        guard hasPrefix("device["), let close = firstIndex(of: "]") else { return self }
        return "device" + self[index(after: close)...]
    }
}

/// The closest of `candidates` to `word` when it is close enough to be a likely typo.
package func closest(to word: String, among candidates: [String]) -> String? {
    let normalized = word.lowercased().replacingHyphens()
    var best: (String, Int)?
    for candidate in candidates {
        let d = editDistance(normalized, candidate)
        if d < (best?.1 ?? Int.max) { best = (candidate, d) }
    }
    guard let (candidate, distance) = best else { return nil }
    if distance <= max(2, word.count / 3) { return candidate }
    // "warn" for "warning", "commit_distance" for "commit_distance_mm".
    if normalized.count >= 3, let prefixed = candidates.first(where: { $0.hasPrefix(normalized) }) {
        return prefixed
    }
    return nil
}

extension String {
    fileprivate func replacingHyphens() -> String {
        String(unicodeScalars.map { $0 == "-" ? "_" : Character($0) })
    }
}

/// Levenshtein distance (insertions, deletions, substitutions) between two strings' Unicode scalars.
package func editDistance(_ a: String, _ b: String) -> Int {
    let x = Array(a.unicodeScalars)
    let y = Array(b.unicodeScalars)
    if x.isEmpty { return y.count }
    if y.isEmpty { return x.count }
    var previous = Array(0...y.count)
    var current = [Int](repeating: 0, count: y.count + 1)
    for i in 1...x.count {
        current[0] = i
        for j in 1...y.count {
            let substitution = previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        }
        swap(&previous, &current)
    }
    return previous[y.count]
}
