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

    // MARK: Nothing by path that a swapped-in link could redirect (issue 28, item 5)

    /// A root-only file of the daemon's user, what an attacker points a link at.
    private func victim(in dir: String) -> String {
        let path = dir + "/secret"
        close(open(path, O_CREAT | O_WRONLY, 0o600))
        chmod(path, 0o600)
        return path
    }

    @Test func theSocketHasItsModeFromItsCreation() throws {
        let dir = temporaryDirectory()
        defer { rmdir(dir) }
        let path = dir + "/g.sock"
        var modeJustAfterBind: mode_t?
        let listener = try Listener.create(path: path, mode: 0o640, group: "", afterBind: { modeJustAfterBind = mode(path) })
        defer { listener.removeSocketFile() }
        // Already 0640 when bind(2) returned, so nothing needs changing by path afterwards.
        #expect(modeJustAfterBind == 0o640)
        #expect(mode(path) == 0o640)
    }

    @Test(arguments: ["", "users"]) func aLinkSwappedInAfterBindIsNotFollowed(group: String) throws {
        let dir = temporaryDirectory()
        let secret = victim(in: dir)
        let path = dir + "/g.sock"
        defer {
            for name in ["g.sock", "g.sock.moved", "secret"] { unlink(dir + "/" + name) }
            rmdir(dir)
        }
        var before = stat()
        #expect(stat(secret, &before) == 0)
        do {
            _ = try Listener.create(path: path, mode: 0o660, group: group, afterBind: {
                // What another user who may write to the directory does in the window after bind(2).
                #expect(rename(path, path + ".moved") == 0)
                #expect(symlink(secret, path) == 0)
            })
            Issue.record("the daemon listened on a path that had become a link")
        } catch {
            #expect(error.errno == EEXIST)
            #expect(error.description.contains("the socket was replaced by a symbolic link while the daemon set it up"))
            #expect(error.description.contains(dir))
        }
        var after = stat()
        #expect(stat(secret, &after) == 0)
        #expect(after.st_mode & 0o7777 == 0o600, "the link's target got the socket's mode")
        #expect(after.st_gid == before.st_gid, "the link's target got the socket's group")
        // The link is not the daemon's to remove.
        var target = [CChar](repeating: 0, count: 256)
        let n = readlink(path, &target, target.count)
        #expect(n > 0 && String(decoding: target[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) == secret)
    }

    @Test func theSocketGetsItsGroupAndReportsTheFilesOwn() throws {
        let dir = temporaryDirectory()
        defer { rmdir(dir) }
        let users = try #require(try SystemCall.groupID(named: "users"))
        let path = dir + "/g.sock"
        let listener = try Listener.create(path: path, mode: 0o660, group: "users")
        defer { listener.removeSocketFile() }
        var info = stat()
        #expect(lstat(path, &info) == 0)
        if getuid() == 0 { #expect(info.st_gid == users) }  // root may give any group
        #expect(listener.groupID == info.st_gid)
    }

    @Test func refusesADirectoryOtherUsersCanWriteToUnlessItIsSticky() throws {
        let dir = temporaryDirectory()
        defer { rmdir(dir) }
        for unsafe: mode_t in [0o777, 0o770, 0o730, 0o703] {
            chmod(dir, unsafe)
            do {
                let listener = try Listener.create(path: dir + "/g.sock", mode: 0o600, group: "")
                listener.removeSocketFile()
                Issue.record("listened in a directory of mode 0\(String(unsafe, radix: 8))")
            } catch {
                #expect(error.errno == EPERM)
                #expect(error.description.contains("the socket's directory \(dir) (mode 0\(String(unsafe, radix: 8))) may be written by other users"))
                #expect(error.description.contains("chmod go-w \(dir)") && error.description.contains("chmod +t \(dir)"))
            }
            #expect(try SystemCall.isSocket(dir + "/g.sock") == nil)
        }
        // Sticky, as /tmp is: only a file's owner may rename or remove it there.
        for safe: mode_t in [0o1777, 0o1770, 0o755, 0o700] {
            chmod(dir, safe)
            let listener = try Listener.create(path: dir + "/g.sock", mode: 0o600, group: "")
            listener.removeSocketFile()
        }
    }

    @Test func refusesADirectoryOfAnotherUser() throws {
        guard getuid() == 0 else { return }  // only root can give a directory away
        let dir = temporaryDirectory()
        defer { rmdir(dir) }
        #expect(chown(dir, 65534, 65534) == 0)
        for mode: mode_t in [0o700, 0o1777] {
            chmod(dir, mode)
            do {
                let listener = try Listener.create(path: dir + "/g.sock", mode: 0o600, group: "")
                listener.removeSocketFile()
                Issue.record("root listened in a directory nobody owns (mode 0\(String(mode, radix: 8)))")
            } catch {
                #expect(error.errno == EPERM)
                #expect(error.description.contains("the socket's directory \(dir) belongs to user nobody (uid 65534)"))
            }
        }
    }

    @Test func unsafeDirectoriesAreTold() {
        var info = stat()
        info.st_uid = 1000
        info.st_mode = S_IFDIR | 0o755
        #expect(Listener.unsafeSocketDirectory(info, daemonUser: 1000) == nil)
        #expect(Listener.unsafeSocketDirectory(info, daemonUser: 0) == .ownedByAnotherUser(1000))
        info.st_uid = 0
        #expect(Listener.unsafeSocketDirectory(info, daemonUser: 1000) == nil)
        info.st_mode = S_IFDIR | 0o775
        #expect(Listener.unsafeSocketDirectory(info, daemonUser: 1000) == .writableByOthers(mode: 0o775))
        info.st_mode = S_IFDIR | 0o1777
        #expect(Listener.unsafeSocketDirectory(info, daemonUser: 1000) == nil)
    }
}
