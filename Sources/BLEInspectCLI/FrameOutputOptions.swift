import ArgumentParser
import BLECaptureIO
import BLEDissectorAdvertising
import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession

/// The options `read` and `live` share: what to show for each frame, which frames, and where to
/// save them.
struct FrameOutputOptions: ParsableArguments {
    @OptionGroup var plugins: PluginOptions

    @OptionGroup var decryption: DecryptionOptions

    @Option(name: .customShort("c"), help: "Stop after this many frames.")
    var count: Int?

    @Flag(name: .customLong("count"), help: "Print only the number of frames.")
    var countOnly = false

    // `.unconditional`: a filter may start with `-` (`-Y '-nordic_ble.rssi < 40'`).
    @Option(
        name: .customShort("Y"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "A display filter, in Wireshark's syntax: only matching frames are shown, written and counted.",
            valueName: "filter"
        )
    )
    var displayFilter: String?

    @Option(name: .short, help: "Write the frames to this capture file (- for standard output).")
    var w: String?

    @Option(name: .customShort("F"), help: "Format for -w when the extension does not say: pcap, pcapng or btsnoop.")
    var writeFormat: OutputFormat?

    @Option(name: .short, help: "Time format: r relative to the first frame, d delta, a absolute (UTC), e epoch.")
    var t: TimeFormat = .relative

    @Flag(name: .customShort("V"), help: "Show the full tree of every frame: names, values and value names.")
    var verbose = false

    @Flag(name: .customShort("x"), help: "Add a hex dump of each frame (and of reassembled PDUs).")
    var hexDump = false

    @Option(name: .customShort("T"), help: "Output format: text (default), json (NDJSON), or fields (with -e).")
    var format: TextFormat = .text

    @Option(name: .customShort("e"), help: "A field to print with -T fields; repeat for more columns.")
    var fields: [String] = []

    @Option(
        name: .customLong("overflow-uuid"),
        help: ArgumentHelp(
            "A 128-bit service UUID (optionally UUID=NAME) to look for in Apple's overflow-area bitmaps; repeatable.",
            valueName: "uuid[=name]"
        )
    )
    var overflowUUIDs: [String] = []

    @Option(help: "Colour: auto (on a terminal, unless NO_COLOR is set), always or never.")
    var color: ColorMode = .auto

    func validate() throws {
        if let count, count < 0 { throw ValidationError("-c takes a count of 0 or more.") }
        var options = ReadOptions(paths: [])
        options.outputPath = w
        options.outputFormat = writeFormat
        if case .failure(let usage) = ReadRunner.resolveOutputFormat(options) {
            throw ValidationError(usage.message)
        }
        for text in overflowUUIDs where Self.parseOverflowUUID(text) == nil {
            throw ValidationError(
                "--overflow-uuid '\(text)' is not a UUID (for example 6E400001-B5A3-F393-E0A9-E50E24DCCA9E=UART)."
            )
        }
        if format == .fields && fields.isEmpty { throw ValidationError("-T fields needs at least one -e FIELD.") }
        if format != .fields && !fields.isEmpty { throw ValidationError("-e goes with -T fields.") }
    }

    /// `UUID` or `UUID=NAME`.
    static func parseOverflowUUID(_ text: String) -> (BluetoothUUID, String)? {
        let parts = text.split(separator: "=", maxSplits: 1)
        guard let first = parts.first, let uuid = BluetoothUUID(String(first)) else { return nil }
        return (uuid, parts.count > 1 ? String(parts[1]) : "")
    }

    /// The session these options ask for: `toolkit`'s modules with the plugins, and the
    /// `--overflow-uuid` list and the keys as the registry's configuration.
    func session(_ toolkit: Toolkit) throws -> Session {
        var configuration = RegistryConfiguration()
        configuration[AdvertisingModule.overflowUUIDs] = overflowUUIDs.compactMap(Self.parseOverflowUUID).map {
            AppleOverflowUUIDList.Entry(uuid: $0.0, name: $0.1)
        }
        try decryption.apply(to: &configuration, writes: w != nil)
        return try SessionSetup.session(toolkit, plugins: plugins.load(toolkit), configuration: configuration)
    }

    /// Sets these options in `options`.
    func apply(to options: inout ReadOptions) {
        options.frameLimit = count
        options.countOnly = countOnly
        options.outputPath = w
        options.outputFormat = writeFormat
        options.writeAsDecoded = w != nil && decryption.mayDecrypt
        options.timeFormat = t
        options.color = color
        options.filter = displayFilter
        switch format {
        case .text: options.output = .text(verbose: verbose, hexDump: hexDump)
        case .json: options.output = .json
        case .fields: options.output = .fields(fields)
        }
    }
}
