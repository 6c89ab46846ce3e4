import BLEAdvBudget
import BLEInspectCore
import BLEInspectFilter
import BLEInspectPlugins
import BLEInspectSession

/// The targets whose input is text: display filters, plugins and advertising-budget plans.
enum TextTargets {
    /// Compiles a filter and matches it against the built frames.
    static func filter(_ bytes: UnsafeRawBufferPointer) {
        let pipeline = PipelineTarget.shared
        guard let registry = pipeline.registry else { return }
        let text = String(decoding: bytes, as: UTF8.self)
        do throws(FilterError) {
            let filter = try DisplayFilter.compile(text, registry: registry)
            var engine = DissectionEngine(registry: registry)
            var matched = 0
            for frame in builtFrames {
                engine.dissect(frame, wantsInfo: false) { tree in
                    if filter.matches(tree, frameBytes: frame.bytes) { matched &+= 1 }
                }
            }
            blackHole(matched)
        } catch {
            _ = error.description
        }
    }

    /// Compiles a plugin; one that compiles is registered beside the built-in modules and
    /// dissects the built frames, rendered as JSON and as a tree.
    static func plugin(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        switch PluginCompiler.compile(text, file: "fuzz.yaml", reservedNamespaces: reserved) {
        case .failure(let rejection):
            blackHole(rejection.diagnostics.map(\.description))
        case .success(let plugin):
            guard let registry = try? toolkit.registry(plugins: PluginCatalog(plugins: [plugin])) else {
                return
            }
            PipelineTarget(registry: registry).run(builtFrames)
        }
    }

    /// Parses a plan, checks it on every platform and renders the report in every format.
    static func advPlan(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        do throws(PlanError) {
            let plans = try PlanFile.parse(text, file: "fuzz.yaml")
            for format in ReportFormat.allCases {
                blackHole(AdvBudgetRunner.run(plans: plans, platforms: nil, format: format).output.utf8.count)
            }
        } catch {
            _ = error.description
        }
    }

    static let builtFrames = BuiltFrames.frames
    static let toolkit = Toolkit()
    static let reserved = toolkit.reservedNamespaces
}
