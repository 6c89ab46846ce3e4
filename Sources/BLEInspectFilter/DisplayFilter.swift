public import BLEInspectCore

/// Placeholder for the display filter; being written.
public struct DisplayFilter: Sendable {}
