import BLEInspectCore

/// One line of the overview's findings, with the connection it links to.
struct ReportFinding {
    enum Kind: String {
        case stall, attError = "att-error", pairing, malformed, warning, dualRole = "dual-role", attempt
    }

    var kind: Kind
    /// The connection's number, nil for a finding outside any connection.
    var connection: Int?
    /// Plain text (escaped where it is written).
    var text: String

    /// Everything the report calls a finding, from `conns`' records and links and the
    /// capture's problems, in connection order.
    static func all(_ capture: ReportCapture, _ builder: ConnsBuilder, _ names: ConnsNames) -> [ReportFinding] {
        var out: [ReportFinding] = []
        for r in capture.sorted {
            out += connection(r, names)
            if let p = capture.problems[r.number] { out += problems(p, r.number) }
        }
        if let p = capture.problems[nil] { out += problems(p, nil) }
        for (a, b) in builder.links.dualRolePairs {
            out.append(
                ReportFinding(
                    kind: .dualRole,
                    connection: a.connection,
                    text: ConnsFindings.dualRoleText(a, b).joined(separator: " ")
                )
            )
        }
        for a in builder.failedAttempts.items {
            let peer = a.peer.map { " to " + ViewText.address($0, upperCase: true) } ?? ""
            out.append(
                ReportFinding(
                    kind: .attempt,
                    connection: nil,
                    text: "failed connection attempt\(peer) (frame \(a.moment.frame)): status "
                        + ConnsNames.coded(a.status, names.status)
                )
            )
        }
        return out
    }

    /// A connection's stalls, ATT error responses and failed pairing.
    static func connection(_ r: ConnsRecord, _ names: ConnsNames) -> [ReportFinding] {
        var out: [ReportFinding] = []
        for c in r.channels {
            for (k, side) in c.sides.enumerated() {
                let stalls = side.stalls.items.count + side.stalls.dropped
                guard stalls > 0 else { continue }
                let who = k == 0 ? "local host" : "peer"
                out.append(
                    ReportFinding(
                        kind: .stall,
                        connection: r.number,
                        text: "channel \(c.number): the \(who) stalled at 0 credits \(stalls) time"
                            + (stalls == 1 ? "" : "s") + ", " + ConnsTime.seconds(side.stalledMicroseconds) + " in all"
                    )
                )
            }
        }
        let errors = r.att[0].errors &+ r.att[1].errors
        if errors > 0 {
            out.append(
                ReportFinding(
                    kind: .attError,
                    connection: r.number,
                    text: "\(errors) ATT error response" + (errors == 1 ? "" : "s")
                )
            )
        }
        if let failed = r.pairing?.failed {
            out.append(
                ReportFinding(
                    kind: .pairing,
                    connection: r.number,
                    text: "pairing failed: " + ConnsNames.coded(failed.reason, names.smpReason)
                        + " (frame \(failed.moment.frame))"
                )
            )
        }
        return out
    }

    static func problems(_ p: ReportProblems, _ connection: Int?) -> [ReportFinding] {
        let frames =
            " (frames " + p.frames.items.map(String.init).joined(separator: ", ") + (p.frames.dropped > 0 ? ", …" : "")
            + ")"
        var out: [ReportFinding] = []
        if p.malformed > 0 {
            out.append(
                ReportFinding(
                    kind: .malformed,
                    connection: connection,
                    text: "\(p.malformed) malformed frames" + frames
                )
            )
        }
        if p.warnings > 0 {
            out.append(
                ReportFinding(
                    kind: .warning,
                    connection: connection,
                    text: "\(p.warnings) frames with expert warnings" + (p.malformed > 0 ? "" : frames)
                )
            )
        }
        return out
    }
}
