public import BLEInspectCore
import BLEInspectFilter
import BLEInspectRender
import BLEInspectSession

/// The pipeline target's input: a run of frames, each a 4-byte header and its bytes.
///
/// The header is: the frame kind (low 5 bits, an index into `kinds`) with the direction (bits 5
/// and 6) and the controller (bit 7); the time since the previous frame in units of 100 µs; and
/// the length, 16-bit little-endian. A length past the input's end takes what is left. Frames
/// of one input share one capture's state, so reassembly, connections and requests are followed
/// from frame to frame.
public enum PipelineInput {
    /// The kinds a header can name.
    public static let kinds: [FrameKind] = [
        .hciCommand, .aclData, .scoData, .hciEvent, .isoData, .vendorDiagnostic,
        .newIndex, .deleteIndex, .openIndex, .closeIndex, .indexInfo, .note, .log,
        .controlOpen, .controlClose, .controlCommand, .controlEvent, .newController, .lmp,
        .linkLayer(linkType: 251), .linkLayer(linkType: 256), .linkLayer(linkType: 272),
        .linkLayer(linkType: 192), .linkLayer(linkType: 147), .unknown(0x7FFF),
    ]

    /// Decodes an input into frames.
    public static func frames(_ bytes: UnsafeRawBufferPointer) -> [CapturedFrame] {
        var frames: [CapturedFrame] = []
        var i = 0
        var micros: Int64 = 1_700_000_000_000_000
        while i + 4 <= bytes.count && frames.count < maximumFrames {
            let head = bytes[i]
            let kind = kinds[Int(head & 0x1F) % kinds.count]
            let direction = Direction(rawValue: (head >> 5) & 0x03) ?? .unknown
            micros &+= Int64(bytes[i + 1]) &* 100
            let length = Int(bytes[i + 2]) | Int(bytes[i + 3]) << 8
            let start = i + 4
            let end = min(bytes.count, start + length)
            frames.append(
                CapturedFrame(
                    number: frames.count + 1,
                    timestamp: Timestamp(unixMicroseconds: micros),
                    direction: direction,
                    controllerIndex: UInt16(head >> 7),
                    kind: kind,
                    bytes: Array(bytes[start..<end]),
                    originalLength: end - start,
                    sourceOffset: Int64(i)
                )
            )
            i = end
        }
        return frames
    }

    /// The input for `frames`; kinds outside `kinds` are left out. `gap` gives each frame's
    /// time since the one before, in µs.
    public static func encode(_ frames: [CapturedFrame]) -> [UInt8] {
        var out: [UInt8] = []
        var previous: Timestamp? = nil
        for frame in frames {
            guard let k = kinds.firstIndex(of: frame.kind) else { continue }
            let controller: UInt8 = (frame.controllerIndex ?? 0) == 0 ? 0 : 0x80
            let bytes = frame.bytes.prefix(0xFFFF)
            var gap: Int64 = 0
            if let previous { gap = (frame.timestamp.microsecondsSince(previous) / 100) }
            previous = frame.timestamp
            out.append(UInt8(k) | frame.direction.rawValue << 5 | controller)
            out.append(UInt8(clamping: max(0, gap)))
            out += [UInt8(bytes.count & 0xFF), UInt8(bytes.count >> 8)]
            out += bytes
        }
        return out
    }

    /// At most this many frames per input.
    public static let maximumFrames = 4096
}

extension Timestamp {
    /// Microseconds from `earlier` to this time (negative when earlier is later), saturating.
    fileprivate func microsecondsSince(_ earlier: Timestamp) -> Int64 {
        let (s, o1) = seconds.subtractingReportingOverflow(earlier.seconds)
        let (us, o2) = s.multipliedReportingOverflow(by: 1_000_000)
        guard !o1, !o2 else { return s < 0 ? Int64.min : Int64.max }
        return us &+ (Int64(nanoseconds) - Int64(earlier.nanoseconds)) / 1000
    }
}

/// Dissects frames with every module, matches them against filters and renders them in every
/// output mode: what `bleinspect read` does with each frame.
public final class PipelineTarget: @unchecked Sendable {
    /// Made once: building the registry and compiling filters is start-up work.
    public static let shared = PipelineTarget(registry: try? StandardModules.registry())

    let registry: DissectorRegistry?
    let filters: [DisplayFilter]
    let renderers: [FrameRenderer]

    /// Filters over the layers, their fields, expert notes and raw bytes, in the forms users write.
    public static let filterTexts = [
        "btatt", "btl2cap.cid == 0x0004 && btatt.opcode in {0x08, 0x09, 0x10, 0x11}", "_ws.malformed",
        "_ws.expert", "frame contains 00:01", "bthci_evt.le_meta_subevent == 0x0d || btle.data_header.length > 10",
        "btcommon.eir_ad.entry.device_name matches \"^[A-Z].*\"", "btsmp.opcode", "ll.connection",
        "btl2cap.psm >= 0x80", "device.addr", "!(hci_h4.type == 0x02) and frame.len < 40",
        "btatt.value[0:2] == 01:00", "len(btatt.value) > 4", "btle.control_opcode", "nordic_ble.channel",
        "btatt.handle + 1 > 2 || btatt.handle#1 == 3 || all btatt.uuid16 in {0x2800, 0x2803}",
        "string(frame.number) matches \"1$\" && frame.time_relative >= 0 && max(btatt.handle, 1) > 0",
    ]

    /// How many of `filterTexts` compiled (all of them, unless a field was renamed).
    public var compiledFilters: Int { filters.count }

    init(registry: DissectorRegistry?) {
        self.registry = registry
        guard let registry else {
            filters = []
            renderers = []
            return
        }
        filters = Self.filterTexts.compactMap { try? DisplayFilter.compile($0, registry: registry) }
        let style = ANSIStyle(enabled: true)
        renderers = [
            OutputMode.text(verbose: false, hexDump: false), .text(verbose: true, hexDump: true), .json,
            .fields(["frame.number", "btatt.handle", "btcommon.eir_ad.entry.device_name", "btl2cap.cid"]),
        ].map { FrameRenderer(registry: registry, mode: $0, style: style, timeFormat: .relative) }
    }

    /// Runs `frames` through one fresh engine.
    public func run(_ frames: [CapturedFrame]) {
        guard var session = session() else { return }
        for frame in frames { session.feed(frame) }
        blackHole(session.output)
    }

    /// A fresh engine fed one frame at a time, with `renderers` (all of them when nil) and
    /// `filters` (all when nil) chosen by index; nil without a registry.
    public func session(renderers: [Int]? = nil, filters: [Int]? = nil) -> Session? {
        guard let registry else { return nil }
        return Session(
            engine: DissectionEngine(registry: registry),
            filters: filters.map { $0.compactMap { self.filters.indices.contains($0) ? self.filters[$0] : nil } }
                ?? self.filters,
            renderers: renderers.map {
                $0.compactMap { self.renderers.indices.contains($0) ? self.renderers[$0] : nil }
            } ?? self.renderers
        )
    }

    /// One capture's worth of frames through the pipeline.
    public struct Session {
        var engine: DissectionEngine
        let filters: [DisplayFilter]
        let renderers: [FrameRenderer]
        var first: Timestamp? = nil
        var previous: Timestamp? = nil
        /// Bytes rendered and filters matched, so that the work is not optimised away.
        public private(set) var output = 0

        /// Dissects, filters and renders one frame.
        public mutating func feed(_ frame: CapturedFrame) {
            let start = first ?? frame.timestamp
            let before = previous ?? frame.timestamp
            first = start
            previous = frame.timestamp
            var out = output
            engine.dissect(frame, wantsInfo: true) { tree in
                for filter in filters where filter.matches(tree, frameBytes: frame.bytes) { out &+= 1 }
                let shown = frame.withDirection(of: tree)
                for renderer in renderers {
                    renderer.render(shown, tree, first: start, previous: before) { out &+= $0.count }
                }
            }
            output = out
        }
    }
}
