#!/usr/bin/env python3
"""Record BLE HCI traffic of CoreBluetooth-style apps with Bumble (issue 26).

Usage:
    python3 -m pip install -r scripts/requirements-captures.txt
    python3 scripts/record_corebluetooth.py [OUTDIR]   # default: the repository's captures/

The machinery is that of ``record_captures.py`` (same folder): two Bumble hosts,
each on a Bumble virtual controller, on one link, a virtual clock, seeded
randomness, and the HCI traffic of ONE host (A, the first one) written as
btsnoop.  The two hosts play two phones running the same kind of app:

  cb-chat.btsnoop              L2CAP chat: PSM published as JSON text in the
                               L2CAP PSM characteristic, read, channel on
                               PSM 0x0081, text messages + 'EOF' padded with
                               spaces to 1024-byte SDUs, both directions
  cb-dual-role.btsnoop         business-card trap: A and B each advertise and
                               connect to the other (two links, opposite
                               roles), each reads the other's PSM and opens a
                               channel on it; each writes only where it is the
                               peripheral; A never returns credits on link 1
  cb-dual-role-shared.btsnoop  the same app on ONE link: two channels, opened
                               by opposite sides, only one carries data
  cb-streetpass.btsnoop        StreetPass: B advertises 0x180A, A scans, checks
                               the RSSI, connects, reads 0x180C in 0x180B; B
                               reads A's 0x180C over the same link
  cb-sequence.btsnoop          discover, CCCD write, write request "start",
                               10 notifications [seq u8][reading u16 LE] with
                               seq 5 missing

Each recording gets a sidecar NAME.expected.json, written from the recording
alone (btsnoop -> HCI -> L2CAP -> ATT / signalling, parsed here without Bumble)
and checked against what the scenario did.  Frame numbers are 1-based btsnoop
record indices.

One change to Bumble's LocalLink (``RoutingLink``): the stock link tags every LE
ACL packet with the sending controller's random address, and the receiver finds
the connection by that address.  With two links between the same two
controllers (cb-dual-role) that delivers the data of one link on the other.
RoutingLink tags the data with the address the sender uses on that connection.
With one link per pair of controllers nothing changes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_captures import (  # noqa: E402
    LEGACY_ONLY_LE_FEATURES,
    PSM_CHARACTERISTIC_UUID,
    RecordingBtSnooper,
    RecordingController,
    VirtualClockLoop,
    ad_structure,
    check,
    connectable_extended,
    read_btsnoop,
    seed_randomness,
    uuid16_list,
)

from bumble import hci, l2cap  # noqa: E402
from bumble.core import UUID, PhysicalTransport  # noqa: E402
from bumble.device import (  # noqa: E402
    AdvertisingParameters,
    Device,
    DeviceConfiguration,
    Peer,
)
from bumble.gatt import Characteristic, CharacteristicValue, Service  # noqa: E402
from bumble.host import Host  # noqa: E402
from bumble.link import LocalLink  # noqa: E402
from bumble.transport.common import AsyncPipeSink  # noqa: E402

# -----------------------------------------------------------------------------
# Hosts
# -----------------------------------------------------------------------------
A_ADDRESS = 'C0:DE:C0:DE:00:01'  # A's static random address (controller's)
B_ADDRESS = 'C0:DE:C0:DE:00:02'
# cb-dual-role: each phone advertises from one address and connects out from
# another (resolvable-private-shaped: the two top bits are 01).
A_ADV_ADDRESS = '7A:A0:00:00:00:0A'  # A's advertising set
B_CONNECT_ADDRESS = '7B:B0:00:00:00:0B'  # B's controller address: B connects from it
A_NAME = 'phone-A'
B_NAME = 'phone-B'


class RoutingLink(LocalLink):
    """LocalLink that delivers LE ACL data on the connection it was sent on.

    ``LocalLink.send_acl_data`` gives the receiver the sending controller's
    random address as the source, and the receiver looks its connection up by
    that address.  Here the source is the address the sender uses on the
    connection to ``destination_address``.  Only LE ACL data is affected.
    """

    def send_acl_data(self, sender_controller, destination_address, transport, data):
        if transport == PhysicalTransport.LE:
            connection = sender_controller.le_connections.get(destination_address)
            destination = self.find_le_controller(destination_address)
            if connection is not None and destination is not None:
                source = connection.self_address
                asyncio.get_running_loop().call_soon(
                    lambda: destination.on_link_acl_data(source, transport, data)
                )
                return
        super().send_acl_data(sender_controller, destination_address, transport, data)


class Phones:
    """Host A (recorded) and host B, each a Bumble host on a Bumble controller."""

    def __init__(self, loop, snoop_file, b_address=B_ADDRESS, extended=False):
        self.link = RoutingLink()
        self.devices: list[Device] = []
        for name, address in ((A_NAME, A_ADDRESS), (B_NAME, b_address)):
            controller = RecordingController(
                f'controller-{name}', link=self.link, public_address='00:00:00:00:00:00'
            )
            if not extended:
                controller.le_features = LEGACY_ONLY_LE_FEATURES
            config = DeviceConfiguration()
            config.name = name
            config.address = hci.Address(address)
            host = Host(controller, AsyncPipeSink(controller))
            self.devices.append(Device(config=config, host=host))
        self.a.host.snooper = RecordingBtSnooper(snoop_file, loop)

    @property
    def a(self) -> Device:
        return self.devices[0]

    @property
    def b(self) -> Device:
        return self.devices[1]

    async def power_on(self) -> None:
        for device in self.devices:
            await device.power_on()

    async def connect_a_to_b(self, adv_data: bytes | None = None):
        """B advertises (legacy, connectable), A connects: (A's, B's) connection."""
        b_connection = asyncio.get_running_loop().create_future()
        self.b.once('connection', b_connection.set_result)
        await self.b.start_advertising(
            advertising_data=adv_data
            or ad_structure(0x01, b'\x06') + ad_structure(0x09, B_NAME.encode()),
            advertising_interval_min=100,
            advertising_interval_max=100,
        )
        a_connection = await self.a.connect(hci.Address(B_ADDRESS), timeout=10)
        return a_connection, await b_connection


def run_recording(name: str, outdir: Path, scenario, **phones_args) -> dict:
    """Run one scenario on a virtual clock and write NAME.btsnoop (A's HCI)."""
    seed_randomness(name)
    path = outdir / f'{name}.btsnoop'

    async def run(snoop_file) -> dict:
        phones = Phones(asyncio.get_running_loop(), snoop_file, **phones_args)
        result = await asyncio.wait_for(scenario(phones), 120)
        await asyncio.sleep(0.5)  # let the last packets arrive
        return result

    with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
        with open(path, 'wb') as snoop_file:
            result = runner.run(run(snoop_file))
    check(path.stat().st_size < 64 * 1024, f'{path} is too large')
    return result


def psm_characteristic(value: bytes) -> Characteristic:
    return Characteristic(
        PSM_CHARACTERISTIC_UUID,
        Characteristic.Properties.READ,
        Characteristic.READABLE,
        value,
    )


async def read_characteristic(connection, service_uuid: str, characteristic_uuid: str) -> bytes:
    """Discover the service by UUID, its characteristic by UUID, and read it."""
    peer = Peer(connection)
    services = await peer.discover_service(UUID(service_uuid))
    check(len(services) == 1, f'service {service_uuid}: {services}')
    characteristics = await peer.discover_characteristics(
        uuids=[UUID(characteristic_uuid)], service=services[0]
    )
    check(len(characteristics) == 1, f'characteristic {characteristic_uuid}: {characteristics}')
    return await peer.read_value(characteristics[0])


async def read_psm_value(connection, service_uuid: str) -> bytes:
    """The PSM characteristic's value, read from the service."""
    return await read_characteristic(connection, service_uuid, PSM_CHARACTERISTIC_UUID)


def server_channels(device: Device, psm: int, spec: dict, on_channel) -> None:
    device.create_l2cap_server(
        spec=l2cap.LeCreditBasedChannelSpec(psm=psm, **spec), handler=on_channel
    )


class CreditSink:
    """Drops every LE Flow Control Credit packet of ONE receiving channel.

    Like ``CreditWithholder`` in record_captures.py, but nothing is ever
    released: the app never reads the channel, so it never gives credits back.
    (Bumble's channel still counts the credits it meant to give, and uses up a
    signalling identifier for each packet dropped.)
    """

    def __init__(self, channel: l2cap.LeCreditBasedChannel) -> None:
        self.send = channel.send_control_frame
        channel.send_control_frame = self.send_control_frame  # type: ignore[method-assign]
        self.dropped = 0

    def send_control_frame(self, frame) -> None:
        if isinstance(frame, l2cap.L2CAP_LE_Flow_Control_Credit):
            self.dropped += 1
            return
        self.send(frame)


# -----------------------------------------------------------------------------
# Reading the recording again, without Bumble
# -----------------------------------------------------------------------------
def address_text(data: bytes) -> str:
    return ':'.join(f'{b:02X}' for b in reversed(data))


def uuid_text(data: bytes) -> str:
    if len(data) == 2:
        return f'{struct.unpack("<H", data)[0]:04X}'
    h = data[::-1].hex().upper()
    return f'{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}'


SIDE = {0: 'A', 1: 'B'}  # btsnoop direction flag: 0 sent by A, 1 received by A


class Recording:
    """A recording of A's HCI, parsed: links, L2CAP PDUs per link, ATT, channels."""

    def __init__(self, path: Path) -> None:
        self.records = read_btsnoop(path)
        self.links: dict[int, dict] = {}  # handle -> link
        self.adv_reports: list[dict] = []
        self.own_addresses: dict[str, str] = {}  # A's addresses, from its HCI commands
        self.pdus: list[tuple[int, int, int, int, bytes]] = []  # frame, dir, handle, cid, pdu
        partial: dict[tuple[int, int], bytearray] = {}
        for frame, (flags, _ts, packet) in enumerate(self.records, start=1):
            direction = flags & 1
            if packet[0] == 0x04:
                self._event(frame, packet[1:])
            elif packet[0] == 0x01:
                opcode = struct.unpack_from('<H', packet, 1)[0]
                if opcode == 0x2005:  # LE Set Random Address
                    self.own_addresses['random_address'] = address_text(packet[4:10])
                elif opcode == 0x2035:  # LE Set Advertising Set Random Address
                    self.own_addresses['advertising_set_address'] = address_text(
                        packet[5:11]
                    )
            elif packet[0] == 0x02:
                handle_flags, length = struct.unpack_from('<HH', packet, 1)
                handle, pb = handle_flags & 0x0FFF, (handle_flags >> 12) & 0x3
                data = packet[5 : 5 + length]
                key = (direction, handle)
                if pb in (0, 2):
                    check(not partial.get(key), f'frame {frame}: L2CAP PDU cut short')
                    partial[key] = bytearray(data)
                else:
                    check(key in partial and partial[key], f'frame {frame}: stray fragment')
                    partial[key] += data
                buf = partial[key]
                if len(buf) >= 4 and len(buf) == 4 + struct.unpack_from('<H', buf)[0]:
                    cid = struct.unpack_from('<H', buf, 2)[0]
                    self.pdus.append((frame, direction, handle, cid, bytes(buf[4:])))
                    partial[key] = bytearray()
        check(not any(partial.values()), 'L2CAP PDU unfinished at the end')

    def _event(self, frame: int, event: bytes) -> None:
        code = event[0]
        if code == 0x3E and event[2] in (0x01, 0x0A, 0x29):  # LE (Enhanced) Conn Complete
            status, handle, role, addr_type = struct.unpack_from('<BHBB', event, 3)
            check(status == 0, f'frame {frame}: connection failed')
            self.links[handle] = {
                'handle': handle,
                'a_role': 'central' if role == 0 else 'peripheral',
                'peer_address': address_text(event[8:14]),
                'peer_address_type': 'random' if addr_type & 1 else 'public',
                'connection_complete_frame': frame,
                'disconnection_complete_frame': None,
            }
        elif code == 0x05:  # Disconnection Complete
            _status, handle, _reason = struct.unpack_from('<BHB', event, 2)
            self.links[handle]['disconnection_complete_frame'] = frame
        elif code == 0x3E and event[2] == 0x02:  # LE Advertising Report
            check(event[3] == 1, 'one report per event')
            event_type, addr_type = event[4], event[5]
            length = event[12]
            data = event[13 : 13 + length]
            rssi = struct.unpack_from('<b', event, 13 + length)[0]
            self.adv_reports.append(
                {
                    'frame': frame,
                    'event_type': event_type,
                    'address': address_text(event[6:12]),
                    'address_type': 'random' if addr_type & 1 else 'public',
                    'data': data,
                    'rssi': rssi,
                }
            )

    # -- ATT ---------------------------------------------------------------
    def att(self):
        """ATT PDUs: (frame, sender 'A'/'B', link handle, pdu)."""
        return [(f, SIDE[d], h, p) for f, d, h, cid, p in self.pdus if cid == 0x0004 and p]

    def characteristics(self) -> dict[tuple[int, str, int], dict]:
        """Characteristic declarations from Read By Type responses, per (link,
        server side, value handle): uuid and properties."""
        found = {}
        for _frame, sender, handle, pdu in self.att():
            if pdu[0] != 0x09:
                continue
            size = pdu[1]
            for offset in range(2, len(pdu), size):
                entry = pdu[offset : offset + size]
                if size in (7, 21):  # 0x2803: handle, properties, value handle, uuid
                    properties, value_handle = struct.unpack_from('<BH', entry, 2)
                    found[(handle, sender, value_handle)] = {
                        'uuid': uuid_text(entry[5:]),
                        'properties': properties,
                        'declaration_handle': struct.unpack_from('<H', entry)[0],
                    }
        return found

    def reads(self) -> list[dict]:
        """Read Request / Read Response pairs, per link and reader."""
        out, pending = [], {}
        for frame, sender, handle, pdu in self.att():
            check(pdu[0] not in (0x0C, 0x0D), f'frame {frame}: long read (Read Blob)')
            if pdu[0] == 0x0A:
                pending[(handle, sender)] = (frame, struct.unpack_from('<H', pdu, 1)[0])
            elif pdu[0] in (0x0B, 0x01):
                reader = 'B' if sender == 'A' else 'A'
                request = pending.pop((handle, reader), None)
                if request is None:
                    continue
                check(pdu[0] == 0x0B, f'frame {frame}: read answered with an error')
                out.append(
                    {
                        'link': handle,
                        'reader': reader,
                        'attribute_handle': request[1],
                        'request_frame': request[0],
                        'response_frame': frame,
                        'value_hex': pdu[1:].hex(),
                    }
                )
        return out

    # -- LE credit-based channels --------------------------------------------
    def channels(self) -> list[dict]:
        """The LE credit-based channels, with their K-frames, SDUs and credits.

        For each channel: who opened it, PSM, the CID at each end, the request
        and response, then per sender ('A' or 'B'): SDUs (bytes, the frame of
        the K-frame that completes each), K-frames, credit packets received,
        credits held after each step, and the frame where they reach 0.
        """
        channels: list[dict] = []
        requests: dict[tuple[int, str, int], dict] = {}
        by_cid: dict[tuple[int, str, int], dict] = {}  # (link, owner side, cid)
        state: dict[int, dict] = {}  # id(channel) -> per-sender reassembly

        def sender_state(channel, side):
            return state.setdefault(id(channel), {}).setdefault(
                side, {'partial': None, 'length': 0}
            )

        for frame, direction, handle, cid, pdu in self.pdus:
            sender = SIDE[direction]
            other = 'B' if sender == 'A' else 'A'
            if cid == 0x0005:
                code, identifier = pdu[0], pdu[1]
                if code == 0x14:  # LE Credit Based Connection Request
                    psm, scid, mtu, mps, credits = struct.unpack_from('<HHHHH', pdu, 4)
                    channel = {
                        'link': handle,
                        'opened_by': sender,
                        'psm': psm,
                        'cids': {'A': None, 'B': None},
                        'request_frame': frame,
                        'response_frame': None,
                        'result': None,
                        'mtu': {'A': None, 'B': None},
                        'mps': {'A': None, 'B': None},
                        # credits a sender holds: the opener gives the acceptor
                        # its initial credits in the request
                        'initial_credits': {'A': None, 'B': None},
                        'disconnection_request_frame': None,
                        'disconnection_response_frame': None,
                        'senders': {
                            side: {
                                'sdus': [],
                                'k_frames': 0,
                                'credit_packets': [],
                                'credits': None,
                                'zero_credit_frames': [],
                            }
                            for side in 'AB'
                        },
                    }
                    channel['cids'][sender] = scid
                    channel['mtu'][sender], channel['mps'][sender] = mtu, mps
                    channel['initial_credits'][other] = credits
                    channels.append(channel)
                    requests[(handle, sender, identifier)] = channel
                    by_cid[(handle, sender, scid)] = channel
                elif code == 0x15:  # Response
                    channel = requests.pop((handle, other, identifier))
                    dcid, mtu, mps, credits, result = struct.unpack_from('<HHHHH', pdu, 4)
                    check(result == 0, f'frame {frame}: channel refused ({result})')
                    channel.update(response_frame=frame, result=result)
                    channel['cids'][sender] = dcid
                    channel['mtu'][sender], channel['mps'][sender] = mtu, mps
                    channel['initial_credits'][other] = credits
                    for side in 'AB':
                        channel['senders'][side]['credits'] = channel['initial_credits'][side]
                    by_cid[(handle, sender, dcid)] = channel
                elif code == 0x16:  # LE Flow Control Credit: CID = the sender's own
                    credit_cid, amount = struct.unpack_from('<HH', pdu, 4)
                    channel = by_cid[(handle, sender, credit_cid)]
                    grantee = channel['senders'][other]
                    grantee['credits'] += amount
                    grantee['credit_packets'].append({'frame': frame, 'credits': amount})
                elif code == 0x06:  # Disconnection Request: DCID, SCID
                    dcid, _scid = struct.unpack_from('<HH', pdu, 4)
                    channel = by_cid[(handle, other, dcid)]
                    channel['disconnection_request_frame'] = frame
                elif code == 0x07:
                    dcid, _scid = struct.unpack_from('<HH', pdu, 4)
                    channel = by_cid[(handle, sender, dcid)]
                    channel['disconnection_response_frame'] = frame
                continue
            channel = by_cid.get((handle, other, cid))
            if channel is None or channel['response_frame'] is None:
                continue
            info = channel['senders'][sender]
            check(info['credits'] > 0, f'frame {frame}: K-frame without credit')
            info['credits'] -= 1
            info['k_frames'] += 1
            st = sender_state(channel, sender)
            if st['partial'] is None:
                st['length'] = struct.unpack_from('<H', pdu)[0]
                st['partial'], st['first'] = bytearray(pdu[2:]), frame
            else:
                st['partial'] += pdu
            check(len(st['partial']) <= st['length'], f'frame {frame}: SDU overflow')
            if len(st['partial']) == st['length']:
                info['sdus'].append(
                    {'first_frame': st['first'], 'frame': frame, 'data': bytes(st['partial'])}
                )
                st['partial'] = None
            if info['credits'] == 0:
                info['zero_credit_frames'].append(
                    {'frame': frame, 'sdu_unfinished': st['partial'] is not None}
                )
        for channel in channels:
            for side in 'AB':
                st = state.get(id(channel), {}).get(side)
                channel['senders'][side]['unfinished_sdu_bytes'] = (
                    len(st['partial']) if st and st['partial'] is not None else 0
                )
        return channels


def channel_json(channel: dict) -> dict:
    """A channel as it goes into a sidecar (SDU bytes as hex)."""
    out = {k: v for k, v in channel.items() if k != 'senders'}
    out['senders'] = {}
    for side, info in channel['senders'].items():
        sdus = info['sdus']
        out['senders'][side] = {
            'sdu_count': len(sdus),
            'sdu_bytes': sum(len(s['data']) for s in sdus),
            'sdus': [
                {
                    'first_frame': s['first_frame'],
                    'frame': s['frame'],
                    'length': len(s['data']),
                    'hex': s['data'].hex(),
                }
                for s in sdus
            ],
            'k_frames': info['k_frames'],
            'unfinished_sdu_bytes': info['unfinished_sdu_bytes'],
            'credit_packets_received': info['credit_packets'],
            'credits_granted_total': sum(p['credits'] for p in info['credit_packets']),
            'credits_at_end': info['credits'],
            'zero_credit_frames': info['zero_credit_frames'],
        }
    return out


def write_json(path: Path, data) -> None:
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + '\n', encoding='utf-8')


def decode_psm(value: bytes, encoding: str) -> int:
    if encoding == 'uint16 little-endian':
        return struct.unpack('<H', value)[0]
    if encoding == 'uint16 big-endian':
        return struct.unpack('>H', value)[0]
    if encoding == 'ASCII decimal':
        return int(value.decode('ascii'), 10)
    if encoding == 'JSON':
        return json.loads(value.decode('utf-8'))['psm']
    raise ValueError(encoding)


def psm_reads(rec: Recording, encodings: dict[str, str]) -> list[dict]:
    """Reads of the L2CAP PSM characteristic (found via discovery in the file).

    encodings: per server side ('A' / 'B'), how that app writes its PSM.
    """
    declared = rec.characteristics()
    out = []
    for read in rec.reads():
        server = 'A' if read['reader'] == 'B' else 'B'
        characteristic = declared.get((read['link'], server, read['attribute_handle']))
        if characteristic is None or characteristic['uuid'] != PSM_CHARACTERISTIC_UUID:
            continue
        value = bytes.fromhex(read['value_hex'])
        out.append(
            {
                **read,
                'frame': read['response_frame'],
                'server': server,
                'encoding': encodings[server],
                'psm': decode_psm(value, encodings[server]),
            }
        )
    return out


# -----------------------------------------------------------------------------
# 1. cb-chat: JSON PSM characteristic, text chat in 1024-byte padded SDUs
# -----------------------------------------------------------------------------
CB_CHAT_SERVICE_UUID = 'C4A70000-0B1E-4C7A-8E5D-C0A1B2C3D4E5'
CB_CHAT_PSM = 0x0081
CB_CHAT_PSM_VALUE = b'{"psm":129}'
CB_CHAT_CHUNK = 1024
CB_CHAT_END = b'EOF'
# MTU 1024 both ways: Bumble's sender fills an SDU with queued writes up to the
# peer's MTU, so each 1024-byte write stays one SDU.
CB_CHAT_A_COC = dict(mtu=CB_CHAT_CHUNK, mps=247, max_credits=10)
CB_CHAT_B_COC = dict(mtu=CB_CHAT_CHUNK, mps=247, max_credits=10)
CB_CHAT_MESSAGES = (  # (sender, text) in send order; A is the central
    ('A', 'hello from the central'),
    ('B', 'hi! caf\u00e9 \u2615 at five?'),
    ('A', 'sure.\nsee you there'),
    ('B', 'bye'),
)


def cb_chat_sdu(text: str) -> bytes:
    data = text.encode('utf-8') + CB_CHAT_END
    check(len(data) <= CB_CHAT_CHUNK and CB_CHAT_END not in text.encode(), text)
    return data + b' ' * (CB_CHAT_CHUNK - len(data))


async def scenario_cb_chat(phones: Phones) -> dict:
    phones.b.add_service(
        Service(CB_CHAT_SERVICE_UUID, [psm_characteristic(CB_CHAT_PSM_VALUE)])
    )
    received = {'A': [], 'B': []}  # per receiver
    b_channel = asyncio.get_running_loop().create_future()

    def on_b_channel(channel):
        channel.sink = received['B'].append
        b_channel.set_result(channel)

    server_channels(phones.b, CB_CHAT_PSM, CB_CHAT_B_COC, on_b_channel)
    await phones.power_on()
    connection, _ = await phones.connect_a_to_b()
    await Peer(connection).request_mtu(185)
    value = await read_psm_value(connection, CB_CHAT_SERVICE_UUID)
    psm = json.loads(value)['psm']
    check(psm == CB_CHAT_PSM, f'PSM {value!r}')
    await asyncio.sleep(0.05)
    channel = await connection.create_l2cap_channel(
        spec=l2cap.LeCreditBasedChannelSpec(psm=psm, **CB_CHAT_A_COC)
    )
    channel.sink = received['A'].append
    channels = {'A': channel, 'B': await b_channel}
    for sender, text in CB_CHAT_MESSAGES:
        await asyncio.sleep(0.5)
        receiver = 'B' if sender == 'A' else 'A'
        count = len(received[receiver])
        channels[sender].write(cb_chat_sdu(text))
        await channels[sender].drain()
        for _ in range(100):
            if len(received[receiver]) > count:
                break
            await asyncio.sleep(0.01)
        check(received[receiver][-1:] == [cb_chat_sdu(text)], f'{sender}: {text!r}')
    await asyncio.sleep(0.5)
    await channel.disconnect()
    await asyncio.sleep(0.1)
    await connection.disconnect()
    return {'psm': psm}


def cb_chat_check(path: Path) -> dict:
    rec = Recording(path)
    check(len(rec.links) == 1, f'links {rec.links}')
    reads = psm_reads(rec, {'B': 'JSON'})
    check(len(reads) == 1, f'PSM reads {reads}')
    read = reads[0]
    check(bytes.fromhex(read['value_hex']) == CB_CHAT_PSM_VALUE, f'read {read}')
    channels = rec.channels()
    check(len(channels) == 1, f'channels {channels}')
    ch = channels[0]
    check(ch['psm'] == read['psm'] == CB_CHAT_PSM and ch['opened_by'] == 'A', f'{ch}')
    messages = []
    for sender in 'AB':
        for sdu in ch['senders'][sender]['sdus']:
            data = sdu['data']
            check(len(data) == CB_CHAT_CHUNK, f'SDU of {len(data)} bytes')
            end = data.find(CB_CHAT_END)
            check(end >= 0 and data[end + 3 :].strip(b' ') == b'', 'EOF and padding')
            messages.append(
                {
                    'direction': 'A->B' if sender == 'A' else 'B->A',
                    'sender': sender,
                    'text': data[:end].decode('utf-8'),
                    'text_bytes': end,
                    'frame': sdu['frame'],
                    'first_frame': sdu['first_frame'],
                    'sdu_length': len(data),
                    'padding': len(data) - end - len(CB_CHAT_END),
                }
            )
    messages.sort(key=lambda m: m['frame'])
    check(
        [(m['sender'], m['text']) for m in messages] == list(CB_CHAT_MESSAGES),
        f'messages in the recording: {messages}',
    )
    (link,) = rec.links.values()
    mtu = [
        (f, s, struct.unpack_from('<H', p, 1)[0])
        for f, s, _h, p in rec.att()
        if p[0] in (0x02, 0x03)
    ]
    return {
        'description': 'cb-chat: L2CAP chat, PSM published as JSON in the L2CAP PSM '
        'characteristic; each message is UTF-8 text + "EOF" + spaces to 1024 bytes, '
        'one SDU per message. A (the recorded host) is the central. Frames are 1-based '
        'btsnoop record numbers.',
        'link': link,
        'att_mtu_exchange': [{'frame': f, 'sender': s, 'mtu': m} for f, s, m in mtu],
        'psm_characteristic_uuid': PSM_CHARACTERISTIC_UUID,
        'psm_read': {
            'request_frame': read['request_frame'],
            'response_frame': read['response_frame'],
            'frame': read['frame'],
            'attribute_handle': read['attribute_handle'],
            'value_hex': read['value_hex'],
            'value_text': CB_CHAT_PSM_VALUE.decode(),
            'encoding': 'JSON',
            'psm': read['psm'],
        },
        'channel': {
            'request_frame': ch['request_frame'],
            'psm': ch['psm'],
            'source_cid': ch['cids']['A'],
            'request_mtu': ch['mtu']['A'],
            'request_mps': ch['mps']['A'],
            'request_initial_credits': ch['initial_credits']['B'],
            'response_frame': ch['response_frame'],
            'destination_cid': ch['cids']['B'],
            'response_mtu': ch['mtu']['B'],
            'response_mps': ch['mps']['B'],
            'response_initial_credits': ch['initial_credits']['A'],
            'result': ch['result'],
            'disconnection_request_frame': ch['disconnection_request_frame'],
            'disconnection_response_frame': ch['disconnection_response_frame'],
            'k_frames': {s: ch['senders'][s]['k_frames'] for s in 'AB'},
        },
        'framing': {'sdu_length': CB_CHAT_CHUNK, 'end_marker': 'EOF', 'padding_byte': ' '},
        'messages': messages,
    }


# -----------------------------------------------------------------------------
# 2. cb-dual-role: two links in opposite roles, one channel each, A withholds
# -----------------------------------------------------------------------------
CB_CARD_SERVICE_UUID = 'CA4D0000-0B1E-4C7A-8E5D-C0A1B2C3D4E5'
CB_DUAL_A_PSM = 0x0083  # published little-endian: 83 00
CB_DUAL_B_PSM = 0x00C1  # published big-endian: 00 C1
# SDUs are exactly the receiver's MTU, so that Bumble's sender, which fills an
# SDU with queued writes up to the MTU, keeps one write per SDU.
CB_CARD_SDU = 256
CB_CARD_COC = dict(mtu=CB_CARD_SDU, mps=100, max_credits=4)  # 3 K-frames per SDU
CB_DUAL_B_SDUS = 4  # B writes 4 SDUs on link 1: with 4 credits only 1 gets through
CB_DUAL_A_SDUS = 3  # A writes 3 SDUs on link 2


def card_sdu(sender: str, index: int) -> bytes:
    head = b'%s>%s card %d |' % (sender.encode(), b'B' if sender == 'A' else b'A', index)
    base = (0x30 if sender == 'A' else 0x60) + 0x08 * index
    return head + bytes((base + i) & 0x7F | 0x20 for i in range(CB_CARD_SDU - len(head)))


def card_adv_data(name: str) -> bytes:
    return (
        ad_structure(0x01, b'\x06')
        + ad_structure(0x07, bytes(UUID(CB_CARD_SERVICE_UUID)))
        + ad_structure(0x09, name.encode())
    )


async def advertise_from(device: Device, address: str, name: str) -> None:
    """Connectable advertising from an advertising set with its own address."""
    await device.create_advertising_set(
        advertising_parameters=AdvertisingParameters(
            advertising_event_properties=connectable_extended(include_tx_power=False),
            primary_advertising_interval_min=100,
            primary_advertising_interval_max=100,
        ),
        random_address=hci.Address(address),
        advertising_data=card_adv_data(name),
    )


async def scenario_cb_dual_role(phones: Phones) -> dict:
    a, b = phones.a, phones.b
    a_psm = psm_characteristic(struct.pack('<H', CB_DUAL_A_PSM))  # 83 00
    b_psm = psm_characteristic(struct.pack('>H', CB_DUAL_B_PSM))  # 00 c1
    a.add_service(Service(CB_CARD_SERVICE_UUID, [a_psm]))
    b.add_service(Service(CB_CARD_SERVICE_UUID, [b_psm]))
    loop = asyncio.get_running_loop()
    received = {'A': [], 'B': []}
    accepted = {'A': loop.create_future(), 'B': loop.create_future()}

    def on_a_channel(channel):  # B opened it, on link 2
        channel.sink = received['B'].append  # not used: B never writes here
        accepted['A'].set_result(channel)

    def on_b_channel(channel):  # A opened it, on link 1
        channel.sink = received['A'].append  # not used: A never writes here
        accepted['B'].set_result(channel)

    server_channels(a, CB_DUAL_A_PSM, CB_CARD_COC, on_a_channel)
    server_channels(b, CB_DUAL_B_PSM, CB_CARD_COC, on_b_channel)
    await phones.power_on()
    await advertise_from(a, A_ADV_ADDRESS, A_NAME)
    await advertise_from(b, B_ADDRESS, B_NAME)

    # Link 1: A (central) -> B's advertising address.
    b_link1 = loop.create_future()
    b.once('connection', b_link1.set_result)
    a_link1 = await a.connect(hci.Address(B_ADDRESS), timeout=10)
    b_link1 = await b_link1
    # Link 2: B (central, from its other address) -> A's advertising address.
    await asyncio.sleep(0.05)
    a_link2 = loop.create_future()
    a.once('connection', a_link2.set_result)
    b_link2 = await b.connect(hci.Address(A_ADV_ADDRESS), timeout=10)
    a_link2 = await a_link2
    check(a_link1.handle != a_link2.handle, 'two links')
    check(str(a_link2.peer_address).startswith(B_CONNECT_ADDRESS), f'{a_link2.peer_address}')

    # Each phone reads the other's PSM, as central, on the link it opened.
    value_b = await read_psm_value(a_link1, CB_CARD_SERVICE_UUID)
    value_a = await read_psm_value(b_link2, CB_CARD_SERVICE_UUID)
    check(struct.unpack('>H', value_b)[0] == CB_DUAL_B_PSM, value_b.hex())
    check(struct.unpack('<H', value_a)[0] == CB_DUAL_A_PSM, value_a.hex())

    # Each opens a channel on the other's PSM, 0.4 s apart.
    await asyncio.sleep(0.2)
    ch1_a = await a_link1.create_l2cap_channel(
        spec=l2cap.LeCreditBasedChannelSpec(psm=CB_DUAL_B_PSM, **CB_CARD_COC)
    )
    ch1_b = await accepted['B']
    sink = CreditSink(ch1_a)  # A never reads the link-1 channel
    ch1_a.sink = received['A'].append
    await asyncio.sleep(0.4)
    ch2_b = await b_link2.create_l2cap_channel(
        spec=l2cap.LeCreditBasedChannelSpec(psm=CB_DUAL_A_PSM, **CB_CARD_COC)
    )
    ch2_b.sink = received['B'].append
    ch2_a = await accepted['A']

    # Each writes only where it is the peripheral: B on link 1, A on link 2.
    await asyncio.sleep(0.3)
    b_sent = [card_sdu('B', i) for i in range(1, CB_DUAL_B_SDUS + 1)]
    for sdu in b_sent:
        ch1_b.write(sdu)  # queued: B runs out of credits with data waiting
    a_sent = []
    for i in range(1, CB_DUAL_A_SDUS + 1):
        await asyncio.sleep(0.2)
        a_sent.append(card_sdu('A', i))
        ch2_a.write(a_sent[-1])
        await ch2_a.drain()
    await asyncio.sleep(2.0)
    b_left = len(ch1_b.out_queue) + (ch1_b.out_sdu is not None)
    check(ch1_b.credits == 0 and b_left > 0, f'B: credits {ch1_b.credits}, left {b_left}')
    check(received['B'] == a_sent, 'link 2: SDUs B received')
    check(received['A'] == b_sent[:1], f'link 1: A received {len(received["A"])} SDUs')
    check(sink.dropped > 0, 'A had no credits to withhold')
    await a_link1.disconnect()
    await asyncio.sleep(0.1)
    await b_link2.disconnect()
    return {'b_sdus_written': len(b_sent), 'a_sdus_written': len(a_sent)}


def dual_role_json(rec: Recording, encodings: dict, description: str) -> dict:
    channels = rec.channels()
    reads = psm_reads(rec, encodings)
    out_channels = []
    for ch in channels:
        c = channel_json(ch)
        c['acceptor'] = 'B' if ch['opened_by'] == 'A' else 'A'
        c['link_a_role'] = rec.links[ch['link']]['a_role']
        c['psm_read'] = next(
            (
                {'frame': r['frame'], 'link': r['link'], 'reader': r['reader']}
                for r in reads
                if r['psm'] == ch['psm'] and r['reader'] == ch['opened_by']
            ),
            None,
        )
        c['credits_granted'] = {  # LE Flow Control Credit packets, per granting side
            f'by_{"B" if s == "A" else "A"}': c['senders'][s]['credits_granted_total']
            for s in 'BA'
        }
        out_channels.append(c)
    return {
        'description': description,
        'a_addresses': rec.own_addresses,
        'links': sorted(rec.links.values(), key=lambda l: l['connection_complete_frame']),
        'psm_reads': reads,
        'channels': out_channels,
    }


def cb_dual_role_check(path: Path) -> dict:
    rec = Recording(path)
    out = dual_role_json(
        rec,
        {'A': 'uint16 little-endian', 'B': 'uint16 big-endian'},
        'cb-dual-role: the CoreBluetooth business-card trap, recorded on host A. Link 1: A '
        'central -> B; link 2: B central (from another address) -> A. Each reads the other\'s '
        'L2CAP PSM characteristic and opens a channel on it; each writes only on the '
        'channel the other opened (where it is the peripheral). A never returns credits on '
        'link 1, so B stops with data queued. Frames are 1-based btsnoop record numbers. '
        'channels[].initial_credits and senders are keyed by the side that holds/sends.',
    )
    links = out['links']
    check(len(links) == 2, f'links {links}')
    check([l['a_role'] for l in links] == ['central', 'peripheral'], 'roles')
    check(links[0]['peer_address'] == B_ADDRESS, 'link 1 peer')
    check(links[1]['peer_address'] == B_CONNECT_ADDRESS, 'link 2 peer')
    check(
        links[1]['connection_complete_frame'] < links[0]['disconnection_complete_frame'],
        'both links up at once',
    )
    reads = out['psm_reads']
    check(
        [(r['link'], r['reader'], r['psm']) for r in reads]
        == [(links[0]['handle'], 'A', CB_DUAL_B_PSM), (links[1]['handle'], 'B', CB_DUAL_A_PSM)],
        f'PSM reads {reads}',
    )
    ch1, ch2 = out['channels']
    check(
        (ch1['link'], ch1['opened_by'], ch1['psm']) == (links[0]['handle'], 'A', CB_DUAL_B_PSM)
        and (ch2['link'], ch2['opened_by'], ch2['psm'])
        == (links[1]['handle'], 'B', CB_DUAL_A_PSM),
        'channels',
    )
    check(
        ch1['senders']['A']['sdu_count'] == 0 and ch2['senders']['B']['sdu_count'] == 0,
        'data one way on each channel',
    )
    check(
        [bytes.fromhex(s['hex']) for s in ch1['senders']['B']['sdus']] == [card_sdu('B', 1)],
        'link 1 SDUs',
    )
    check(
        [bytes.fromhex(s['hex']) for s in ch2['senders']['A']['sdus']]
        == [card_sdu('A', i) for i in range(1, CB_DUAL_A_SDUS + 1)],
        'link 2 SDUs',
    )
    b1 = ch1['senders']['B']
    check(b1['credit_packets_received'] == [] and b1['credits_at_end'] == 0, 'A withholds')
    check(b1['zero_credit_frames'] and b1['zero_credit_frames'][0]['sdu_unfinished'], 'stall')
    check(ch2['senders']['A']['credit_packets_received'], 'B returns credits')
    opened = [ch1['request_frame'], ch2['request_frame']]
    times = [rec.records[f - 1][1] for f in opened]
    check(0 < times[1] - times[0] <= 1_000_000, f'channels opened {times}')
    out['channels_opened_us_apart'] = times[1] - times[0]
    out['b_credits_zero_on_link1'] = {
        'frame': b1['zero_credit_frames'][0]['frame'],
        'link': ch1['link'],
        'sdu_unfinished': True,
        'never_granted_again': True,
    }
    return out


# -----------------------------------------------------------------------------
# 3. cb-dual-role-shared: the same app, both channels on ONE link
# -----------------------------------------------------------------------------
CB_SHARED_A_PSM = 0x0085  # published as ASCII decimal text "133"
CB_SHARED_B_PSM = 0x00C3  # published little-endian: c3 00
CB_SHARED_B_SDUS = 3


async def scenario_cb_dual_role_shared(phones: Phones) -> dict:
    a, b = phones.a, phones.b
    a_psm = psm_characteristic(b'%d' % CB_SHARED_A_PSM)  # "133"
    b_psm = psm_characteristic(struct.pack('<H', CB_SHARED_B_PSM))  # c3 00
    a.add_service(Service(CB_CARD_SERVICE_UUID, [a_psm]))
    b.add_service(Service(CB_CARD_SERVICE_UUID, [b_psm]))
    loop = asyncio.get_running_loop()
    received = {'A': [], 'B': []}
    accepted = {'A': loop.create_future(), 'B': loop.create_future()}

    def on_a_channel(channel):
        channel.sink = received['B'].append
        accepted['A'].set_result(channel)

    def on_b_channel(channel):
        channel.sink = received['A'].append
        accepted['B'].set_result(channel)

    server_channels(a, CB_SHARED_A_PSM, CB_CARD_COC, on_a_channel)
    server_channels(b, CB_SHARED_B_PSM, CB_CARD_COC, on_b_channel)
    await phones.power_on()
    a_link, b_link = await phones.connect_a_to_b(card_adv_data(B_NAME))
    value_b = await read_psm_value(a_link, CB_CARD_SERVICE_UUID)
    value_a = await read_psm_value(b_link, CB_CARD_SERVICE_UUID)
    check(struct.unpack('<H', value_b)[0] == CB_SHARED_B_PSM, value_b.hex())
    check(int(value_a.decode('ascii')) == CB_SHARED_A_PSM, value_a.hex())
    await asyncio.sleep(0.2)
    ch_a = await a_link.create_l2cap_channel(  # A opens, B sends on it
        spec=l2cap.LeCreditBasedChannelSpec(psm=CB_SHARED_B_PSM, **CB_CARD_COC)
    )
    ch_a.sink = received['A'].append
    ch_a_b = await accepted['B']
    await asyncio.sleep(0.5)
    await b_link.create_l2cap_channel(  # B opens, stays idle
        spec=l2cap.LeCreditBasedChannelSpec(psm=CB_SHARED_A_PSM, **CB_CARD_COC)
    )
    await accepted['A']
    sent = []
    for i in range(1, CB_SHARED_B_SDUS + 1):
        await asyncio.sleep(0.3)
        sent.append(card_sdu('B', i))
        ch_a_b.write(sent[-1])
        await ch_a_b.drain()
    await asyncio.sleep(1.0)
    check(received['A'] == sent and received['B'] == [], 'shared: SDUs')
    await a_link.disconnect()
    return {'b_sdus_written': len(sent)}


def cb_dual_role_shared_check(path: Path) -> dict:
    rec = Recording(path)
    out = dual_role_json(
        rec,
        {'A': 'ASCII decimal', 'B': 'uint16 little-endian'},
        'cb-dual-role-shared: the business-card app on ONE link, recorded on host A (the '
        'central). Each reads the other\'s L2CAP PSM characteristic; A opens a channel on '
        'B\'s PSM, B one on A\'s, on the same link; only the channel A opened carries data '
        '(B->A), credits returned normally; the other stays idle. Frames are 1-based '
        'btsnoop record numbers.',
    )
    check(len(out['links']) == 1 and out['links'][0]['a_role'] == 'central', 'one link')
    reads = out['psm_reads']
    check(
        [(r['reader'], r['psm'], r['value_hex']) for r in reads]
        == [('A', CB_SHARED_B_PSM, 'c300'), ('B', CB_SHARED_A_PSM, b'133'.hex())],
        f'reads {reads}',
    )
    ch1, ch2 = out['channels']
    check((ch1['opened_by'], ch1['psm'], ch2['opened_by'], ch2['psm'])
          == ('A', CB_SHARED_B_PSM, 'B', CB_SHARED_A_PSM), 'channels')
    check(
        [bytes.fromhex(s['hex']) for s in ch1['senders']['B']['sdus']]
        == [card_sdu('B', i) for i in range(1, CB_SHARED_B_SDUS + 1)]
        and ch1['senders']['A']['sdu_count'] == 0,
        'data on the channel A opened',
    )
    check(all(ch2['senders'][s]['k_frames'] == 0 for s in 'AB'), 'idle channel')
    check(ch1['senders']['B']['credit_packets_received'], 'A returns credits')
    times = [rec.records[c['request_frame'] - 1][1] for c in (ch1, ch2)]
    check(0 < times[1] - times[0] <= 1_000_000, 'within a second')
    out['channels_opened_us_apart'] = times[1] - times[0]
    out['idle_channel'] = {'link': ch2['link'], 'opened_by': 'B', 'psm': ch2['psm']}
    return out


# -----------------------------------------------------------------------------
# 4. cb-streetpass: advertise 180A, scan + RSSI check, read 180C in 180B both ways
# -----------------------------------------------------------------------------
STREETPASS_ADV_UUID = 0x180A
STREETPASS_SERVICE = '180B'
STREETPASS_CHARACTERISTIC = '180C'
STREETPASS_RSSI_MIN = -100
STREETPASS_CARDS = {
    'A': '{"name":"Ana","msg":"hi"}'.encode(),
    'B': '{"name":"Ben","msg":"hello \u00e0 toi"}'.encode(),
}
STREETPASS_ADV_DATA = (
    ad_structure(0x01, b'\x06')
    + ad_structure(0x03, uuid16_list(STREETPASS_ADV_UUID))
    + ad_structure(0x09, b'StreetPass-B')
)
STREETPASS_SCAN_RESPONSE = ad_structure(0x0A, struct.pack('<b', -4))  # TX Power Level


def streetpass_service(card: bytes) -> Service:
    return Service(
        STREETPASS_SERVICE,
        [
            Characteristic(
                STREETPASS_CHARACTERISTIC,
                Characteristic.Properties.READ,
                Characteristic.READABLE,
                card,
            )
        ],
    )


async def read_card(connection) -> bytes:
    return await read_characteristic(connection, STREETPASS_SERVICE, STREETPASS_CHARACTERISTIC)


async def scenario_cb_streetpass(phones: Phones) -> dict:
    a, b = phones.a, phones.b
    a.add_service(streetpass_service(STREETPASS_CARDS['A']))
    b.add_service(streetpass_service(STREETPASS_CARDS['B']))
    await phones.power_on()
    loop = asyncio.get_running_loop()
    b_connection = loop.create_future()
    b.once('connection', b_connection.set_result)
    await b.start_advertising(
        advertising_data=STREETPASS_ADV_DATA,
        scan_response_data=STREETPASS_SCAN_RESPONSE,
        advertising_interval_min=100,
        advertising_interval_max=100,
    )
    found = loop.create_future()
    seen = []

    def on_advertisement(advertisement):
        uuids = advertisement.data.get(0x03) or []
        seen.append((advertisement.rssi, [str(u) for u in uuids]))
        if (
            any(u == UUID.from_16_bits(STREETPASS_ADV_UUID) for u in uuids)
            and advertisement.rssi > STREETPASS_RSSI_MIN
            and not found.done()
        ):
            found.set_result(advertisement)

    a.on('advertisement', on_advertisement)
    await a.start_scanning(legacy=True, active=True, scan_interval=60, scan_window=30)
    advertisement = await asyncio.wait_for(found, 10)
    await a.stop_scanning(legacy=True)
    connection = await a.connect(advertisement.address, timeout=10)
    b_connection = await b_connection
    await Peer(connection).request_mtu(185)  # as iOS does on every connection
    card_b = await read_card(connection)
    await asyncio.sleep(0.1)
    card_a = await read_card(b_connection)  # the peripheral as GATT client
    check(card_b == STREETPASS_CARDS['B'] and card_a == STREETPASS_CARDS['A'], 'cards')
    await asyncio.sleep(0.2)
    await connection.disconnect()
    return {'reports_seen': len(seen), 'rssi': advertisement.rssi}


def ad_entries(data: bytes) -> list[tuple[int, bytes]]:
    out, i = [], 0
    while i < len(data) and data[i]:
        out.append((data[i + 1], data[i + 2 : i + 1 + data[i]]))
        i += 1 + data[i]
    return out


def cb_streetpass_check(path: Path) -> dict:
    rec = Recording(path)
    reports = []
    for r in rec.adv_reports:
        entries = ad_entries(r['data'])
        uuids = [
            u for t, v in entries if t in (0x02, 0x03)
            for u in struct.unpack(f'<{len(v) // 2}H', v)
        ]
        names = [v.decode() for t, v in entries if t in (0x08, 0x09)]
        reports.append(
            {
                'frame': r['frame'],
                'event_type': r['event_type'],
                'address': r['address'],
                'rssi': r['rssi'],
                'uuid16': [f'{u:04X}' for u in uuids],
                'tx_power': next(
                    (struct.unpack('<b', v)[0] for t, v in entries if t == 0x0A), None
                ),
                'name': names[0] if names else None,
                'data_hex': r['data'].hex(),
            }
        )
    with_uuid = [r for r in reports if '180A' in r['uuid16']]
    check(with_uuid and all(r['rssi'] > STREETPASS_RSSI_MIN for r in with_uuid), 'reports')
    check(len(rec.links) == 1, 'one link')
    (link,) = rec.links.values()
    check(link['peer_address'] == B_ADDRESS and link['a_role'] == 'central', f'{link}')
    check(with_uuid[-1]['frame'] < link['connection_complete_frame'], 'report before link')
    declared = rec.characteristics()
    reads = []
    for read in rec.reads():
        server = 'A' if read['reader'] == 'B' else 'B'
        decl = declared.get((read['link'], server, read['attribute_handle']))
        check(decl and decl['uuid'] == STREETPASS_CHARACTERISTIC, f'read {read}')
        value = bytes.fromhex(read['value_hex'])
        reads.append(
            {
                **read,
                'server': server,
                'uuid': decl['uuid'],
                'value_text': value.decode('utf-8'),
                'value_json': json.loads(value),
            }
        )
    check(
        [(r['reader'], bytes.fromhex(r['value_hex'])) for r in reads]
        == [('A', STREETPASS_CARDS['B']), ('B', STREETPASS_CARDS['A'])],
        f'reads {reads}',
    )
    services = []  # Find By Type Value requests for 0x180B, per requester
    for frame, sender, _h, pdu in rec.att():
        if pdu[0] == 0x06:
            services.append({'frame': frame, 'requester': sender,
                             'uuid': uuid_text(pdu[7:])})
    return {
        'description': 'cb-streetpass: B advertises the 16-bit service UUID 0x180A; A scans '
        f'actively and connects to the first report with 180A and RSSI > {STREETPASS_RSSI_MIN}'
        '; each reads the other\'s characteristic 0x180C in primary service 0x180B over '
        'the one link (B as GATT client on the peripheral side). Frames are 1-based btsnoop '
        'record numbers.',
        'rssi_threshold': STREETPASS_RSSI_MIN,
        'advertising_reports': reports,
        'reports_with_180a': [r['frame'] for r in with_uuid],
        'connect_decision_report_frame': with_uuid[0]['frame'],
        'scan_response_frames': [r['frame'] for r in reports if r['event_type'] == 0x04],
        'link': link,
        'service_discovery': services,
        'reads': reads,
    }


# -----------------------------------------------------------------------------
# 5. cb-sequence: CCCD, write request "start", notifications with a sequence byte
# -----------------------------------------------------------------------------
SEQ_SERVICE_UUID = '5E900000-6C1A-4B2D-9E3F-8A7B6C5D4E3F'
SEQ_DATA_UUID = '5E900001-6C1A-4B2D-9E3F-8A7B6C5D4E3F'
SEQ_CONTROL_UUID = '5E900002-6C1A-4B2D-9E3F-8A7B6C5D4E3F'
SEQ_START = b'\x01'
SEQ_VALUES = (0, 1, 2, 3, 4, 6, 7, 8, 9, 10)  # 5 is skipped: one lost notification
SEQ_INTERVAL = 0.1


def seq_reading(seq: int) -> int:
    return 1000 + 37 * seq  # an arbitrary reading, uint16


def seq_value(seq: int) -> bytes:
    return struct.pack('<BH', seq, seq_reading(seq))


async def scenario_cb_sequence(phones: Phones) -> dict:
    a, b = phones.a, phones.b
    props = Characteristic.Properties
    data = Characteristic(SEQ_DATA_UUID, props.NOTIFY, Characteristic.READABLE, b'')
    started = asyncio.get_running_loop().create_future()

    def on_control(_connection, value):
        check(value == SEQ_START and not started.done(), f'control {value!r}')
        started.set_result(None)

    control = Characteristic(
        SEQ_CONTROL_UUID, props.WRITE, Characteristic.WRITEABLE,
        CharacteristicValue(write=on_control),
    )
    b.add_service(Service(SEQ_SERVICE_UUID, [data, control]))
    await phones.power_on()
    connection, _ = await phones.connect_a_to_b()
    peer = Peer(connection)
    await peer.request_mtu(185)
    await peer.discover_all()
    (data_proxy,) = peer.get_characteristics_by_uuid(UUID(SEQ_DATA_UUID))
    (control_proxy,) = peer.get_characteristics_by_uuid(UUID(SEQ_CONTROL_UUID))
    notified: list[bytes] = []
    await peer.subscribe(data_proxy, notified.append)
    await peer.write_value(control_proxy, SEQ_START, with_response=True)
    await started
    for seq in SEQ_VALUES:
        await asyncio.sleep(SEQ_INTERVAL)
        await b.notify_subscribers(data, seq_value(seq))
    await asyncio.sleep(0.5)
    await connection.disconnect()
    check(notified == [seq_value(s) for s in SEQ_VALUES], f'notifications {notified}')
    return {'handles': {'data': data.handle, 'control': control.handle}}


def cb_sequence_check(path: Path) -> dict:
    rec = Recording(path)
    declared = rec.characteristics()
    chars = {d['uuid']: vh for (_l, _s, vh), d in declared.items()}
    check(SEQ_DATA_UUID in chars and SEQ_CONTROL_UUID in chars, f'{declared}')
    data_handle, control_handle = chars[SEQ_DATA_UUID], chars[SEQ_CONTROL_UUID]
    services = []
    for frame, _s, _h, pdu in rec.att():
        if pdu[0] == 0x11 and pdu[1] == 20:  # Read By Group Type Response, 128-bit
            for off in range(2, len(pdu), 20):
                start, end = struct.unpack_from('<HH', pdu, off)
                services.append({'frame': frame, 'uuid': uuid_text(pdu[off + 4 : off + 20]),
                                 'start_handle': start, 'end_handle': end})
    cccd = None
    for frame, sender, _h, pdu in rec.att():
        if sender == 'B' and pdu[0] == 0x05 and pdu[1] == 0x01:
            for off in range(2, len(pdu), 4):
                h, u = struct.unpack_from('<HH', pdu, off)
                if u == 0x2902 and h > data_handle and (cccd is None or h < cccd):
                    cccd = h
    writes, notifications = [], []
    for frame, sender, _h, pdu in rec.att():
        if sender == 'A' and pdu[0] == 0x12:
            writes.append({'frame': frame, 'handle': struct.unpack_from('<H', pdu, 1)[0],
                           'value_hex': pdu[3:].hex()})
        elif sender == 'B' and pdu[0] == 0x13:
            writes[-1]['response_frame'] = frame
        elif sender == 'B' and pdu[0] == 0x1B:
            handle = struct.unpack_from('<H', pdu, 1)[0]
            check(handle == data_handle and len(pdu) == 6, f'frame {frame}: notification')
            seq, reading = struct.unpack_from('<BH', pdu, 3)
            notifications.append({'frame': frame, 'handle': handle, 'seq': seq,
                                  'reading': reading, 'value_hex': pdu[3:].hex()})
    check([(w['handle'], w['value_hex']) for w in writes]
          == [(cccd, '0100'), (control_handle, SEQ_START.hex())], f'writes {writes}')
    check([n['seq'] for n in notifications] == list(SEQ_VALUES), 'sequence')
    check(all(n['reading'] == seq_reading(n['seq']) for n in notifications), 'readings')
    gaps = [
        {'after_frame': p['frame'], 'at_frame': n['frame'], 'expected': p['seq'] + 1,
         'got': n['seq']}
        for p, n in zip(notifications, notifications[1:])
        if n['seq'] != p['seq'] + 1
    ]
    check(len(gaps) == 1, f'gaps {gaps}')
    (link,) = rec.links.values()
    return {
        'description': 'cb-sequence: A (central) discovers, enables notifications (CCCD '
        '01 00), writes 01 ("start") with a Write Request to the control characteristic, '
        'then receives 10 notifications [seq uint8][reading uint16 little-endian] 100 ms '
        'apart; seq 5 never comes. Frames are 1-based btsnoop record numbers.',
        'link': link,
        'service': {'uuid': SEQ_SERVICE_UUID,
                    **next(s for s in services if s['uuid'] == SEQ_SERVICE_UUID)},
        'data_characteristic': {'uuid': SEQ_DATA_UUID, 'value_handle': data_handle,
                                'cccd_handle': cccd},
        'control_characteristic': {'uuid': SEQ_CONTROL_UUID, 'value_handle': control_handle},
        'cccd_write': writes[0],
        'write_request': writes[1],
        'value_format': '[seq uint8][reading uint16 little-endian]',
        'notifications': notifications,
        'gap': gaps[0],
    }


# -----------------------------------------------------------------------------
# Main
# -----------------------------------------------------------------------------
SCENARIOS = (
    ('cb-chat', scenario_cb_chat, cb_chat_check, {}),
    ('cb-dual-role', scenario_cb_dual_role, cb_dual_role_check,
     {'b_address': B_CONNECT_ADDRESS, 'extended': True}),
    ('cb-dual-role-shared', scenario_cb_dual_role_shared, cb_dual_role_shared_check, {}),
    ('cb-streetpass', scenario_cb_streetpass, cb_streetpass_check, {}),
    ('cb-sequence', scenario_cb_sequence, cb_sequence_check, {}),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument(
        'outdir',
        nargs='?',
        type=Path,
        default=Path(__file__).resolve().parent.parent / 'captures',
        help="where to write the files (default: the repository's captures/)",
    )
    parser.add_argument('only', nargs='*', help='record only these scenarios')
    args = parser.parse_args()
    outdir: Path = args.outdir
    outdir.mkdir(parents=True, exist_ok=True)

    import bumble

    print(f'Bumble {bumble.__version__}, writing to {outdir}/')
    for name, scenario, checker, phones_args in SCENARIOS:
        if args.only and name not in args.only:
            continue
        result = run_recording(name, outdir, scenario, **phones_args)
        expected = checker(outdir / f'{name}.btsnoop')
        write_json(outdir / f'{name}.expected.json', expected)
        frames = len(read_btsnoop(outdir / f'{name}.btsnoop'))
        print(f'{name}: {frames} frames, {json.dumps(result)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
