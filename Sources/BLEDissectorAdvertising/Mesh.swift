public import BLEInspectCore

/// Bluetooth Mesh PB-ADV PDUs (AD type 0x29), Mesh Profile §5.2; Wireshark's `pbadv.*` names.
public enum PBADVField: UInt16, FieldSet {
    case linkID, transactionNumber, gpcf, segN, totalLength, fcs, padding, segmentIndex, bearerOpcode
    case deviceUUID, reason, payload

    public static let layer = FieldDescriptor("pbadv", "Bluetooth Mesh PB-ADV", .layer, short: "PB-ADV")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .linkID: .uint("pbadv.linkid", "Link ID", 32, hex: true)
        case .transactionNumber: .uint("pbadv.trnumber", "Transaction Number", 8)
        case .gpcf: .uint("pbadv.gen_prov.gpcf", "Generic Provisioning Control Format", 8, names: ValueNames([(0, "Transaction Start"), (1, "Transaction Acknowledgment"), (2, "Transaction Continuation"), (3, "Provisioning Bearer Control")]), mask: 0x03)
        case .segN: .uint("pbadv.gen_prov.gpcf.segn", "The last segment number", 8, mask: 0xFC)
        case .totalLength: .uint("pbadv.gen_prov.gpcf.total_length", "Total Length", 16)
        case .fcs: .uint("pbadv.gen_prov.gpcf.fcs", "Frame Check Sequence", 8, hex: true)
        case .padding: .uint("pbadv.gen_prov.gpcf.padding", "Padding", 8, mask: 0xFC)
        case .segmentIndex: .uint("pbadv.gen_prov.gpcf.segment_index", "Segment number of the transaction", 8, mask: 0xFC)
        case .bearerOpcode: .uint("pbadv.gen_prov.gpcf.bearer_opcode", "Bearer Opcode", 8, names: ValueNames([(0, "Link Open"), (1, "Link ACK"), (2, "Link Close")]), mask: 0xFC)
        case .deviceUUID: FieldDescriptor("pbadv.gen_prov.gpcf.bearer_opcode.device_uuid", "Device UUID", .uuid)
        case .reason: .uint("pbadv.gen_prov.gpcf.bearer_opcode.reason", "Reason", 8, names: ValueNames([(0, "Success"), (1, "Timeout"), (2, "Fail")]))
        case .payload: FieldDescriptor("pbadv.gen_prov.gpp.payload", "Generic Provisioning Payload", .bytes)
        }
    }
}

/// Bluetooth Mesh beacons (AD type 0x2B), Mesh Profile §3.10; Wireshark's `beacon.*` names.
public enum MeshBeaconField: UInt16, FieldSet {
    case type, uuid, oob, oobOther, oobElectronic, oob2DCode, oobBarCode, oobNFC, oobNumber, oobString, oobRFU
    case oobOnBox, oobInsideBox, oobOnPaper, oobInsideManual, oobOnDevice, uriHash
    case flags, keyRefresh, ivUpdate, flagsRFU, networkID, ivIndex, authenticationValue
    case privateRandom, privateObfuscatedData, privateAuthenticationTag, unknownData

    public static let layer = FieldDescriptor("beacon", "Bluetooth Mesh Beacon", .layer, short: "Mesh Beacon")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .type: .uint("beacon.type", "Type", 8, names: ValueNames([(0, "Unprovisioned Device beacon"), (1, "Secure Network beacon"), (2, "Mesh Private beacon")]))
        case .uuid: FieldDescriptor("beacon.uuid", "Device UUID", .uuid)
        case .oob: .uint("beacon.oob", "OOB Information", 16, hex: true)
        case .oobOther: Self.oobBit("other", "Other", 0x0001)
        case .oobElectronic: Self.oobBit("electronic", "Electronic / URI", 0x0002)
        case .oob2DCode: Self.oobBit("2d_code", "2D machine-readable code", 0x0004)
        case .oobBarCode: Self.oobBit("bar_code", "Bar code", 0x0008)
        case .oobNFC: Self.oobBit("nfc", "Near Field Communication (NFC)", 0x0010)
        case .oobNumber: Self.oobBit("number", "Number", 0x0020)
        case .oobString: Self.oobBit("string", "String", 0x0040)
        case .oobRFU: .uint("beacon.oob.rfu", "Reserved for Future Use", 16, hex: true, mask: 0x0780)
        case .oobOnBox: Self.oobBit("on_box", "On box", 0x0800)
        case .oobInsideBox: Self.oobBit("inside_box", "Inside box", 0x1000)
        case .oobOnPaper: Self.oobBit("on_paper", "On piece of paper", 0x2000)
        case .oobInsideManual: Self.oobBit("inside_manual", "Inside manual", 0x4000)
        case .oobOnDevice: Self.oobBit("on_device", "On device", 0x8000)
        case .uriHash: FieldDescriptor("beacon.uri_hash", "URI Hash", .bytes)
        case .flags: .uint("beacon.flags", "Flags", 8, hex: true)
        case .keyRefresh: .flag("beacon.flags.key_refresh", "Key Refresh Flag", 0x01)
        case .ivUpdate: .flag("beacon.flags.iv_update", "IV Update Flag", 0x02)
        case .flagsRFU: .uint("beacon.flags.rfu", "Reserved for Future Use", 8, hex: true, mask: 0xFC)
        case .networkID: FieldDescriptor("beacon.network_id", "Network ID", .bytes)
        case .ivIndex: .uint("beacon.ivindex", "IV Index", 32)
        case .authenticationValue: FieldDescriptor("beacon.authentication_value", "Authentication Value", .bytes)
        case .privateRandom: FieldDescriptor("beacon.private.random", "Random", .bytes)
        case .privateObfuscatedData: FieldDescriptor("beacon.private.obfuscated_data", "Obfuscated Private Beacon Data", .bytes)
        case .privateAuthenticationTag: FieldDescriptor("beacon.private.authentication_tag", "Authentication Tag", .bytes)
        case .unknownData: FieldDescriptor("beacon.unknown_data", "Unknown Data", .bytes)
        }
    }

    private static func oobBit(_ key: String, _ name: String, _ mask: UInt64) -> FieldDescriptor {
        .flag("beacon.oob." + key, name, mask)
    }
}

/// Bluetooth Mesh network PDUs (AD type 0x2A, Mesh Profile §3.4.4): only the clear header; the
/// rest is obfuscated and encrypted. Wireshark's `btmesh.*` names.
public enum MeshNetworkField: UInt16, FieldSet {
    case ivi, nid, obfuscated, encrypted

    public static let layer = FieldDescriptor("btmesh", "Bluetooth Mesh", .layer, short: "Mesh")

    public var descriptor: FieldDescriptor {
        switch self {
        case .ivi: .uint("btmesh.ivi", "IVI", 8, mask: 0x80)
        case .nid: .uint("btmesh.nid", "NID", 8, mask: 0x7F)
        case .obfuscated: FieldDescriptor("btmesh.obfuscated", "Obfuscated", .bytes, help: "CTL, TTL, SEQ and SRC")
        case .encrypted: FieldDescriptor("btmesh.encrypted", "Encrypted data and NetMIC", .bytes)
        }
    }
}

/// The registered mesh field sets.
struct MeshFields: Sendable {
    let pbadv: Fields<PBADVField>
    let beacon: Fields<MeshBeaconField>
    let network: Fields<MeshNetworkField>
}

/// Decodes the mesh PDUs carried in PB-ADV, Mesh Message and Mesh Beacon AD structures.
struct MeshDissector: Dissector {
    enum Kind: Sendable { case pbadv, network, beacon }
    let kind: Kind
    let fields: MeshFields

    func dissect(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        switch kind {
        case .pbadv: try pbadv(&r, &c)
        case .network: try network(&r, &c)
        case .beacon: try beacon(&r, &c)
        }
    }

    private func pbadv(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        let f = fields.pbadv
        c.openLayer(f.layer, over: r)
        try c.addUInt32(f[.linkID], &r, bigEndian: true)
        try c.addUInt8(f[.transactionNumber], &r)
        let start = r.offset
        let v = UInt64(try r.readUInt8())
        let range = start..<r.offset
        let s = r.source
        c.addBits(f[.gpcf], v, mask: 0x03, range, source: s)
        switch v & 0x03 {
        case 0:
            c.addBits(f[.segN], v, mask: 0xFC, range, source: s)
            try c.addUInt16(f[.totalLength], &r, bigEndian: true)
            try c.addUInt8(f[.fcs], &r)
            c.addRest(f[.payload], &r)
        case 1:
            c.addBits(f[.padding], v, mask: 0xFC, range, source: s)
        case 2:
            c.addBits(f[.segmentIndex], v, mask: 0xFC, range, source: s)
            c.addRest(f[.payload], &r)
        default:
            c.addBits(f[.bearerOpcode], v, mask: 0xFC, range, source: s)
            switch v >> 2 {
            case 0:
                let ustart = r.offset
                let uuid = try r.readUUIDBigEndian()
                c.tree.add(f[.deviceUUID], .uuid(uuid), ustart..<r.offset, source: s)
            case 2: try c.addUInt8(f[.reason], &r)
            default: break
            }
        }
        c.addRest(f[.payload], &r)
        c.tree.close()
    }

    private func network(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        let f = fields.network
        c.openLayer(f.layer, over: r)
        try c.emitBits(Self.headerBits, f, &r)
        try c.addBytes(f[.obfuscated], &r, min(6, r.remaining))
        c.addRest(f[.encrypted], &r)
        c.tree.close()
    }

    private static let headerBits = BitFields<MeshNetworkField>([.ivi, .nid])
    private static let oobBits = BitFields<MeshBeaconField>([
        .oobOther, .oobElectronic, .oob2DCode, .oobBarCode, .oobNFC, .oobNumber, .oobString, .oobOnBox,
        .oobInsideBox, .oobOnPaper, .oobInsideManual, .oobOnDevice, .oobRFU,
    ])
    private static let flagBits = BitFields<MeshBeaconField>([.keyRefresh, .ivUpdate, .flagsRFU])

    private func beacon(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        let f = fields.beacon
        let s = r.source
        c.openLayer(f.layer, over: r)
        let type = try c.addUInt8(f[.type], &r)
        switch type {
        case 0:
            let ustart = r.offset
            let uuid = try r.readUUIDBigEndian()
            c.tree.add(f[.uuid], .uuid(uuid), ustart..<r.offset, source: s)
            try c.emitBits(Self.oobBits, f, &r, bytes: 2, bigEndian: true, under: .oob)
            if !r.isAtEnd { try c.addBytes(f[.uriHash], &r, 4) }
            try r.expectEnd("Unprovisioned Device beacon")
        case 1:
            try c.emitBits(Self.flagBits, f, &r, under: .flags)
            try c.addBytes(f[.networkID], &r, 8)
            try c.addUInt32(f[.ivIndex], &r, bigEndian: true)
            try c.addBytes(f[.authenticationValue], &r, 8)
            try r.expectEnd("Secure Network beacon")
        case 2:
            try c.addBytes(f[.privateRandom], &r, 13)
            try c.addBytes(f[.privateObfuscatedData], &r, 5)
            try c.addBytes(f[.privateAuthenticationTag], &r, 8)
            try r.expectEnd("Mesh Private beacon")
        default:
            c.addRest(f[.unknownData], &r)
        }
        c.tree.close()
    }
}
