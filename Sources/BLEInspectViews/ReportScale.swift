/// A linear map from values (microseconds, credits, latencies) to SVG pixels, with round ticks.
struct ReportScale {
    let low: Double
    let high: Double
    let from: Double
    let to: Double

    /// Maps `low...high` onto `from...to` (`to` may be below `from`, for a y axis). An empty
    /// domain is widened by one so that every value still maps to a finite pixel.
    init(domain low: Double, _ high: Double, pixels from: Double, _ to: Double) {
        self.low = min(low, high)
        self.high = high > low ? high : low + 1
        self.from = from
        self.to = to
    }

    /// The pixel of `v`, clamped to the pixel range.
    func callAsFunction(_ v: Double) -> Double {
        let f = (v - low) / (high - low)
        let clamped = f.isFinite ? Swift.min(Swift.max(f, 0), 1) : 0
        return from + clamped * (to - from)
    }

    /// `v` as a whole number, clamped to ±9·10¹⁸ (0 when not finite): the checked way back
    /// from a scale's values to microseconds.
    static func integer(_ v: Double) -> Int64 {
        guard v.isFinite else { return 0 }
        return Int64(Swift.min(Swift.max(v, -9e18), 9e18).rounded())
    }

    /// Round values in the domain, about `count` of them: steps of 1, 2 or 5 times a power of ten.
    func ticks(count: Int = 5) -> [Double] {
        let span = high - low
        guard span > 0, span.isFinite, count > 0 else { return [low] }
        let raw = span / Double(count)
        var magnitude = 1.0
        while magnitude * 10 <= raw { magnitude *= 10 }
        while magnitude > raw { magnitude /= 10 }
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? magnitude * 10
        var out: [Double] = []
        var v = (low / step).rounded(.up) * step
        while v <= high + step * 1e-9, out.count < 100 {
            out.append(v)
            v += step
        }
        return out
    }
}

/// Credits as a step line: each value holds until the next change.
enum ReportStepLine {
    /// The corners of the step line through `points` (x, y), holding the last value to `endX`.
    static func corners(_ points: [(x: Double, y: Double)], endX: Double) -> [(x: Double, y: Double)] {
        guard let first = points.first else { return [] }
        var out = [first]
        for p in points.dropFirst() {
            if let last = out.last, last.y != p.y {
                out.append((p.x, last.y))
                out.append(p)
            }
        }
        if let last = out.last, endX > last.x { out.append((endX, last.y)) }
        return out
    }

    /// An SVG path's `d` through `corners`.
    static func path(_ corners: [(x: Double, y: Double)]) -> String {
        corners.enumerated().map { k, p in (k == 0 ? "M" : "L") + Markup.number(p.x) + " " + Markup.number(p.y) }
            .joined(separator: " ")
    }
}
