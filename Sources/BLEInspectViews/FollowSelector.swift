public import BLEInspectCore

/// What `follow` follows: the SDUs of credit-based channels, or the values of one attribute.
public enum FollowSelector: Equatable, Sendable {
    /// The channel on ACL connection `handle` with `cid` as either endpoint (local or peer).
    case l2cap(handle: UInt16, cid: UInt16)
    /// Every channel opened on `psm`.
    case psm(UInt16)
    /// The attribute at `handle`, on any connection.
    case attHandle(UInt16)
    /// The attributes whose type (`gatt.uuid`, learned from discovery) is this UUID.
    case attUUID(BluetoothUUID)

    /// `HANDLE:CID`, each in hex with `0x` or in decimal; nil when the text is not that.
    public static func l2cap(_ text: String) -> FollowSelector? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let handle = integer(parts[0], maximum: 0x0EFF),
            let cid = integer(parts[1], maximum: 0xFFFF)
        else { return nil }
        return .l2cap(handle: UInt16(handle), cid: UInt16(cid))
    }

    /// A PSM in hex with `0x` or in decimal.
    public static func psm(_ text: String) -> FollowSelector? {
        integer(text[...], maximum: 0xFFFF).map { .psm(UInt16($0)) }
    }

    /// `--att`'s argument:
    /// - `handle:N` or `uuid:U` say which it is;
    /// - a 128-bit UUID (with or without dashes), or 8 hex digits, is a UUID;
    /// - exactly four hex digits without `0x` (`2A19`, `2902`) are a 16-bit UUID, as the
    ///   Bluetooth specifications write them;
    /// - otherwise `0x` and hex digits, or decimal digits, are a handle (`0x0010`, `16`).
    public static func att(_ text: String) -> FollowSelector? {
        let lower = text.lowercased()
        if lower.hasPrefix("handle:") {
            return integer(lower.dropFirst(7), maximum: 0xFFFF).map { .attHandle(UInt16($0)) }
        }
        if lower.hasPrefix("uuid:") { return BluetoothUUID(String(lower.dropFirst(5))).map { .attUUID($0) } }
        let digits = lower.hasPrefix("0x") ? lower.dropFirst(2) : lower[...]
        if lower.contains("-") || ((digits.count == 32 || digits.count == 8) && digits.allSatisfy(\.isHexDigit)) {
            return BluetoothUUID(lower).map { .attUUID($0) }
        }
        if !lower.hasPrefix("0x"), lower.count == 4, lower.allSatisfy(\.isHexDigit) {
            return BluetoothUUID(lower).map { .attUUID($0) }
        }
        return integer(lower[...], maximum: 0xFFFF).map { .attHandle(UInt16($0)) }
    }

    /// `0x` and 1–8 hex digits, or 1–10 decimal digits, at most `maximum`.
    static func integer(_ text: Substring, maximum: UInt64) -> UInt64? {
        let value: UInt64?
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            let digits = text.dropFirst(2)
            value = (1...8).contains(digits.count) ? UInt64(digits, radix: 16) : nil
        } else {
            let decimal = text.allSatisfy { ("0"..."9").contains($0) }
            value = decimal && (1...10).contains(text.count) ? UInt64(text, radix: 10) : nil
        }
        guard let value, value <= maximum else { return nil }
        return value
    }

    /// How the selection reads in a message: `--att 0x0010`. An attribute type is named as the
    /// SIG names it.
    public var description: String {
        switch self {
        case .l2cap(let handle, let cid): "connection \(ViewText.handle(handle)), CID \(ViewText.handle(cid))"
        case .psm(let psm): "PSM \(ViewText.handle(psm))"
        case .attHandle(let handle): "handle \(ViewText.handle(handle))"
        case .attUUID(let uuid): "attribute type \(UUIDText().withName(uuid))"
        }
    }
}

/// Which direction `follow` shows: from the capturing host to its controller, the other way, or
/// both in capture order.
public enum FollowDirection: String, Sendable, CaseIterable {
    case sent, received, both

    func includes(_ direction: Direction) -> Bool {
        switch self {
        case .both: true
        case .sent: direction == .hostToController
        case .received: direction == .controllerToHost
        }
    }
}

/// How `follow` writes each item.
public enum FollowFormat: Sendable, Equatable {
    /// A heading line and a hex dump (offset, hex, ASCII).
    case hexDump
    /// A heading line and the bytes as text, escaped for the terminal.
    case text
    /// One JSON object a line (schema `bleinspect.follow/1`).
    case json
    /// The bytes alone, concatenated in capture order, to a file (or `-`, standard output).
    case raw(path: String)
}
