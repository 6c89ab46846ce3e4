/// The dissector tests' support (frames, snapshots, paths, external programs) and the capture
/// helpers, for the tests of the whole tool.
@_exported public import BLECaptureTestSupport
@_exported public import BLEDissectorTestSupport

/// Scoped, so that it wins over the renderer's `Hex` in files that import both.
@_exported public import enum BLETestVectors.Hex
