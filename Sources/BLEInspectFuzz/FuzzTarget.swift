public import BLEInspectCore

/// The fuzz targets: one for each capture reader, the frame pipeline, the filter compiler, the
/// plugin loader and the advertising-budget plan parser. Each takes any bytes and must neither
/// trap nor hang; the libFuzzer build (`scripts/fuzz`) and the regression tests call the same
/// `run`.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// btsnoop files and streams (`BTSnoopReader`).
    case btsnoop
    /// iOS PacketLogger files (`PacketLoggerReader`).
    case pklg
    /// pcap files, read through libpcap (`PcapReader`).
    case pcap
    /// pcapng files, read through libpcap (`PcapReader`).
    case pcapng
    /// Records from the Linux HCI monitor socket (`MonitorReader`, the live reader).
    case monitor
    /// Frames of every kind through dissection, filters and every renderer (`PipelineInput`).
    case pipeline
    /// Display filter text, compiled and matched against dissected frames.
    case filter
    /// Plugin YAML, compiled, registered and used to dissect frames.
    case plugin
    /// Advertising-budget plan YAML/JSON, parsed, checked and reported in every format.
    case advplan

    /// Runs one input. One at a time: the targets reuse one scratch file and one set of
    /// renderers between inputs, as libFuzzer calls them.
    public func run(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .btsnoop, .pklg, .pcap, .pcapng: ReaderTargets.run(self, bytes)
        case .monitor: MonitorTarget.run(bytes)
        case .pipeline: PipelineTarget.shared.run(PipelineInput.frames(bytes))
        case .filter: TextTargets.filter(bytes)
        case .plugin: TextTargets.plugin(bytes)
        case .advplan: TextTargets.advPlan(bytes)
        }
    }

    /// Runs one input held in an array.
    public func run(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { run($0) }
    }

    /// Inputs longer than this are cut to it (`-max_len` in `scripts/fuzz`): long enough for any
    /// record a reader takes whole, short enough to keep each run fast.
    public static let maximumInput = 1 << 17
}
