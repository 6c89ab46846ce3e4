import BLEAssignedNumbers
import Testing

/// Known answers from the Bluetooth SIG assigned-numbers lists, as bluetooth-numbers spells them.
@Suite struct LookupTests {
    @Test(
        arguments: [
            (UInt16(0x0000), "Ericsson AB"),
            (0x0006, "Microsoft"),
            (0x000F, "Broadcom Corporation"),
            (0x004C, "Apple, Inc."),
            (0x0059, "Nordic Semiconductor ASA"),
            (0x00E0, "Google"),
            (
                0xFFFF,
                "Bluetooth SIG Specification Reserved Default Vendor ID for Remote Devices Without Device ID Service Record."
            ),
        ]
    )
    func companyName(id: UInt16, expected: String) {
        #expect(AssignedNumbers.companyName(id) == expected)
    }

    @Test func namesWithQuotesAndNonASCIICharactersSurviveTheStringLiterals() {
        #expect(AssignedNumbers.companyName(0x0380) == "LLC \"MEGA-F service\"")
        #expect(AssignedNumbers.companyName(0x0225) == "Nestl\u{E9} Nespresso S.A.")
        #expect(AssignedNumbers.companyName(0x0225)?.utf8.count == 22)  // "é" is 2 bytes of UTF-8
        #expect(
            AssignedNumbers.serviceName(uuid16: 0xFE87)
                == "Qingdao Yeelink Information Technology Co., Ltd. ( 青岛亿联客信息技术有限公司 )"
        )
    }

    @Test func unknownCompanyIsNil() {
        #expect(AssignedNumbers.companyName(0xFFFE) == nil)
    }

    @Test func companyCountMatchesTheTable() {
        #expect(AssignedNumbers.companyCount == AssignedNumbers.companyKeys.count)
        #expect(AssignedNumbers.companyCount > 3000)
    }

    @Test(
        arguments: [
            (UInt16(0x1800), "Generic Access"),
            (0x180D, "Heart Rate"),
            (0x180F, "Battery Service"),
            (0xFD6F, "Exposure Notification Service"),
            // Listed both under its proper key and, as a member UUID, under 0x65194: the proper key wins.
            (0xFEAA, "Eddystone"),
            // Member UUIDs, which bluetooth-numbers 1.1.2 keys as 0x<decimal> (0x65279 for 0xFEFF).
            (0xFEFF, "GN Netcom"),
            (0xFFFD, "Universal Second Factor Authenticator"),
        ]
    )
    func serviceName(uuid: UInt16, expected: String) {
        #expect(AssignedNumbers.serviceName(uuid16: uuid) == expected)
        #expect(AssignedNumbers.uuid16Name(uuid) == expected)
        #expect(AssignedNumbers.uuid16Kind(uuid) == .service)
        #expect(AssignedNumbers.characteristicName(uuid16: uuid) == nil)
        #expect(AssignedNumbers.descriptorName(uuid16: uuid) == nil)
    }

    @Test(
        arguments: [
            (UInt16(0x2A00), "Device Name"),
            (0x2A19, "Battery Level"),
            (0x2A37, "Heart Rate Measurement"),
        ]
    )
    func characteristicName(uuid: UInt16, expected: String) {
        #expect(AssignedNumbers.characteristicName(uuid16: uuid) == expected)
        #expect(AssignedNumbers.uuid16Name(uuid) == expected)
        #expect(AssignedNumbers.uuid16Kind(uuid) == .characteristic)
        #expect(AssignedNumbers.serviceName(uuid16: uuid) == nil)
    }

    @Test(
        arguments: [
            (UInt16(0x2900), "Characteristic Extended Properties"),
            (0x2902, "Client Characteristic Configuration"),
        ]
    )
    func descriptorName(uuid: UInt16, expected: String) {
        #expect(AssignedNumbers.descriptorName(uuid16: uuid) == expected)
        #expect(AssignedNumbers.uuid16Name(uuid) == expected)
        #expect(AssignedNumbers.uuid16Kind(uuid) == .descriptor)
        #expect(AssignedNumbers.serviceName(uuid16: uuid) == nil)
    }

    @Test(arguments: [UInt16(0x0000), 0x0001, 0x17FF, 0x2FFF, 0xFFFF])
    func unknownUUID16IsNil(uuid: UInt16) {
        #expect(AssignedNumbers.uuid16Name(uuid) == nil)
        #expect(AssignedNumbers.uuid16Kind(uuid) == nil)
        #expect(AssignedNumbers.serviceName(uuid16: uuid) == nil)
        #expect(AssignedNumbers.characteristicName(uuid16: uuid) == nil)
        #expect(AssignedNumbers.descriptorName(uuid16: uuid) == nil)
    }

    @Test func baseUUIDFormResolvesThroughItsShortValue() throws {
        #expect(AssignedNumbers.uuid128Name(try bytes("0000180F-0000-1000-8000-00805F9B34FB")) == "Battery Service")
        #expect(AssignedNumbers.uuid128Name(try bytes("00002A19-0000-1000-8000-00805F9B34FB")) == "Battery Level")
        #expect(
            AssignedNumbers.uuid128Name(try bytes("00002902-0000-1000-8000-00805F9B34FB"))
                == "Client Characteristic Configuration"
        )
        #expect(AssignedNumbers.uuid128Name(try bytes("0000FEFF-0000-1000-8000-00805F9B34FB")) == "GN Netcom")
    }

    @Test func vendorUUIDs() throws {
        #expect(AssignedNumbers.uuid128Name(try bytes("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")) == "Nordic UART Service")
        #expect(
            AssignedNumbers.uuid128Name(try bytes("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")) == "UART TX Characteristic"
        )
        #expect(
            AssignedNumbers.uuid128Name(try bytes("7905F431-B5CE-4E99-A40F-4B1E122D00D0"))
                == "Apple Notification Center Service"
        )
        // Listed as both a service and a characteristic: services come first.
        #expect(
            AssignedNumbers.uuid128Name(try bytes("8E400001-F315-4F60-9FB8-838830DAEA50"))
                == "Experimental Buttonless DFU Service"
        )
    }

    @Test func unknownOrMalformed128BitUUIDsAreNil() throws {
        // Unassigned 16-bit value in base-UUID form.
        #expect(AssignedNumbers.uuid128Name(try bytes("00000000-0000-1000-8000-00805F9B34FB")) == nil)
        // A 32-bit value in base-UUID form: the SIG lists assign none.
        #expect(AssignedNumbers.uuid128Name(try bytes("0001180F-0000-1000-8000-00805F9B34FB")) == nil)
        // Almost the base UUID.
        #expect(AssignedNumbers.uuid128Name(try bytes("0000180F-0000-1000-8000-00805F9B34FC")) == nil)
        #expect(AssignedNumbers.uuid128Name(try bytes("0000180F-0001-1000-8000-00805F9B34FB")) == nil)
        // A vendor UUID one off from a listed one.
        #expect(AssignedNumbers.uuid128Name(try bytes("6E400001-B5A3-F393-E0A9-E50E24DCCA9F")) == nil)
        #expect(AssignedNumbers.uuid128Name([]) == nil)
        #expect(AssignedNumbers.uuid128Name([UInt8](repeating: 0, count: 15)) == nil)
        #expect(AssignedNumbers.uuid128Name([UInt8](repeating: 0, count: 17)) == nil)
    }
}

struct BadUUIDText: Error {}

/// The 16 bytes, in display order, of a UUID written as "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
func bytes(_ text: String) throws -> [UInt8] {
    let digits = Array(text.utf8.filter { $0 != UInt8(ascii: "-") })
    guard digits.count == 32 else { throw BadUUIDText() }
    var result: [UInt8] = []
    for index in stride(from: 0, to: 32, by: 2) {
        guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else {
            throw BadUUIDText()
        }
        result.append(byte)
    }
    return result
}
