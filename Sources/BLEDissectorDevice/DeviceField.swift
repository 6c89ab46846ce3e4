public import BLEInspectCore

/// The fields the device tracker adds to frames. Wireshark has nothing like them, so the names
/// are our own (`device.*`). See `DeviceModule` and docs/DEVICES.md for what they mean.
public enum DeviceField: UInt16, FieldSet {
    case addr, addrType, identityAddr, name, connection, firstSeen, irkSource

    public static let layer = FieldDescriptor(
        "device",
        "Device",
        .layer,
        help: "A remote device this frame belongs to: one node for each (an advertising event with "
            + "reports from three devices has three). Added after dissection from what the capture "
            + "has shown so far",
        short: "DEVICE"
    )

    /// Value names of `device.addr_type`.
    static let addressTypes = ValueNames([(0, "Public"), (1, "Random")])

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .addr: FieldDescriptor("device.addr", "Address", .address, help: "The device's address as seen over the air (in the advertising report, the connection-complete event, the command). When the device's resolvable private address was linked to its identity address, the identity address is a second device.addr of the same device node, so that a filter on either matches")
        case .addrType: .uint("device.addr_type", "Address Type", 8, names: Self.addressTypes, help: "Public or random, for the device.addr just before it; absent when no frame said")
        case .identityAddr: FieldDescriptor("device.identity_addr", "Identity Address", .address, help: "The device's identity address (public or static random), when it is known: from an LE Enhanced Connection Complete in which the controller resolved the peer's private address, from the Identity Address Information the device sent over SMP on a connection, or from an IRK (given with --keys or learned from SMP Identity Information) that resolves the private address (device.irk_source)")
        case .name: FieldDescriptor("device.name", "Name", .string, help: "The best name known so far for the device: a GATT Device Name it returned or a Remote Name Request result, over a Complete Local Name it advertised, over a Shortened Local Name. bleinspect reads a capture once, so a name applies from the frame that carried it onward")
        case .connection: .uint("device.connection", "Connection Handle", 16, hex: true, help: "The connection handle, when the frame belongs to the device through one of its connections (ACL data, HCI commands and events naming the handle)")
        case .irkSource: FieldDescriptor("device.irk_source", "Resolved with IRK from", .string, help: "Where the identity resolving key that resolved this device's private address to device.identity_addr came from: a key file and line (--keys), or the frame whose SMP Identity Information carried it. Absent when the address was linked otherwise (by the controller, by SMP Identity Address Information on its connection)")
        case .firstSeen: .uint("device.first_seen", "First Seen in Frame", 32, help: "The frame in which the device was first seen (the earlier of its address's and its identity address's); a device forgotten because the table was full starts again")
        }
    }
}
