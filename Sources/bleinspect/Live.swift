import ArgumentParser

/// `bleinspect live SOURCE`: decodes a controller's HCI traffic, or a live stream, as it happens.
struct Live: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show live HCI traffic as it happens: hciN, any, -, a FIFO, tcp://HOST:PORT, or --follow FILE."
    )

    @Argument(help: "The source.")
    var source: String

    func run() throws {
        throw ValidationError("live is not built yet")
    }
}
