import BLECaptureIO
import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import BLEInspectViews
import Foundation
import Testing

/// Untrusted text with everything that could take over a terminal: ANSI sequences, C1 controls
/// (as UTF-8 and as raw bytes), bidi overrides and isolates, NUL and invalid UTF-8 — in device
/// names, GATT values, HCI names and file names — through every output. Text output must show
/// them escaped; JSON must be valid UTF-8 with controls as \u escapes.
@Suite("terminal safety of untrusted text")
struct TerminalSafetyTests {
    /// ANSI colour and window-title sequences, C1 controls U+0085 and U+009B, and a raw 0x9B.
    static let ansi: [UInt8] =
        Array("A".utf8) + [0x1B, 0x5B, 0x33, 0x31, 0x6D] + [0x1B, 0x5D, 0x30, 0x3B, 0x74, 0x07]
        + [0xC2, 0x85, 0xC2, 0x9B, 0x9B]
    /// Bidi controls U+202E, U+2066, U+2069, U+200F; NUL; invalid UTF-8: 0xFF, overlong C0 80,
    /// a truncated sequence, a surrogate.
    static let bidi: [UInt8] =
        Array("B".utf8) + [0xE2, 0x80, 0xAE, 0xE2, 0x81, 0xA6, 0xE2, 0x81, 0xA9, 0xE2, 0x80, 0x8F]
        + [0x00, 0xFF, 0xC0, 0x80, 0xE2, 0x82] + Array("z".utf8) + [0xED, 0xA0, 0x80]
    static let all = ansi + bidi

    /// Advertising reports whose Complete Local Names are `ansi` and `bidi`; a connection; a
    /// Read By Type of the Device Name answered with `all`; a Remote Name Request Complete with
    /// `all`.
    static func capture() -> [UInt8] {
        var out = CaptureBytes.btsnoopHeader(datalink: 1002)
        var t: Int64 = 1_700_000_000_000_000
        func add(_ packet: [UInt8], received: Bool, command: Bool) {
            t += 1000
            out += CaptureBytes.btsnoopRecord(
                packet,
                flags: (received ? 1 : 0) | (command ? 2 : 0),
                unixMicros: t
            )
        }
        for (i, name) in [ansi, bidi].enumerated() {
            let ad: [UInt8] = [UInt8(name.count + 1), 0x09] + name
            let report: [UInt8] =
                [0x01, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, UInt8(0x60 + i), UInt8(ad.count)]
                + ad + [0xC4]
            add([0x04, 0x3E, UInt8(report.count + 1), 0x02] + report, received: true, command: true)
        }
        // LE Connection Complete, handle 0x0040, peer 60:55:44:33:22:11.
        add(
            [0x04, 0x3E, 19, 0x01, 0x00, 0x40, 0x00, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x60]
                + [0x18, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00],
            received: true,
            command: true
        )
        func acl(_ att: [UInt8], received: Bool) {
            let l2cap = [UInt8(att.count), 0x00, 0x04, 0x00] + att
            add([0x02, 0x40, 0x20, UInt8(l2cap.count), 0x00] + l2cap, received: received, command: false)
        }
        // Read By Type Request 0x0001-0xFFFF, Device Name; the response: handle 0x0003 = all.
        acl([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x2A], received: false)
        acl([0x09, UInt8(2 + all.count), 0x03, 0x00] + all, received: true)
        // Read Request of handle 0x0003 and its response.
        acl([0x0A, 0x03, 0x00], received: false)
        acl([0x0B] + all, received: true)
        // Remote Name Request Complete: status 0, the peer's address, a 248-byte name field.
        let name = all + [UInt8](repeating: 0, count: 248 - all.count)
        add(
            [0x04, 0x07, 255, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x60] + name,
            received: true,
            command: true
        )
        return out
    }

    /// The characters that must never reach a terminal as they are.
    static func forbidden(_ scalar: Unicode.Scalar, allowTab: Bool) -> Bool {
        switch scalar.value {
        case 0x0A: false
        case 0x09: !allowTab
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: true
        default: false
        }
    }

    /// Checks `output` is valid UTF-8 with nothing a terminal would act on; returns it as text.
    @discardableResult
    static func checkSafe(_ output: Data, _ label: String, allowTab: Bool = false) -> String {
        guard let text = String(data: output, encoding: .utf8), text.utf8.elementsEqual(output) else {
            Issue.record("\(label): not valid UTF-8")
            return ""
        }
        #expect(!output.contains(0x1B), "\(label): raw ESC")
        #expect(!output.contains(0x00), "\(label): raw NUL")
        let bad = text.unicodeScalars.filter { forbidden($0, allowTab: allowTab) }
        #expect(
            bad.isEmpty,
            "\(label): raw \(bad.prefix(5).map { "U+" + String($0.value, radix: 16, uppercase: true) })"
        )
        return text
    }

    private func run(_ arguments: [String], _ label: String) throws -> ProcessResult {
        let result = try Run.bleinspect(arguments)
        #expect(result.status == 0, "\(label): exit \(result.status) \(result.stderr.prefix(300))")
        Self.checkSafe(Data(result.stderr.utf8), "\(label) stderr")
        return result
    }

    /// The escaped forms text output shows.
    static let escapedANSI = "\\x1B[31m"
    static let escapedTitle = "\\x1B]0;t\\x07"
    static let escapedC1 = ["\\u{85}", "\\u{9B}"]
    static let escapedBidi = ["\\u{202E}", "\\u{2066}", "\\u{2069}", "\\u{200F}"]

    @Test("one-line, tree, fields: escaped visibly; nothing raw")
    func textOutputs() throws {
        let dir = TemporaryDirectory()
        let path = dir.write(Self.capture(), to: "names.btsnoop")
        let line = Self.checkSafe(try run(["read", path], "one-line").stdout, "one-line")
        #expect(line.contains(Self.escapedANSI), "\(line)")
        let tree = Self.checkSafe(try run(["read", "-V", "-x", path], "tree").stdout, "tree")
        for escaped in [Self.escapedANSI, Self.escapedTitle] + Self.escapedC1 + Self.escapedBidi {
            #expect(tree.contains(escaped), "tree lacks \(escaped)")
        }
        // Byte values (the ATT value) show the raw 0x9B, NUL and the invalid sequences as bytes.
        #expect(tree.contains("\\u{9B}\\x9BB\\u{202E}"), "raw 0x9B as \\x9B")
        #expect(tree.contains("\\u{200F}\\0\\xFF\\xC0\\x80\\xE2\\x82z\\xED\\xA0\\x80"), "invalid UTF-8 as \\xNN")
        // String fields (names) are decoded: each invalid sequence is one U+FFFD.
        #expect(tree.contains("\\u{200F}\\0\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}z\u{FFFD}\u{FFFD}\u{FFFD}"))
        let fields = try run(
            [
                "read", "-T", "fields", "-e", "btcommon.eir_ad.entry.device_name", "-e", "btatt.device_name",
                "-e", "bthci_evt.remote_name", "-e", "btatt.value", path,
            ],
            "fields"
        )
        let fieldText = Self.checkSafe(fields.stdout, "fields", allowTab: true)
        #expect(fieldText.contains(Self.escapedANSI), "\(fieldText)")
        #expect(fieldText.contains("\\u{202E}"), "\(fieldText)")
    }

    @Test("JSON: valid UTF-8, controls as \\u escapes; the decoded strings are the text itself")
    func jsonOutput() throws {
        let dir = TemporaryDirectory()
        let path = dir.write(Self.capture(), to: "names.btsnoop")
        let result = try run(["read", "-T", "json", path], "json")
        let text = Self.checkSafe(result.stdout, "json")
        // What a terminal would act on is written as a \u escape.
        for escape in [
            "\\u001b[31m", "\\u0007", "\\u0085", "\\u009b", "\\u202e", "\\u2066", "\\u2069", "\\u200f", "\\u0000",
        ] {
            #expect(text.contains(escape), "JSON lacks \(escape)")
        }
        var names: [String] = []
        for line in text.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            collectStrings(object, into: &names)
        }
        // A JSON string holds the text as decoded: the characters themselves, each invalid UTF-8
        // sequence one U+FFFD. The \u escapes are JSON's, undone by any JSON reader.
        #expect(names.contains(String(decoding: Self.ansi, as: UTF8.self)))
        #expect(names.contains(String(decoding: Self.bidi, as: UTF8.self)))
        #expect(names.contains(String(decoding: Self.all, as: UTF8.self)))
    }

    @Test("gatt and conns views, text and JSON")
    func views() throws {
        let dir = TemporaryDirectory()
        let path = dir.write(Self.capture(), to: "names.btsnoop")
        for view in ["gatt", "conns"] {
            let text = Self.checkSafe(try run([view, path], view).stdout, view)
            #expect(text.contains(Self.escapedANSI + Self.escapedTitle), "\(view): \(text)")
            for escaped in Self.escapedC1 + Self.escapedBidi {
                #expect(text.contains(escaped), "\(view) lacks \(escaped)")
            }
            let json = try run([view, "--json", path], "\(view) --json")
            let raw = Self.checkSafe(json.stdout, "\(view) --json")
            #expect(raw.contains("\\u001b[31m") && raw.contains("\\u202e"), "\(view): \(raw.prefix(300))")
            let object = try JSONSerialization.jsonObject(with: json.stdout)
            var strings: [String] = []
            collectStrings(object, into: &strings)
            // The peer's name (and, in gatt, the Device Name value): the GATT Device Name read.
            let name = String(decoding: Self.all, as: UTF8.self)
            #expect(strings.contains { $0.contains(name) }, "\(view): \(strings)")
        }
    }

    @Test("a plugin's UTF-8 field")
    func pluginString() throws {
        let dir = TemporaryDirectory()
        let plugin = dir.write(
            Array(
                """
                plugin: evil
                advertising:
                  - manufacturer: 0xFFFF
                    name: Evil Tag
                    fields: [{name: label, type: utf8}]

                """.utf8
            ),
            to: "evil.yaml"
        )
        var out = CaptureBytes.btsnoopHeader(datalink: 1002)
        for (i, text) in [Self.ansi, Self.bidi].enumerated() {
            let ad: [UInt8] = [UInt8(text.count + 3), 0xFF, 0xFF, 0xFF] + text
            let report: [UInt8] =
                [0x01, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, UInt8(0x70 + i), UInt8(ad.count)]
                + ad + [0xC4]
            out += CaptureBytes.btsnoopRecord(
                [0x04, 0x3E, UInt8(report.count + 1), 0x02] + report,
                flags: 3,
                unixMicros: 1_700_000_000_000_000 + Int64(i) * 1000
            )
        }
        let path = dir.write(out, to: "plugin.btsnoop")
        let tree = Self.checkSafe(
            try run(["read", "--plugin", plugin, "-V", path], "plugin tree").stdout,
            "plugin tree"
        )
        #expect(tree.contains("Label: \"A" + Self.escapedANSI + Self.escapedTitle), "\(tree)")
        #expect(tree.contains("\\u{202E}\\u{2066}\\u{2069}\\u{200F}\\0"), "\(tree)")
        let fields = try run(["read", "--plugin", plugin, "-T", "fields", "-e", "evil.label", path], "plugin fields")
        let fieldText = Self.checkSafe(fields.stdout, "plugin fields", allowTab: true)
        #expect(fieldText.contains(Self.escapedANSI))
        let json = try run(["read", "--plugin", plugin, "-T", "json", path], "plugin json")
        let text = Self.checkSafe(json.stdout, "plugin json")
        var strings: [String] = []
        for line in text.split(separator: "\n") {
            collectStrings(try JSONSerialization.jsonObject(with: Data(line.utf8)), into: &strings)
        }
        #expect(strings.contains(String(decoding: Self.ansi, as: UTF8.self)), "\(strings)")
    }

    @Test("capture file names given on the command line")
    func fileNames() throws {
        let dir = TemporaryDirectory()
        let evil = "x\u{1B}[31m\u{1B}]0;t\u{07}\u{9B}\u{202E}gpj.btsnoop"
        let a = dir.write(Self.capture(), to: evil)
        let b = dir.write(Self.capture(), to: "plain.btsnoop")
        // Two inputs: each gets a header line naming it.
        let two = try run(["read", a, b], "two files")
        let text = Self.checkSafe(two.stdout, "two files")
        #expect(text.contains("x\\x1B[31m\\x1B]0;t\\x07\\u{9B}\\u{202E}gpj.btsnoop"), "\(text.prefix(500))")
        // A missing file: the error names it, escaped.
        let missing = try Run.bleinspect(["read", dir.path("nope" + evil)])
        #expect(missing.status != 0)
        Self.checkSafe(Data(missing.stderr.utf8), "missing file")
        #expect(missing.stderr.contains("\\x1B[31m"), "\(missing.stderr)")
        for view in ["gatt", "conns"] {
            let r = try Run.bleinspect([view, dir.path("nope" + evil)])
            #expect(r.status != 0)
            Self.checkSafe(Data(r.stderr.utf8), "\(view) missing file")
        }
    }
}

private func collectStrings(_ value: Any, into out: inout [String]) {
    switch value {
    case let s as String: out.append(s)
    case let a as [Any]: for v in a { collectStrings(v, into: &out) }
    case let d as [String: Any]:
        for (k, v) in d {
            out.append(k)
            collectStrings(v, into: &out)
        }
    default: break
    }
}
