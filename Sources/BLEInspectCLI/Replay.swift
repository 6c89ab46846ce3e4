import ArgumentParser
import BLECapture
import BLECaptureIO
import BLECaptureLive
import BLEInspectCore
import BLEInspectSession

#if canImport(Glibc)
    import Glibc
#endif

/// `bleinspect replay FILE --serve tcp://HOST:PORT`: serves a capture as a live btsnoop stream.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Serve a capture as a live btsnoop stream over TCP, for demos and for testing live pipelines.",
        discussion: """
            Listens on tcp://HOST:PORT and sends each client a btsnoop stream, as the \
            Android emulator's and a rooted phone's btsnoop servers do: the header, \
            then every frame of FILE, paced by the frames' own timestamps. --speed \
            divides the gaps; max sends as fast as the client reads.

            FILE is any capture bleinspect reads. HCI frames go out as btsnoop \
            datalink 1002 (H4). A Linux monitor capture (btsnoop 2001, pcap or pcapng \
            link type 254) goes out as datalink 2001, so controller indexes and index \
            records stay. Records a 1002 stream has no place for (PacketLogger notes, \
            sniffer frames) are counted in a note.

            The address is printed on standard error before any client connects \
            (PORT 0 picks a free port), and a summary line when a client is done:
              bleinspect: serving cap.btsnoop on tcp://127.0.0.1:40917 (...)
              bleinspect: served 100 frames to 127.0.0.1:52814 in 3.66 s

            Without --loop, replay exits once its first client is served or \
            disconnects; with --loop it waits for the next one. Ctrl-C stops it.

            Examples:
              bleinspect replay gatt.btsnoop --serve tcp://127.0.0.1:8872
              bleinspect live tcp://127.0.0.1:8872     # in another terminal
              bleinspect replay capture.pcapng --serve tcp://[::1]:0 --speed 10
              bleinspect replay btmon.log --serve tcp://0.0.0.0:8872 --speed max --loop

            Exit status: 0 served or stopped (a client that disconnects is not an \
            error), 64 usage error, 65 damaged input (after sending every frame \
            before the damage), 66 unreadable input, 73 the address cannot be \
            served (in use, not resolvable).
            """
    )

    @Argument(help: "The capture to serve: btsnoop, pcap, pcapng or PacketLogger (- for standard input).")
    var file: String

    @Option(
        help: ArgumentHelp(
            "Where to listen: tcp://HOST:PORT (an IPv6 address in brackets; port 0 picks a free port).",
            valueName: "url"
        )
    )
    var serve: String

    @Option(
        help: ArgumentHelp(
            "Playback speed: N times as fast as recorded (1, the default, is real time; 0.5 half speed), or max for no pacing.",
            valueName: "N|max"
        )
    )
    var speed: String = "1"

    @Flag(help: "After a client is served or disconnects, wait for the next one instead of exiting.")
    var loop = false

    func validate() throws {
        do throws(SourceError) {
            _ = try TCPAddress(url: serve)
            _ = try ReplaySpeed(speed)
        } catch {
            throw ValidationError(error.message)
        }
        if loop && file == "-" {
            throw ValidationError(
                "--loop reads the capture again for each client: give a file, not - (standard input)."
            )
        }
    }

    func run() throws {
        let endpoint: TCPAddress
        let pace: ReplaySpeed
        do throws(SourceError) {
            endpoint = try TCPAddress(url: serve)
            pace = try ReplaySpeed(speed)
        } catch {
            throw ValidationError(error.message)
        }
        let shownName = TerminalSafeText.escape(file == "-" ? "<stdin>" : file)
        let stop = try LiveStop.catchingSignals()
        let path = file
        let server = ReplayServer(endpoint: endpoint, speed: pace, loop: loop, stop: stop) {
            () throws(CaptureError) -> any FrameReader in
            try CaptureOpener.open(path: path)
        }
        do throws(CaptureError) {
            try server.prepare()
        } catch {
            StandardError.print("bleinspect: \(shownName): \(error)")
            throw ExitCode(ExitStatus(error).rawValue)
        }
        let bound: TCPAddress
        do throws(CaptureError) {
            bound = try server.listen()
        } catch {
            StandardError.print("bleinspect: \(error)")
            throw ExitCode(ExitStatus(error).rawValue)
        }
        StandardError.print("bleinspect: serving \(shownName) on \(bound) (\(server.datalink.name), speed \(pace))")

        var noted = false
        let outcome = server.run { event in
            switch event {
            case .connected(let peer):
                StandardError.print("bleinspect: \(peer) connected")
            case .finished(let session):
                StandardError.print("bleinspect: \(Self.summary(session, stopped: stop.reason))")
                if !noted, let note = ReplayServer.skippedNote(session.skipped, datalink: server.datalink) {
                    StandardError.print("bleinspect: note: \(note)")
                    noted = true
                }
            }
        }
        if let error = outcome.inputError {
            StandardError.print("bleinspect: \(shownName): \(error)")
            throw ExitCode(ExitStatus(error).rawValue)
        }
        if let error = outcome.serveError {
            StandardError.print("bleinspect: \(error)")
            throw ExitCode(ExitStatus(error).rawValue)
        }
        if let reason = outcome.stopReason, outcome.sessions.isEmpty {
            StandardError.print("bleinspect: \(reason) before any client connected")
        }
    }

    /// "served 100 frames to 127.0.0.1:40917 in 12.34 s", and how the session ended when it ended early.
    static func summary(_ session: ReplaySession, stopped: LiveStop.Reason?) -> String {
        let line =
            "served \(session.frames) frame\(session.frames == 1 ? "" : "s") to \(session.peer) in \(seconds(session.nanoseconds)) s"
        switch session.end {
        case .complete: return line
        case .disconnected(let reason): return line + "; the client disconnected (\(reason))"
        case .stopped: return line + "; \(stopped ?? .requested)"
        case .inputError: return line + "; the input ends in damage"
        }
    }

    /// Nanoseconds as seconds with two decimals.
    static func seconds(_ nanoseconds: UInt64) -> String {
        let hundredths = nanoseconds / 10_000_000 + (nanoseconds % 10_000_000 >= 5_000_000 ? 1 : 0)
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
