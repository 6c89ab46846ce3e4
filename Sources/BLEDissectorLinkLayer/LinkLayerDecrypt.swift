import BLECrypto
import BLEInspectCore

extension LinkLayerDissector {
    /// The plaintext of an encrypted PDU whose MIC a key verifies, in a data source of its own,
    /// with the MIC, the key and the packet counter in the tree; nil when the connection has no
    /// key, or none verifies (then noted, and the payload is never shown as plaintext). A packet
    /// with a bad CRC is tried too (its MIC may still verify), but changes nothing when it fails;
    /// so is a `speculative` one (a PDU the sniffer calls clear on an encrypted connection).
    func decrypt(
        _ r: inout ByteReader,
        _ header: UInt16,
        _ connection: LLConnection,
        _ sender: inout LinkLayerInfo.Sender,
        _ hr: Range<Int>,
        crcOK: Bool,
        speculative: Bool = false,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) -> ByteReader? {
        if crcOK, !speculative, connection.pairing?.awaitsPacket == true, let index = sender.index, r.remaining >= 5 {
            searchByMIC(
                header: UInt8(truncatingIfNeeded: header),
                r.remainingBytes,
                index: index,
                connection,
                hr,
                source: r.source,
                &ctx
            )
        }
        guard let index = sender.index, connection.encryption?.candidates.isEmpty == false, r.remaining >= 5 else {
            return nil
        }
        // Same sequence number as the sender's last packet, which the peer has not acknowledged:
        // a retransmission, sent with the same counter.
        let sn = UInt8((header >> 3) & 1)
        let repeated = connection.repeats(index: index, sn: sn) || !crcOK
        // The session is updated in place (no copy of it a packet); a PDU tried on a chance (a
        // bad CRC, or one the sniffer calls clear) that fails leaves its counters as they were.
        let chance = !crcOK || speculative
        let before = chance ? connection.encryption?.counters : nil
        let outcome = r.withRemainingBytes { bytes in
            connection.encryption?.decrypt(
                header: UInt8(truncatingIfNeeded: header),
                bytes,
                index: index,
                repeated: repeated
            )
        }
        switch outcome {
        case nil:
            return nil
        case .micFailure? where chance:
            // Tried on a chance (a bad CRC, or a PDU the sniffer calls clear): nothing changes.
            if let before { connection.encryption?.counters = before }
            return nil
        case .micFailure(let expected)?:
            ctx.tree.add(f[.micFailure], .boolean(true), hr, source: r.source)
            if connection.encryption?.failureNoted == false {
                connection.encryption?.failureNoted = true
                ctx.expert(
                    .warning,
                    "Key does not match: wrong key, or packets were missed (no key verifies the MIC at packet counter \(expected) or near it); connection \(connection.number)'s encrypted PDUs stay undecrypted",
                    hr,
                    source: r.source
                )
            }
            return nil
        case .plaintext(let text, let counter, let verified)?:
            if verified != index {
                sender = verified == 0 ? .central : .peripheral
                ctx.direction = verified == 0 ? .hostToController : .controllerToHost
                ctx.expert(
                    .note,
                    "The MIC verifies in the other direction: sent by the \(verified == 0 ? "central" : "peripheral"), not as the sniffer or the timing says",
                    hr,
                    source: r.source
                )
            }
            ctx.tree.add(f[.decrypted], .boolean(true), hr, source: r.source)
            ctx.tree.add(f[.decryptionKey], text: connection.encryption?.key?.label ?? "", hr, source: r.source)
            ctx.tree.add(f[.packetCounter], .unsigned(counter), hr, source: r.source)
            let payloadStart = r.offset
            _ = try ctx.addBytes(f[.encryptedData], &r, r.remaining - 4)
            try ctx.addUInt32(f[.mic], &r, bigEndian: true)
            if connection.encryption?.edits == true {
                ctx.edits = Self.edits(
                    header: header,
                    at: hr.lowerBound,
                    payload: payloadStart..<r.offset,
                    text,
                    crcInit: connection.crcInit,
                    sender: sender,
                    ctx.packet.linkLayer
                )
            }
            let source = ctx.tree.addSource(text, name: "Decrypted LL payload")
            return ByteReader(text, source: source)
        }
    }

    /// An encrypted PDU not decrypted: its payload and MIC as sent.
    func showEncrypted(
        _ r: inout ByteReader,
        llid: UInt8,
        length: Int,
        _ arrow: String,
        _ hr: Range<Int>,
        connection: LLConnection?,
        crcOK: Bool,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        let short = r.remaining < length
        ctx.tree.add(f[.encrypted], .boolean(true), hr, source: r.source)
        ctx.setInfo(arrow + "Encrypted PDU (LLID \(llid), \(length) byte\(length == 1 ? "" : "s"))")
        if r.remaining > 4 {
            _ = try ctx.addBytes(f[.encryptedData], &r, r.remaining - 4)
        }
        if r.remaining == 4 { try ctx.addUInt32(f[.mic], &r, bigEndian: true) }
        let note =
            if connection?.encryption?.candidates.isEmpty ?? true {
                "Encrypted: the payload is not decoded (no key)"
            } else if !crcOK {
                "Encrypted: not decrypted (bad CRC)"
            } else if short {
                "Encrypted: not decrypted (the packet is cut short)"
            } else {
                "Encrypted: not decrypted (no key verifies its MIC)"
            }
        ctx.expert(.note, note, hr, source: r.source)
    }

    /// The changes that write the packet decrypted: the sniffer header marked decrypted with its
    /// MIC checked and sent by `sender` (its length less the MIC's 4 bytes), the length octet, the plaintext in place
    /// of the payload and MIC, and the CRC of the new PDU when the CRC init is known.
    static func edits(
        header: UInt16,
        at hs: Int,
        payload: Range<Int>,
        _ text: [UInt8],
        crcInit: UInt32?,
        sender: LinkLayerInfo.Sender,
        _ info: LinkLayerInfo?
    ) -> [FrameEdit] {
        var edits: [FrameEdit] = []
        edits.reserveCapacity(4)
        if let info, let mark = info.decryptedMark {
            edits.append((sender == .peripheral ? mark.flipping(info.peripheralMarkBits) : mark).edit)
        }
        if let (offset, value) = info?.headerLength, value >= 4 {
            edits.append(FrameEdit(offset..<offset + 2, [UInt8((value - 4) & 0xFF), UInt8((value - 4) >> 8)]))
        }
        let first = UInt8(truncatingIfNeeded: header)
        edits.append(FrameEdit(hs + 1..<hs + 2, [UInt8(text.count)]))
        edits.append(FrameEdit(payload, text))
        // With a CTEInfo octet the PDU is more than header and payload: its CRC is left.
        if let crcInit, first & 0x20 == 0 {
            let crc = LinkLayerCRC.update(LinkLayerCRC.compute([first, UInt8(text.count)], initial: crcInit), text)
            let end = payload.upperBound
            edits.append(FrameEdit(end..<end + 3, [UInt8(crc & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc >> 16)]))
        }
        return edits
    }
}

extension LLConnection {
    /// Whether a PDU of `index`'s (0 central) with sequence number `sn` repeats the sender's last
    /// one, which the peer has not acknowledged: a retransmission, sent with the same counter.
    func repeats(index: Int, sn: UInt8) -> Bool {
        lastPacket[index].map { !$0.acknowledged && $0.sn == sn } ?? false
    }

    /// A PDU of `index`'s (0 central) that the sniffer decrypted moves that direction's packet
    /// counter on, unless it is a retransmission (the same SN as the sender's last packet, which
    /// the peer has not acknowledged: sent again with the same counter).
    func countDecryptedBySniffer(index: Int, sn: UInt8) {
        if !repeats(index: index, sn: sn), let counter = encryption?.counters[index],
            counter < LinkLayerCipher.maximumCounter
        {
            encryption?.counters[index] = counter + 1
        }
    }
}
