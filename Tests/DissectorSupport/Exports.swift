/// The hex helper and the deterministic random generator, which the fuzz targets use too.
@_exported public import BLETestVectors
