import Glibc
import SystemCalls
import Testing

@testable import GestureDaemon

@Suite struct ListenerTests {
    /// A fresh private directory under /tmp (socket paths must stay short).
    private func temporaryDirectory() -> String {
        var template = Array("/tmp/gestured-listener-XXXXXX".utf8CString)
        let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        return path
    }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        #expect(lstat(path, &info) == 0)
        return info.st_mode & 0o7777
    }

    @Test func createsTheSocketWithItsModeAndRemovesIt() throws {
        let dir = temporaryDirectory()
        defer { rmdir(dir) }
        let path = dir + "/g.sock"
        let listener = try Listener.create(path: path, mode: 0o660, group: "")
        #expect(try SystemCall.isSocket(path) == true)
        #expect(mode(path) == 0o660)
        #expect(listener.ownsPath)
        listener.removeSocketFile()
        #expect(try SystemCall.isSocket(path) == nil)
    }

    @Test func replacesAStaleSocketButNotALiveOne() throws {
        let dir = temporaryDirectory()
        defer { rmdir(dir) }
        let path = dir + "/g.sock"
        do {
            // A socket file nobody listens on any more: a daemon that was killed.
            let fd = socket(AF_UNIX, 1, 0)
            try SystemCall.bind(fd, path: path)
            close(fd)
        }
        let live = try Listener.create(path: path, mode: 0o600, group: "")
        do {
            _ = try Listener.create(path: path, mode: 0o600, group: "")
            Issue.record("a second daemon took over a live socket")
        } catch {
            #expect(error.errno == EADDRINUSE)
            // This process listens but never says hello as a gestured does: it is another program.
            #expect(error.description.contains("another program (uid \(getuid()), pid \(getpid())"))
            #expect(!error.description.contains("another gestured"))
        }
        live.removeSocketFile()
    }

    @Test func refusesAPathThatIsNotASocket() throws {
        let dir = temporaryDirectory()
        defer { rmdir(dir) }
        let path = dir + "/file"
        let fd = open(path, O_CREAT | O_WRONLY, 0o600)
        close(fd)
        defer { unlink(path) }
        do {
            _ = try Listener.create(path: path, mode: 0o600, group: "")
            Issue.record("a regular file was replaced by a socket")
        } catch {
            #expect(error.description.contains("exists and is not a socket"))
        }
    }

    @Test func explainsAMissingDirectoryAndATooLongPath() {
        do {
            _ = try Listener.create(path: "/nonexistent-gestured-dir/g.sock", mode: 0o600, group: "")
            Issue.record("bound in a missing directory")
        } catch {
            #expect(error.errno == ENOENT)
            #expect(error.description.contains("the directory /nonexistent-gestured-dir does not exist"))
        }
        do {
            _ = try Listener.create(path: "/tmp/" + String(repeating: "x", count: 200), mode: 0o600, group: "")
            Issue.record("bound a 205-byte path")
        } catch {
            #expect(error.errno == ENAMETOOLONG)
        }
    }

    @Test func aMissingGroupIsAWarningNotAFailure() throws {
        let dir = temporaryDirectory()
        defer { rmdir(dir) }
        let listener = try Listener.create(path: dir + "/g.sock", mode: 0o660, group: "no-such-group-gestured-test")
        listener.removeSocketFile()
        #expect(try SystemCall.groupID(named: "no-such-group-gestured-test") == nil)
        #expect(try SystemCall.groupID(named: "root") == 0)
    }
}
