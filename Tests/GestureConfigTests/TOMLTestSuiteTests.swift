#if canImport(Glibc)
import Glibc
#endif
import GestureProtocol
import Testing

@testable import GestureConfig
@testable import conformance_dump

/// The official TOML test suite (toml-test, Tests/Fixtures/toml-test, copied whole with its licence; its
/// SOURCE names the commit): every case its list `tests/files-toml-1.0.0` names for TOML 1.0, through our
/// parser. A valid document must give the tree its .json gives (tables and arrays exactly, scalars by type
/// and value: integers and floats as numbers, datetimes as dates, times and offsets); an invalid one must be
/// refused. There is no skip list: every case is judged, and one that fails fails the suite.
@Suite("toml-test 1.0.0")
struct TOMLTestSuiteTests {
    static let root = repositoryRoot + "/Tests/Fixtures/toml-test/tests"

    /// The cases the list names, by their path without ".toml" ("valid/array/array"); the .json files in
    /// the list are each valid case's expected tree, read beside its .toml.
    static let cases: [String] = {
        let list = String(decoding: TOMLCorpusTests.bytes(root + "/files-toml-1.0.0"), as: UTF8.self)
        return list.split(separator: "\n").filter { $0.hasSuffix(".toml") }.map { String($0.dropLast(5)) }
    }()

    static let valid = cases.filter { $0.hasPrefix("valid/") }
    static let invalid = cases.filter { $0.hasPrefix("invalid/") }

    /// The suite at the pinned commit lists 210 valid and 499 invalid cases for TOML 1.0; a list that reads
    /// as fewer (a missing or truncated copy) must not pass as a smaller suite.
    @Test func everyListedCaseIsThere() {
        #expect(Self.valid.count == 210)
        #expect(Self.invalid.count == 499)
        #expect(Self.valid.count + Self.invalid.count == Self.cases.count)
        for name in Self.cases {
            #expect(access(Self.root + "/" + name + ".toml", R_OK) == 0, "\(name).toml is missing")
        }
        for name in Self.valid {
            #expect(access(Self.root + "/" + name + ".json", R_OK) == 0, "\(name).json is missing")
        }
    }

    @Test(arguments: valid)
    func validCaseGivesTheExpectedTree(name: String) throws {
        let path = Self.root + "/" + name
        let expected = try JSONParser.parse(TOMLCorpusTests.bytes(path + ".json"))
        switch TOMLTaggedJSON.render(bytes: TOMLCorpusTests.bytes(path + ".toml")) {
        case .success(let tree):
            if let difference = TOMLTestTree.difference(tree, expected, at: "") {
                Issue.record("\(name): \(difference); got \(tree.serialized)")
            }
        case .failure(let error):
            Issue.record("\(name).toml refused at \(error.line):\(error.column): \(error.message)")
        }
    }

    @Test(arguments: invalid)
    func invalidCaseIsRefused(name: String) {
        let text = TOMLCorpusTests.bytes(Self.root + "/" + name + ".toml")
        let lines = text.split(separator: 0x0A, omittingEmptySubsequences: false).count
        switch TOMLTaggedJSON.render(bytes: text) {
        case .success(let tree):
            Issue.record("\(name).toml parsed: \(tree.serialized)")
        case .failure(let error):
            // Refused with a position inside the document and a reason.
            #expect(error.line >= 1 && error.line <= lines, "\(name): \(error.line):\(error.column) \(error.message)")
            #expect(error.column >= 1)
            #expect(!error.message.isEmpty)
        }
    }

    /// The comparison itself must see the differences it exists to find.
    @Test func theComparisonSeesDifferences() throws {
        func tagged(_ type: String, _ value: String) -> JSONValue { .object([("type", .string(type)), ("value", .string(value))]) }
        let same: [(JSONValue, JSONValue)] = [
            (tagged("integer", "255"), tagged("integer", "255")),
            (tagged("float", "1e+06"), tagged("float", "1000000.0")),
            (tagged("float", "nan"), tagged("float", "nan")),
            (tagged("datetime", "1987-07-05T17:45:56.6Z"), tagged("datetime", "1987-07-05T17:45:56.600+00:00")),
            (tagged("datetime-local", "1979-05-27T07:32:00"), tagged("datetime-local", "1979-05-27 07:32:00.000")),
            (.object([("a", tagged("bool", "true")), ("b", .array([]))]), .object([("b", .array([])), ("a", tagged("bool", "true"))])),
        ]
        for (a, b) in same { #expect(TOMLTestTree.difference(a, b, at: "") == nil, "\(a.serialized) vs \(b.serialized)") }
        let different: [(JSONValue, JSONValue)] = [
            (tagged("integer", "255"), tagged("integer", "256")),
            (tagged("integer", "1"), tagged("float", "1")),
            (tagged("float", "0"), tagged("float", "-0")),
            (tagged("float", "0.1"), tagged("float", "0.10000000000000002")),
            (tagged("string", "a"), tagged("string", "a ")),
            (tagged("datetime", "1987-07-05T17:45:56Z"), tagged("datetime", "1987-07-05T17:45:56+01:00")),
            (tagged("datetime", "1987-07-05T17:45:56Z"), tagged("datetime-local", "1987-07-05T17:45:56")),
            (tagged("time-local", "07:32:00.5"), tagged("time-local", "07:32:00.51")),
            (tagged("date-local", "1979-05-27"), tagged("date-local", "1979-05-28")),
            (.object([("a", tagged("bool", "true"))]), .object([("a", tagged("bool", "true")), ("b", .object([]))])),
            (.array([tagged("bool", "true")]), .array([])),
            (.object([]), .array([])),
        ]
        for (a, b) in different { #expect(TOMLTestTree.difference(a, b, at: "") != nil, "\(a.serialized) vs \(b.serialized)") }
    }
}

/// toml-test's tagged trees compared as TOML values: tables as sets of keys (JSON objects are unordered),
/// arrays in order, integers by value ("0xff" written as "255"), floats by value and sign (nan equals nan,
/// 0 does not equal -0), datetimes by date, time, fraction of a second and offset (Z is +00:00; "T", "t"
/// or a space between date and time; trailing zeros of the fraction do not count), strings and booleans
/// exactly.
enum TOMLTestTree {
    /// Where and how `got` differs from `expected`, or nil when they are the same TOML value.
    static func difference(_ got: JSONValue, _ expected: JSONValue, at path: String) -> String? {
        if let (type, text) = scalar(expected) {
            guard let (gotType, gotText) = scalar(got) else { return "\(path): expected a \(type), got \(got.serialized)" }
            guard type == gotType else { return "\(path): expected a \(type), got a \(gotType)" }
            return sameScalar(type, gotText, text) ? nil : "\(path): expected \(type) \(text), got \(gotText)"
        }
        switch (got, expected) {
        case (.object(let a), .object(let b)):
            guard a.count == b.count, Set(a.map { Array($0.key.utf8) }) == Set(b.map { Array($0.key.utf8) }) else {
                return "\(path): expected the keys \(b.map(\.key).sorted()), got \(a.map(\.key).sorted())"
            }
            for member in b {
                let key = Array(member.key.utf8)
                let mine = a.first { Array($0.key.utf8) == key }!.value
                if let d = difference(mine, member.value, at: path + "." + member.key) { return d }
            }
            return nil
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return "\(path): expected \(b.count) elements, got \(a.count)" }
            for (i, (x, y)) in zip(a, b).enumerated() {
                if let d = difference(x, y, at: path + "[\(i)]") { return d }
            }
            return nil
        default:
            return "\(path): expected \(expected.serialized), got \(got.serialized)"
        }
    }

    /// A tagged scalar's type and text: an object of exactly "type" and "value", both strings.
    static func scalar(_ value: JSONValue) -> (String, String)? {
        guard case .object(let members) = value, members.count == 2,
            case .string(let type)? = value["type"], case .string(let text)? = value["value"]
        else { return nil }
        return (type, text)
    }

    static func sameScalar(_ type: String, _ a: String, _ b: String) -> Bool {
        switch type {
        case "integer":
            guard let x = Int64(a), let y = Int64(b) else { return false }
            return x == y
        case "float":
            guard let x = float(a), let y = float(b) else { return false }
            return x.isNaN ? y.isNaN : x.bitPattern == y.bitPattern
        case "datetime", "datetime-local", "date-local", "time-local":
            guard let x = DateTimeValue(a), let y = DateTimeValue(b) else { return false }
            return x == y
        default:
            return Array(a.utf8) == Array(b.utf8)
        }
    }

    static func float(_ text: String) -> Double? {
        switch text {
        case "nan", "+nan", "-nan": return .nan
        case "inf", "+inf": return .infinity
        case "-inf": return -.infinity
        default: return Double(text)
        }
    }

    /// A date, a time, or both, with an offset in minutes or none, read from RFC 3339 text.
    struct DateTimeValue: Equatable {
        var date: [Int]?
        var time: [Int]?
        /// The fraction of a second's digits without trailing zeros.
        var fraction = ""
        var offsetMinutes: Int?

        init?(_ text: String) {
            var rest = Substring(text)
            func number(_ digits: Int) -> Int? {
                guard rest.utf8.count >= digits, rest.prefix(digits).allSatisfy(\.isASCII), let n = Int(rest.prefix(digits)) else { return nil }
                rest = rest.dropFirst(digits)
                return n
            }
            func take(_ c: Character) -> Bool {
                guard rest.first == c else { return false }
                rest = rest.dropFirst()
                return true
            }
            if rest.count >= 10, rest.dropFirst(4).first == "-" {
                guard let y = number(4), take("-"), let m = number(2), take("-"), let d = number(2) else { return nil }
                date = [y, m, d]
                if rest.isEmpty { return }
                guard take("T") || take("t") || take(" ") else { return nil }
            }
            guard let h = number(2), take(":"), let min = number(2), take(":"), let s = number(2) else { return nil }
            time = [h, min, s]
            if take(".") {
                let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
                guard !digits.isEmpty else { return nil }
                rest = rest.dropFirst(digits.count)
                fraction = String(digits.reversed().drop(while: { $0 == "0" }).reversed())
            }
            if take("Z") || take("z") {
                offsetMinutes = 0
            } else if let sign = rest.first, sign == "+" || sign == "-" {
                rest = rest.dropFirst()
                guard date != nil, let oh = number(2), take(":"), let om = number(2) else { return nil }
                offsetMinutes = (sign == "-" ? -1 : 1) * (oh * 60 + om)
            }
            if !rest.isEmpty { return nil }
        }
    }
}
