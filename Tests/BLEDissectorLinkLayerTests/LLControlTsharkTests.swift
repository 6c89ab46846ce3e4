import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

@testable import BLEDissectorLinkLayer

/// The sample control PDUs written to a pcap file (link type 251) and read by tshark: every
/// `btle.control.*` value of tshark 4.0 must match bleinspect's, field by field, for every opcode
/// tshark decodes, except where tshark is known to be wrong or to group differently (`Quirk`).
@Suite("LL control PDUs against tshark")
struct LLControlTsharkTests {
    /// tshark 4.0's fields of LL control PDUs (`tshark -G fields`), and the advertising address
    /// it shows LL_PERIODIC_SYNC_IND's AdvA as.
    static let fields = [
        "btle.control.reject_opcode", "btle.control.unknown_type", "btle.control.error_code",
        "btle.control.version_number", "btle.control.company_id", "btle.control.subversion_number",
        "btle.control.feature_set", "btle.control.feature_set.le_encryption",
        "btle.control.feature_set.connection_parameters_request_procedure",
        "btle.control.feature_set.extended_reject_indication",
        "btle.control.feature_set.slave_initiated_features_exchange", "btle.control.feature_set.le_ping",
        "btle.control.feature_set.le_pkt_len_ext", "btle.control.feature_set.le_privacy",
        "btle.control.feature_set.ext_scan_flt_pol", "btle.control.feature_set.le_2m_phy",
        "btle.control.feature_set.st_mod_idx_tx", "btle.control.feature_set.st_mod_idx_rx",
        "btle.control.feature_set.le_coded_phy", "btle.control.feature_set.le_extended_adv",
        "btle.control.feature_set.periodic_adv", "btle.control.feature_set.ch_sel_2",
        "btle.control.feature_set.le_power_class_1", "btle.control.feature_set.min_num_used_ch_proc",
        "btle.control.feature_set.reserved_bits", "btle.control.feature_set.reserved", "btle.control.window_size",
        "btle.control.window_offset", "btle.control.interval", "btle.control.latency", "btle.control.timeout",
        "btle.control.instant", "btle.control.reserved", "btle.control.interval.min", "btle.control.interval.max",
        "btle.control.preferred_periodicity", "btle.control.reference_connection_event_count",
        "btle.control.offset.0", "btle.control.offset.1", "btle.control.offset.2", "btle.control.offset.3",
        "btle.control.offset.4", "btle.control.offset.5", "btle.control.channel_map", "btle.control.random_number",
        "btle.control.encrypted_diversifier", "btle.control.master_session_key_diversifier",
        "btle.control.slave_session_key_diversifier", "btle.control.master_session_initialization_vector",
        "btle.control.slave_session_initialization_vector", "btle.control.max_rx_octets", "btle.control.max_rx_time",
        "btle.control.max_tx_octets", "btle.control.max_tx_time", "btle.control.phys.le_1m_phy",
        "btle.control.phys.le_2m_phy", "btle.control.phys.le_coded_phy", "btle.control.phys.reserved",
        "btle.control.tx_phys", "btle.control.rx_phys", "btle.control.m_to_s_phy",
        "btle.control.m_to_s_phy.le_1m_phy", "btle.control.m_to_s_phy.le_2m_phy",
        "btle.control.m_to_s_phy.le_coded_phy", "btle.control.m_to_s_phy.reserved", "btle.control.s_to_m_phy",
        "btle.control.s_to_m_phy.le_1m_phy", "btle.control.s_to_m_phy.le_2m_phy",
        "btle.control.s_to_m_phy.le_coded_phy", "btle.control.s_to_m_phy.reserved", "btle.control.phys",
        "btle.control.min_used_channels", "btle.control.cte.min_len_req", "btle.control.cte.rfu",
        "btle.control.cte.type_req", "btle.control.sync.id", "btle.control.sync_info.sync_offset",
        "btle.control.sync_info.offset_units", "btle.control.sync_info.offset_adjust",
        "btle.control.sync_info.interval", "btle.control.sync_info.channel_map",
        "btle.control.sync_info.sleep_clock_accuracy", "btle.control.sync_info.access_address",
        "btle.control.sync_info.crc_init", "btle.control.sync_info.event_counter",
        "btle.control.sync.conn_event_count", "btle.control.sync.last_pa_event_counter", "btle.control.sync.sid",
        "btle.control.sync.atype", "btle.control.sync.sleep_clock_accuracy", "btle.control.sync.sync_conn_event_count",
        "btle.control.sleep_clock_accuracy", "btle.control.cig_id", "btle.control.cis_id",
        "btle.control.max_sdu_m_to_s", "btle.control.rfu.1", "btle.control.framed", "btle.control.max_sdu_s_to_m",
        "btle.control.rfu.2", "btle.control.sdu_interval_m_to_s", "btle.control.rfu.3",
        "btle.control.sdu_interval_s_to_m", "btle.control.rfu.4", "btle.control.max_pdu_m_to_s",
        "btle.control.max_pdu_s_to_m", "btle.control.num_sub_events", "btle.control.sub_interval",
        "btle.control.bn_m_to_s", "btle.control.bn_s_to_m", "btle.control.ft_m_to_s", "btle.control.ft_s_to_m",
        "btle.control.iso_interval", "btle.control.cis_offset_min", "btle.control.cis_offset_max",
        "btle.control.conn_event_count", "btle.control.access_address", "btle.control.cis_offset",
        "btle.control.cig_sync_delay", "btle.control.cis_sync_delay", "btle.control.pwr_phy",
        "btle.control.pwr_phy.le_1m_phy", "btle.control.pwr_phy.le_2m_phy", "btle.control.pwr_phy.le_coded_s8_phy",
        "btle.control.pwr_phy.le_coded_s2_phy", "btle.control.pwr_phy.reserved", "btle.control.delta",
        "btle.control.txpower", "btle.control.pwrflags", "btle.control.min", "btle.control.max",
        "btle.control.pwrctrl.reserved", "btle.control.acceptable_power_reduction", "btle.advertising_address",
    ]

    /// Where tshark 4.0 and bleinspect legitimately disagree.
    enum Quirk: String, CaseIterable {
        /// tshark groups feature bits 17 to 63 as `reserved_bits` and `reserved`; bleinspect
        /// names each bit the specification defines (`btle.control.feature_set.conn_cte_req` on).
        case featureBitsNamed = "feature bits 17 to 63 named bit by bit"
        /// tshark labels LL_CTE_REQ's one parameter byte `btle.control.phys`; it holds
        /// MinCTELenReq and CTETypeReq, which both show.
        case cteByteAsPHYs = "LL_CTE_REQ byte labelled PHYs by tshark"
        /// tshark reads the SCA of LL_CLOCK_ACCURACY_REQ and _RSP from bits 5 to 7, as in a
        /// SyncInfo; the parameter is the whole octet (Vol 6 Part B 2.4.2.28).
        case clockAccuracyBits = "SCA of LL_CLOCK_ACCURACY_REQ/RSP read from bits 5 to 7 by tshark"
        /// tshark shows the SyncInfo's reserved bit 15 under `offset_units` a second time.
        case offsetUnitsTwice = "SyncInfo reserved bit shown as offset_units by tshark"
        /// tshark's `rfu.1` of LL_CIS_REQ covers bit 14, Framing_Mode since Core 5.4.
        case framingMode = "LL_CIS_REQ Framing_Mode counted as RFU by tshark"
    }

    static func quirk(_ opcode: UInt8, _ field: String) -> Quirk? {
        switch (opcode, field) {
        case (0x08, "btle.control.feature_set.reserved_bits"), (0x08, "btle.control.feature_set.reserved"),
            (0x09, "btle.control.feature_set.reserved_bits"), (0x09, "btle.control.feature_set.reserved"),
            (0x0E, "btle.control.feature_set.reserved_bits"), (0x0E, "btle.control.feature_set.reserved"):
            .featureBitsNamed
        case (0x1A, "btle.control.phys"): .cteByteAsPHYs
        case (0x1D, "btle.control.sleep_clock_accuracy"), (0x1E, "btle.control.sleep_clock_accuracy"):
            .clockAccuracyBits
        case (0x1C, "btle.control.sync_info.offset_units"): .offsetUnitsTwice
        case (0x1F, "btle.control.rfu.1"): .framingMode
        default: nil
        }
    }

    /// What comparing a capture's frames with tshark's reading found.
    struct Comparison {
        /// Field values compared (present on either side).
        var values = 0
        /// Control PDUs both decoded, by opcode.
        var pdus: [UInt8: Int] = [:]
        var quirks: Set<Quirk> = []
        /// The opcodes of the PDUs tshark shows with no parameters.
        var unknownToTshark: [UInt8] = []
    }

    /// Compares, field by field, the control PDUs of `snapshots` with tshark's reading of `path`
    /// (the same frames): where both decode the same opcode, every value of `fields` must agree
    /// but for the known quirks.
    static func compare(_ path: String, _ snapshots: [FrameSnapshot]) throws -> Comparison {
        let rows = try Run.tsharkFields(path, ["btle.control_opcode"] + fields)
        try #require(rows.count == snapshots.count, "\(path): frames")
        var result = Comparison()
        for (s, row) in zip(snapshots, rows) {
            let ourOpcode = s.uints("btle.control_opcode")
            guard ourOpcode.count == 1, let opcode = ourOpcode.first.map({ UInt8(truncatingIfNeeded: $0) }),
                LLControlSamples.normalized(row.first ?? "") == String(opcode)
            else { continue }
            let theirs = Dictionary(uniqueKeysWithValues: zip(fields, row.dropFirst()))
            guard LLControlSamples.knownToTshark.contains(opcode) else {
                // Unknown to tshark: it shows the opcode and nothing else.
                #expect(theirs.values.allSatisfy { $0.isEmpty }, "tshark decodes 0x\(String(opcode, radix: 16))")
                result.unknownToTshark.append(opcode)
                continue
            }
            result.pdus[opcode, default: 0] += 1
            for field in fields {
                let ours = LLControlSamples.text(s, field)
                let tshark = LLControlSamples.normalized(theirs[field] ?? "")
                if !tshark.isEmpty || !ours.isEmpty { result.values += 1 }
                guard ours != tshark else { continue }
                let known = quirk(opcode, field)
                #expect(
                    known != nil,
                    "frame \(s.frame.number) \(LLControl.name(opcode) ?? "?") \(field): bleinspect [\(ours)] tshark [\(tshark)]"
                )
                if let known { result.quirks.insert(known) }
            }
        }
        return result
    }

    @Test(.enabled(if: Run.tshark != nil, "tshark is not installed"))
    func agreesWithTshark() throws {
        let frames = LLControlSamples.frames
        let directory = TemporaryDirectory()
        let path = directory.write(LLControlSamples.pcap(frames), to: "ll-control.pcap")
        let result = try Self.compare(path, Dissect.frames(frames))
        #expect(result.pdus.keys.sorted() == Array(LLControlSamples.knownToTshark))
        #expect(result.unknownToTshark == Array(0x26...0x3C))
        #expect(result.quirks == Set(Quirk.allCases))
        #expect(result.values > 200)
    }

    /// The same on the sniffer captures among the shared ones, where bleinspect and tshark both
    /// see a control PDU of the same opcode (they may disagree on which PDUs are encrypted,
    /// retransmitted or damaged: the link layer's business, not the control PDUs').
    @Test(.enabled(if: Run.tshark != nil && TestPaths.sharedCapturesAvailable, "tshark or the shared captures absent"))
    func agreesWithTsharkOnSharedCaptures() throws {
        var values = 0
        var pdus: [UInt8: Int] = [:]
        for entry in ManifestEntry.all()
        where ["LINKTYPE 256", "LINKTYPE 272", "LINKTYPE 192"].contains(where: entry.linkType.hasPrefix) {
            let result = try Self.compare(entry.url.path, Dissect.capture(entry.url.path))
            values += result.values
            pdus.merge(result.pdus, uniquingKeysWith: +)
        }
        #expect(pdus.values.reduce(0, +) > 100)
        #expect(values > 500)
    }
}

/// The control PDU fields against tshark's (`tshark -G fields`): where a name is Wireshark's, the
/// type and mask are too, except the documented differences.
@Suite("LL control field names against tshark")
struct LLControlFieldNameTests {
    /// Where the fields deliberately differ from tshark 4.0.17's, and why.
    static let typeExceptions: [String: String] = [
        "btle.control.slave_session_initialization_vector": "IV_P is 4 octets (FT_UINT64 in Wireshark)"
    ]
    static let maskExceptions: [String: String] = [
        "btle.control.rfu.1": "bit 14 is Framing_Mode (Core 5.4)",
        "btle.control.sleep_clock_accuracy": "LL_CLOCK_ACCURACY_REQ/RSP's SCA is the whole octet",
        "btle.control.sync_info.sleep_clock_accuracy": "masked over the 5-octet channel map it ends",
    ]

    @Test(.enabled(if: Run.tshark != nil, "tshark is not installed"))
    func matchTshark() throws {
        let output = try Run.program(try #require(Run.tshark), ["-G", "fields"]).stdoutText
        var theirs: [String: (type: String, mask: UInt64)] = [:]
        for line in output.split(separator: "\n") {
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if cols.first == "F", cols.count >= 7 {
                theirs[cols[2]] = (cols[3], UInt64(cols[6].dropFirst(2), radix: 16) ?? 0)
            }
        }
        var types: Set<String> = []
        var masks: Set<String> = []
        for field in LLControlField.allCases {
            let d = field.descriptor
            guard let t = theirs[d.abbrev] else { continue }
            let type: String =
                switch d.kind {
                case .unsigned(let bits): "FT_UINT\(bits)"
                case .signed(let bits): "FT_INT\(bits)"
                case .boolean: "FT_BOOLEAN"
                case .bytes: "FT_BYTES"
                default: "?"
                }
            if type != t.type { types.insert(d.abbrev) }
            // Feature bits are masked over the 64-bit FeatureSet here, over their octet there; a
            // mask of the field's whole width is none.
            var mask = d.bitmask
            if LLControlField.featureBits.contains(field) { mask >>= UInt64(8 * (mask.trailingZeroBitCount / 8)) }
            let whole: UInt64 = if case .unsigned(let bits) = d.kind, bits < 64 { (1 << UInt64(bits)) - 1 } else { 0 }
            if t.mask != mask, t.mask != whole || mask != 0 { masks.insert(d.abbrev) }
        }
        #expect(types == Set(Self.typeExceptions.keys))
        #expect(masks == Set(Self.maskExceptions.keys))
        // Every tshark field of LL control PDUs has a counterpart, but the feature bits it
        // groups as reserved, and the BIG control and procedure ones. (`btle.control.reserved` is
        // LL_PHY_UPDATE_IND's Instant when neither PHY changes.)
        let names = Set(LLControlField.allCases.map(\.descriptor.abbrev))
        let missing = theirs.keys.filter { $0.hasPrefix("btle.control.") && !names.contains($0) }.sorted()
        #expect(
            missing == ["btle.control.feature_set.reserved", "btle.control.feature_set.reserved_bits"]
        )
    }
}
