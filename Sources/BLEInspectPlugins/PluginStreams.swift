import BLEInspectCore

/// The byte streams of framed channels: what has arrived of each one's next message. Bounded in
/// streams, per message and in total; every bound that is hit is reported, never silent.
final class PluginStreams: ConnectionScopedState {
    struct Key: Hashable {
        let connection: ConnectionKey
        let cid: UInt16
        let direction: UInt8
        let psm: UInt16
    }

    struct Stream {
        /// What has arrived and is not yet cut, from `start` on (the bytes before it are
        /// dropped once per SDU, not once per message).
        var buffer: [UInt8] = []
        var start = 0
        /// The stream position of `buffer[start]` (for chunk boundaries).
        var position = 0
        /// Padding runs to the next chunk boundary before the next message.
        var inPadding = false
        /// Where the delimiter search resumes (bytes before it hold no delimiter start).
        var searched = 0
        var warnedPadding = false
    }

    struct Note {
        let severity: ExpertSeverity
        let message: String
    }

    struct Result {
        var messages: [[UInt8]] = []
        var buffered = 0
        var notes: [Note] = []
    }

    private var streams: [Key: Stream] = [:]
    private var total = 0

    func connectionClosed(_ key: ConnectionKey) {
        for k in streams.keys where k.connection == key {
            total -= streams[k]?.buffer.count ?? 0
            streams[k] = nil
        }
    }

    func feed(_ bytes: some Collection<UInt8>, key: Key, framing: Framing) -> Result {
        var result = Result()
        if streams[key] == nil, streams.count >= PluginLimits.maximumStreams {
            result.notes.append(
                Note(
                    severity: .warning,
                    message: "more than \(PluginLimits.maximumStreams) framed streams at once: this one is not framed"
                )
            )
            return result
        }
        if total + bytes.count > PluginLimits.maximumBufferedBytes {
            result.notes.append(
                Note(
                    severity: .warning,
                    message:
                        "framing buffers reached \(PluginLimits.maximumBufferedBytes) bytes: this stream's buffer is dropped"
                )
            )
            total -= streams[key]?.buffer.count ?? 0
            streams[key] = nil
            return result
        }
        var s = streams[key] ?? Stream()
        total -= s.buffer.count
        s.buffer.append(contentsOf: bytes)
        cut(&s, framing, &result)
        s.buffer.removeFirst(s.start)
        s.searched = max(0, s.searched - s.start)
        s.start = 0
        if s.buffer.count > framing.maximumMessage {
            result.notes.append(
                Note(
                    severity: .warning,
                    message:
                        "a message is longer than \(framing.maximumMessage) bytes without ending: \(s.buffer.count) bytes dropped"
                )
            )
            s.position += s.buffer.count
            s.buffer.removeAll()
            s.searched = 0
        }
        result.buffered = s.buffer.count
        total += s.buffer.count
        streams[key] = s
        return result
    }

    private func consume(_ s: inout Stream, _ n: Int) {
        s.start += n
        s.position += n
        s.searched = s.start
    }

    /// Takes every complete message off the front of the stream.
    private func cut(_ s: inout Stream, _ framing: Framing, _ result: inout Result) {
        while true {
            if s.inPadding, let chunk = framing.chunk {
                let into = s.position % chunk
                let need = into == 0 ? 0 : chunk - into
                let n = min(need, s.buffer.count - s.start)
                let padding = s.buffer[s.start..<(s.start + n)]
                if let pad = framing.padding, !s.warnedPadding, padding.contains(where: { $0 != pad }) {
                    s.warnedPadding = true
                    result.notes.append(
                        Note(severity: .warning, message: "padding holds bytes other than the padding byte")
                    )
                }
                consume(&s, n)
                if n < need { return }
                s.inPadding = false
            }
            guard let message = next(&s, framing, &result) else { return }
            result.messages.append(message)
            if result.messages.count >= PluginLimits.maximumArrayElements {
                result.notes.append(Note(severity: .note, message: "more messages in one SDU than are decoded"))
                return
            }
        }
    }

    /// The next complete message, taken off the stream; nil when it has not all arrived.
    private func next(_ s: inout Stream, _ framing: Framing, _ result: inout Result) -> [UInt8]? {
        let from = s.start
        let available = s.buffer.count - from
        switch framing.mode {
        case .delimiter(let d):
            guard available >= d.count else { return nil }
            var i = max(s.searched, from)
            let last = s.buffer.count - d.count
            while i <= last {
                if s.buffer[i] == d[0] && s.buffer[i..<(i + d.count)].elementsEqual(d) {
                    let message = Array(s.buffer[from..<i])
                    consume(&s, i + d.count - from)
                    s.inPadding = framing.chunk != nil
                    return message
                }
                i += 1
            }
            s.searched = last + 1
            return nil
        case .lengthPrefix(let size, let big, let adjust):
            guard available >= size else { return nil }
            var length = 0
            for k in 0..<size {
                length = length << 8 | Int(s.buffer[from + (big ? k : size - 1 - k)])
            }
            length += adjust
            guard length >= 0, length <= framing.maximumMessage else {
                result.notes.append(
                    Note(
                        severity: .warning,
                        message:
                            "message length \(length) is outside 0…\(framing.maximumMessage): \(available) bytes dropped"
                    )
                )
                consume(&s, available)
                return nil
            }
            guard available >= size + length else { return nil }
            let message = Array(s.buffer[(from + size)..<(from + size + length)])
            consume(&s, size + length)
            s.inPadding = framing.chunk != nil
            return message
        case .chunks:
            guard let chunk = framing.chunk else { return nil }
            let need = chunk - s.position % chunk
            guard available >= need else { return nil }
            var end = from + need
            if let pad = framing.padding {
                while end > from, s.buffer[end - 1] == pad { end -= 1 }
            }
            let message = Array(s.buffer[from..<end])
            consume(&s, need)
            return message
        }
    }
}
