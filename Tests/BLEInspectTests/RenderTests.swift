import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import BLEInspectViews
import Foundation
import Testing

@Suite("renderers")
struct RenderTests {
    let gatt = TestPaths.projectCaptures.appendingPathComponent("gatt-discovery.btsnoop").path

    @Test("-T json gives one valid JSON object per frame, with the schema, frame and layers")
    func jsonLines() throws {
        let result = try Run.bleinspect(["read", "-T", "json", gatt])
        #expect(result.status == 0)
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.count == CaptureFiles.readAll(gatt).frames.count)
        for (i, line) in lines.enumerated() {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["_schema"] as? String == JSONFrame.schema)
            let frame = object?["frame"] as? [String: Any]
            #expect(frame?["frame.number"] as? Int == i + 1)
            #expect(object?["layers"] is [String: Any])
        }
    }

    @Test("JSON strings escape control characters and bidi overrides")
    func jsonEscaping() {
        #expect(JSONFrame.quote("a\u{1B}[31m\u{202E}\"\\\n") == "\"a\\u001b[31m\\u202e\\\"\\\\\\n\"")
    }

    @Test("-T fields joins repeated values with commas and tabs between fields")
    func fields() throws {
        let result = try Run.bleinspect(["read", "-T", "fields", "-e", "frame.number", "-e", "frame.kind", gatt])
        let first = result.stdoutText.split(separator: "\n").first.map(String.init)
        #expect(first == "1\tHCI Command")
        let unknown = try Run.bleinspect(["read", "-T", "fields", "-e", "no.such.field", gatt])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no.such.field"))
    }

    @Test("-V prints the tree; -x adds a hex dump; colour only when asked")
    func verboseAndHex() throws {
        let verbose = try Run.bleinspect(["read", "-V", "-c", "1", gatt])
        #expect(verbose.stdoutText.contains("Frame"))
        #expect(verbose.stdoutText.contains("Frame Number: 1"))
        #expect(!verbose.stdoutText.contains("\u{1B}["))
        let hex = try Run.bleinspect(["read", "-x", "-c", "1", gatt])
        #expect(hex.stdoutText.contains("0000  03 0c 00"))
        let colour = try Run.bleinspect(["read", "-V", "-c", "1", "--color", "always", gatt])
        #expect(colour.stdoutText.contains("\u{1B}["))
    }

    @Test("bleinspect fields lists every field once, with Wireshark's names")
    func fieldList() throws {
        let result = try Run.bleinspect(["fields"])
        #expect(result.status == 0)
        let names = result.stdoutText.split(separator: "\n").map {
            $0.split(separator: "\t").first.map(String.init) ?? ""
        }
        #expect(Set(names).count == names.count)
        for expected in ["frame.number", "frame.time_epoch", "frame.len", "_ws.malformed"] {
            #expect(names.contains(expected), "\(expected)")
        }
    }
}
