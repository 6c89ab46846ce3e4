import ArgumentParser

/// `bleinspect replay FILE --serve tcp://HOST:PORT`: serves a capture as a live btsnoop stream.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve a capture as a live btsnoop stream over TCP, for demos and for testing live pipelines."
    )

    @Argument(help: "The capture to serve.")
    var file: String

    func run() throws {
        throw ValidationError("replay is not built yet")
    }
}
