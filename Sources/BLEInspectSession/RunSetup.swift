public import BLECapture
public import BLEInspectCore
public import BLEInspectFilter

/// What `read` and the views do alike before and after the frames.
public enum RunSetup {
    /// `text` compiled, or `.failure` after reporting the mistake.
    public static func filter(
        _ text: String?,
        registry: DissectorRegistry,
        _ errorOutput: (String) -> Void
    ) -> Result<DisplayFilter?, FilterError> {
        guard let text else { return .success(nil) }
        do throws(FilterError) {
            let filter = try DisplayFilter.compile(text, registry: registry)
            // Named, not silent: the frame's length and bytes differ from tshark's (docs/FILTERS.md).
            let framing = ["frame", "frame.len", "frame.cap_len"].compactMap { registry.index[$0] }
            if !filter.fieldsUsed.isDisjoint(with: framing) {
                errorOutput(
                    "bleinspect: note: frame.len, frame.cap_len and the frame's bytes leave out the H4 packet-type byte and pseudo-headers that tshark counts, so they can differ from tshark's (docs/FILTERS.md)"
                )
            }
            return .success(filter)
        } catch {
            errorOutput("bleinspect: invalid display filter:\n" + error.rendered(filter: text))
            return .failure(error)
        }
    }

    /// False, after reporting the internal error, when a view reads fields the registry lacks.
    public static func fieldsPresent(_ missing: [String], view: String, _ errorOutput: (String) -> Void) -> Bool {
        guard !missing.isEmpty else { return true }
        errorOutput("bleinspect: internal error: \(view) reads fields the registry lacks: \(missing)")
        return false
    }

    /// Reports an input's error and folds it into `status`. True when nothing more can be done
    /// (the output failed).
    public static func report(
        _ error: CaptureError,
        name: String,
        status: inout ExitStatus,
        _ errorOutput: (String) -> Void
    ) -> Bool {
        errorOutput("bleinspect: \(TerminalSafeText.escape(name)): \(error)")
        if status == .success { status = ExitStatus(error) }
        if error.code == .writeFailed {
            status = .cannotCreateOutput
            return true
        }
        return false
    }
}
