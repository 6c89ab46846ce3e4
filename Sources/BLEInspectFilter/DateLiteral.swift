#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Dates in filters, as Wireshark reads them for absolute-time fields (`frame.time`).
enum DateLiteral {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Nanoseconds since the epoch, or nil when `text` is no date Wireshark reads.
    static func parse(_ text: String) -> Int64? {
        let t = text.trimmingSpaces
        if let first = t.first, first.isASCII, first.isNumber { return iso(t) }
        return legacy(t)
    }

    /// `2020-07-04`, `2020-07-04 12:34`, `2020-07-04T12:34:56.5Z`, `… +02:00`, `… UTC`.
    private static func iso(_ text: Substring) -> Int64? {
        var s = Scanner(text)
        guard let year = s.digits(4), s.take("-"), let month = s.number(maxDigits: 2), s.take("-"),
            let day = s.number(maxDigits: 2)
        else { return nil }
        var hour = 0
        var minute = 0
        var second = 0
        var nanos: Int64 = 0
        if s.take("T") || s.take(" ") {
            guard let h = s.digits(2), s.take(":"), let m = s.digits(2) else { return nil }
            hour = h
            minute = m
            if s.take(":") {
                guard let sec = s.digits(2) else { return nil }
                second = sec
                if s.take(".") {
                    guard let f = s.fraction() else { return nil }
                    nanos = f
                }
            }
        }
        s.skipSpaces()
        var offset: Int? = nil
        if s.take("Z") || s.take("UTC") {
            offset = 0
        } else if let sign = s.peek, sign == "+" || sign == "-" {
            s.advance()
            guard let h = s.digits(2) else { return nil }
            _ = s.take(":")
            guard let m = s.digits(2) else { return nil }
            offset = (sign == "-" ? -1 : 1) * (h * 3600 + m * 60)
        }
        guard s.atEnd else { return nil }
        return combine(year, month, day, hour, minute, second, nanos, offset: offset)
    }

    /// `Jul 4, 2020 12:34:56.954975`, optionally followed by `UTC`.
    private static func legacy(_ text: Substring) -> Int64? {
        var s = Scanner(text)
        guard let name = s.letters(), let monthIndex = months.firstIndex(of: name.lowercased()) else { return nil }
        s.skipSpaces()
        guard let day = s.number(maxDigits: 2), s.take(","), s.skipSpaces(), let year = s.digits(4), s.skipSpaces(),
            let hour = s.number(maxDigits: 2), s.take(":"), let minute = s.digits(2), s.take(":"),
            let second = s.digits(2)
        else { return nil }
        var nanos: Int64 = 0
        if s.take(".") {
            guard let f = s.fraction() else { return nil }
            nanos = f
        }
        s.skipSpaces()
        let utc = s.take("UTC")
        guard s.atEnd else { return nil }
        return combine(year, monthIndex + 1, day, hour, minute, second, nanos, offset: utc ? 0 : nil)
    }

    /// The instant, in UTC when `offset` (seconds east of UTC) is given, else in local time.
    private static func combine(
        _ year: Int,
        _ month: Int,
        _ day: Int,
        _ hour: Int,
        _ minute: Int,
        _ second: Int,
        _ nanos: Int64,
        offset: Int?
    ) -> Int64? {
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var tm = tm()
        tm.tm_year = Int32(year - 1900)
        tm.tm_mon = Int32(month - 1)
        tm.tm_mday = Int32(day)
        tm.tm_hour = Int32(hour)
        tm.tm_min = Int32(minute)
        tm.tm_sec = Int32(second)
        tm.tm_isdst = -1
        let seconds: Int64
        if let offset {
            seconds = Int64(timegm(&tm)) - Int64(offset)
        } else {
            seconds = Int64(mktime(&tm))
        }
        let (scaled, o1) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, o2) = scaled.addingReportingOverflow(nanos)
        return o1 || o2 ? nil : total
    }

    /// A cursor over the literal's characters.
    private struct Scanner {
        let chars: [Character]
        var i = 0

        init(_ text: Substring) { chars = Array(text) }

        var atEnd: Bool { i >= chars.count }
        var peek: Character? { i < chars.count ? chars[i] : nil }
        mutating func advance() { i += 1 }

        mutating func take(_ word: String) -> Bool {
            let w = Array(word)
            guard i + w.count <= chars.count, Array(chars[i..<i + w.count]) == w else { return false }
            i += w.count
            return true
        }

        @discardableResult
        mutating func skipSpaces() -> Bool {
            while let c = peek, c == " " { i += 1 }
            return true
        }

        /// Exactly `count` ASCII digits.
        mutating func digits(_ count: Int) -> Int? {
            guard i + count <= chars.count else { return nil }
            var v = 0
            for c in chars[i..<i + count] {
                guard c.isASCII, let d = c.wholeNumberValue else { return nil }
                v = v * 10 + d
            }
            i += count
            return v
        }

        /// One to `maxDigits` ASCII digits.
        mutating func number(maxDigits: Int) -> Int? {
            var v = 0
            var n = 0
            while n < maxDigits, let c = peek, c.isASCII, let d = c.wholeNumberValue {
                v = v * 10 + d
                n += 1
                i += 1
            }
            return n > 0 ? v : nil
        }

        /// Up to nine decimals after a `.`, as nanoseconds.
        mutating func fraction() -> Int64? {
            var v: Int64 = 0
            var n = 0
            while let c = peek, c.isASCII, let d = c.wholeNumberValue {
                guard n < 9 else { return nil }
                v = v * 10 + Int64(d)
                n += 1
                i += 1
            }
            guard n > 0 else { return nil }
            for _ in n..<9 { v *= 10 }
            return v
        }

        mutating func letters() -> String? {
            var out = ""
            while let c = peek, c.isASCII, c.isLetter {
                out.append(c)
                i += 1
            }
            return out.isEmpty ? nil : out
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
