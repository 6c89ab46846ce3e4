public import BLEInspectCore

/// Device tracking: fields that follow a remote device across its advertising reports and its
/// connections, so that `device.addr == aa:bb:cc:dd:ee:ff` or `device.name contains "Polar"`
/// selects every frame about that device. Wireshark has nothing like it.
///
/// A post-dissector: after each frame's normal dissection it reads the frame's tree (through
/// field names, looked up once per capture) and the capture so far, and adds one `device` node for
/// each remote device the frame belongs to, with `device.addr`, `device.addr_type`,
/// `device.identity_addr`, `device.irk_source`, `device.name`, `device.connection` and
/// `device.first_seen`.
///
/// Which frames belong to a device (docs/DEVICES.md has the details):
/// - Advertising reports (legacy, directed, extended; periodic ones through the sync handle of
///   their Periodic Advertising Sync Established), Scan Request Received, Extended Inquiry
///   Result, Remote Name Request Complete and other events naming a remote BD_ADDR: the device
///   at that address. An event with several reports belongs to each reporting device.
/// - A connection, from its connection-complete event with status 0 (LE, LE Enhanced, BR/EDR),
///   keyed by controller and handle, until and including its Disconnection Complete: its ACL and
///   SCO data and every HCI command or event naming its handle (Number Of Completed Packets may
///   name several) belong to the peer.
/// - Commands naming a remote address (LE Create Connection, Create Connection, Remote Name
///   Request, filter and resolving list commands…) belong to it; LE Set Random Address and
///   vendor commands do not (their address is the local one).
///
/// Names (Shortened < Complete Local Name < GATT Device Name read from the device = Remote
/// Name) are learned from the frame that carries them onward: bleinspect reads a capture once,
/// so earlier frames do not get a name learned later.
///
/// Resolvable private addresses: `device.addr` is the address seen over the air. When the
/// controller resolved the peer (LE Enhanced Connection Complete with a non-zero
/// Peer_Resolvable_Private_Address) or the peer sent its Identity Address Information over SMP,
/// the private address is linked to the identity address: from then on that device's frames
/// carry both as `device.addr` (and the identity as `device.identity_addr`). A random address is
/// also resolved with the IRKs known (`identityKeys`, and those a peer sent in SMP Identity
/// Information before its Identity Address Information) the first time it is seen, and linked
/// the same way, with `device.irk_source` naming the key's origin (`IdentityResolver`).
///
/// State is bounded: 65,536 devices (least recently seen forgotten first, with a note the first
/// time), 4,096 connections and 4,096 periodic syncs.
public enum DeviceModule: DissectorModule {
    public static let name = "device"

    public static func register(_ registry: inout RegistryBuilder) {
        let f = registry.register(DeviceField.self)
        registry.addPostDissector(DeviceTracker(f: f), label: "Device tracking")
    }
}
