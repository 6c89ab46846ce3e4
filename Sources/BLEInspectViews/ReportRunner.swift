public import BLECapture
import BLEInspectCore
public import BLEInspectSession

/// `bleinspect report`: reads the captures once through `conns`' builder (keeping the series it
/// draws) and writes one self-contained HTML file.
public enum ReportCommandRunner {
    public static func run(
        scan: CaptureScan,
        outputPath: String,
        errorOutput: (String) -> Void
    ) -> ExitStatus {
        var sink: OutputSink? = nil
        var built: (ReportCapture, ConnsBuilder, ConnsNames, GATTBuilder, GATTReport)? = nil
        // What the scan reports (a damaged or unreadable input) goes on the page too, so that a
        // report of the frames before the damage never reads as the whole capture.
        var problems: [String] = []
        let reporting: (String) -> Void = { message in
            if problems.count < ReportPage.maximumProblems { problems.append(message) }
            errorOutput(message)
        }
        let status = scan.runView("report", errorOutput: reporting) { registry in
            do throws(CaptureError) {
                sink = try OutputSink.create(path: outputPath)
            } catch {
                errorOutput("bleinspect: \(error)")
                return .failure(.cannotCreateOutput)
            }
            let capture = ReportCapture(registry: registry)
            let builder = ConnsBuilder(registry: registry) { capture.take($0) }
            builder.keepsSeries = true
            // The GATT databases as `gatt` rebuilds them.
            let gatt = GATTBuilder(registry: registry)
            built = (
                capture, builder, ConnsNames(registry), gatt, GATTReport(uuids: UUIDText(names: registry.uuidNames))
            )
            return .success(
                .init(missing: builder.missingFields + gatt.missingFields) { frame, tree in
                    builder.add(frame, tree)
                    capture.add(frame, tree, connection: builder.touched)
                    gatt.add(frame, tree)
                }
            )
        }
        guard let sink, let (capture, builder, names, gatt, gattWords) = built, status != .software else {
            return status
        }
        builder.finish()
        let files = scan.paths.map { $0 == "-" ? "standard input" : $0 }.joined(separator: ", ")
        let page = ReportPage(
            title: "bleinspect report: " + files,
            capture: capture,
            findings: ReportFinding.all(capture, builder, names),
            names: names,
            links: builder.links,
            problems: problems,
            gatt: gatt.model,
            gattWords: gattWords
        )
        // The decodes come from a second reading, once the page knows which frames it shows.
        sink.append(
            page.html { frames in
                ReportDecodes.read(
                    frames,
                    paths: scan.paths,
                    frameLimit: scan.frameLimit,
                    registry: scan.session.registry
                )
            }
        )
        do throws(CaptureError) {
            try sink.flush(name: outputPath)
        } catch {
            errorOutput("bleinspect: \(error)")
            return .cannotCreateOutput
        }
        return status
    }
}
