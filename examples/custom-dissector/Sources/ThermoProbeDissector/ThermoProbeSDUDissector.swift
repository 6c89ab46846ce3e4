import BLEInspectCore

/// Decodes one SDU of the demo stream, as the L2CAP module hands it on after reassembly:
///
///     C>P SDU 1 len 200 |PQRSTUVW…
///
/// an ASCII header (the sender's tag, `SDU`, the SDU's number, `len`, the SDU's whole length, and
/// `|`), then counting bytes: SDU n starts at 0x40 + 0x10 × n from the central, 0xA0 + 0x10 × n
/// from the peripheral, and each byte is the one before plus 1, modulo 256.
///
/// A header that cannot be read is damage: it throws `DecodeError`, and the engine marks the
/// layer malformed. Bytes that can be read but disagree with the stream's rules (a length, a
/// start value, a count, a missing SDU) are warnings, with the fields still shown.
struct ThermoProbeSDUDissector: Dissector {
    let f: Fields<ThermoProbeField>

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let start = reader.offset
        let total = reader.remaining
        let src = reader.source
        context.tree.open(f.layer, .none, start..<(start + total), source: src)
        defer { context.tree.close() }

        let header = try ThermoProbeHeader.read(&reader)
        context.tree.add(f[.header], text: header.text, start..<reader.offset, source: src)
        context.tree.add(f[.sender], .unsigned(UInt64(header.sender.rawValue)), header.tagRange, source: src)
        context.tree.add(f[.sduNumber], .unsigned(UInt64(header.number)), header.numberRange, source: src)
        context.tree.add(f[.length], .unsigned(UInt64(header.length)), header.lengthRange, source: src)
        if Int(header.length) != total {
            context.expert(
                .warning,
                "The header gives \(header.length) bytes, the SDU has \(total)",
                header.lengthRange,
                source: src
            )
        }

        let body = reader.readRest()
        let bodyRange = body.offset..<(body.offset + body.remaining)
        context.appendInfo("\(header.sender.tag) SDU \(header.number)")
        if let first = body.peekUInt8() {
            context.tree.add(f[.data], .bytes, bodyRange, source: src)
            context.tree.add(f[.firstValue], .unsigned(UInt64(first)), body.offset..<(body.offset + 1), source: src)
            // At most 0xA0 + 0x10 × UInt32.max: no overflow in 64 bits.
            let due = UInt8(truncatingIfNeeded: header.sender.countingBase + 0x10 * UInt64(header.number))
            if first != due {
                context.expert(
                    .warning,
                    "SDU \(header.number) \(header.sender.tag) counts from \(hex(first)), not \(hex(due))",
                    body.offset..<(body.offset + 1),
                    source: src
                )
            }
            let breakAt = body.remainingSlice.indices.first { i in
                body.remainingSlice[i] != first &+ UInt8(truncatingIfNeeded: i - body.remainingSlice.startIndex)
            }
            context.tree.add(f[.countsUp], .boolean(breakAt == nil), bodyRange, source: src)
            if let i = breakAt {
                let expected = first &+ UInt8(truncatingIfNeeded: i - body.remainingSlice.startIndex)
                // Offsets are those of the data source: the slice's indices are too.
                context.expert(
                    .warning,
                    "The count breaks: \(hex(body.remainingSlice[i])) where \(hex(expected)) was due",
                    i..<(i + 1),
                    source: src
                )
            }
            context.appendInfo("\(body.remaining) bytes counting from \(hex(first))")
        }

        followSequence(header, &context)
    }

    /// Adds the frame of the sender's previous SDU on this channel, with a warning when SDUs are
    /// missing in between or the number goes back.
    private func followSequence(_ header: ThermoProbeHeader, _ context: inout DissectionContext) {
        let state = context.state.module(ThermoProbeState.self) { ThermoProbeState() }
        let stream = ThermoProbeState.Stream(
            connection: context.packet.connection,
            cid: context.packet.cid,
            sender: header.sender
        )
        let src = header.source
        switch state.record(stream, number: header.number, frame: context.frameNumber) {
        case .first:
            break
        case .next(let previousFrame):
            context.tree.add(f[.previousInFrame], .unsigned(UInt64(previousFrame)), header.numberRange, source: src)
        case .out(let previousNumber, let previousFrame):
            context.tree.add(f[.previousInFrame], .unsigned(UInt64(previousFrame)), header.numberRange, source: src)
            let what: String
            if header.number > previousNumber {
                what = "\(header.number - previousNumber - 1) SDU(s) missing"
            } else {
                what = header.number == previousNumber ? "the same number again" : "the number goes back"
            }
            context.expert(
                .warning,
                "SDU \(header.number) \(header.sender.tag) follows SDU \(previousNumber) (frame \(previousFrame)): \(what)",
                header.numberRange,
                source: src
            )
        case .untracked:
            context.expert(
                .note,
                "Following \(ThermoProbeState.maximumStreams) streams already: this one's SDU numbers are not checked",
                header.numberRange,
                source: src
            )
        }
    }

    private func hex(_ value: UInt8) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" : "") + digits
    }
}

/// The header of an SDU: `C>P SDU 1 len 200 |`, with the ranges its parts came from.
struct ThermoProbeHeader {
    var text: String
    var sender: ThermoProbeSender
    var number: UInt32
    var length: UInt16
    var tagRange: Range<Int>
    var numberRange: Range<Int>
    var lengthRange: Range<Int>
    var source: Int

    /// The longest header: `P>C SDU 4294967295 len 65535 |` is 30 bytes.
    static let maximumLength = 30

    /// Reads the header through its `|`. Throws `.truncated` when the SDU ends before a `|`
    /// could come, `.malformed` when the header is not of the stream's form.
    static func read(_ reader: inout ByteReader) throws(DecodeError) -> ThermoProbeHeader {
        let start = reader.offset
        let bar = UInt8(ascii: "|")
        var end: Int? = nil
        for k in 0..<min(reader.remaining, maximumLength) where reader.peekUInt8(at: k) == bar {
            end = k + 1
            break
        }
        guard let end else {
            if reader.remaining < maximumLength {
                throw DecodeError.truncated(at: start + reader.remaining, need: 1, have: 0)
            }
            throw DecodeError(.malformed, offset: start, "no header: no '|' in the first \(maximumLength) bytes")
        }
        let bytes = try reader.readBytes(end)
        let words = split(bytes, at: start)
        let form = "not a header of the form 'C>P SDU n len nnn |'"
        guard words.count == 6, words[1].text == "SDU", words[3].text == "len", words[5].text == "|" else {
            throw DecodeError(.malformed, offset: start, form)
        }
        let sender: ThermoProbeSender
        switch words[0].text {
        case ThermoProbeSender.central.tag: sender = .central
        case ThermoProbeSender.peripheral.tag: sender = .peripheral
        default: throw DecodeError(.malformed, offset: start, "unknown sender tag: " + form)
        }
        guard let number = decimal(words[2].text).flatMap(UInt32.init(exactly:)) else {
            throw DecodeError(.malformed, offset: words[2].range.lowerBound, "the SDU number is not a number")
        }
        guard let length = decimal(words[4].text).flatMap(UInt16.init(exactly:)) else {
            throw DecodeError(.malformed, offset: words[4].range.lowerBound, "the length is not a number up to 65535")
        }
        return ThermoProbeHeader(
            text: String(decoding: bytes, as: UTF8.self),
            sender: sender,
            number: number,
            length: length,
            tagRange: words[0].range,
            numberRange: words[2].range,
            lengthRange: words[4].range,
            source: reader.source
        )
    }

    /// The words of `bytes` (split at single spaces), each with its range in the data source.
    private static func split(_ bytes: [UInt8], at start: Int) -> [(text: String, range: Range<Int>)] {
        var words: [(text: String, range: Range<Int>)] = []
        var wordStart = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == UInt8(ascii: " ") {
            words.append((String(decoding: bytes[wordStart..<i], as: UTF8.self), (start + wordStart)..<(start + i)))
            wordStart = i + 1
        }
        return words
    }

    /// The value of 1 to 10 decimal digits (less than 10¹⁰, so no overflow), else nil.
    private static func decimal(_ text: String) -> UInt64? {
        guard (1...10).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return text.utf8.reduce(0) { $0 * 10 + UInt64($1 - 0x30) }
    }
}
