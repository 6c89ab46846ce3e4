import ArgumentParser
import BLECapture
import BLECaptureLive
import BLEInspectSession

#if canImport(Glibc)
    import Glibc
#endif

/// Writes diagnostic lines to standard error, unbuffered.
enum StandardError {
    static func print(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { p in _ = write(2, p.baseAddress, p.count) }
    }
}

extension LiveStop {
    /// The stop of a live command: Ctrl-C, SIGTERM and SIGHUP end it cleanly.
    static func catchingSignals() throws -> LiveStop {
        do throws(CaptureError) {
            let stop = try LiveStop()
            stop.catchSignals()
            return stop
        } catch {
            StandardError.print("bleinspect: \(error)")
            throw ExitCode(ExitStatus.software.rawValue)
        }
    }
}
