/// The deterministic random generator and the hex helper of the fuzz targets, which the tests
/// use too.
@_exported public import struct BLEInspectFuzz.SplitMix64
@_exported public import enum BLEInspectFuzz.Hex
