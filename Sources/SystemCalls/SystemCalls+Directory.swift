import Glibc

extension SystemCall {
    /// The names in directory `path` (`opendir(3)`, `readdir(3)`, `closedir(3)`), without "." and "..",
    /// in the order readdir gives them, at most `limit` of them (a directory holds what it holds; the
    /// caller says how much it wants to look at).
    public static func directoryEntries(_ path: String, limit: Int) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else { throw SystemError(errno: errno, operation: "opendir", path: path) }
        defer { closedir(directory) }
        var names: [String] = []
        while names.count < limit {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw SystemError(errno: errno, operation: "readdir", path: path) }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
