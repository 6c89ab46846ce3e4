import BLEInspectCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A growable byte buffer that renderers write text into: UTF-8 appended straight to memory, with
/// one capacity check per item and no reference counting. Each `append…` produces the same bytes
/// as the String formatting it replaces. Reused from frame to frame; handed to the output sink
/// whole. Public for the threaded reader, whose threads hand each other output and frames in
/// such buffers.
public struct TextBuffer: ~Copyable, EscapedTextOutput {
    private var base: UnsafeMutablePointer<UInt8>
    public private(set) var count = 0
    private var capacity: Int
    /// The local date of the last whole second written (`TimeFormat.appendLocalDate`): frames
    /// come many to a second, and converting a time to the local zone costs more than the rest
    /// of a frame's times.
    var lastLocalDate = LocalDateText()
    /// The last 128-bit UUIDs written (`appendCanonicalUUID`): a frame names the same few again
    /// and again (a characteristic's UUID and its service's, under two fields each).
    var lastUUIDs = UUIDTexts()
    /// The whole seconds of the last times written (`appendSeconds`).
    var lastSeconds = SecondsTexts()

    public init(capacity: Int = 256) {
        self.capacity = max(16, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Forgets the contents, keeping the memory.
    mutating func removeAll() { count = 0 }

    /// Forgets the contents, keeping at most `kept` bytes of memory (a buffer that an unusual
    /// item made large gives the rest back).
    public mutating func removeAll(keepingAtMost kept: Int) {
        count = 0
        guard capacity > kept else { return }
        base.deallocate()
        capacity = max(16, kept)
        base = .allocate(capacity: capacity)
    }

    /// The bytes written so far, valid until the next append.
    public var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// The contents as a String (they are valid UTF-8).
    var string: String { String(decoding: bytes, as: UTF8.self) }

    @inline(never)
    private mutating func grow(_ needed: Int) {
        let newCapacity = max(2 * capacity, count + needed)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = newCapacity
    }

    /// Counts `n` bytes written at `reserve`'s pointer.
    @inline(__always)
    mutating func advance(_ n: Int) { count &+= n }

    /// Makes room for `n` more bytes and returns where they go; the caller writes them and
    /// `advance`s.
    @inline(__always)
    mutating func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity &- count < n { grow(n) }
        return base + count
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(1) }
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    mutating func append(_ a: UInt8, _ b: UInt8) {
        let p = reserve(2)
        p[0] = a
        p[1] = b
        count &+= 2
    }

    @inline(__always)
    public mutating func append(contentsOf run: UnsafeBufferPointer<UInt8>) {
        let n = run.count
        guard n > 0, let source = run.baseAddress else { return }
        let p = reserve(n)
        // Names and keys are short: copy them with two to four overlapping word moves.
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(p)
        if n >= 8 && n <= 16 {
            let head = from.loadUnaligned(as: UInt64.self)
            let tail = from.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
            to.storeBytes(of: head, as: UInt64.self)
            to.storeBytes(of: tail, toByteOffset: n &- 8, as: UInt64.self)
        } else if n > 16 && n <= 32 {
            let a = from.loadUnaligned(as: UInt64.self)
            let b = from.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            let c = from.loadUnaligned(fromByteOffset: n &- 16, as: UInt64.self)
            let d = from.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
            to.storeBytes(of: a, as: UInt64.self)
            to.storeBytes(of: b, toByteOffset: 8, as: UInt64.self)
            to.storeBytes(of: c, toByteOffset: n &- 16, as: UInt64.self)
            to.storeBytes(of: d, toByteOffset: n &- 8, as: UInt64.self)
        } else if n >= 4 && n < 8 {
            let head = from.loadUnaligned(as: UInt32.self)
            let tail = from.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
            to.storeBytes(of: head, as: UInt32.self)
            to.storeBytes(of: tail, toByteOffset: n &- 4, as: UInt32.self)
        } else if n < 4 {
            p[0] = source[0]
            p[n &- 1] = source[n &- 1]
            p[n >> 1] = source[n >> 1]
        } else {
            p.update(from: source, count: n)
        }
        count &+= n
    }

    /// Appends `n` bytes that `fill` writes at the pointer it is given (exactly `n` of them).
    public mutating func append(count n: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Void) {
        guard n > 0 else { return }
        fill(UnsafeMutableRawBufferPointer(start: reserve(n), count: n))
        count &+= n
    }

    @inline(__always)
    public mutating func appendByte(_ byte: UInt8) { append(byte) }

    @inline(__always)
    public mutating func appendRun(_ run: UnsafeBufferPointer<UInt8>) { append(contentsOf: run) }

    /// Inserts `n` spaces at `offset`, moving what follows (for right-aligning a column).
    mutating func insertSpaces(_ n: Int, at offset: Int) {
        guard n > 0 else { return }
        _ = reserve(n)
        (base + offset + n).update(from: base + offset, count: count - offset)
        (base + offset).update(repeating: 0x20, count: n)
        count &+= n
    }

    /// Appends the UTF-8 of a static string (a literal).
    @inline(__always)
    mutating func appendLiteral(_ s: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Appends the UTF-8 of `s`.
    @inline(__always)
    mutating func appendUTF8(_ s: String) {
        var s = s
        s.withUTF8 { append(contentsOf: $0) }
    }

    /// Appends `n` spaces (nothing when `n` <= 0).
    @inline(__always)
    mutating func appendSpaces(_ n: Int) {
        guard n > 0 else { return }
        // Whole words of spaces; the last may run past `n` into reserved room.
        let p = UnsafeMutableRawPointer(reserve(n &+ 7))
        var i = 0
        repeat {
            p.storeBytes(of: 0x2020_2020_2020_2020 as UInt64, toByteOffset: i, as: UInt64.self)
            i &+= 8
        } while i < n
        count &+= n
    }

    /// Appends an unsigned decimal number: the bytes of `String(v)`.
    @inline(__always)
    mutating func appendDecimal(_ v: UInt64) {
        if v < 10 {
            append(UInt8(truncatingIfNeeded: v) &+ 0x30)
        } else if v < 100 {
            let pair = Int(truncatingIfNeeded: v) &* 2
            append(Self.digitPairs.utf8Start[pair], Self.digitPairs.utf8Start[pair &+ 1])
        } else {
            appendLongDecimal(v, minimumDigits: 0, pad: 0x30)
        }
    }

    /// "00" to "99", for writing two digits at a time.
    private static var digitPairs: StaticString {
        """
        0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
    }

    /// Appends `v` in decimal, padded on the left with `pad` to at least `minimum` columns.
    @inline(never)
    private mutating func appendLongDecimal(_ v: UInt64, minimumDigits minimum: Int, pad: UInt8) {
        let digits = Self.decimalDigits(v)
        if minimum > digits {
            let p = reserve(minimum &- digits)
            p.update(repeating: pad, count: minimum &- digits)
            count &+= minimum &- digits
        }
        if digits <= 6 {
            appendPairs(v, count: digits)
            return
        }
        if digits <= 16 {
            appendDigits(v, count: digits)
            return
        }
        // 17 or more digits: the first one to four, then sixteen.
        let high = v / 10_000_000_000_000_000
        appendDigits(high, count: digits &- 16)
        appendDigits(v &- high &* 10_000_000_000_000_000, count: 16)
    }

    /// Appends the `digits` decimal digits of `v`, two at a time from `digitPairs`: for up to six
    /// digits, fewer instructions than a word of eight (`appendDigits`).
    @inline(__always)
    private mutating func appendPairs(_ v: UInt64, count digits: Int) {
        let p = reserve(digits)
        let pairs = Self.digitPairs.utf8Start
        var rest = v
        var i = digits
        while rest >= 100 {
            let pair = Int(rest % 100) &* 2
            rest /= 100
            i &-= 2
            p[i] = pairs[pair]
            p[i &+ 1] = pairs[pair &+ 1]
        }
        if rest >= 10 {
            let pair = Int(rest) &* 2
            p[i &- 2] = pairs[pair]
            p[i &- 1] = pairs[pair &+ 1]
        } else {
            p[i &- 1] = UInt8(truncatingIfNeeded: rest) &+ 0x30
        }
        count &+= digits
    }

    /// Appends a signed decimal number: the bytes of `String(v)`.
    @inline(__always)
    mutating func appendDecimal(_ v: Int64) {
        if v < 0 { append(0x2D) }
        appendDecimal(v.magnitude)
    }

    /// Appends a signed decimal number right-aligned in `width` columns (padded with spaces).
    mutating func appendDecimal(_ value: Int64, width: Int) {
        if value < 0 {
            appendSpaces(width - Self.decimalDigits(value.magnitude) - 1)
            append(0x2D)
            appendDecimal(value.magnitude)
        } else {
            appendLongDecimal(value.magnitude, minimumDigits: width, pad: 0x20)
        }
    }

    /// Appends `v` in decimal with at least `minimum` digits, zero-padded on the left.
    mutating func appendDecimal(_ v: UInt64, minimumDigits minimum: Int) {
        appendLongDecimal(v, minimumDigits: minimum, pad: 0x30)
    }

    /// Appends `value` as exactly `digits` decimal digits, zero-padded (higher digits dropped).
    mutating func appendZeroPadded(_ value: UInt32, digits: Int) {
        guard digits > 0 else { return }
        let p = reserve(digits)
        var v = value
        var i = digits
        while i > 0 {
            i -= 1
            p[i] = UInt8(truncatingIfNeeded: v % 10) &+ 0x30
            v /= 10
        }
        count &+= digits
    }

    /// The number of decimal digits of `v` (1 for 0): from its bit length, which leaves two
    /// candidates, and one comparison.
    @inline(__always)
    static func decimalDigits(_ v: UInt64) -> Int {
        // floor(log10(2^bits)) = floor(bits × log10(2)); log10(2) ≈ 1233 / 4096.
        let bits = 64 &- (v | 1).leadingZeroBitCount
        let guess = (bits &* 1233) >> 12
        return v >= powerOfTen(guess) ? guess &+ 1 : max(1, guess)
    }

    /// 10^`n`, for `n` in 0...19 (a constant table once compiled).
    @inline(__always)
    static func powerOfTen(_ n: Int) -> UInt64 {
        switch n {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1000
        case 4: 10000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        case 8: 100_000_000
        case 9: 1_000_000_000
        case 10: 10_000_000_000
        case 11: 100_000_000_000
        case 12: 1_000_000_000_000
        case 13: 10_000_000_000_000
        case 14: 100_000_000_000_000
        case 15: 1_000_000_000_000_000
        case 16: 10_000_000_000_000_000
        case 17: 100_000_000_000_000_000
        case 18: 1_000_000_000_000_000_000
        default: 10_000_000_000_000_000_000
        }
    }

    @inline(__always)
    static func hexDigit(_ d: UInt8) -> UInt8 { d < 10 ? 0x30 &+ d : 0x57 &+ d }

    @inline(__always)
    static func upperHexDigit(_ d: UInt8) -> UInt8 { d < 10 ? 0x30 &+ d : 0x37 &+ d }

    /// Appends a byte as two hex digits.
    @inline(__always)
    mutating func appendHexByte(_ b: UInt8, upperCase: Bool = false) {
        let p = reserve(2)
        if upperCase {
            p[0] = Self.upperHexDigit(b >> 4)
            p[1] = Self.upperHexDigit(b & 0x0F)
        } else {
            p[0] = Self.hexDigit(b >> 4)
            p[1] = Self.hexDigit(b & 0x0F)
        }
        count &+= 2
    }

    /// Appends `v` in hex with at least `minimum` digits, zero-padded: `String(v, radix: 16)`
    /// padded on the left.
    mutating func appendHex(_ v: UInt64, minimumDigits minimum: Int, upperCase: Bool = false) {
        let needed = max(1, (64 - v.leadingZeroBitCount + 3) / 4)
        let n = max(needed, minimum)
        #if _endian(little)
            if n <= 8 {
                // All eight digits of the low 32 bits at once (`hexDigits`), of which the last `n`
                // are kept: in memory order, they start at byte 8 - n of the word.
                let digits = Self.hexDigits(UInt32(truncatingIfNeeded: v), upperCase) >> UInt64(8 &* (8 &- n))
                UnsafeMutableRawPointer(reserve(8)).storeBytes(of: digits, as: UInt64.self)
                count &+= n
                return
            }
        #endif
        let p = reserve(n)
        var i = n
        var rest = v
        while i > 0 {
            i -= 1
            let d = UInt8(truncatingIfNeeded: rest) & 0x0F
            p[i] = upperCase ? Self.upperHexDigit(d) : Self.hexDigit(d)
            rest >>= 4
        }
        count &+= n
    }

    /// Appends `0x` and lower-case hex, zero-padded to the width of a `bits`-bit field
    /// (`Hex.padded`).
    @inline(__always)
    mutating func appendPaddedHex(_ v: UInt64, bits: Int) {
        append(0x30, 0x78)
        appendHex(v, minimumDigits: max(1, (bits + 3) / 4))
    }

    /// Appends contiguous lower-case hex of `bytes` (`Hex.string`).
    mutating func appendHexString(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        guard n > 0 else { return }
        let p = reserve(2 * n)
        var o = 0
        for b in bytes {
            p[o] = Self.hexDigit(b >> 4)
            p[o + 1] = Self.hexDigit(b & 0x0F)
            o += 2
        }
        count &+= 2 * n
    }

    /// Appends nanoseconds (since the epoch, or a span) as seconds with nine decimals, sign and
    /// magnitude as tshark shows times: `-0.300000000` (`FieldFormatter.epoch`).
    mutating func appendSeconds(nanoseconds nanos: Int64) {
        if nanos < 0 { append(0x2D) }
        let m = nanos.magnitude
        let seconds = m / 1_000_000_000
        appendWholeSeconds(seconds)
        append(0x2E)
        appendNineDigits(m &- seconds &* 1_000_000_000)
    }

    /// Appends a real number as tshark shows a double (C's `%.15g`): at most 15 significant
    /// digits, correctly rounded; plain notation when the rounded value's decimal exponent is
    /// -4 through 14 (`0.0001`, `23.45`, `1013.2`, `21`, `123456789012345`), else
    /// `d.ddde±XX` (`1e-05`, `1.5e+15`); no trailing zeros and no trailing point. NaN is `NaN`,
    /// the infinities `inf` and `-inf`, negative zero `-0`. Finite values are valid JSON numbers.
    mutating func appendReal(_ v: Double) {
        if v.isNaN {
            appendLiteral("NaN")
            return
        }
        if v.sign == .minus { append(0x2D) }
        let m = v.magnitude
        if m.isInfinite {
            appendLiteral("inf")
            return
        }
        if m == 0 {
            append(0x30)
            return
        }
        let (significand, exponent) = Self.fifteenDigits(m)
        appendDecimalDigits(significand, exponent: exponent)
    }

    /// `m` (positive, finite) rounded to 15 significant digits: `significand` × 10^`exponent`,
    /// with no trailing zeros in `significand`.
    ///
    /// The digits come from `Double.description`, the shortest that round-trips. For a normal
    /// double, 15 or fewer of them are already the 15-digit rounding: two 15-digit decimals are
    /// further apart than a double's rounding interval is wide, so no other one can be nearer. 16 or 17 digits are rounded to 15; they lie on the same side of the
    /// rounding midpoint as `m` unless they are the midpoint itself, and only then (and for
    /// subnormal values, whose shortest digits can be fewer than their 15-digit rounding) the C
    /// library rounds the exact value.
    static func fifteenDigits(_ m: Double) -> (UInt64, Int) {
        if m < Double.leastNormalMagnitude { return libcFifteenDigits(m) }
        var significand: UInt64 = 0
        var count = 0
        var exponent = 0
        var seenPoint = false
        var inExponent = false
        var exponentNegative = false
        var statedExponent = 0
        for c in m.description.utf8 {
            switch c {
            case 0x30...0x39:
                let d = UInt64(c &- 0x30)
                if inExponent {
                    statedExponent = statedExponent &* 10 &+ Int(d)
                } else if significand == 0 && d == 0 {
                    if seenPoint { exponent -= 1 }
                } else {
                    significand = significand &* 10 &+ d
                    count += 1
                    if seenPoint { exponent -= 1 }
                }
            case 0x2E: seenPoint = true
            case 0x65, 0x45: inExponent = true
            case 0x2D: exponentNegative = true
            default: break
            }
        }
        exponent += exponentNegative ? -statedExponent : statedExponent
        while count > 1 && significand % 10 == 0 {
            significand /= 10
            count -= 1
            exponent += 1
        }
        guard count > 15 else { return (significand, exponent) }
        var divisor: UInt64 = 1
        for _ in 0..<(count - 15) { divisor *= 10 }
        let (kept, rest) = significand.quotientAndRemainder(dividingBy: divisor)
        if rest == divisor / 2 { return libcFifteenDigits(m) }
        significand = rest > divisor / 2 ? kept + 1 : kept
        exponent += count - 15
        while significand % 10 == 0 {
            significand /= 10
            exponent += 1
        }
        return (significand, exponent)
    }

    /// `fifteenDigits` by the C library's `%.14e` (15 significant digits, correctly rounded, ties
    /// to even). Only the digits and the exponent are read, so the locale's decimal point does
    /// not matter.
    @inline(never)
    static func libcFifteenDigits(_ m: Double) -> (UInt64, Int) {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 48) { buffer -> (UInt64, Int) in
            guard let base = buffer.baseAddress else { return (0, 0) }
            let n = withVaList([m]) { vsnprintf(base, 48, "%.14e", $0) }
            var significand: UInt64 = 0
            var exponent = 0
            var exponentNegative = false
            var inExponent = false
            for i in 0..<max(0, min(Int(n), 47)) {
                let c = UInt8(bitPattern: base[i])
                switch c {
                case 0x30...0x39:
                    if inExponent {
                        exponent = exponent * 10 + Int(c - 0x30)
                    } else {
                        significand = significand * 10 + UInt64(c - 0x30)
                    }
                case 0x65, 0x45: inExponent = true
                case 0x2D: if inExponent { exponentNegative = true }
                default: break
                }
            }
            var e = (exponentNegative ? -exponent : exponent) - 14
            while significand > 9 && significand % 10 == 0 {
                significand /= 10
                e += 1
            }
            return (significand, e)
        }
    }

    /// Appends `significand` × 10^`exponent` (`significand` > 0, at most 15 digits, no trailing
    /// zeros) as `%.15g` shows it.
    private mutating func appendDecimalDigits(_ significand: UInt64, exponent: Int) {
        let count = Self.decimalDigits(significand)
        let start = self.count
        appendDecimal(significand)
        // The decimal exponent of the first digit.
        let leading = exponent + count - 1
        if leading < -4 || leading >= 15 {
            // d.ddd, then e±XX with at least two digits.
            if count > 1 {
                _ = reserve(1)
                (base + start + 2).update(from: base + start + 1, count: count - 1)
                base[start + 1] = 0x2E
                self.count &+= 1
            }
            append(0x65)
            append(leading < 0 ? 0x2D : 0x2B)
            appendDecimal(UInt64(leading.magnitude), minimumDigits: 2)
        } else if leading < 0 {
            // 0.000ddd
            insertZeros(2 + (-leading - 1), at: start)
            base[start + 1] = 0x2E
        } else if leading + 1 >= count {
            // dddd000
            for _ in 0..<(leading + 1 - count) { append(0x30) }
        } else {
            // ddd.ddd
            _ = reserve(1)
            let point = start + leading + 1
            (base + point + 1).update(from: base + point, count: self.count - point)
            base[point] = 0x2E
            self.count &+= 1
        }
    }

    /// Inserts `n` zeros at `offset`, moving what follows.
    private mutating func insertZeros(_ n: Int, at offset: Int) {
        guard n > 0 else { return }
        _ = reserve(n)
        (base + offset + n).update(from: base + offset, count: count - offset)
        (base + offset).update(repeating: 0x30, count: n)
        count &+= n
    }

    /// Appends a device address as `AA:BB:CC:DD:EE:FF` (`BDAddr.description`), or lower case.
    /// The twelve digits come eight at a time (`hexDigits`), and go out two at a time.
    mutating func appendAddress(_ a: BDAddr, upperCase: Bool) {
        // Byte k of each word is its k-th digit in memory order: the address's digits are the
        // high word's last four and the low word's eight.
        let high = Self.hexDigits(UInt32(truncatingIfNeeded: a.rawValue >> 32), upperCase).littleEndian
        let low = Self.hexDigits(UInt32(truncatingIfNeeded: a.rawValue), upperCase).littleEndian
        let p = UnsafeMutableRawPointer(reserve(17))
        func pair(_ word: UInt64, _ k: UInt64) -> UInt16 { UInt16(truncatingIfNeeded: word >> (8 &* k)).littleEndian }
        p.storeBytes(of: pair(high, 4), as: UInt16.self)
        p.storeBytes(of: pair(high, 6), toByteOffset: 3, as: UInt16.self)
        p.storeBytes(of: pair(low, 0), toByteOffset: 6, as: UInt16.self)
        p.storeBytes(of: pair(low, 2), toByteOffset: 9, as: UInt16.self)
        p.storeBytes(of: pair(low, 4), toByteOffset: 12, as: UInt16.self)
        p.storeBytes(of: pair(low, 6), toByteOffset: 15, as: UInt16.self)
        p.storeBytes(of: 0x3A, toByteOffset: 2, as: UInt8.self)
        p.storeBytes(of: 0x3A, toByteOffset: 5, as: UInt8.self)
        p.storeBytes(of: 0x3A, toByteOffset: 8, as: UInt8.self)
        p.storeBytes(of: 0x3A, toByteOffset: 11, as: UInt8.self)
        p.storeBytes(of: 0x3A, toByteOffset: 14, as: UInt8.self)
        count &+= 17
    }

    /// Appends a UUID as `BluetoothUUID.description` shows it, or lower case.
    mutating func appendUUID(_ u: BluetoothUUID, upperCase: Bool) {
        if u.width <= 4, let short = u.shortValue {
            append(0x30, 0x78)
            appendHex(UInt64(short), minimumDigits: u.width == 2 ? 4 : 8, upperCase: upperCase)
            return
        }
        appendCanonicalUUID(u, upperCase: upperCase)
    }

    /// Appends the 128-bit 8-4-4-4-12 form (`BluetoothUUID.canonical`), eight digits at a time
    /// (`hexDigits`).
    mutating func appendCanonicalUUID(_ u: BluetoothUUID, upperCase: Bool) {
        if let text = lastUUIDs.text(u, upperCase: upperCase) {
            let p = UnsafeMutableRawPointer(reserve(40))
            withUnsafeBytes(of: text) { UnsafeMutableRawBufferPointer(start: p, count: 40).copyMemory(from: $0) }
            count &+= 36
            return
        }
        let start = count
        writeCanonicalUUID(u, upperCase: upperCase)
        lastUUIDs.keep(u, upperCase: upperCase, text: UnsafeRawPointer(base + start))
    }

    /// Writes the 8-4-4-4-12 form (`appendCanonicalUUID`), with four bytes of room after it.
    private mutating func writeCanonicalUUID(_ u: BluetoothUUID, upperCase: Bool) {
        let p = UnsafeMutableRawPointer(reserve(40))
        let digits = (
            Self.hexDigits(UInt32(truncatingIfNeeded: u.high >> 32), upperCase),
            Self.hexDigits(UInt32(truncatingIfNeeded: u.high), upperCase),
            Self.hexDigits(UInt32(truncatingIfNeeded: u.low >> 32), upperCase),
            Self.hexDigits(UInt32(truncatingIfNeeded: u.low), upperCase)
        )
        withUnsafeBytes(of: digits) { d in
            guard let d = d.baseAddress else { return }
            // 8 digits, dash, 4 + dash + 4, dash, 4 + dash + 4, then 8: dashes at 8, 13, 18, 23.
            p.copyMemory(from: d, byteCount: 8)
            (p + 9).copyMemory(from: d + 8, byteCount: 4)
            (p + 14).copyMemory(from: d + 12, byteCount: 4)
            (p + 19).copyMemory(from: d + 16, byteCount: 4)
            (p + 24).copyMemory(from: d + 20, byteCount: 4)
            (p + 28).copyMemory(from: d + 24, byteCount: 8)
        }
        p.storeBytes(of: 0x2D, toByteOffset: 8, as: UInt8.self)
        p.storeBytes(of: 0x2D, toByteOffset: 13, as: UInt8.self)
        p.storeBytes(of: 0x2D, toByteOffset: 18, as: UInt8.self)
        p.storeBytes(of: 0x2D, toByteOffset: 23, as: UInt8.self)
        p.storeBytes(of: 0, toByteOffset: 36, as: UInt32.self)
        count &+= 36
    }

    /// The eight hex digits of `v`, most significant first, as the bytes of the value returned
    /// (in memory order): the nibbles are spread one to a byte, then each becomes its digit.
    @inline(__always)
    static func hexDigits(_ v: UInt32, _ upperCase: Bool) -> UInt64 {
        var x = UInt64(v)
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
        x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F
        // 1 in each byte whose nibble is 10 or more: those become letters.
        let letters = ((x &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        x = x &+ 0x3030_3030_3030_3030 &+ letters &* (upperCase ? 0x07 : 0x27)
        return x.bigEndian
    }
}

/// A local date as `TimeFormat.appendLocalDate` writes it, for one whole second: the text up to
/// the seconds, and the zone's name after the fraction, kept in place (no reference counting).
/// A text too long for its room is not kept.
struct LocalDateText {
    static var room: Int { 48 }
    var second = Int64.min
    /// The date's bytes, then the zone's.
    var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
    var dateCount = 0
    var zoneCount = 0

    /// The text of `second`: `date` before the fraction, `zone` after it; nil when they do not fit.
    init?(second: Int64, date: UnsafeBufferPointer<UInt8>, zone: UnsafeBufferPointer<UInt8>) {
        guard date.count + zone.count <= Self.room else { return nil }
        self.second = second
        dateCount = date.count
        zoneCount = zone.count
        withUnsafeMutableBytes(of: &bytes) { room in
            room.copyMemory(from: UnsafeRawBufferPointer(date))
            UnsafeMutableRawBufferPointer(rebasing: room[date.count...]).copyMemory(from: UnsafeRawBufferPointer(zone))
        }
    }

    init() {}
}

/// UUIDs and addresses written as every output writes them, for text made outside a renderer
/// (the views).
public enum ValueText {
    /// `0x2A00` or `B1E15EC7-0000-4000-8000-000000000001`; lower case for JSON.
    public static func uuid(_ u: BluetoothUUID, upperCase: Bool) -> String {
        var out = TextBuffer(capacity: 40)
        out.appendUUID(u, upperCase: upperCase)
        return out.string
    }

    /// `AA:BB:CC:DD:EE:FF`; lower case for JSON.
    public static func address(_ a: BDAddr, upperCase: Bool) -> String {
        var out = TextBuffer(capacity: 20)
        out.appendAddress(a, upperCase: upperCase)
        return out.string
    }
}
