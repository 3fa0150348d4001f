// Issue 28, item 6: the group people are told to join for the socket grants no device. The udev rule gives
// /dev/uinput to a group of its own, gestured-input, whose only member is the service's user; the
// sysusers.d file, the units, the OpenRC files, the Makefile's advice, the package and the docs agree on it;
// and no group any of them tells a person to join grants uinput or input devices. (The QEMU guest checks the
// installed result: tests/vm/guest/lib.sh, socket_group_grants_no_devices.)
import DaemonUnderTest
import Testing

private let root = Paths.packageRoot + "/"

/// The device group the udev rule gives /dev/uinput.
private let uinputGroup = "gestured-input"
/// The socket's group, which people join.
private let socketGroup = "gestured"

/// The groups the text tells someone to join: `usermod -aG GROUP`, `addgroup "$USER" GROUP` and
/// `addgroup alice GROUP` (a person; the service's user `gestured` joining is the service's own).
private func groupsToJoin(in text: String) -> [(group: String, line: String)] {
    var found: [(String, String)] = []
    for line in text.split(separator: "\n") {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "`" || $0 == "(" || $0 == ")" }).map(String.init)
        for (i, word) in words.enumerated() {
            if word == "usermod", i + 2 < words.count, words[i + 1] == "-aG" {
                found.append((words[i + 2], String(line)))
            }
            if word == "addgroup", i + 2 < words.count, !words[i + 1].hasPrefix("-"), words[i + 1] != "gestured" {
                found.append((words[i + 2], String(line)))
            }
        }
    }
    return found
}

@Suite("The socket's group grants no device") struct DeviceGroupTests {
    @Test func uinputGoesToTheServicesGroupWhoseOnlyMemberIsTheServicesUser() {
        let rule = readWholeFile(root + "systemd/95-gestured-passthrough.rules")
        let uinputLines = rule.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("KERNEL==\"uinput\"") }
        #expect(uinputLines.count == 1 && uinputLines[0].contains("GROUP=\"\(uinputGroup)\""), "\(uinputLines)")
        #expect(uinputLines.allSatisfy { !$0.contains("GROUP=\"\(socketGroup)\"") })

        let sysusers = readWholeFile(root + "systemd/gestured.sysusers").split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(sysusers.contains("g \(uinputGroup) - - -"), "\(sysusers)")
        let members = sysusers.filter { $0.hasPrefix("m ") }.map { $0.split(separator: " ").map(String.init) }
        #expect(members.filter { $0.count >= 3 && $0[2] == uinputGroup }.map { $0[1] } == ["gestured"], "\(members)")
        // The socket's group is the user's primary group, which nobody else is made a member of here.
        #expect(members.allSatisfy { $0.count >= 3 && $0[2] != socketGroup }, "\(members)")

        // The socket unit's group is the socket's, not the device group.
        #expect(readWholeFile(root + "systemd/gestured.socket").contains("\nSocketGroup=\(socketGroup)\n"))
        let service = readWholeFile(root + "systemd/gestured.service")
        #expect(service.contains("95-gestured-passthrough.rules gives the node to group \(uinputGroup)"))
    }

    @Test(arguments: [
        "README.md", "docs/installation.md", "docs/configuration.md", "docs/bindings.md", "docs/lisgd.md", "docs/protocol.md",
        "man/gestured.8.scd", "man/gesturectl.1.scd", "man/gestured.toml.5.scd", "openrc/gestured.confd", "openrc/gestured.initd",
        "Makefile", "systemd/gestured.sysusers", "systemd/gestured.socket", "systemd/gestured.service",
        "Sources/GestureClient/ClientSocket.swift", "Sources/GestureDaemon/EvdevDevice.swift", "clients/python/src/gestured.py",
    ])
    func noGroupAPersonIsToldToJoinGrantsDevices(file: String) {
        for (group, line) in groupsToJoin(in: readWholeFile(root + file)) {
            #expect(group != uinputGroup && group != "input", "\(file) tells a person to join \(group): \(line)")
        }
    }

    @Test func everyInstallPathShipsAndAppliesTheRule() {
        let makefile = readWholeFile(root + "Makefile")
        #expect(makefile.contains("systemd/95-gestured-passthrough.rules"))
        // OpenRC has no sysusers.d: the Makefile says how to make the group, and that no person joins it.
        #expect(makefile.contains("addgroup -S \(uinputGroup) && addgroup gestured \(uinputGroup)"))
        #expect(readWholeFile(root + "openrc/gestured.initd").contains(uinputGroup))
        // The package installs the rule (debian/rules calls install-files with UDEVRULESDIR: /lib/udev/rules.d
        // or /usr/lib/udev/rules.d, as the debhelper building it expects) and applies it to the /dev/uinput
        // there is, after debhelper's sysusers step made the group.
        #expect(readWholeFile(root + "debian/rules").contains("UDEVRULESDIR=$(LIB_PREFIX)/udev/rules.d"))
        let postinst = readWholeFile(root + "debian/gestured.postinst")
        let debhelper = postinst.range(of: "#DEBHELPER#")
        let trigger = postinst.range(of: "udevadm trigger --action=change --sysname-match=uinput")
        #expect(debhelper != nil && trigger != nil && debhelper!.lowerBound < trigger!.lowerBound, "\(postinst)")
    }

    @Test func theInstallationGuideSaysWhatIsShipped() {
        let guide = readWholeFile(root + "docs/installation.md")
        #expect(!guide.contains("No udev rule is shipped"))
        for heading in ["## The Debian package", "## Build and install"] {
            let start = guide.range(of: heading)!.upperBound
            let table = guide[start...].prefix(6000)
            #expect(table.contains("95-gestured-passthrough.rules"), "\(heading): the rule is not in its file table")
            #expect(table.contains("gestured-passthrough-properties"), "\(heading): the helper is not in its file table")
            #expect(table.contains(uinputGroup), "\(heading)")
        }
    }
}
