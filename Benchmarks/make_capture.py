#!/usr/bin/env python3
"""Builds a large, deterministic btsnoop capture (datalink 1002, HCI H4) with a realistic BLE mix.

    python3 Benchmarks/make_capture.py OUT.btsnoop [FRAMES] [--sources NAME,...] [--json]
    python3 Benchmarks/make_capture.py --stats FILE.btsnoop [--json]

FRAMES defaults to 1,000,000. --sources names the recordings of captures/ to draw from (file names
without .btsnoop; default: DEFAULT_SOURCES, the recordings every published run used, so that a
recording added to captures/ later does not change the benchmark capture). --stats prints the mix of an existing file.
--json prints the mix as JSON.

Every frame comes from the project's own recordings. The result looks like the HCI log of a phone
that scans and talks to a few peripherals:

- The controller initialisation (the leading commands and their Command Complete events, up to
  the first scanning, advertising or connection command) appears once, at the start.
- About half of the frames are LE advertising reports: the legacy (LE Meta 0x02) and extended
  (LE Meta 0x0D) reports of the advertising recordings. Each report is sent by one of DEVICES
  devices: its address is rewritten, the rest of the report is kept as recorded. A quarter of the
  devices use extended advertising; nearby devices are heard more often than far ones. A legacy
  advertising event keeps its ADV_IND and SCAN_RSP together.
- Reports come in scanning blocks, each opened and closed with the scan commands of one
  advertising recording (the blocks take turns: legacy, extended). Between two blocks comes one
  connection episode: the recording of a connection
  (gatt-discovery, le-coc, smp-pairing, smp-legacy-pairing) without its initialisation: LE
  Create Connection, ATT, L2CAP signalling, CoC K-frames, SMP, Number Of Completed Packets,
  Disconnect. GATT sessions come three times as often as the others. Each episode connects to one
  of PERIPHERALS advertising devices (the peer address of LE Create Connection and of LE
  Connection Complete is rewritten).
- Timestamps strictly increase: inside an episode or an advertising event the recorded gaps are
  kept; between advertising events the gap is 1 to 15 ms, before an episode 20 ms.

The same arguments always give the same bytes (the only pseudo-random choices come from a
generator with a fixed seed). The mix is printed at the end. Standard library only.
"""
import argparse
import collections
import json
import os
import random
import struct
import sys

HEADER = b"btsnoop\0" + struct.pack(">II", 1, 1002)
RECORD = struct.Struct(">IIIIq")
PREFIX = struct.Struct(">IIII")
STAMP = struct.Struct(">q")
CAPTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "captures")
# The recordings the benchmark capture is made from. Fixed, so that runs stay comparable when
# captures/ grows; a new recording joins the mix only by being named here.
DEFAULT_SOURCES = ["adv-extended", "adv-scan", "gatt-discovery", "le-coc", "smp-legacy-pairing", "smp-pairing"]

DEVICES = 500            # advertisers heard by the phone
EXTENDED_EVERY = 4       # every 4th device uses extended advertising
PERIPHERALS = 4          # devices the phone connects to
EPISODE_WEIGHT = {"gatt-discovery": 3}   # others: 1
SEED = 1002

# Commands that end the controller initialisation: scanning, advertising, connecting.
ACTIVITY_OPCODES = {
    0x2006, 0x2008, 0x2009, 0x200A,          # LE Set Advertising Parameters/Data/Scan Response/Enable
    0x200B, 0x200C, 0x200D,                  # LE Set Scan Parameters/Enable, LE Create Connection
    0x2036, 0x2037, 0x2038, 0x2039,          # LE Set Extended Advertising Parameters/Data/.../Enable
    0x2041, 0x2042, 0x2043,                  # LE Set Extended Scan Parameters/Enable, Ext. Create Conn.
}
LEGACY_REPORT, EXTENDED_REPORT = 0x02, 0x0D
ADDRESS_AT = {LEGACY_REPORT: 7, EXTENDED_REPORT: 8}   # offset of the advertiser address (H4 payload)


# ---------------------------------------------------------------------------------------------
# Reading

def read_records(path):
    """Yields (original length, flags, timestamp, payload) of each record of a datalink-1002 file."""
    with open(path, "rb") as f:
        head = f.read(16)
        if head != HEADER:
            raise SystemExit(f"{path}: not a btsnoop file with datalink 1002")
        while True:
            raw = f.read(24)
            if len(raw) < 24:
                return
            orig, incl, flags, _drops, ts = RECORD.unpack(raw)
            yield orig, flags, ts, f.read(incl)


def is_command(p):
    return len(p) >= 3 and p[0] == 0x01


def opcode(p):
    return p[1] | p[2] << 8


def is_init_event(p):
    return len(p) >= 2 and p[0] == 0x04 and p[1] in (0x0E, 0x0F)    # Command Complete / Status


def report_kind(p):
    """LE Meta subevent 0x02 or 0x0D when the frame is a single advertising report, else None."""
    if len(p) >= 14 and p[0] == 0x04 and p[1] == 0x3E and p[3] in ADDRESS_AT and p[4] == 1:
        return p[3]
    return None


def split_preamble(frames):
    """The controller initialisation and the rest of a recording. The recordings share the same
    initialisation; the generator writes the first one's."""
    for i, (_, _, _, p) in enumerate(frames):
        if is_command(p) and opcode(p) not in ACTIVITY_OPCODES:
            continue
        if is_init_event(p):
            continue
        return frames[:i], frames[i:]
    return frames, []


# ---------------------------------------------------------------------------------------------
# Building blocks. A template is a list of (original length, flags, µs after its first frame,
# payload): a run of frames to be written with its recorded gaps.

def template(frames):
    t0 = frames[0][2]
    return [(orig, flags, ts - t0, p) for orig, flags, ts, p in frames]


def device_address(i):
    """Static random address C0:DE:xx:xx:xx:xx, distinct for each i, in HCI (little-endian) order."""
    low = ((i + 1) * 0x9E3779B1) & 0xFFFFFFFF
    return (0xC0DE << 32 | low).to_bytes(6, "little")


def with_address(p, at, addr):
    return p[:at] + addr + p[at + 6:]


def with_rssi(p, kind, rssi):
    """Sets the RSSI of a single-report advertising event: the last octet of a legacy report,
    octet 18 of an extended one (after event type, addresses, PHYs, SID and TX power)."""
    if len(p) < 5 or p[0] != 0x04 or p[1] != 0x3E or p[4] != 1:
        return p
    at = len(p) - 1 if kind == LEGACY_REPORT else 18
    if at >= len(p):
        return p
    return p[:at] + (rssi & 0xFF).to_bytes(1, "little") + p[at + 1:]


def peer_offset(p):
    """Offset of the peer address in LE Create Connection and LE (Enhanced) Connection Complete."""
    if is_command(p) and opcode(p) == 0x200D and len(p) >= 16:
        return 10
    if len(p) >= 15 and p[0] == 0x04 and p[1] == 0x3E and p[3] in (0x01, 0x0A):
        return 9
    return None


class Source:
    def __init__(self, names):
        self.preamble = None
        self.start = None                                        # first timestamp
        self.units = {LEGACY_REPORT: [], EXTENDED_REPORT: []}   # advertising events
        self.scan_on, self.scan_off = [], []                     # per advertising recording
        self.episodes = []                                       # (name, template)
        for name in names:
            path = os.path.join(CAPTURES, name + ".btsnoop")
            frames = list(read_records(path))
            preamble, body = split_preamble(frames)
            if self.start is None and frames:
                self.start = frames[0][2]
            if self.preamble is None and preamble:
                self.preamble = template(preamble)
            if not body:
                continue
            kinds = [report_kind(f[3]) for f in body]
            reports = [i for i, k in enumerate(kinds) if k]
            if reports:
                first, last = reports[0], reports[-1]
                self.scan_on.append(template(body[:first]) if first else [])
                self.scan_off.append(template(body[last + 1:]) if last + 1 < len(body) else [])
                unit = []
                for i in range(first, last + 1):
                    # A report more than 1 ms after the previous frame starts a new advertising event.
                    if unit and body[i][2] - unit[-1][2] > 1000:
                        self.add_unit(unit)
                        unit = []
                    unit.append(body[i])
                self.add_unit(unit)
            else:
                self.episodes.append((name, template(body)))
        if self.preamble is None:
            self.preamble = []

    def add_unit(self, frames):
        kind = report_kind(frames[0][3])
        if kind:
            self.units[kind].append(template(frames))


def episode_schedule(episodes):
    """Smooth weighted round robin over the episodes: deterministic, well interleaved."""
    weights = [EPISODE_WEIGHT.get(name, 1) for name, _ in episodes]
    current = [0] * len(episodes)
    total = sum(weights)
    order = []
    for _ in range(total):
        for i, w in enumerate(weights):
            current[i] += w
        best = max(range(len(episodes)), key=lambda i: current[i])
        current[best] -= total
        order.append(best)
    return order


# ---------------------------------------------------------------------------------------------
# Writing

class Writer:
    def __init__(self, f, count, start):
        self.f, self.count, self.start = f, count, start
        self.written, self.t = 0, None
        self.parts = []
        self.keys = collections.Counter()

    def full(self):
        return self.written >= self.count

    def emit(self, tmpl, gap, addresses=None):
        """Writes a template `gap` µs after the last frame. `addresses` is (function giving the
        offset of the address to replace in a payload, or None; the 6 address bytes)."""
        if not tmpl:
            return 0
        base = (self.t + gap) if self.t is not None else self.start
        parts, n = self.parts, 0
        for orig, flags, off, p in tmpl:
            if self.written >= self.count:
                break
            ts = base + off
            if self.t is not None and ts <= self.t:
                ts = self.t + 1
            if addresses:
                at = addresses[0](p)
                if at is not None:
                    p = with_address(p, at, addresses[1])
            parts.append(PREFIX.pack(orig, len(p), flags, 0))
            parts.append(STAMP.pack(ts))
            parts.append(p)
            self.keys[category(p)] += 1
            self.t = ts
            self.written += 1
            n += 1
        if len(parts) > 150_000:
            self.flush()
        return n

    def flush(self):
        self.f.write(b"".join(self.parts))
        self.parts = []


def generate(out_path, count=1_000_000, sources=None):
    """Writes the capture and returns its mix (see mix_from_counter())."""
    names = sources or DEFAULT_SOURCES
    for name in names:
        if not os.path.exists(os.path.join(CAPTURES, name + ".btsnoop")):
            raise SystemExit(f"no recording captures/{name}.btsnoop")
    src = Source(names)
    rng = random.Random(SEED)

    kinds = [k for k in (LEGACY_REPORT, EXTENDED_REPORT) if src.units[k]]
    devices = []        # (kind, address)
    for i in range(DEVICES):
        kind = EXTENDED_REPORT if i % EXTENDED_EVERY == EXTENDED_EVERY - 1 else LEGACY_REPORT
        if kind not in kinds:
            kind = kinds[0] if kinds else None
        devices.append((kind, device_address(i)))
    # Nearby devices are heard more often: weight 1/(rank+1)^0.7.
    cum, acc = [], 0.0
    for i in range(DEVICES):
        acc += 1.0 / (i + 1) ** 0.7
        cum.append(acc)
    peripherals = [d[1] for d in devices if d[0] == LEGACY_REPORT][:PERIPHERALS] or \
        [d[1] for d in devices[:PERIPHERALS]]
    unit_index = collections.Counter()
    schedule = episode_schedule(src.episodes) if src.episodes else []

    def advertising_event():
        i = rng.choices(range(DEVICES), cum_weights=cum)[0]
        kind, addr = devices[i]
        pool = src.units[kind]
        unit = pool[unit_index[kind] % len(pool)]
        unit_index[kind] += 1
        # Nearer devices are louder: a base RSSI by rank, a few dB of jitter per event.
        rssi = max(-100, min(-20, -35 - (i * 60) // DEVICES + rng.randint(-4, 4)))
        unit = [(o, fl, off, with_rssi(q, kind, rssi)) for o, fl, off, q in unit]
        return w.emit(unit, rng.randint(1000, 15000), (lambda p: ADDRESS_AT[kind], addr))

    with open(out_path, "wb") as f:
        f.write(HEADER)
        w = Writer(f, count, src.start or 0)
        w.emit(src.preamble, 0)
        adv, other, block, episode_no = 0, w.written, 0, 0
        while not w.full():
            if kinds:
                k = block % len(src.scan_on)
                other += w.emit(src.scan_on[k], 1000)
                # Advertising until it makes half of the frames, counting the coming episode
                # (without episodes: blocks of 4096 frames).
                if schedule:
                    upcoming = len(src.episodes[schedule[episode_no % len(schedule)]][1])
                    target = other + upcoming + len(src.scan_off[k])
                else:
                    target = adv + 4096
                while adv < target and not w.full():
                    adv += advertising_event()
                other += w.emit(src.scan_off[k], 1000)
                block += 1
            if schedule and not w.full():
                _, tmpl = src.episodes[schedule[episode_no % len(schedule)]]
                peer = peripherals[episode_no % len(peripherals)]
                other += w.emit(tmpl, 20_000, (peer_offset, peer))
                episode_no += 1
            if not kinds and not schedule:
                raise SystemExit("the recordings hold neither advertising reports nor connections")
        w.flush()
    return mix_from_counter(w.keys)


# ---------------------------------------------------------------------------------------------
# Mix statistics

EVENT_NAMES = {
    0x05: "Disconnection Complete", 0x08: "Encryption Change", 0x0E: "Command Complete",
    0x0F: "Command Status", 0x13: "Number Of Completed Packets", 0x30: "Encryption Key Refresh",
    0x3E: "LE Meta",
}
LE_SUBEVENT_NAMES = {
    0x01: "LE Connection Complete", 0x02: "LE Advertising Report",
    0x03: "LE Connection Update Complete", 0x04: "LE Read Remote Features Complete",
    0x05: "LE Long Term Key Request", 0x07: "LE Data Length Change",
    0x0A: "LE Enhanced Connection Complete", 0x0C: "LE PHY Update Complete",
    0x0D: "LE Extended Advertising Report",
}
COMMAND_NAMES = {
    0x0406: "Disconnect", 0x0C01: "Set Event Mask", 0x0C03: "Reset", 0x0C63: "Set Event Mask Page 2",
    0x1001: "Read Local Version Information", 0x1002: "Read Local Supported Commands",
    0x1003: "Read Local Supported Features", 0x1005: "Read Buffer Size", 0x1009: "Read BD_ADDR",
    0x2001: "LE Set Event Mask", 0x2003: "LE Read Local Supported Features",
    0x2005: "LE Set Random Address", 0x200B: "LE Set Scan Parameters", 0x200C: "LE Set Scan Enable",
    0x200D: "LE Create Connection", 0x2019: "LE Enable Encryption",
    0x2023: "LE Read Suggested Default Data Length", 0x2024: "LE Write Suggested Default Data Length",
    0x2041: "LE Set Extended Scan Parameters", 0x2042: "LE Set Extended Scan Enable",
    0x2060: "LE Read Buffer Size v2",
}
CID_NAMES = {0x0004: "ATT", 0x0005: "L2CAP LE signalling", 0x0006: "SMP"}


def category(p):
    """A (group, detail) pair describing a frame, for the mix."""
    t = p[0] if p else None
    if t == 0x01:
        if len(p) < 3:
            return ("HCI command", "short")
        return ("HCI command", f"0x{opcode(p):04x} {COMMAND_NAMES.get(opcode(p), '')}".rstrip())
    if t == 0x04 and len(p) >= 2:
        code = p[1]
        if code == 0x3E and len(p) >= 4:
            sub = p[3]
            return ("HCI event", f"0x3e/0x{sub:02x} {LE_SUBEVENT_NAMES.get(sub, 'LE Meta')}")
        return ("HCI event", f"0x{code:02x} {EVENT_NAMES.get(code, '')}".rstrip())
    if t == 0x02 and len(p) >= 5:
        pb = (p[2] >> 4) & 0x3
        if pb == 0x1:
            return ("ACL", "continuation fragment")
        if len(p) >= 9:
            cid = p[7] | p[8] << 8
            name = CID_NAMES.get(cid, "LE CoC K-frame" if cid >= 0x0040 else f"CID 0x{cid:04x}")
            return ("ACL", name)
        return ("ACL", "short")
    names = {0x02: "ACL", 0x03: "SCO", 0x05: "ISO"}
    return (names.get(t, f"H4 type {t}"), "")


def mix_from_counter(keys):
    total = sum(keys.values())
    groups = collections.Counter()
    for (group, _), n in keys.items():
        groups[group] += n
    details = collections.defaultdict(dict)
    for (group, detail), n in sorted(keys.items(), key=lambda kv: (-kv[1], kv[0])):
        details[group][detail or "-"] = n
    return {"frames": total, "groups": dict(groups.most_common()), "details": dict(details)}


def mix_of_file(path):
    keys = collections.Counter()
    last, increasing = None, True
    for _, _, ts, p in read_records(path):
        keys[category(p)] += 1
        if last is not None and ts <= last:
            increasing = False
        last = ts
    mix = mix_from_counter(keys)
    mix["timestamps_strictly_increasing"] = increasing
    return mix


def format_mix(mix):
    total = mix["frames"] or 1
    events = mix["details"].get("HCI event", {})
    adv = sum(n for k, n in events.items() if k.startswith(("0x3e/0x02", "0x3e/0x0d")))
    lines = [f"{mix['frames']:,} frames, of which {adv:,} ({100 * adv / total:.1f}%) advertising reports"]
    for group, n in mix["groups"].items():
        lines.append(f"  {group:<12} {n:>12,}  {100 * n / total:5.1f}%")
        for detail, m in mix["details"].get(group, {}).items():
            if detail != "-":
                lines.append(f"      {detail:<44} {m:>12,}  {100 * m / total:5.1f}%")
    if "timestamps_strictly_increasing" in mix:
        lines.append(f"  timestamps strictly increasing: {mix['timestamps_strictly_increasing']}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="the capture to write (or to read, with --stats)")
    ap.add_argument("frames", nargs="?", type=int, default=1_000_000)
    ap.add_argument("--sources", help="recordings to draw from, e.g. adv-scan,smp-pairing")
    ap.add_argument("--stats", action="store_true", help="print the mix of an existing file")
    ap.add_argument("--json", action="store_true", help="print the mix as JSON")
    args = ap.parse_args()
    if args.stats:
        mix = mix_of_file(args.out)
    else:
        sources = [s.strip() for s in args.sources.split(",") if s.strip()] if args.sources else None
        mix = generate(args.out, args.frames, sources)
    if args.json:
        print(json.dumps(mix))
        return
    if not args.stats:
        print(f"{args.out}: {os.path.getsize(args.out):,} bytes")
    print(format_mix(mix))


if __name__ == "__main__":
    main()
