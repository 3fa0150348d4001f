import GestureCore
import Testing

@testable import GestureConfig

/// The [[device]] keys of touch arbitration (issue 31): `pen_arbitration` and `pen`.
@Suite("Pen keys")
struct PenConfigTests {
    let surface = touchscreen("ELAN9008:00 04F3:2A1C", vendor: 0x04f3, product: 0x2a1c)

    @Test func arbitrationIsOnUntilASectionTurnsItOff() throws {
        #expect(try load("").resolve(for: surface, path: nil).penArbitration)
        let configuration = try load(
            """
            [[device]]
            match_name = "ELAN*"
            pen_arbitration = false
            pen = "Wacom*Pen"

            [[device]]
            match_id = "04f3:2a1c"
            pen = "056A:5146"
            """)
        let resolved = configuration.resolve(for: surface, path: nil)
        #expect(!resolved.penArbitration)
        // The later section's pen, lower-cased as ids are.
        #expect(resolved.pen == "056a:5146")
        #expect(configuration.devices[0].pen == "Wacom*Pen")
        #expect(configuration.devices[1].penArbitration == nil)
    }

    @Test func badValuesSayWhereAndWhat() {
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\npen_arbitration = \"no\"\n")
                == ["gestured.toml:3:1: device[1].pen_arbitration: expected true or false, got the string \"no\""])
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\npen = \"\"\n")
                == ["gestured.toml:3:1: device[1].pen: must name a pen: its name as `libinput list-devices` shows it (a glob), or its \"vvvv:pppp\""])
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\npen = \"56a:5146\"\n")
                == ["gestured.toml:3:1: device[1].pen: must be \"vvvv:pppp\" with 4 hex digits each (see /proc/bus/input/devices), got \"56a:5146\""])
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\npen = \"[Wacom\"\n").first?.hasPrefix("gestured.toml:3:1: device[1].pen: is not a valid glob: ") == true)
        #expect(
            errors("[[device]]\nmatch_name = \"*\"\npen = 5\n")
                == ["gestured.toml:3:1: device[1].pen: expected the pen's name (a glob) or its \"vvvv:pppp\", got the integer 5"])
    }

    @Test func namePatternsMatchNamesOrIds() {
        #expect(DeviceNamePattern.matches("Wacom*Pen", name: "Wacom HID 5146 Pen", vendorProduct: "056a:5146"))
        #expect(!DeviceNamePattern.matches("Wacom*Pen", name: "Wacom HID 5146 Finger", vendorProduct: "056a:5146"))
        #expect(DeviceNamePattern.matches("056A:5146", name: "anything", vendorProduct: "056a:5146"))
        #expect(!DeviceNamePattern.matches("056a:5146", name: "056a:5146", vendorProduct: nil))
    }
}
