/// A TOML file or text read into the reader's tree, with every failure as a ConfigError at
/// file:line:column: the one way the daemon's configuration and `gesturectl bind`'s bindings are read.
package enum TOMLDocument {
    /// Reads the regular file at `path` (ConfigFile's checks and limit) and parses it. A file that cannot
    /// be read is reported with `describingFileError` applied to the reason. `modeKeys` are the dotted
    /// keys whose value is a mode string ("daemon.socket_mode"): a number TOML refuses there for its
    /// leading zero (`0660`) is answered with the line to write.
    package static func read(
        path: String, describingFileError describe: (String) -> String = { $0 }, modeKeys: Set<String> = []
    ) throws(ConfigError) -> TOMLValue {
        let bytes: [UInt8]
        do {
            bytes = try ConfigFile.contents(path: path)
        } catch {
            throw ConfigError(diagnostics: [
                ConfigDiagnostic(location: ConfigLocation(file: path), keyPath: nil, message: describe(error.message))
            ])
        }
        // The closure returns a Result: Swift 6.0's withUnsafeBufferPointer rethrows any Error, not the
        // closure's typed error.
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(TOMLSyntaxError) in try TOMLReader.parse(bytes: buffer, sourceName: path) }
        }
        switch parsed {
        case .success(let value): return value
        case .failure(let error): throw ConfigError(diagnostics: [syntaxDiagnostic(error, fileName: path, modeKeys: modeKeys)])
        }
    }

    /// Parses TOML text; `fileName` is what messages call it; `modeKeys` as for `read`.
    package static func parse(text: String, fileName: String, modeKeys: Set<String> = []) throws(ConfigError) -> TOMLValue {
        do {
            return try TOMLReader.parse(text: text, sourceName: fileName)
        } catch {
            throw ConfigError(diagnostics: [syntaxDiagnostic(error, fileName: fileName, modeKeys: modeKeys)])
        }
    }

    private static func syntaxDiagnostic(_ error: TOMLSyntaxError, fileName: String, modeKeys: Set<String>) -> ConfigDiagnostic {
        if let number = error.leadingZero, let keys = number.keyPath, modeKeys.contains(keys.joined(separator: ".")),
            let quoting = ConfigDecoder.quotingAdvice(key: keys[keys.count - 1], written: number.text)
        {
            // TOML reads no number with a leading zero, and a mode is a string anyway: one message, the
            // line to write, not TOML's own advice (0o17), which the key would refuse next.
            return ConfigDiagnostic(
                location: ConfigLocation(file: fileName, error.position), keyPath: keys.joined(separator: "."),
                message: "\(number.text) is not a number TOML reads (no leading zeros), and the key takes a mode string; \(quoting)")
        }
        return ConfigDiagnostic(
            location: ConfigLocation(file: fileName, error.position), keyPath: nil,
            message: error.tooDeep ? "the file is refused: \(error.message)" : "TOML syntax error: \(error.message)")
    }
}
