#!/usr/bin/env python3
"""Builds a large btsnoop capture (datalink 1002, HCI H4) from real phone captures.

    python3 Benchmarks/make_real_capture.py OUT.btsnoop [FRAMES] [--shared DIR] [--sources F,...]
                                            [--bleinspect BIN] [--json]

FRAMES defaults to 1,000,000. The sources are HCI captures from ../shared/captures (DIR), in the
formats phones and tools write: Android btsnoop logs, a pcapng, an iOS PacketLogger file. Each is
first converted to btsnoop H4 by bleinspect itself (`read SRC -w X.btsnoop`, which keeps every
HCI packet and its direction and time), then the sources' frames are laid end to end, and again,
until FRAMES frames:

- each pass takes the sources in the order given, and each source whole (up to FRAMES in all);
- timestamps are shifted so that they strictly increase: each copy of a source starts 1 s after
  the frame before it, and keeps its own gaps;
- the bytes of every frame are left as recorded (connection handles and addresses repeat from one
  pass to the next, as they do in a long log where the same devices come back).

Real logs differ from the synthetic mix (make_capture.py) in ways that matter to speed: many
extended advertising reports with long AD data, vendor events, many devices, long ATT write
streams, Qualcomm debug ACL. The same arguments and sources always give the same bytes. The mix
(frames per source and kind) is printed at the end. Standard library only, besides bleinspect.
"""
import argparse
import collections
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "captures")
BIN = os.path.join(ROOT, ".build", "release", "bleinspect")

# Phone and tool captures with many frames, of every format people bring.
DEFAULT_SOURCES = [
    "blefun_btsnoop_hci.log",
    "androidpad_btsnoop_hci.cfa",
    "oppo_btsnoop_205240.log",
    "ix7tracker_btsnoop_hci.log",
    "airbily_bluethoot_logs.pcapng",
    "peripage_capture.pklg",
    "dsd6_btsnoop_hci_63758160418464951.log",
    "lumentree_btsnoop_hci.log",
    "btmouse_btsnoop_hci.log",
]

HEADER = b"btsnoop\x00" + struct.pack(">II", 1, 1002)
RECORD = struct.Struct(">IIIIq")  # original length, included length, flags, drops, time (µs)
KINDS = {1: "command", 2: "acl", 3: "sco", 4: "event"}


def records(path):
    """(flags, time µs, packet) of each whole record of a btsnoop H4 file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"btsnoop\x00" or struct.unpack(">I", data[12:16])[0] != 1002:
        sys.exit(f"{path}: not btsnoop H4")
    at, out = 16, []
    while at + RECORD.size <= len(data):
        _, included, flags, _, t = RECORD.unpack_from(data, at)
        end = at + RECORD.size + included
        if end > len(data) or included == 0:
            break
        out.append((flags, t, data[at + RECORD.size:end]))
        at = end
    return out


def converted(source, binary, tmp):
    """The source's frames, as btsnoop H4 records, converted by bleinspect."""
    out = os.path.join(tmp, os.path.basename(source) + ".btsnoop")
    p = subprocess.run([binary, "read", "--count", source, "-w", out, "-F", "btsnoop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # A damaged tail ends the read with a non-zero status; the frames before it are written.
    if not os.path.exists(out):
        sys.exit(f"{source}: bleinspect could not convert it: {p.stderr.strip()}")
    return records(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("frames", nargs="?", type=int, default=1_000_000)
    ap.add_argument("--shared", default=SHARED)
    ap.add_argument("--sources", help="comma-separated file names in --shared")
    ap.add_argument("--bleinspect", default=BIN)
    ap.add_argument("--json", action="store_true", help="print the mix as JSON")
    args = ap.parse_args()
    names = args.sources.split(",") if args.sources else DEFAULT_SOURCES
    with tempfile.TemporaryDirectory() as tmp:
        sources = [(n, converted(os.path.join(args.shared, n), args.bleinspect, tmp)) for n in names]
    sources = [(n, r) for n, r in sources if r]
    if not sources:
        sys.exit("no frames in the sources")

    mix = collections.Counter()
    kinds = collections.Counter()
    written, clock, passes = 0, None, 0
    with open(args.out, "wb") as f:
        f.write(HEADER)
        while written < args.frames:
            passes += 1
            for name, recs in sources:
                if written >= args.frames:
                    break
                first = recs[0][1]
                start = 0 if clock is None else clock + 1_000_000 - first
                for flags, t, packet in recs[: args.frames - written]:
                    stamp = t + start
                    if clock is not None and stamp <= clock:
                        stamp = clock + 1
                    clock = stamp
                    f.write(RECORD.pack(len(packet), len(packet), flags, 0, stamp) + packet)
                    kinds[KINDS.get(packet[0], "other")] += 1
                    mix[name] += 1
                    written += 1
    result = {"frames": written, "passes": passes, "sources": dict(mix), "kinds": dict(kinds),
              "bytes": os.path.getsize(args.out)}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{args.out}: {format_mix(result)}")


def format_mix(result):
    """The mix as main() returns it (frames, passes, bytes, frames per source and per kind), as text."""
    by_count = lambda d: sorted(d.items(), key=lambda kv: -kv[1])  # noqa: E731
    lines = [f"{result['frames']:,} frames in {result['passes']} passes, {result['bytes']:,} bytes"]
    lines += [f"  {n:>10,}  {name}" for name, n in by_count(result["sources"])]
    lines.append("  " + ", ".join(f"{k} {v:,}" for k, v in by_count(result["kinds"])))
    return "\n".join(lines)


if __name__ == "__main__":
    main()
