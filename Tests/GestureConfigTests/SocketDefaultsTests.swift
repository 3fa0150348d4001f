import Testing

@testable import GestureConfig

/// Where the daemon listens and which group its socket gets, when the configuration does not say: by who
/// runs it (docs/installation.md, "Where the socket is").
@Suite("The socket's defaults by who runs the daemon")
struct SocketDefaultsTests {
    let runtime = ["XDG_RUNTIME_DIR": "/run/user/10000"]

    @Test func aSystemDaemonListensOnTheSystemPathWithGroupGestured() {
        for environment in [[:], runtime] {
            let socket = DaemonSettings().socket(for: DaemonRunner(isSystem: true, environment: environment))
            #expect(socket == SocketSettings(path: "/run/gestured/gestured.sock", group: "gestured", groupIsConfigured: false))
        }
    }

    @Test func aUsersOwnDaemonListensInTheRuntimeDirectoryWithTheUsersGroup() {
        let socket = DaemonSettings().socket(for: DaemonRunner(isSystem: false, environment: runtime))
        #expect(socket == SocketSettings(path: "/run/user/10000/gestured.sock", group: "", groupIsConfigured: false))
    }

    /// Under an init system's service (OpenRC's command_user) there is no XDG_RUNTIME_DIR: the system path,
    /// in the directory the service makes for that user.
    @Test func aUsersDaemonWithoutARuntimeDirectoryListensOnTheSystemPath() {
        for environment in [[:], ["XDG_RUNTIME_DIR": "relative"], ["XDG_RUNTIME_DIR": ""]] {
            let socket = DaemonSettings().socket(for: DaemonRunner(isSystem: false, environment: environment))
            #expect(socket == SocketSettings(path: "/run/gestured/gestured.sock", group: "", groupIsConfigured: false))
        }
    }

    @Test func theConfigurationWins() throws {
        let settings = try load("[daemon]\nsocket_path = \"/srv/g.sock\"\nsocket_group = \"video\"\n").daemon
        for runner in [DaemonRunner(isSystem: true), DaemonRunner(isSystem: false, environment: runtime)] {
            #expect(settings.socket(for: runner) == SocketSettings(path: "/srv/g.sock", group: "video", groupIsConfigured: true))
        }
        let ownGroup = try load("[daemon]\nsocket_group = \"\"\n").daemon
        #expect(ownGroup.socket(for: DaemonRunner(isSystem: true)) == SocketSettings(path: "/run/gestured/gestured.sock", group: "", groupIsConfigured: true))
    }

    /// The default file leaves both to who runs the daemon, so an installed /etc/gestured/gestured.toml
    /// does not pin a user's daemon to the system path.
    @Test func theDefaultFileLeavesThemToWhoRunsTheDaemon() throws {
        let settings = try Configuration.load(path: repositoryRoot + "/config/gestured.toml").daemon
        #expect(settings.socket(for: DaemonRunner(isSystem: false, environment: runtime)).path == "/run/user/10000/gestured.sock")
    }
}
