/// Where a configuration value was written: file, line and column (1-based; nil when the problem is
/// with the file as a whole, e.g. it cannot be read).
public struct ConfigLocation: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var column: Int?

    public init(file: String, line: Int? = nil, column: Int? = nil) {
        self.file = file
        self.line = line
        self.column = column
    }

    package init(file: String, _ position: SourcePosition) {
        self.init(
            file: file, line: position.line > 0 ? position.line : nil,
            column: position.line > 0 && position.column > 0 ? position.column : nil)
    }

    /// "file:line:column", "file:line" or "file", as compilers print it.
    public var description: String {
        guard let line else { return file }
        guard let column else { return "\(file):\(line)" }
        return "\(file):\(line):\(column)"
    }
}

/// One problem found in a configuration file.
public struct ConfigDiagnostic: Equatable, Sendable, CustomStringConvertible {
    public var location: ConfigLocation
    /// The dotted key the problem is about ("recognizer.pan.commit_distance_mm", "device[2].rotation"),
    /// nil for syntax errors and problems with the whole file.
    public var keyPath: String?
    public var message: String

    public init(location: ConfigLocation, keyPath: String?, message: String) {
        self.location = location
        self.keyPath = keyPath
        self.message = message
    }

    /// "gestured.toml:12:3: recognizer.pan.commit_distance_mm: must be between 1 and 500 (mm), got 0"
    public var description: String {
        if let keyPath { return "\(location): \(keyPath): \(message)" }
        return "\(location): \(message)"
    }
}

/// Why a configuration could not be loaded: the problems found, in file order, at most the first 100 of
/// them listed (`unlistedCount` more were found).
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var diagnostics: [ConfigDiagnostic]
    /// Problems found beyond those listed.
    public var unlistedCount: Int

    public init(diagnostics: [ConfigDiagnostic], unlistedCount: Int = 0) {
        self.diagnostics = diagnostics
        self.unlistedCount = unlistedCount
    }

    /// The error a decoder throws for the `diagnostics` it found, listed in the file's order: by line, then
    /// column (one without a position before those with one); those at one place in the order found.
    package static func inSourceOrder(_ diagnostics: [ConfigDiagnostic], unlistedCount: Int = 0) -> ConfigError {
        let sorted = diagnostics.enumerated().sorted { a, b in
            let pa = (a.element.location.line ?? 0, a.element.location.column ?? 0)
            let pb = (b.element.location.line ?? 0, b.element.location.column ?? 0)
            return pa != pb ? pa < pb : a.offset < b.offset
        }
        return ConfigError(diagnostics: sorted.map(\.element), unlistedCount: unlistedCount)
    }

    /// Every problem found, listed or not.
    public var problemCount: Int { diagnostics.count + unlistedCount }

    /// One line per problem, each starting with file:line:column; then how many more there are.
    public var description: String {
        var lines = diagnostics.map(\.description)
        if unlistedCount > 0 {
            lines.append("... and \(unlistedCount) more problem\(unlistedCount == 1 ? "" : "s") (only the first \(diagnostics.count) are listed)")
        }
        return lines.joined(separator: "\n")
    }
}
