#!/usr/bin/env python3
"""Builds a deterministic sniffed LE connection (pcap, link type 251: access address, PDU, CRC)
that pairs with LE legacy passkey entry and then talks encrypted.

    python3 Benchmarks/make_crypto_capture.py OUT.pcap [EVENTS] [--passkey N] [--clear] [--no-confirms] [--json]

The connection: CONNECT_IND; Pairing Request and Response (passkey entry: the central displays,
the peripheral has a keyboard); both Pairing Confirms, computed with c1 for TK = PASSKEY
(default 999999, the last one a crack tries); both Pairing Randoms; LL_ENC_REQ and LL_ENC_RSP;
LL_START_ENC_REQ; both LL_START_ENC_RSPs, encrypted with the STK (s1 of the TK and the randoms);
then EVENTS connection events (default 10) in which the central sends an ATT Write Command and
the peripheral an ATT Handle Value Notification, both encrypted (AES-CCM, Vol 6 Part E).
With --clear, encryption never starts (no LL_ENC_REQ to LL_START_ENC_RSP): the same ATT traffic
in clear, to tell decryption from the dissection of what it reveals. With --no-confirms, the
connection event of both Pairing Confirms is left out (as if the sniffer missed it): the TK can
then only be found by the slow search, each passkey's STK tried on an encrypted PDU's MIC.

The keys follow Vol 3 Part H 2.2.3-2.2.4 (c1, s1) and Vol 6 Part B 5.1.3 (SK = e(STK, SKD), the
nonce of packet counter, direction and IV); AES and AES-CCM come from the `cryptography` package
(Debian: python3-cryptography). c1 is checked against the specification's sample at start. CRCs
are the LE CRC-24 (Vol 6 Part B 3.1.1). --json prints the facts a reader checks: the STK, the
frame count and the count of encrypted packets.
"""
import argparse
import json
import struct
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM

ADV_ACCESS_ADDRESS = 0x8E89BED6
ACCESS_ADDRESS = 0x5065_4A27
CRC_INIT = 0x123456
CENTRAL = 0xC6_55_44_33_22_11          # random address
PERIPHERAL = 0x06_05_04_03_02_01       # public address
MRAND = 0x1111_2222_3333_4444_5555_6666_7777_8888
SRAND = 0x9999_AAAA_BBBB_CCCC_DDDD_EEEE_FFFF_0000
SKD_C, IV_C = 0x0102_0304_0506_0708, 0x0A0B_0C0D
SKD_P, IV_P = 0xF1F2_F3F4_F5F6_F7F8, 0x1A1B_1C1D
# Pairing Request/Response: IO capability (0x00 display only / 0x02 keyboard only), no OOB,
# bonding + MITM, key size 16, key distributions.
PAIRING_REQUEST = bytes([0x01, 0x00, 0x00, 0x05, 0x10, 0x01, 0x01])
PAIRING_RESPONSE = bytes([0x02, 0x02, 0x00, 0x05, 0x10, 0x01, 0x01])


def e(key, value):
    """The security function e: AES-128 of 128-bit integers, most significant octet first."""
    enc = Cipher(algorithms.AES(key.to_bytes(16, "big")), modes.ECB()).encryptor()
    return int.from_bytes(enc.update(value.to_bytes(16, "big")) + enc.finalize(), "big")


def c1(k, r, preq, pres, iat, rat, ia, ra):
    p1 = (int.from_bytes(pres, "little") << 72) | (int.from_bytes(preq, "little") << 16) | (rat << 8) | iat
    p2 = (ia << 48) | ra
    return e(k, e(k, r ^ p1) ^ p2)


def s1(k, r1, r2):
    mask = (1 << 64) - 1
    return e(k, ((r1 & mask) << 64) | (r2 & mask))


def check_c1():
    """The specification's sample (Vol 3 Part H 2.2.3)."""
    got = c1(0, 0x5783D52156AD6F0E6388274EC6702EE0, bytes.fromhex("01010000100707"),
             bytes.fromhex("02030000080005"), 1, 0, 0xA1A2A3A4A5A6, 0xB1B2B3B4B5B6)
    if got != 0x1E1E3FEF878988EAD2A74DC5BEF13B86:
        sys.exit(f"c1 does not give the specification's sample: {got:032x}")


def crc24(data, init=CRC_INIT):
    state = int(f"{init:024b}"[::-1], 2)
    for byte in data:
        for _ in range(8):
            bit = (state ^ byte) & 1
            byte >>= 1
            state >>= 1
            if bit:
                state = (state | 0x800000) ^ 0x5A6000
    return state


def packet(access_address, pdu, crc_init=CRC_INIT):
    return struct.pack("<I", access_address) + pdu + crc24(pdu, crc_init).to_bytes(3, "little")


class Link:
    def __init__(self):
        self.records = []     # (microseconds, packet)
        self.events = 0
        self.ccm = None
        self.counters = [0, 0]
        self.encrypted = 0

    def connect(self):
        payload = (CENTRAL.to_bytes(6, "little") + PERIPHERAL.to_bytes(6, "little")
                   + struct.pack("<I", ACCESS_ADDRESS) + CRC_INIT.to_bytes(3, "little")
                   + struct.pack("<BHHHH", 2, 3, 40, 0, 400)      # 50 ms interval, 4 s timeout
                   + bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0x25]))  # 37 channels, hop 5, SCA 1
        pdu = bytes([0x45, len(payload)]) + payload   # CONNECT_IND, TxAdd random, RxAdd public
        self.records.append((0, packet(ADV_ACCESS_ADDRESS, pdu, 0x555555)))

    def pdu(self, llid, payload, nesn, sn, side, clear):
        first = llid | nesn << 2 | sn << 3
        if self.ccm and payload and not clear:
            counter = self.counters[side] | (0 if side else 1 << 39)   # direction bit: central
            nonce = counter.to_bytes(5, "little") + self.iv
            payload = self.ccm.encrypt(nonce, payload, bytes([first & 0xE3]))
            self.counters[side] += 1
            self.encrypted += 1
        return bytes([first, len(payload)]) + payload

    def event(self, central, peripheral, clear_central=False):
        bit = self.events % 2
        self.events += 1
        t = 10_000 + self.events * 50_000
        self.records.append((t, packet(ACCESS_ADDRESS, self.pdu(*central, bit, bit, 0, clear_central))))
        self.records.append((t + 400, packet(ACCESS_ADDRESS, self.pdu(*peripheral, 1 - bit, bit, 1, False))))

    def start_encryption(self, key):
        self.event((3, bytes([0x03]) + bytes(10) + struct.pack("<QI", SKD_C, IV_C)),
                   (3, bytes([0x04]) + struct.pack("<QI", SKD_P, IV_P)))
        self.event((1, b""), (3, bytes([0x05])))
        sk = e(key, (SKD_P << 64) | SKD_C)
        self.ccm = AESCCM(sk.to_bytes(16, "big"), tag_length=4)
        self.iv = struct.pack("<II", IV_C, IV_P)
        self.event((3, bytes([0x06])), (3, bytes([0x06])))

    def pcap(self, out):
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 251))
        for micros, data in self.records:
            out.write(struct.pack("<IIII", 1_700_000_000 + micros // 1_000_000, micros % 1_000_000,
                                  len(data), len(data)))
            out.write(data)


def smp(payload):
    return (2, struct.pack("<HH", len(payload), 0x0006) + payload)


def att(payload):
    return (2, struct.pack("<HH", len(payload), 0x0004) + payload)


def build(events, passkey, clear=False, confirms=True):
    check_c1()
    link = Link()
    link.connect()
    link.event(smp(PAIRING_REQUEST), smp(PAIRING_RESPONSE))
    confirm = [c1(passkey, r, PAIRING_REQUEST, PAIRING_RESPONSE, 1, 0, CENTRAL, PERIPHERAL)
               for r in (MRAND, SRAND)]
    if confirms:
        link.event(smp(b"\x03" + confirm[0].to_bytes(16, "little")),
                   smp(b"\x03" + confirm[1].to_bytes(16, "little")))
    link.event(smp(b"\x04" + MRAND.to_bytes(16, "little")), smp(b"\x04" + SRAND.to_bytes(16, "little")))
    stk = s1(passkey, SRAND, MRAND)
    if not clear:
        link.start_encryption(stk)
    for i in range(events):
        value = struct.pack("<I", i)
        link.event(att(b"\x52\x0e\x00" + value), att(b"\x1b\x10\x00" + value + bytes(8)))
    return link, stk


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("events", nargs="?", type=int, default=10)
    ap.add_argument("--passkey", type=int, default=999_999)
    ap.add_argument("--clear", action="store_true", help="never start encryption")
    ap.add_argument("--no-confirms", action="store_true", help="leave out both Pairing Confirms")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not 0 <= args.passkey <= 999_999 or args.events < 0:
        ap.error("the passkey is 0 to 999999, the events at least 0")
    link, stk = build(args.events, args.passkey, args.clear, not args.no_confirms)
    with open(args.out, "wb") as f:
        link.pcap(f)
    facts = {"passkey": f"{args.passkey:06d}", "stk": f"{stk:032x}", "frames": len(link.records),
             "encrypted_packets": link.encrypted}
    print(json.dumps(facts) if args.json else "\n".join(f"{k}: {v}" for k, v in facts.items()))


if __name__ == "__main__":
    main()
