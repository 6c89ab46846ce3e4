public import BLECapture
import BLECaptureIO
public import BLEDissectorTestSupport
public import BLEInspectCore

/// Reading helpers.
public enum CaptureFiles {
    /// Every frame of `path`, and the error that stopped the read, if any.
    public static func readAll(_ path: String) -> (
        frames: [CapturedFrame], error: CaptureError?, format: CaptureFormat?
    ) {
        var frames: [CapturedFrame] = []
        var format: CaptureFormat? = nil
        do throws(CaptureError) {
            let reader = try CaptureOpener.open(path: path)
            format = reader.format
            while let frame = try reader.next() { frames.append(frame) }
            return (frames, nil, format)
        } catch {
            return (frames, error, format)
        }
    }

    /// Writes `frames` to `path` in `format`.
    public static func write(_ frames: [CapturedFrame], to path: String, format: OutputFormat) throws {
        let output = CaptureOutput(path: path, format: format)
        for frame in frames { try output.write(frame) }
        try output.finish()
    }
}

/// What a written and read-back (or served) frame must keep of the original: kind, direction,
/// controller, time to the microsecond, bytes and original length. Frame numbers may differ.
public struct FrameEssentials: Equatable, CustomStringConvertible, Sendable {
    public var kind: FrameKind
    public var direction: Direction
    public var controller: UInt16?
    public var micros: Int64?
    public var bytes: [UInt8]
    public var originalLength: Int

    public init(_ f: CapturedFrame) {
        kind = f.kind
        direction = f.direction
        controller = f.controllerIndex
        micros = f.timestamp.unixMicroseconds
        bytes = f.bytes
        originalLength = f.originalLength
    }

    public var description: String {
        "\(kind.name) \(direction) hci\(controller.map(String.init) ?? "-") t=\(micros ?? -1) len=\(bytes.count)/\(originalLength)"
    }
}

extension DissectorStack {
    /// Dissects every frame of the capture at `path`.
    public static func capture(_ path: String) -> [FrameSnapshot] {
        frames(CaptureFiles.readAll(path).frames)
    }
}
