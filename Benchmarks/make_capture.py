#!/usr/bin/env python3
"""Builds a large, deterministic btsnoop (datalink 1002) capture for benchmarks.

The frames come from the project's own recordings in captures/*.btsnoop (advertising reports,
ATT, L2CAP signalling, LE CoC K-frames, SMP, commands and events), repeated in file order until
the requested count is reached. Timestamps keep increasing: each repetition is shifted past the
previous one.

    python3 Benchmarks/make_capture.py OUT.btsnoop [FRAMES]      (default 1,000,000 frames)
"""
import glob
import os
import struct
import sys

HEADER = b"btsnoop\0" + struct.pack(">II", 1, 1002)


def records(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:16] != HEADER:
        return []
    out, i = [], 16
    while i + 24 <= len(data):
        orig, incl, flags, drops, ts = struct.unpack(">IIIIq", data[i:i + 24])
        out.append((orig, flags, ts, data[i + 24:i + 24 + incl]))
        i += 24 + incl
    return out


def main():
    out_path = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "captures")
    pool = []
    for path in sorted(glob.glob(os.path.join(root, "*.btsnoop"))):
        pool.extend(records(path))
    if not pool:
        sys.exit("no btsnoop recordings in captures/")
    base = pool[0][2]
    span = max(r[2] for r in pool) - min(r[2] for r in pool) + 1000
    with open(out_path, "wb") as f:
        f.write(HEADER)
        written, rep = 0, 0
        while written < count:
            chunk = []
            for orig, flags, ts, payload in pool:
                if written >= count:
                    break
                stamp = base + rep * span + (ts - base)
                chunk.append(struct.pack(">IIIIq", orig, len(payload), flags, 0, stamp) + payload)
                written += 1
            f.write(b"".join(chunk))
            rep += 1
    print(f"{out_path}: {count} frames, {os.path.getsize(out_path)} bytes")


if __name__ == "__main__":
    main()
