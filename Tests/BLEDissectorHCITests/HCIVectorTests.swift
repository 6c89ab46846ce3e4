import BLECaptureTestSupport
import BLEDissectorHCI
import BLEDissectorTestSupport
import BLEInspectCore
import Testing

/// Spec vectors (Core 5.4 Vol 4 Part E layouts) for commands, events and reports.
@Suite("HCI commands and events")
struct HCIVectorTests {
    // MARK: Commands

    @Test("LE Set Scan Parameters: header, opcode fields, parameters, summary")
    func leSetScanParameters() {
        let s = HCIHarness.one(HCIHarness.cmd("0b 20 07 01 60 00 30 00 01 00"))
        #expect(s.uints("hci_h4.type") == [1])
        #expect(s.uints("hci_h4.direction") == [0])
        #expect(s.uints("bthci_cmd.opcode") == [0x200B])
        #expect(s.uints("bthci_cmd.opcode.ogf") == [0x08])
        #expect(s.uints("bthci_cmd.opcode.ocf") == [0x0B])
        #expect(s.uints("bthci_cmd.param_length") == [7])
        #expect(s.uints("bthci_cmd.le_scan_type") == [1])
        #expect(s.uints("bthci_cmd.le_scan_interval") == [96])
        #expect(s.uints("bthci_cmd.le_scan_window") == [48])
        #expect(s.uints("bthci_cmd.le_own_address_type") == [1])
        #expect(s.uints("bthci_cmd.le_scan_filter_policy") == [0])
        #expect(s.info == "Sent LE Set Scan Parameters")
        #expect(!s.isMalformed)
        #expect(s.expertMessages.isEmpty)
    }

    @Test("Disconnect")
    func disconnect() {
        let s = HCIHarness.one(HCIHarness.cmd("06 04 03 40 00 13"))
        #expect(s.uints("bthci_cmd.connection_handle") == [0x40])
        #expect(s.uints("bthci_cmd.reason") == [0x13])
        #expect(s.info == "Sent Disconnect")
        let d = s.registry.descriptor(s.registry.field(named: "bthci_cmd.reason")!)
        #expect(d.valueNames?.lookup(0x13) == "Remote User Terminated Connection")
        #expect(d.valueNames?.lookup(0x3D) == "Connection Terminated due to MIC Failure")
    }

    @Test("LE Create Connection")
    func leCreateConnection() {
        let s = HCIHarness.one(
            HCIHarness.cmd("0d 20 19 60 00 30 00 00 01 02 00 de c0 de c0 01 18 00 28 00 00 00 48 00 00 00 00 00")
        )
        #expect(s.uints("bthci_cmd.le_scan_interval") == [0x60])
        #expect(s.uints("bthci_cmd.le_initiator_filter_policy") == [0])
        #expect(s.uints("bthci_cmd.le_peer_address_type") == [1])
        #expect(s.addresses("bthci_cmd.bd_addr") == ["C0:DE:C0:DE:00:02"])
        #expect(s.uints("bthci_cmd.le_con_interval_min") == [0x18])
        #expect(s.uints("bthci_cmd.le_con_interval_max") == [0x28])
        #expect(s.uints("bthci_cmd.le_supv_timeout") == [0x48])
        #expect(s.uints("bthci_cmd.le_max_ce_length") == [0])
        #expect(s.expertMessages.isEmpty)
    }

    @Test("LE Enable Encryption and the LTK replies")
    func encryption() {
        let s = HCIHarness.one(
            HCIHarness.cmd(
                "19 20 1c 40 00 01 02 03 04 05 06 07 08 34 12 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff"
            )
        )
        #expect(s.uints("bthci_cmd.connection_handle") == [0x40])
        #expect(s.bytes("bthci_cmd.le_random_number") == [[1, 2, 3, 4, 5, 6, 7, 8]])
        #expect(s.uints("bthci_cmd.le_encrypted_diversifier") == [0x1234])
        #expect(s.bytes("bthci_cmd.le_long_term_key").first?.count == 16)
        #expect(s.info == "Sent LE Enable Encryption")
        let reply = HCIHarness.one(
            HCIHarness.cmd("1a 20 12 40 00 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff")
        )
        #expect(reply.bytes("bthci_cmd.le_long_term_key").first?.count == 16)
        let negative = HCIHarness.one(HCIHarness.cmd("1b 20 02 40 00"))
        #expect(negative.uints("bthci_cmd.connection_handle") == [0x40])
        #expect(negative.info == "Sent LE Long Term Key Request Negative Reply")
    }

    @Test("LE Set Advertising Data hands the significant part to the AD dissectors")
    func leSetAdvertisingData() {
        let s = HCIHarness.one(
            HCIHarness.cmd(
                "08 20 20 0b 02 01 06 07 09 62 6c 65 61 64 76 00"
                    + String(repeating: " 00", count: 19)
            )
        )
        #expect(s.uints("bthci_cmd.le_data_length") == [11])
        #expect(s.uints("probe.ad_length") == [11])
        #expect(s.bytes("bthci_cmd.unused_data").first?.count == 20)
        #expect(!s.isMalformed)
        // The scan response form too.
        let rsp = HCIHarness.one(HCIHarness.cmd("09 20 20 03 02 01 06" + String(repeating: " 00", count: 28)))
        #expect(rsp.uints("probe.ad_length") == [3])
        #expect(rsp.info == "Sent LE Set Scan Response Data")
    }

    @Test("LE Set Advertising Parameters")
    func leSetAdvertisingParameters() {
        let s = HCIHarness.one(HCIHarness.cmd("06 20 0f a0 00 b0 00 00 01 00 00 00 00 00 00 00 07 00"))
        #expect(s.uints("bthci_cmd.le_advts_interval_min") == [0xA0])
        #expect(s.uints("bthci_cmd.le_advts_interval_max") == [0xB0])
        #expect(s.uints("bthci_cmd.le_advts_type") == [0])
        #expect(s.uints("bthci_cmd.le_advts_channel_map") == [7])
        #expect(s.uints("bthci_cmd.le_advts_ch_map_1") == [1])
        #expect(s.uints("bthci_cmd.le_advts_ch_map_3") == [1])
        #expect(s.expertMessages.isEmpty)
    }

    @Test("LE Set Extended Advertising Parameters [v1] with the property bits")
    func leSetExtendedAdvertisingParameters() {
        let s = HCIHarness.one(
            HCIHarness.cmd("36 20 19 00 13 00 a0 00 00 a0 00 00 07 01 00 00 00 00 00 00 00 00 7f 01 00 01 00 00")
        )
        #expect(s.uints("bthci_cmd.advertising_handle") == [0])
        #expect(s.uints("bthci_cmd.advertising_properties") == [0x13])
        #expect(s.uints("bthci_cmd.adv_properties.connectable") == [1])
        #expect(s.uints("bthci_cmd.adv_properties.scannable") == [1])
        #expect(s.uints("bthci_cmd.adv_properties.directed") == [0])
        #expect(s.uints("bthci_cmd.adv_properties.legacy_adv") == [1])
        #expect(s.uints("bthci_cmd.le_advts_interval_min") == [0xA0])
        #expect(s.ints("bthci_cmd.power_level") == [127])
        #expect(s.uints("bthci_cmd.primary_advertising_phy") == [1])
        #expect(s.uints("bthci_cmd.secondary_advertising_phy") == [1])
        #expect(s.expertMessages.isEmpty)
        // v2 adds the two PHY options.
        let v2 = HCIHarness.one(
            HCIHarness.cmd("7f 20 1b 00 13 00 a0 00 00 a0 00 00 07 01 00 00 00 00 00 00 00 00 7f 01 00 01 00 00 00 01")
        )
        #expect(v2.uints("bthci_cmd.secondary_adv_phy_options") == [1])
        #expect(v2.expertMessages.isEmpty)
    }

    @Test("LE Set Extended Advertising Data: complete data decoded, a fragment shown as bytes")
    func leSetExtendedAdvertisingData() {
        let s = HCIHarness.one(HCIHarness.cmd("37 20 0c 01 03 01 08 02 01 06 04 09 61 62 63"))
        #expect(s.uints("bthci_cmd.advertising_handle") == [1])
        #expect(s.uints("bthci_cmd.adv_data_operation") == [3])
        #expect(s.uints("bthci_cmd.adv_fragment_preference") == [1])
        #expect(s.uints("bthci_cmd.le_data_length") == [8])
        #expect(s.uints("probe.ad_length") == [8])
        let fragment = HCIHarness.one(HCIHarness.cmd("38 20 07 01 01 00 03 02 01 06"))
        #expect(fragment.uints("bthci_cmd.adv_data_operation") == [1])
        #expect(!fragment.has("probe.ad_length"))
        #expect(fragment.bytes("data.data") == [[2, 1, 6]])
        #expect(fragment.info == "Sent LE Set Extended Scan Response Data, fragment")
    }

    @Test("LE Set Extended Advertising Enable: one group per set")
    func leSetExtendedAdvertisingEnable() {
        let s = HCIHarness.one(HCIHarness.cmd("39 20 0a 01 02 00 00 00 00 01 64 00 05"))
        #expect(s.uints("bthci_cmd.le_advts_enable") == [1])
        #expect(s.uints("bthci_cmd.adv_num_sets") == [2])
        #expect(s.values("bthci_cmd.le_adv_set").count == 2)
        #expect(s.uints("bthci_cmd.advertising_handle") == [0, 1])
        #expect(s.uints("bthci_cmd.adv_duration") == [0, 100])
        #expect(s.uints("bthci_cmd.max_extended_advertising_events") == [0, 5])
        #expect(s.depth("bthci_cmd.adv_duration") == (s.depth("bthci_cmd.le_adv_set") ?? 0) + 1)
    }

    @Test("LE Set Extended Scan Parameters: one group per PHY")
    func leSetExtendedScanParameters() {
        let s = HCIHarness.one(HCIHarness.cmd("41 20 0d 01 00 05 01 60 00 30 00 01 60 00 30 00"))
        #expect(s.uints("bthci_cmd.le_scan_phys") == [5])
        #expect(s.uints("bthci_cmd.le_scan_phys.le_1m") == [1])
        #expect(s.uints("bthci_cmd.le_scan_phys.le_coded") == [1])
        #expect(s.strings("bthci_cmd.le_scan_phy_param") == ["LE 1M", "LE Coded"])
        #expect(s.uints("bthci_cmd.le_scan_interval") == [96, 96])
        #expect(s.expertMessages.isEmpty)
        let enable = HCIHarness.one(HCIHarness.cmd("42 20 06 01 00 00 00 00 00"))
        #expect(enable.uints("bthci_cmd.le_scan_enable") == [1])
        #expect(enable.uints("bthci_cmd.scan_period") == [0])
    }

    @Test("LE Extended Create Connection [v1] and [v2]")
    func leExtendedCreateConnection() {
        let v1 = HCIHarness.one(
            HCIHarness.cmd("43 20 1a 00 01 01 02 00 de c0 de c0 01 60 00 60 00 18 00 28 00 00 00 48 00 00 00 00 00")
        )
        #expect(v1.uints("bthci_cmd.le_init_phys") == [1])
        #expect(v1.strings("bthci_cmd.le_init_phy_param") == ["LE 1M"])
        #expect(v1.uints("bthci_cmd.le_con_interval_max") == [0x28])
        #expect(v1.expertMessages.isEmpty)
        let v2 = HCIHarness.one(
            HCIHarness.cmd(
                "85 20 1c 02 03 00 01 01 02 00 de c0 de c0 01 60 00 60 00 18 00 28 00 00 00 48 00 00 00 00 00"
            )
        )
        #expect(v2.uints("bthci_cmd.advertising_handle") == [2])
        #expect(v2.uints("bthci_cmd.subevent") == [3])
        #expect(v2.info == "Sent LE Extended Create Connection [v2]")
        #expect(v2.expertMessages.isEmpty)
    }

    @Test("LE Set PHY and LE Set Data Length")
    func phyAndDataLength() {
        let phy = HCIHarness.one(HCIHarness.cmd("32 20 07 40 00 00 02 02 00 00"))
        #expect(phy.uints("bthci_cmd.all_phys") == [0])
        #expect(phy.uints("bthci_cmd.tx_phys") == [2])
        #expect(phy.uints("bthci_cmd.phy_options") == [0])
        let dl = HCIHarness.one(HCIHarness.cmd("22 20 06 40 00 fb 00 48 08"))
        #expect(dl.uints("bthci_cmd.le_tx_octets") == [251])
        #expect(dl.uints("bthci_cmd.le_tx_time") == [2120])
    }

    @Test("unknown and vendor commands are named and their parameters hex-dumped")
    func unknownCommands() {
        let unknown = HCIHarness.one(HCIHarness.cmd("ff 2f 02 01 02"))
        #expect(unknown.info == "Sent Unknown 0x2FFF")
        #expect(unknown.bytes("data.data") == [[1, 2]])
        let d = unknown.registry.descriptor(unknown.registry.field(named: "bthci_cmd.opcode")!)
        #expect(d.valueNames?.lookup(0x2FFF) == "Unknown")
        #expect(d.valueNames?.lookup(0xFC17) == "Vendor")
        let vendor = HCIHarness.one(HCIHarness.cmd("17 fc 02 01 02"))
        #expect(vendor.info == "Sent Vendor 0xFC17")
        #expect(vendor.uints("bthci_cmd.opcode.ogf") == [0x3F])
        #expect(vendor.bytes("data.data") == [[1, 2]])
    }

    @Test("every command, event and subevent of the specification has a name")
    func names() {
        let registry = HCIHarness.registry
        let opcode = registry.descriptor(registry.field(named: "bthci_cmd.opcode")!).valueNames
        for ocf in 0x01...0x9C where ocf != 0x04 {
            #expect(opcode?.lookup(UInt64(0x2000 | ocf)) != "Unknown", "LE OCF \(ocf)")
        }
        for op: UInt64 in [0x0406, 0x0C03, 0x1001, 0x1009, 0x1405, 0x1802, 0x0811, 0x0C84, 0x100F] {
            #expect(opcode?.lookup(op) != "Unknown", "opcode \(op)")
        }
        let code = registry.descriptor(registry.field(named: "bthci_evt.code")!).valueNames
        for c: UInt64 in Array(0x01...0x23) + Array(0x2C...0x36) + Array(0x38...0x39) + Array(0x3B...0x3E)
            + Array(0x40...0x59) + [0xFF]
        {
            #expect(code?.lookup(c) != "Unknown", "event \(c)")
        }
        #expect(code?.lookup(0xFF) == "Vendor-Specific")
        let sub = registry.descriptor(registry.field(named: "bthci_evt.le_meta_subevent")!).valueNames
        for c: UInt64 in 0x01...0x35 { #expect(sub?.lookup(c) != "Unknown", "subevent \(c)") }
        let status = registry.descriptor(registry.field(named: "bthci_evt.status")!).valueNames
        for c: UInt64 in Array(0x00...0x2A) + Array(0x2C...0x30) + [0x32] + Array(0x34...0x47) {
            #expect(status?.lookup(c) != nil, "error \(c)")
        }
    }

    // MARK: Events

    @Test("Command Complete with status only, with return parameters, with a failure, and NOP")
    func commandComplete() {
        let s = HCIHarness.one(HCIHarness.evt("0e 04 01 0c 20 00"))
        #expect(s.uints("hci_h4.type") == [4])
        #expect(s.uints("hci_h4.direction") == [1])
        #expect(s.uints("bthci_evt.code") == [0x0E])
        #expect(s.uints("bthci_evt.num_command_packets") == [1])
        #expect(s.uints("bthci_evt.opcode") == [0x200C])
        #expect(s.uints("bthci_evt.opcode.ogf") == [8])
        #expect(s.uints("bthci_evt.status") == [0])
        #expect(s.info == "Rcvd Command Complete (LE Set Scan Enable)")
        #expect(s.expertMessages.isEmpty)

        let addr = HCIHarness.one(HCIHarness.evt("0e 0a 01 09 10 00 66 55 44 33 22 11"))
        #expect(addr.addresses("bthci_evt.bd_addr") == ["11:22:33:44:55:66"])
        #expect(addr.info == "Rcvd Command Complete (Read BD_ADDR)")

        let version = HCIHarness.one(HCIHarness.evt("0e 0c 01 01 10 00 0d 34 12 0d 5f 00 78 56"))
        #expect(version.uints("bthci_evt.hci_vers_nr") == [0x0D])
        #expect(version.uints("bthci_evt.hci_revision") == [0x1234])
        #expect(version.uints("bthci_evt.lmp_vers_nr") == [0x0D])
        #expect(version.uints("bthci_evt.comp_id") == [0x5F])
        #expect(version.uints("bthci_evt.lmp_sub_vers_nr") == [0x5678])

        let buffers = HCIHarness.one(HCIHarness.evt("0e 0a 01 60 20 00 1b 00 40 c0 03 40"))
        #expect(buffers.uints("bthci_evt.le_acl_data_pkt_len") == [27])
        #expect(buffers.uints("bthci_evt.le_total_num_acl_data_pkts") == [64])
        #expect(buffers.uints("bthci_evt.iso_data_pkt_len") == [960])
        #expect(buffers.uints("bthci_evt.total_num_iso_data_pkts") == [64])

        let v1 = HCIHarness.one(HCIHarness.evt("0e 07 01 02 20 00 fb 00 0f"))
        #expect(v1.uints("bthci_evt.le_acl_data_pkt_len") == [251])

        let features = HCIHarness.one(HCIHarness.evt("0e 0c 01 03 20 00 ff 79 01 00 00 00 00 00"))
        #expect(features.uints("bthci_evt.le_features") == [0x179FF])

        let failed = HCIHarness.one(HCIHarness.evt("0e 04 01 0c 20 0c"))
        #expect(failed.uints("bthci_evt.status") == [0x0C])
        #expect(failed.info == "Rcvd Command Complete (LE Set Scan Enable), Command Disallowed")
        #expect(!failed.isMalformed)

        let nop = HCIHarness.one(HCIHarness.evt("0e 03 01 00 00"))
        #expect(nop.uints("bthci_evt.opcode") == [0])
        #expect(!nop.has("bthci_evt.status"))
        #expect(nop.info == "Rcvd Command Complete (No Operation)")
    }

    @Test("Command Status")
    func commandStatus() {
        let s = HCIHarness.one(HCIHarness.evt("0f 04 00 01 0d 20"))
        #expect(s.uints("bthci_evt.status") == [0])
        #expect(s.uints("bthci_evt.num_command_packets") == [1])
        #expect(s.uints("bthci_evt.opcode") == [0x200D])
        #expect(s.info == "Rcvd Command Status (LE Create Connection)")
    }

    @Test("Disconnection Complete, Number Of Completed Packets, Encryption Change v1/v2, Key Refresh")
    func connectionEvents() {
        let d = HCIHarness.one(HCIHarness.evt("05 04 00 40 00 13"))
        #expect(d.uints("bthci_evt.status") == [0])
        #expect(d.uints("bthci_evt.connection_handle") == [0x40])
        #expect(d.uints("bthci_evt.reason") == [0x13])
        #expect(d.info.hasPrefix("Rcvd Disconnection Complete"))
        let n = HCIHarness.one(HCIHarness.evt("13 09 02 40 00 02 00 41 00 01 00"))
        #expect(n.uints("bthci_evt.num_handles") == [2])
        #expect(n.uints("bthci_evt.connection_handle") == [0x40, 0x41])
        #expect(n.uints("bthci_evt.num_compl_packets") == [2, 1])
        #expect(n.info == "Rcvd Number Of Completed Packets")
        let e1 = HCIHarness.one(HCIHarness.evt("08 04 00 40 00 01"))
        #expect(e1.uints("bthci_evt.encryption_enable") == [1])
        #expect(e1.info == "Rcvd Encryption Change [v1]")
        let e2 = HCIHarness.one(HCIHarness.evt("59 05 00 40 00 01 10"))
        #expect(e2.uints("bthci_evt.enc_key_size") == [16])
        let refresh = HCIHarness.one(HCIHarness.evt("30 03 00 40 00"))
        #expect(refresh.uints("bthci_evt.connection_handle") == [0x40])
        #expect(refresh.info == "Rcvd Encryption Key Refresh Complete")
    }

    @Test("LE Connection Complete and Enhanced Connection Complete v1 and v2")
    func leConnectionComplete() {
        let s = HCIHarness.one(HCIHarness.evt("3e 13 01 00 40 00 00 01 02 00 de c0 de c0 18 00 00 00 48 00 05"))
        #expect(s.uints("bthci_evt.le_meta_subevent") == [1])
        #expect(s.uints("bthci_evt.connection_handle") == [0x40])
        #expect(s.uints("bthci_evt.role") == [0])
        #expect(s.uints("bthci_evt.le_peer_address_type") == [1])
        #expect(s.addresses("bthci_evt.bd_addr") == ["C0:DE:C0:DE:00:02"])
        #expect(s.uints("bthci_evt.le_con_interval") == [0x18])
        #expect(s.uints("bthci_evt.le_con_latency") == [0])
        #expect(s.uints("bthci_evt.le_supv_timeout") == [0x48])
        #expect(s.uints("bthci_evt.le_master_clock_accuracy") == [5])
        #expect(s.info == "Rcvd LE Meta (LE Connection Complete)")
        #expect(s.expertMessages.isEmpty)

        let enhanced =
            "3e 1f 0a 00 41 00 01 00 66 55 44 33 22 11 01 02 03 04 05 46 0a 0b 0c 0d 0e 4f 28 00 01 00 c8 00 01"
        let v1 = HCIHarness.one(HCIHarness.evt(enhanced))
        #expect(v1.uints("bthci_evt.connection_handle") == [0x41])
        #expect(v1.uints("bthci_evt.role") == [1])
        #expect(v1.addresses("bthci_evt.le_local_rpa") == ["46:05:04:03:02:01"])
        #expect(v1.addresses("bthci_evt.le_peer_rpa") == ["4F:0E:0D:0C:0B:0A"])
        #expect(v1.uints("bthci_evt.le_supv_timeout") == [200])
        #expect(v1.expertMessages.isEmpty)

        let v2 = HCIHarness.one(
            HCIHarness.evt(
                "3e 22 29 00 41 00 01 00 66 55 44 33 22 11 01 02 03 04 05 46 0a 0b 0c 0d 0e 4f 28 00 01 00 c8 00 01 02 ff ff"
            )
        )
        #expect(v2.uints("bthci_evt.adv_handle") == [2])
        #expect(v2.uints("bthci_evt.sync_handle") == [0xFFFF])
        #expect(v2.info == "Rcvd LE Meta (LE Enhanced Connection Complete [v2])")
        #expect(v2.expertMessages.isEmpty)
    }

    @Test("LE Advertising Report with two reports: each in its own group, data handed on")
    func twoReports() {
        let s = HCIHarness.one(
            HCIHarness.evt("3e 19 02 02 00 01 02 00 de c0 de c0 03 02 01 06 ce 04 00 66 55 44 33 22 11 00 b0")
        )
        #expect(s.uints("bthci_evt.le_num_reports") == [2])
        #expect(s.values("bthci_evt.report") == [.unsigned(1), .unsigned(2)])
        #expect(s.uints("bthci_evt.le_advts_event_type") == [0, 4])
        #expect(s.uints("bthci_evt.le_peer_address_type") == [1, 0])
        #expect(s.addresses("bthci_evt.bd_addr") == ["C0:DE:C0:DE:00:02", "11:22:33:44:55:66"])
        #expect(s.uints("bthci_evt.data_length") == [3, 0])
        #expect(s.uints("probe.ad_length") == [3, 0])
        #expect(s.ints("bthci_evt.rssi") == [-50, -80])
        // The aliases name the same fields.
        #expect(s.addresses("adv.addr") == s.addresses("bthci_evt.bd_addr"))
        #expect(s.ints("adv.rssi") == [-50, -80])
        #expect(s.info == "Rcvd LE Meta (LE Advertising Report)")
        #expect(s.depth("bthci_evt.rssi") == (s.depth("bthci_evt.report") ?? 0) + 1)
        // Each group spans its report's bytes.
        let group = s.registry.field(named: "bthci_evt.report")
        let ranges = s.nodes.filter { $0.field == group }.map(\.range)
        #expect(ranges == [4..<17, 17..<27])
        #expect(s.expertMessages.isEmpty)
    }

    @Test("LE Extended Advertising Report: event type bits, every field, data handed on")
    func extendedReport() {
        let one =
            "13 00 01 02 00 de c0 de c0 01 00 ff 7f c4 00 00 00 00 00 00 00 00 00 03 02 01 06"
        let second =
            "21 00 00 66 55 44 33 22 11 01 02 05 f6 b0 10 00 01 01 02 03 04 05 06 02 aa bb"
        let s = HCIHarness.one(HCIHarness.evt("3e 37 0d 02 " + one + " " + second))
        #expect(!s.isMalformed)
        #expect(s.uints("bthci_evt.le_num_reports") == [2])
        #expect(s.values("bthci_evt.report").count == 2)
        #expect(s.uints("bthci_evt.le_ext_advts_event_type") == [0x13, 0x21])
        #expect(s.uints("bthci_evt.le_ext_advts_event_type.connectable") == [1, 1])
        #expect(s.uints("bthci_evt.le_ext_advts_event_type.scannable") == [1, 0])
        #expect(s.uints("bthci_evt.le_ext_advts_event_type.legacy") == [1, 0])
        #expect(s.uints("bthci_evt.le_ext_advts_event_type.data_status") == [0, 1])
        #expect(s.addresses("bthci_evt.bd_addr") == ["C0:DE:C0:DE:00:02", "11:22:33:44:55:66"])
        #expect(s.uints("bthci_evt.primary_phy") == [1, 1])
        #expect(s.uints("bthci_evt.secondary_phy") == [0, 2])
        #expect(s.uints("bthci_evt.advertising_sid") == [0xFF, 5])
        #expect(s.ints("bthci_evt.tx_power") == [127, -10])
        #expect(s.ints("bthci_evt.rssi") == [-60, -80])
        #expect(s.uints("bthci_evt.periodic_advertising_interval") == [0, 16])
        #expect(s.addresses("bthci_evt.direct_bd_addr") == ["00:00:00:00:00:00", "06:05:04:03:02:01"])
        #expect(s.uints("bthci_evt.data_length") == [3, 2])
        // Complete data is decoded; the incomplete piece is shown as bytes with a note.
        #expect(s.uints("probe.ad_length") == [3])
        #expect(s.bytes("data.data") == [[0xAA, 0xBB]])
        #expect(s.expertMessages.count == 1)
    }

    @Test("LE Directed Advertising Report and LE Periodic Advertising Report")
    func otherReports() {
        let d = HCIHarness.one(HCIHarness.evt("3e 12 0b 01 01 01 02 00 de c0 de c0 01 01 00 de c0 de c0 c0"))
        #expect(d.uints("bthci_evt.le_num_reports") == [1])
        #expect(d.addresses("bthci_evt.bd_addr") == ["C0:DE:C0:DE:00:02"])
        #expect(d.uints("bthci_evt.le_direct_address_type") == [1])
        #expect(d.addresses("bthci_evt.direct_bd_addr") == ["C0:DE:C0:DE:00:01"])
        #expect(d.ints("bthci_evt.rssi") == [-64])
        #expect(d.expertMessages.isEmpty)
        let p = HCIHarness.one(HCIHarness.evt("3e 0b 0f 01 00 7f c4 ff 00 03 02 01 06"))
        #expect(p.uints("bthci_evt.sync_handle") == [1])
        #expect(p.ints("bthci_evt.rssi") == [-60])
        #expect(p.uints("bthci_evt.data_status") == [0])
        #expect(p.uints("probe.ad_length") == [3])
        #expect(p.info == "Rcvd LE Meta (LE Periodic Advertising Report [v1])")
        let p2 = HCIHarness.one(HCIHarness.evt("3e 0e 25 01 00 7f c4 ff 10 00 02 00 03 02 01 06"))
        #expect(p2.uints("bthci_evt.periodic_event_counter") == [16])
        #expect(p2.uints("bthci_evt.subevent") == [2])
        #expect(p2.uints("probe.ad_length") == [3])
        #expect(p2.expertMessages.isEmpty)
    }

    @Test("LE LTK Request, Data Length Change, PHY Update Complete, Connection Update Complete")
    func leConnectionEvents() {
        let ltk = HCIHarness.one(HCIHarness.evt("3e 0d 05 40 00 01 02 03 04 05 06 07 08 34 12"))
        #expect(ltk.uints("bthci_evt.connection_handle") == [0x40])
        #expect(ltk.bytes("bthci_evt.le_random_number") == [[1, 2, 3, 4, 5, 6, 7, 8]])
        #expect(ltk.uints("bthci_evt.le_encrypted_diversifier") == [0x1234])
        #expect(ltk.info == "Rcvd LE Meta (LE Long Term Key Request)")
        let dl = HCIHarness.one(HCIHarness.evt("3e 0b 07 40 00 fb 00 48 08 1b 00 48 01"))
        #expect(dl.uints("bthci_evt.max_tx_octets") == [251])
        #expect(dl.uints("bthci_evt.max_tx_time") == [2120])
        #expect(dl.uints("bthci_evt.max_rx_octets") == [27])
        #expect(dl.uints("bthci_evt.max_rx_time") == [328])
        let phy = HCIHarness.one(HCIHarness.evt("3e 06 0c 00 40 00 02 02"))
        #expect(phy.uints("bthci_evt.le_tx_phy") == [2])
        #expect(phy.uints("bthci_evt.le_rx_phy") == [2])
        let update = HCIHarness.one(HCIHarness.evt("3e 0a 03 00 40 00 18 00 00 00 48 00"))
        #expect(update.uints("bthci_evt.le_con_interval") == [0x18])
        #expect(update.info == "Rcvd LE Meta (LE Connection Update Complete)")
        for s in [ltk, dl, phy, update] { #expect(s.expertMessages.isEmpty) }
    }

    @Test("vendor, unknown events and unknown subevents are named and hex-dumped")
    func unknownEvents() {
        let vendor = HCIHarness.one(HCIHarness.evt("ff 03 01 02 03"))
        #expect(vendor.info == "Rcvd Vendor-Specific")
        #expect(vendor.bytes("data.data") == [[1, 2, 3]])
        let unknown = HCIHarness.one(HCIHarness.evt("7a 02 01 02"))
        #expect(unknown.info == "Rcvd Unknown")
        #expect(unknown.bytes("data.data") == [[1, 2]])
        let sub = HCIHarness.one(HCIHarness.evt("3e 02 7f 00"))
        #expect(sub.info == "Rcvd LE Meta (Unknown)")
        #expect(sub.bytes("data.data") == [[0]])
    }

    @Test("parameter length disagreeing with the packet: malformed when short, noted when long")
    func lengthMismatch() {
        let short = HCIHarness.one(HCIHarness.evt("0e 08 01 0c 20 00"))
        #expect(short.isMalformed)
        #expect(short.uints("bthci_evt.opcode") == [0x200C])
        let long = HCIHarness.one(HCIHarness.evt("0e 04 01 0c 20 00 99"))
        #expect(!long.isMalformed)
        #expect(long.bytes("data.data") == [[0x99]])
        #expect(long.expertMessages.count == 1)
        let extra = HCIHarness.one(HCIHarness.evt("05 05 00 40 00 13 77"))
        #expect(extra.bytes("data.data") == [[0x77]])
        #expect(extra.expertMessages.count == 1)
    }

    // MARK: SCO and ISO

    @Test("SCO and ISO headers")
    func scoAndISO() {
        let sco = HCIHarness.one(Dissect.hci(.scoData, "01 00 03 01 02 03"))
        #expect(sco.uints("hci_h4.type") == [3])
        #expect(sco.uints("bthci_sco.chandle") == [1])
        #expect(sco.uints("bthci_sco.length") == [3])
        #expect(sco.bytes("data.data") == [[1, 2, 3]])
        #expect(sco.info == "Sent SCO Data, Handle 0x0001")
        let iso = HCIHarness.one(
            Dissect.hci(.isoData, "60 60 0a 00 01 00 00 00 05 00 02 00 aa bb", direction: .controllerToHost)
        )
        #expect(iso.uints("hci_h4.type") == [5])
        #expect(iso.uints("bthci_iso.chandle") == [0x60])
        #expect(iso.uints("bthci_iso.pb_flag") == [2])
        #expect(iso.uints("bthci_iso.ts_flag") == [1])
        #expect(iso.uints("bthci_iso.data_length") == [10])
        #expect(iso.uints("bthci_iso_data.timestamp") == [1])
        #expect(iso.uints("bthci_iso_data.packet_seq_num") == [5])
        #expect(iso.uints("bthci_iso_data.sdu_length") == [2])
        #expect(iso.bytes("data.data") == [[0xAA, 0xBB]])
        #expect(iso.info == "Rcvd ISO Data, Handle 0x0060")
        #expect(!iso.isMalformed)
    }

    // MARK: Robustness

    /// Every vector of this suite.
    static let vectors: [CapturedFrame] = [
        HCIHarness.cmd("0b 20 07 01 60 00 30 00 01 00"),
        HCIHarness.cmd("0d 20 19 60 00 30 00 00 01 02 00 de c0 de c0 01 18 00 28 00 00 00 48 00 00 00 00 00"),
        HCIHarness.cmd("19 20 1c 40 00 01 02 03 04 05 06 07 08 34 12 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff"),
        HCIHarness.cmd("08 20 20 0b 02 01 06 07 09 62 6c 65 61 64 76 00" + String(repeating: " 00", count: 19)),
        HCIHarness.cmd("36 20 19 00 13 00 a0 00 00 a0 00 00 07 01 00 00 00 00 00 00 00 00 7f 01 00 01 00 00"),
        HCIHarness.cmd("37 20 0c 01 03 01 08 02 01 06 04 09 61 62 63"),
        HCIHarness.cmd("39 20 0a 01 02 00 00 00 00 01 64 00 05"),
        HCIHarness.cmd("41 20 0d 01 00 05 01 60 00 30 00 01 60 00 30 00"),
        HCIHarness.cmd("43 20 1a 00 01 01 02 00 de c0 de c0 01 60 00 60 00 18 00 28 00 00 00 48 00 00 00 00 00"),
        HCIHarness.evt("0e 0c 01 01 10 00 0d 34 12 0d 5f 00 78 56"),
        HCIHarness.evt("0e 0a 01 60 20 00 1b 00 40 c0 03 40"),
        HCIHarness.evt("0f 04 00 01 0d 20"),
        HCIHarness.evt("13 09 02 40 00 02 00 41 00 01 00"),
        HCIHarness.evt("3e 13 01 00 40 00 00 01 02 00 de c0 de c0 18 00 00 00 48 00 05"),
        HCIHarness.evt("3e 19 02 02 00 01 02 00 de c0 de c0 03 02 01 06 ce 04 00 66 55 44 33 22 11 00 b0"),
        HCIHarness.evt(
            "3e 1d 0d 01 13 00 01 02 00 de c0 de c0 01 00 ff 7f c4 00 00 00 00 00 00 00 00 00 03 02 01 06"
        ),
        HCIHarness.evt("3e 12 0b 01 01 01 02 00 de c0 de c0 01 01 00 de c0 de c0 c0"),
        HCIHarness.evt("3e 0e 25 01 00 7f c4 ff 10 00 02 00 03 02 01 06"),
        HCIHarness.acl("40 20 07 00 03 00 04 00 02 17 00"),
        Dissect.hci(.isoData, "60 60 0a 00 01 00 00 00 05 00 02 00 aa bb"),
        Dissect.hci(.scoData, "01 00 03 01 02 03"),
    ]

    static let standard = Dissect.registry()

    @Test("every strict prefix of every vector is truncated and never traps", arguments: vectors)
    func prefixes(frame: CapturedFrame) {
        // LE Set Advertising Data cut before the end of its AD data gets, besides "packet too
        // short", the malformed note "data length 11 but N bytes follow".
        let setAdvertisingData = frame.kind == .hciCommand && frame.bytes.starts(with: [0x08, 0x20])
        let marks =
            setAdvertisingData ? Dictionary(uniqueKeysWithValues: (4..<15).map { ($0, FrameMark.malformed) }) : [:]
        expectEveryPrefix(of: frame.bytes, "\(frame.kind)", marks: marks) { bytes in
            var cut = frame
            cut.bytes = bytes
            cut.originalLength = bytes.count
            // The standard registry (with every upper layer) must not trap either.
            var engine = DissectionEngine(registry: Self.standard)
            engine.dissect(cut, wantsInfo: true) { _ in }
            return HCIHarness.one(cut)
        }
    }
}
