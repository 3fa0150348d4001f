/// A TOML file or text read into the reader's tree, with every failure as a ConfigError at
/// file:line:column: the one way the daemon's configuration and `gesturectl bind`'s bindings are read.
package enum TOMLDocument {
    /// Reads the regular file at `path` (ConfigFile's checks and limit) and parses it. A file that cannot
    /// be read is reported with `describingFileError` applied to the reason.
    package static func read(
        path: String, describingFileError describe: (String) -> String = { $0 }
    ) throws(ConfigError) -> TOMLValue {
        let bytes: [UInt8]
        do {
            bytes = try ConfigFile.contents(path: path)
        } catch {
            throw ConfigError(diagnostics: [
                ConfigDiagnostic(location: ConfigLocation(file: path), keyPath: nil, message: describe(error.message))
            ])
        }
        do {
            return try bytes.withUnsafeBufferPointer { buffer throws(TOMLSyntaxError) in
                try TOMLReader.parse(bytes: buffer, sourceName: path)
            }
        } catch {
            throw ConfigError(diagnostics: [syntaxDiagnostic(error, fileName: path)])
        }
    }

    /// Parses TOML text; `fileName` is what messages call it.
    package static func parse(text: String, fileName: String) throws(ConfigError) -> TOMLValue {
        do {
            return try TOMLReader.parse(text: text, sourceName: fileName)
        } catch {
            throw ConfigError(diagnostics: [syntaxDiagnostic(error, fileName: fileName)])
        }
    }

    private static func syntaxDiagnostic(_ error: TOMLSyntaxError, fileName: String) -> ConfigDiagnostic {
        ConfigDiagnostic(
            location: ConfigLocation(file: fileName, error.position), keyPath: nil,
            message: error.tooDeep ? "the file is refused: \(error.message)" : "TOML syntax error: \(error.message)")
    }
}
