import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import Testing

@testable import BLEDissectorLinkLayer

/// Every LL control opcode's parameters, the opcode table, and what short, long and unknown PDUs
/// show.
@Suite("LL control PDUs")
struct LLControlTests {
    static let snapshots = Dissect.frames(LLControlSamples.frames)

    /// The sample PDU of `opcode`, dissected.
    static func sample(_ opcode: UInt8) -> FrameSnapshot? {
        snapshots.first { $0.uints("btle.control_opcode") == [UInt64(opcode)] }
    }

    static let periodicSync: [String: String] = [
        "btle.control.sync.id": "10", "btle.control.sync_info.sync_offset": "308",
        "btle.control.sync_info.offset_units": "1", "btle.control.sync_info.offset_adjust": "0",
        "btle.control.sync_info.interval": "160", "btle.control.sync_info.channel_map": "ffffffff1f",
        "btle.control.sync_info.sleep_clock_accuracy": "0", "btle.control.sync_info.access_address": "2391391958",
        "btle.control.sync_info.crc_init": "5592405", "btle.control.sync_info.event_counter": "7",
        "btle.control.sync.conn_event_count": "32", "btle.control.sync.last_pa_event_counter": "48",
        "btle.control.sync.sid": "5", "btle.control.sync.atype": "1", "btle.control.sync.sleep_clock_accuracy": "7",
        "btle.control.phys": "2", "btle.control.phys.le_2m_phy": "1", "btle.advertising_address": "66:55:44:33:22:11",
        "btle.control.sync.sync_conn_event_count": "64",
    ]

    static let csCapabilities: [String: String] = [
        "btle.control.cs.mode_types": "1", "btle.control.cs.mode_types.mode_3": "1",
        "btle.control.cs.rtt_capability": "7", "btle.control.cs.rtt_capability.aa_only_10ns": "1",
        "btle.control.cs.rtt_capability.sounding_10ns": "1", "btle.control.cs.rtt_capability.random_10ns": "1",
        "btle.control.cs.rtt_aa_only_n": "30", "btle.control.cs.rtt_sounding_n": "30",
        "btle.control.cs.rtt_random_sequence_n": "30", "btle.control.cs.nadm_sounding_capability": "1",
        "btle.control.cs.nadm_random_sequence_capability": "1", "btle.control.cs.cs_sync_phy_capability": "6",
        "btle.control.cs.cs_sync_phy_capability.le_2m": "1", "btle.control.cs.cs_sync_phy_capability.le_2m_2bt": "1",
        "btle.control.cs.num_ant": "1", "btle.control.cs.max_ant_path": "2", "btle.control.cs.role.initiator": "1",
        "btle.control.cs.role.reflector": "1", "btle.control.cs.no_fae": "1",
        "btle.control.cs.channel_selection_3c": "1", "btle.control.cs.sounding_pct_estimate": "0",
        "btle.control.cs.num_configs": "4", "btle.control.cs.max_procedures_supported": "0",
        "btle.control.cs.t_sw": "2", "btle.control.cs.t_ip1_capability": "127",
        "btle.control.cs.t_ip2_capability": "127", "btle.control.cs.t_fcs_capability": "511",
        "btle.control.cs.t_pm_capability": "3", "btle.control.cs.tx_snr_capability": "15",
    ]

    static let csProcedure: [String: String] = [
        "btle.control.cs.config_id": "1", "btle.control.conn_event_count": "32", "btle.control.cs.event_interval": "4",
        "btle.control.cs.subevents_per_event": "2", "btle.control.cs.subevent_interval": "16",
        "btle.control.cs.subevent_len": "12000", "btle.control.cs.aci": "1", "btle.control.cs.phy": "2",
    ]

    /// Each opcode's expected fields, as `LLControlSamples.text` shows them.
    static let expected: [UInt8: [String: String]] = [
        0x00: [
            "btle.control.window_size": "2", "btle.control.window_offset": "5", "btle.control.interval": "24",
            "btle.control.latency": "0", "btle.control.timeout": "72", "btle.control.instant": "291",
        ],
        0x01: ["btle.control.channel_map": "ffffffff1f", "btle.control.instant": "64"],
        0x02: ["btle.control.error_code": "19"],
        0x03: [
            "btle.control.random_number": "578437695752307201", "btle.control.encrypted_diversifier": "4660",
            "btle.control.master_session_key_diversifier": "1735880461161533969",
            "btle.control.master_session_initialization_vector": "606282273",
        ],
        0x04: [
            "btle.control.slave_session_key_diversifier": "4050765991979987505",
            "btle.control.slave_session_initialization_vector": "1145258561",
        ],
        0x05: [:], 0x06: [:], 0x0A: [:], 0x0B: [:], 0x12: [:], 0x13: [:], 0x1B: [:], 0x36: [:],
        0x07: ["btle.control.unknown_type": "43"],
        0x08: [
            "btle.control.feature_set": "\(0x8000_0000_0001_7FFF as UInt64)",
            "btle.control.feature_set.le_encryption": "1",
            "btle.control.feature_set.ext_scan_flt_pol": "1", "btle.control.feature_set.le_power_class_1": "0",
            "btle.control.feature_set.min_num_used_ch_proc": "1", "btle.control.feature_set.conn_cte_req": "0",
            "btle.control.feature_set.ll_extended_feature_set": "1", "btle.control.feature_set.rfu": "0",
        ],
        0x09: [
            "btle.control.feature_set": "\(0x1000_FE01 as UInt64)", "btle.control.feature_set.le_encryption": "1",
            "btle.control.feature_set.le_2m_phy": "0", "btle.control.feature_set.le_power_class_1": "1",
            "btle.control.feature_set.cis_central": "1", "btle.control.feature_set.cis_peripheral": "0",
        ],
        0x0C: [
            "btle.control.version_number": "13", "btle.control.company_id": "89",
            "btle.control.subversion_number": "4660",
        ],
        0x0D: ["btle.control.error_code": "6"],
        0x0E: ["btle.control.feature_set": "47", "btle.control.feature_set.slave_initiated_features_exchange": "1"],
        0x0F: [
            "btle.control.interval.min": "6", "btle.control.interval.max": "12", "btle.control.latency": "1",
            "btle.control.timeout": "200", "btle.control.preferred_periodicity": "2",
            "btle.control.reference_connection_event_count": "16", "btle.control.offset.0": "0",
            "btle.control.offset.1": "2", "btle.control.offset.2": "4", "btle.control.offset.3": "65535",
            "btle.control.offset.4": "65535", "btle.control.offset.5": "65535",
        ],
        0x10: [
            "btle.control.interval.min": "8", "btle.control.interval.max": "16", "btle.control.latency": "0",
            "btle.control.timeout": "100", "btle.control.preferred_periodicity": "4",
            "btle.control.reference_connection_event_count": "32", "btle.control.offset.3": "7",
            "btle.control.offset.4": "65535",
        ],
        0x11: ["btle.control.reject_opcode": "15", "btle.control.error_code": "35"],
        0x14: [
            "btle.control.max_rx_octets": "251", "btle.control.max_rx_time": "2120",
            "btle.control.max_tx_octets": "27", "btle.control.max_tx_time": "2120",
        ],
        0x15: [
            "btle.control.max_rx_octets": "27", "btle.control.max_rx_time": "328",
            "btle.control.max_tx_octets": "251", "btle.control.max_tx_time": "144",
        ],
        0x16: [
            "btle.control.tx_phys": "3", "btle.control.rx_phys": "5", "btle.control.phys.le_1m_phy": "1,1",
            "btle.control.phys.le_2m_phy": "1,0", "btle.control.phys.le_coded_phy": "0,1",
            "btle.control.phys.reserved": "0,0",
        ],
        0x17: ["btle.control.tx_phys": "7", "btle.control.rx_phys": "1", "btle.control.phys.le_coded_phy": "1,0"],
        0x18: [
            "btle.control.m_to_s_phy": "2", "btle.control.s_to_m_phy": "1", "btle.control.instant": "4660",
            "btle.control.phys.le_1m_phy": "0,1", "btle.control.phys.le_2m_phy": "1,0",
        ],
        0x19: ["btle.control.phys": "5", "btle.control.min_used_channels": "12"],
        0x1A: [
            "btle.control.cte.min_len_req": "20", "btle.control.cte.rfu": "0", "btle.control.cte.type_req": "1",
        ],
        0x1C: periodicSync,
        0x1D: ["btle.control.sleep_clock_accuracy": "5"],
        0x1E: ["btle.control.sleep_clock_accuracy": "7"],
        0x1F: [
            "btle.control.cig_id": "1", "btle.control.cis_id": "2", "btle.control.m_to_s_phy": "2",
            "btle.control.m_to_s_phy.le_2m_phy": "1", "btle.control.s_to_m_phy": "1",
            "btle.control.s_to_m_phy.le_1m_phy": "1", "btle.control.max_sdu_m_to_s": "40", "btle.control.rfu.1": "0",
            "btle.control.framing_mode": "1", "btle.control.framed": "1", "btle.control.max_sdu_s_to_m": "100",
            "btle.control.sdu_interval_m_to_s": "10000", "btle.control.sdu_interval_s_to_m": "20000",
            "btle.control.max_pdu_m_to_s": "40", "btle.control.max_pdu_s_to_m": "100",
            "btle.control.num_sub_events": "3", "btle.control.sub_interval": "2500", "btle.control.bn_m_to_s": "1",
            "btle.control.bn_s_to_m": "2", "btle.control.ft_m_to_s": "2", "btle.control.ft_s_to_m": "3",
            "btle.control.iso_interval": "8", "btle.control.cis_offset_min": "500",
            "btle.control.cis_offset_max": "1000", "btle.control.conn_event_count": "10",
        ],
        0x20: [
            "btle.control.cis_offset_min": "500", "btle.control.cis_offset_max": "1000",
            "btle.control.conn_event_count": "10",
        ],
        0x21: [
            "btle.control.access_address": "305419896", "btle.control.cis_offset": "500",
            "btle.control.cig_sync_delay": "10000", "btle.control.cis_sync_delay": "5000",
            "btle.control.conn_event_count": "11",
        ],
        0x22: ["btle.control.cig_id": "1", "btle.control.cis_id": "2", "btle.control.error_code": "19"],
        0x23: [
            "btle.control.pwr_phy": "2", "btle.control.pwr_phy.le_2m_phy": "1",
            "btle.control.pwr_phy.le_coded_s2_phy": "0", "btle.control.delta": "-3", "btle.control.txpower": "8",
        ],
        0x24: [
            "btle.control.pwrflags": "1", "btle.control.min": "1", "btle.control.max": "0", "btle.control.delta": "3",
            "btle.control.txpower": "-10", "btle.control.acceptable_power_reduction": "5",
        ],
        0x25: [
            "btle.control.pwr_phy": "6", "btle.control.pwr_phy.le_coded_s8_phy": "1", "btle.control.pwrflags": "2",
            "btle.control.max": "1", "btle.control.delta": "-2", "btle.control.txpower": "127",
        ],
        0x26: [
            "btle.control.subrate_factor.min": "1", "btle.control.subrate_factor.max": "4",
            "btle.control.max_latency": "2", "btle.control.continuation_number": "0", "btle.control.timeout": "200",
        ],
        0x27: [
            "btle.control.subrate_factor": "2", "btle.control.subrate_base_event": "16", "btle.control.latency": "1",
            "btle.control.continuation_number": "1", "btle.control.timeout": "200",
        ],
        0x28: [
            "btle.control.channel_reporting.enable": "1", "btle.control.channel_reporting.min_spacing": "5",
            "btle.control.channel_reporting.max_delay": "10",
        ],
        0x29: [
            "btle.control.channel_status": "0055aaff1be400000000",
            "btle.control.channel_status.good": "4,5,6,7,18,21", "btle.control.channel_status.bad": "12,13,14,15,16,23",
            "btle.control.channel_status.reserved": "8,9,10,11,17,22",
            "btle.control.channel_status.unknown": (Array(0...3) + [19, 20] + Array(24...36)).map(String.init)
                .joined(separator: ","),
        ],
        0x2A: periodicSync.merging([
            "btle.control.pawr.rsp_access_address": "287454020", "btle.control.pawr.num_subevents": "5",
            "btle.control.pawr.subevent_interval": "16", "btle.control.pawr.response_slot_delay": "2",
            "btle.control.pawr.response_slot_spacing": "8",
        ]) { a, _ in a },
        0x2B: [
            "btle.control.feature_ext.max_page": "1", "btle.control.feature_ext.page_number": "0",
            "btle.control.feature_ext.page": "ff7f010000000080" + String(repeating: "00", count: 16),
            "btle.control.feature_set": "\(0x8000_0000_0001_7FFF as UInt64)",
            "btle.control.feature_set.ll_extended_feature_set": "1",
            "btle.control.feature_set.monitoring_advertisers": "",
        ],
        0x2C: [
            "btle.control.feature_ext.max_page": "1", "btle.control.feature_ext.page_number": "1",
            "btle.control.feature_set": "", "btle.control.feature_set.monitoring_advertisers": "1",
            "btle.control.feature_set.frame_space_update": "1",
        ],
        0x2D: [
            "btle.control.cs.iv": "0102030405060708", "btle.control.cs.in": "090a0b0c",
            "btle.control.cs.pv": "1112131415161718",
        ],
        0x2E: csCapabilities,
        0x2F: [
            "btle.control.cs.mode_types": "0", "btle.control.cs.mode_types.mode_3": "0",
            "btle.control.cs.rtt_capability": "1", "btle.control.cs.rtt_aa_only_n": "10",
            "btle.control.cs.role.initiator": "1", "btle.control.cs.role.reflector": "0",
            "btle.control.cs.max_procedures_supported": "1", "btle.control.cs.tx_snr_capability": "0",
        ],
        0x30: [
            "btle.control.cs.config_id": "1", "btle.control.cs.action": "1",
            "btle.control.cs.channel_map": "ffffffffffffffff7f00", "btle.control.cs.chm_repetition": "1",
            "btle.control.cs.main_mode": "2", "btle.control.cs.sub_mode": "1",
            "btle.control.cs.main_mode_min_steps": "2",
            "btle.control.cs.main_mode_max_steps": "5", "btle.control.cs.main_mode_repetition": "1",
            "btle.control.cs.mode_0_steps": "3", "btle.control.cs.cs_sync_phy": "2", "btle.control.cs.rtt_type": "2",
            "btle.control.cs.role": "1", "btle.control.cs.channel_selection": "1", "btle.control.cs.ch3c_shape": "1",
            "btle.control.cs.ch3c_jump": "3", "btle.control.cs.t_ip1": "2", "btle.control.cs.t_ip2": "3",
            "btle.control.cs.t_fcs": "4", "btle.control.cs.t_pm": "1", "btle.control.cs.reserved": "0",
        ],
        0x31: ["btle.control.cs.config_id": "1"],
        0x32: csProcedure.merging([
            "btle.control.cs.offset_min": "500", "btle.control.cs.offset_max": "1000",
            "btle.control.cs.max_procedure_len": "16", "btle.control.cs.procedure_interval": "10",
            "btle.control.cs.procedure_count": "0", "btle.control.cs.preferred_peer_ant": "3",
            "btle.control.cs.pwr_delta": "-3", "btle.control.cs.tx_snr_i": "1", "btle.control.cs.tx_snr_r": "2",
        ]) { a, _ in a },
        0x33: csProcedure.merging([
            "btle.control.cs.offset_min": "500", "btle.control.cs.offset_max": "1000",
            "btle.control.cs.pwr_delta": "0", "btle.control.cs.reserved": "0",
        ]) { a, _ in a },
        0x34: csProcedure.merging(["btle.control.cs.offset": "500", "btle.control.cs.reserved": "0"]) { a, _ in a },
        0x35: [
            "btle.control.cs.config_id": "2", "btle.control.cs.procedure_count": "5", "btle.control.error_code": "19",
        ],
        0x37: ["btle.control.cs.fae_table": LLControlSamples.parameters.first { $0.0 == 0x37 }?.1 ?? ""],
        0x38: ["btle.control.cs.channel_map": "ffffffffffffffff7f00", "btle.control.instant": "4660"],
        0x39: [
            "btle.control.cs.iv": "2122232425262728", "btle.control.cs.in": "292a2b2c",
            "btle.control.cs.pv": "3132333435363738",
        ],
        0x3A: [
            "btle.control.cs.config_id": "2", "btle.control.cs.procedure_count": "5", "btle.control.error_code": "0",
        ],
        0x3B: [
            "btle.control.frame_space.min": "100", "btle.control.frame_space.max": "200", "btle.control.phys": "3",
            "btle.control.frame_space.spacing_types": "5", "btle.control.frame_space.t_ifs_acl_cp": "1",
            "btle.control.frame_space.t_ifs_acl_pc": "0", "btle.control.frame_space.t_mces": "1",
            "btle.control.frame_space.t_ifs_cis": "0", "btle.control.frame_space.t_mss_cis": "0",
        ],
        0x3C: [
            "btle.control.frame_space": "150", "btle.control.phys": "1", "btle.control.phys.le_1m_phy": "1",
            "btle.control.frame_space.spacing_types": "1", "btle.control.frame_space.t_ifs_acl_cp": "1",
        ],
    ]

    @Test func everyOpcodeHasASample() {
        #expect(LLControlSamples.parameters.map(\.0) == Array(0x00...0x3C))
        #expect(Set(Self.expected.keys) == Set(0x00...0x3C))
        #expect(Self.snapshots.count == LLControlSamples.parameters.count)
    }

    @Test(arguments: LLControlSamples.parameters.map(\.0))
    func parameters(_ opcode: UInt8) throws {
        let s = try #require(Self.sample(opcode))
        let name = try #require(LLControl.name(opcode))
        #expect(s.info == "C→P " + name || s.info.hasPrefix("C→P " + name + ", "), "\(s.info)")
        #expect(!s.isMalformed, "\(s.expertMessages)")
        #expect(s.warnings.isEmpty, "\(s.warnings)")
        #expect(!s.has("data.data"), "undecoded bytes in \(name)")
        for (field, value) in Self.expected[opcode] ?? [:] {
            #expect(s.registry.field(named: field) != nil, "\(field) is not a field")
            #expect(LLControlSamples.text(s, field) == value, "\(name) \(field)")
        }
        // Every parameter byte is in some field.
        let layer = try #require(s.registry.field(named: "btle.control"))
        let start = try #require(s.nodes.first { $0.field == layer }).range.lowerBound
        let covered = Set(s.nodes.filter { !s.registry.isLayer[Int($0.field.rawValue)] }.flatMap { Array($0.range) })
        let end = s.frame.bytes.count - 3
        #expect(Set(start..<end).subtracting(covered).isEmpty, "\(name): bytes in no field")
    }

    @Test func summaries() throws {
        #expect(Self.sample(0x00)?.info == "C→P LL_CONNECTION_UPDATE_IND, Instant 291")
        #expect(Self.sample(0x02)?.info == "C→P LL_TERMINATE_IND, Remote User Terminated Connection (0x13)")
        #expect(Self.sample(0x0E)?.info == "C→P LL_PERIPHERAL_FEATURE_REQ")
        #expect(Self.sample(0x38)?.info == "C→P LL_CS_CHANNEL_MAP_IND, Instant 4660")
    }

    /// A control PDU with a bad CRC (an RF header, link type 256, says so) is shown after the
    /// note, with a comma.
    @Test func badCRC() {
        // RF channel 10, no signal, noise or offenses, flags: CRC checked and bad, data C→P.
        let bytes: [UInt8] =
            [10, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x05] + CaptureBytes.le32(0x5065_4300) + [0x07, 2, 0x02, 0x13, 0, 0, 0]
        let frame = CapturedFrame(
            number: 1,
            timestamp: Timestamp(seconds: 1, nanoseconds: 0, precision: .microseconds),
            direction: .unknown,
            controllerIndex: nil,
            kind: .linkLayer(linkType: 256),
            bytes: bytes,
            originalLength: bytes.count,
            sourceOffset: 0
        )
        let s = Dissect.frames([frame])[0]
        #expect(s.info == "C→P PDU with a bad CRC, LL_TERMINATE_IND, Remote User Terminated Connection (0x13)")
        #expect(s.uints("btle.control.error_code") == [0x13])
    }

    @Test func opcodeTable() throws {
        let registry = Dissect.registry()
        let table = try #require(registry.tables[LLControl.table.id])
        #expect(table.owner == "btle")
        #expect(table.bindings.count == 0x40)
        for opcode in UInt8(0x00)...0x3F {
            let binding = try #require(registry.binding(LLControl.table, DissectorKey(opcode)))
            #expect(binding.label == LLControl.name(opcode))
            #expect(binding.keepsNoState)
        }
        #expect(registry.binding(LLControl.table, DissectorKey(0x40)) == nil)
        #expect(LLControl.name(0x40) == nil)
    }

    @Test func unknownOpcode() {
        let s = Dissect.frames([LLControlSamples.frame([0x40, 0xAB, 0xCD], number: 1)])[0]
        #expect(s.uints("btle.control_opcode") == [0x40])
        #expect(s.info == "C→P Unknown control PDU 0x40")
        #expect(s.expertMessages.contains("Unknown control opcode 0x40"))
        #expect(s.hex("data.data") == ["abcd"])
        #expect(!s.isMalformed)
    }

    /// The Core 6.2 PDUs: named, their parameters shown as bytes.
    @Test func namedOnly() {
        let s = Dissect.frames([LLControlSamples.frame([0x3F, 1, 2], number: 1)])[0]
        #expect(s.info == "C→P LL_CONNECTION_RATE_IND")
        #expect(s.hex("data.data") == ["0102"])
        #expect(s.expertMessages.contains { $0.contains("not decoded") })
        #expect(s.warnings.isEmpty)
    }

    @Test func tooShort() {
        // LL_CONNECTION_UPDATE_IND cut after the interval.
        let s = Dissect.frames([LLControlSamples.frame(Hex.bytes("00 02 0500 1800"), number: 1)])[0]
        #expect(s.isMalformed)
        #expect(s.uints("btle.control.window_size") == [2])
        #expect(s.uints("btle.control.interval") == [24])
        #expect(!s.has("btle.control.latency"))
        #expect(s.has("btle.crc"))
        // A bit field that does not fit: LL_CIS_REQ cut in its SDU interval.
        let cis = Dissect.frames([LLControlSamples.frame(Hex.bytes("1f 01 02 02 01 2880 6400 1027"), number: 1)])[0]
        #expect(cis.isMalformed)
        #expect(cis.uints("btle.control.max_sdu_s_to_m") == [100])
        #expect(!cis.has("btle.control.sdu_interval_m_to_s"))
    }

    @Test func tooLong() {
        let s = Dissect.frames([LLControlSamples.frame([0x02, 0x13, 0xEE, 0xFF], number: 1)])[0]
        #expect(!s.isMalformed)
        #expect(s.uints("btle.control.error_code") == [0x13])
        #expect(s.warnings == ["2 bytes after the parameters of LL_TERMINATE_IND"])
        #expect(s.hex("data.data") == ["eeff"])
        let empty = Dissect.frames([LLControlSamples.frame([0x12, 0x00], number: 1)])[0]
        #expect(empty.warnings == ["1 byte after the parameters of LL_PING_REQ"])
    }

    /// Every prefix of every sample decodes without trapping: truncated exactly when cut short, and
    /// bytes past the parameters give a warning. (Cut 0, a control PDU without an opcode, is not
    /// swept: it decodes with no note.)
    @Test func everyPrefix() {
        let registry = Dissect.registry()
        for (opcode, hex) in LLControlSamples.parameters {
            let label = "opcode 0x" + String(opcode, radix: 16)
            let bytes = [opcode] + Hex.bytes(hex)
            expectEveryPrefix(of: bytes, label, cuts: 1..<bytes.count, appended: [0xEE], appendedMark: .warning) {
                cut in
                let s = Dissect.frames([LLControlSamples.frame(cut, number: 1)], registry: registry)[0]
                #expect(s.has("btle.crc"))
                return s
            }
        }
    }

    /// A plugin binds a vendor opcode into the table: its label names the PDU.
    @Test func vendorOpcode() throws {
        struct Vendor: DissectorPlugin {
            var name: String { "vendor-ll" }
            func register(_ registry: inout RegistryBuilder) {
                let (_, base) = registry.register(
                    layer: FieldDescriptor("vendorll", "Vendor LL", .layer),
                    fields: [FieldDescriptor("vendorll.value", "Value", .unsigned(bits: 8))]
                )
                registry.bind(
                    ClosureDissector { r, ctx throws(DecodeError) in try ctx.addUInt8(FieldID(base), &r) },
                    to: TableID("btle.control_opcode"),
                    key: DissectorKey(0xF0),
                    label: "LL_VENDOR_IND"
                )
            }
        }
        let registry = try RegistryBuilder.build(modules: Dissect.modules, plugins: [Vendor()])
        let s = Dissect.frames([LLControlSamples.frame([0xF0, 0x2A], number: 1)], registry: registry)[0]
        #expect(s.info == "C→P LL_VENDOR_IND")
        #expect(s.uints("vendorll.value") == [0x2A])
        #expect(!s.expertMessages.contains { $0.hasPrefix("Unknown control opcode") })
    }
}
