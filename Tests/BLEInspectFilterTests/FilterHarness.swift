import BLECapture
import BLEInspectCore
import BLEInspectFilter
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import Foundation

/// Shared helpers: the standard registry, compiling, and running filters over captures.
enum FilterHarness {
    static let registry = Dissect.registry()

    static func compile(_ text: String, registry: DissectorRegistry = FilterHarness.registry) throws(FilterError)
        -> DisplayFilter
    {
        try DisplayFilter.compile(text, registry: registry)
    }

    /// The error `text` gives, or nil when it compiles.
    static func error(_ text: String, registry: DissectorRegistry = FilterHarness.registry) -> FilterError? {
        do {
            _ = try compile(text, registry: registry)
            return nil
        } catch {
            return error
        }
    }

    /// For each filter, the numbers of the frames of `frames` it matches. Each frame is dissected
    /// once (without summaries, as `read -Y … --count` does) and every filter runs on its tree.
    static func matchingFrames(_ frames: [CapturedFrame], _ filters: [DisplayFilter]) -> [[Int]] {
        var engine = DissectionEngine(registry: registry)
        var out = [[Int]](repeating: [], count: filters.count)
        for frame in frames {
            engine.dissect(frame, wantsInfo: false) { tree in
                for (i, f) in filters.enumerated() where f.matches(tree, frameBytes: frame.bytes) {
                    out[i].append(frame.number)
                }
            }
        }
        return out
    }

    /// Whether `filter` matches the single frame `frame` (dissected alone).
    static func matches(_ filter: String, _ frame: CapturedFrame) throws -> Bool {
        let f = try compile(filter)
        return !matchingFrames([frame], [f])[0].isEmpty
    }
}
