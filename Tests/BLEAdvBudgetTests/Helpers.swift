import BLEAdvBudget
import BLEInspectCore
import Foundation

/// Bytes from hex text; spaces are ignored. Test input only: a bad digit is a bug in the test.
func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter { !$0.isWhitespace })
    precondition(digits.count % 2 == 0, "odd hex in a test")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16) ?? 0xEE }
}

/// A UUID from test text.
func uuid(_ text: String) -> BluetoothUUID {
    guard let u = BluetoothUUID(text) else { preconditionFailure("bad UUID in a test: \(text)") }
    return u
}

/// An advert with a name and service UUIDs, as `startAdvertising` takes it.
func plan(_ id: String = "advert", name: String? = nil, uuids: [String] = []) -> AdvertPlan {
    AdvertPlan(id: id, data: AdvertFields(localName: name, serviceUUIDs: uuids.map(uuid)))
}

extension AdvertResult {
    var rules: [String] { findings.map(\.rule) }
    func findings(_ rule: String) -> [Finding] { findings.filter { $0.rule == rule } }
    /// Findings at error severity.
    var errors: [Finding] { findings.filter { $0.severity == .error } }
}

/// The repository root, from this file's path (Tests/BLEAdvBudgetTests/Helpers.swift).
let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url
}()

/// A scratch directory removed when released.
final class ScratchDirectory: @unchecked Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("adv-budget-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `text` to `name` and returns the path.
    func write(_ text: String, to name: String) -> String {
        let path = url.appendingPathComponent(name).path
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }
}
