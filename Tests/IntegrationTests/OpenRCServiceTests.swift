// The OpenRC service (openrc/gestured.initd and .confd) as `make install INIT=openrc` installs it: shell
// that POSIX sh and busybox's ash accept, naming the installed binary, run as the user its conf.d file
// says; its start_pre checks the configuration and makes the socket's directory that user's. OpenRC itself
// is not installed here: the script is sourced as openrc-run sources it (conf.d first), with OpenRC's
// helpers it calls (checkpath) recorded instead of run.
import DaemonUnderTest
import Glibc
import Testing

/// A staging root with subdirectories, removed whole when released (TemporaryDirectory removes files only).
final class StagingRoot {
    let directory = TemporaryDirectory()
    var path: String { directory.path }

    func write(_ name: String, _ text: String) -> String { directory.write(name, text) }

    deinit {
        let scratch = TemporaryDirectory()
        _ = try? run("/bin/rm", ["-rf", path + "/etc", path + "/usr"], in: scratch)
    }
}

@Suite struct OpenRCServiceTests {
    /// `make install-init INIT=openrc` into a staging root, with `variables` on the command line.
    private func stage(_ variables: [String] = []) throws -> StagingRoot {
        let root = StagingRoot()
        let result = try run(
            "/usr/bin/make",
            ["-s", "-C", Paths.packageRoot, "install-init", "INIT=openrc", "DESTDIR=\(root.path)"] + variables,
            in: root.directory)
        guard result.status == 0 else { throw TestFailure("make install-init INIT=openrc failed: \(result.output)") }
        return root
    }

    /// Sources the staged conf.d file then the service script in /bin/sh, as openrc-run does, runs `script`
    /// after them and returns what it printed. `confd` replaces the conf.d file's text when given.
    private func source(_ root: StagingRoot, confd: String? = nil, _ script: String) throws -> (status: Int32, output: String) {
        if let confd { _ = root.write("etc/conf.d/gestured", confd) }
        let shell = """
            RC_SVCNAME=gestured
            checkpath() { echo "checkpath $*"; }
            ebegin() { :; }
            eend() { return "$1"; }
            . '\(root.path)/etc/conf.d/gestured'
            . '\(root.path)/etc/init.d/gestured'
            \(script)
            """
        return try run("/bin/sh", ["-c", shell], in: root.directory)
    }

    @Test func theScriptIsShellAndNamesTheInstalledBinary() throws {
        let root = try stage(["BINDIR=/usr/bin", "SYSCONFDIR=/etc"])
        let script = root.path + "/etc/init.d/gestured"
        var info = stat()
        #expect(stat(script, &info) == 0 && info.st_mode & 0o777 == 0o755)
        #expect(access(root.path + "/etc/conf.d/gestured", R_OK) == 0)
        let text = readWholeFile(script)
        #expect(text.hasPrefix("#!/sbin/openrc-run\n"))
        #expect(!text.contains("@"), "a placeholder was left: \(text)")
        for shell in [["/bin/sh", "-n"], ["/bin/busybox", "sh", "-n"]] {
            for file in [script, root.path + "/etc/conf.d/gestured"] {
                let checked = try run(shell[0], Array(shell.dropFirst()) + [file], in: root.directory)
                #expect(checked.status == 0, "\(shell.joined(separator: " ")) \(file): \(checked.output)")
            }
        }
        let values = try source(root, #"printf '%s|%s|%s|%s\n' "$command" "$command_user" "$supervisor" "$pidfile""#)
        #expect(values.output == "/usr/bin/gestured|gestured|supervise-daemon|/run/gestured.pid\n", "\(values.output)")
    }

    /// The user and group of the conf.d file: the phone's user, with its own group or another.
    @Test func itRunsAsTheUserTheConfdFileNames() throws {
        let root = try stage(["BINDIR=/usr/local/bin"])
        for (confd, user) in [
            ("gestured_user=\"user\"\n", "user"), ("gestured_user=\"user\"\ngestured_group=\"input\"\n", "user:input"),
            ("#gestured_user=\"gestured\"\n", "gestured"),
        ] {
            let values = try source(root, confd: confd, #"printf '%s|%s\n' "$command" "$command_user""#)
            #expect(values.output == "/usr/local/bin/gestured|\(user)\n", "\(confd): \(values.output)")
        }
    }

    /// start_pre: a configuration that does not load stops the start (the daemon's own --check-config, so
    /// the binary is the one built here); a good one, or none, goes on to make /run/gestured the user's.
    @Test func startPreChecksTheConfigurationThenMakesTheSocketDirectoryTheUsers() throws {
        let gestured = try Paths.gestured()
        let bin = String(gestured[..<gestured.lastIndex(of: "/")!])
        let root = try stage(["BINDIR=\(bin)"])
        let etc = root.path + "/etc/gestured"
        mkdir(etc, 0o755)
        let config = etc + "/gestured.toml"
        let script = "start_pre; echo \"status $?\""
        // The script checks the installed path (SYSCONFDIR's); point it at the staged one.
        let staged = try source(root, "config_file() { echo '\(config)'; }; \(script)")
        #expect(staged.output == "checkpath --directory --mode 0755 --owner gestured /run/gestured\nstatus 0\n", "\(staged.output)")
        _ = root.write("etc/gestured/gestured.toml", "[recognizer]\nslop_mm = 0\n")
        let broken = try source(root, "config_file() { echo '\(config)'; }; \(script)")
        #expect(broken.output.contains("slop_mm") && broken.output.hasSuffix("status 1\n"), "\(broken.output)")
        #expect(!broken.output.contains("checkpath"), "\(broken.output)")
        _ = root.write("etc/gestured/gestured.toml", readWholeFile(Paths.packageRoot + "/config/gestured.toml"))
        let good = try source(root, confd: "gestured_user=\"user\"\n", "config_file() { echo '\(config)'; }; \(script)")
        #expect(good.output == "checkpath --directory --mode 0755 --owner user /run/gestured\nstatus 0\n", "\(good.output)")
        // --config in gestured_args is the file checked.
        let other = root.write("other.toml", "[daemon]\nmax_clients = 0\n")
        let named = try source(root, confd: "gestured_args=\"--config \(other)\"\n", script)
        #expect(named.output.contains("max_clients") && named.output.hasSuffix("status 1\n"), "\(named.output)")
    }
}
