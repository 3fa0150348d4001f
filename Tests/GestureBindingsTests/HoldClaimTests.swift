import GestureBindings
import GestureProtocol
import GestureVocabulary
import Testing

/// The holds `gesturectl bind` claims for its bindings (touch that points): every binding that can match a
/// one-finger hold claims its region, device and apps, so the pointer's long press is not also a click
/// there; the others claim nothing.
@Suite struct HoldClaimTests {
    static func claims(_ text: String) throws -> [HoldClaim] { try BindingsFile.parse(text: text, fileName: "b.toml").holdClaims }

    @Test func holdBindingsClaimTheirRegionDeviceAndApps() throws {
        let claims = try Self.claims(
            """
            [[binding]]
            region = [0.9, 0, 1, 0.1]
            held_seconds = 5
            shell = "admin"

            [[binding]]
            gesture = "hold"
            fingers = [1, 2]
            app = ["org.sketch.*", "krita"]
            device = "Wacom*"
            region_mm = [0, 0, 20, 20]
            shell = "menu"

            [[binding]]
            gesture = "tap"
            shell = "tap"

            [[binding]]
            gesture = "hold"
            fingers = 2
            shell = "two"

            [[binding]]
            edge = "left"
            shell = "back"
            """)
        #expect(
            claims == [
                HoldClaim(region: .normalized(x: 0.9...1, y: 0...0.1)),
                HoldClaim(region: .millimetres(x: 0...20, y: 0...20), device: "Wacom*", app: "org.sketch.*"),
                HoldClaim(region: .millimetres(x: 0...20, y: 0...20), device: "Wacom*", app: "krita"),
            ])
    }

    @Test func aBindingForAnyGestureOfOneFingerClaimsTheWholeScreen() throws {
        #expect(try Self.claims("[[binding]]\nfingers = 1\nshell = \"x\"\n") == [HoldClaim()])
        #expect(try Self.claims("[[binding]]\nfingers = 3\nshell = \"x\"\n").isEmpty)
    }

    @Test func atMostWhatOneRequestTakes() throws {
        let many = (0..<20).map { "[[binding]]\ngesture = \"hold\"\napp = \"app\($0)\"\nshell = \"x\"\n" }.joined(separator: "\n")
        let claims = try Self.claims(many)
        #expect(claims.count == HoldClaim.maximumPerRequest && claims.first?.app == "app0")
    }
}
