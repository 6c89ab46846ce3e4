#!/usr/bin/env python3
"""Record genuine BLE HCI traffic with Bumble, for bleinspect's test inputs.

Usage:
    python3 -m pip install -r scripts/requirements-captures.txt
    python3 scripts/record_captures.py [OUTDIR]   # default: the repository's captures/

Two Bumble hosts (``bumble.device.Device`` + ``bumble.host.Host``) run in one
process, each on its own Bumble virtual controller (``bumble.controller.Controller``),
both controllers attached to one ``bumble.link.LocalLink``.  One device is the
central, the other the peripheral.  For each scenario the HCI traffic seen by ONE
host (the central's) is written with Bumble's btsnoop writer
(``bumble.snoop.BtSnooper``, datalink 1002 = H4), attached as ``Host.snooper``.

Scenarios (one file each):
  adv-scan.btsnoop           legacy advertising + scan response, active scanning
  adv-extended.btsnoop       extended advertising (non-legacy PDUs), extended scanning
  gatt-discovery.btsnoop     connect, MTU exchange, full discovery, reads,
                             CCCD write, notifications, disconnect
  le-coc.btsnoop             PSM read from GATT (L2CAP PSM characteristic), LE
                             credit-based channel, segmented SDUs both ways with
                             credit starvation, channel + link disconnection
  smp-pairing.btsnoop        LE Secure Connections (Just Works), key distribution
  smp-legacy-pairing.btsnoop LE legacy pairing (Just Works), key distribution
  gatt-database.btsnoop      richer GATT server (secondary service + include,
                             descriptors 0x2900/0x2901/0x2904), reads, write
                             request + command, notifications, indications,
                             Service Changed + range rediscovery, reconnection
  le-coc-stall.btsnoop       LE CoC whose receiver withholds credits (1.500 s,
                             then 0.750 s) while the sender has data queued
  chat-coc.btsnoop           plugin example: JSON chat messages on an LE CoC
                             (PSM 0x0081), 'EOF' + space padding, 1024-byte SDUs
                             in K-frames of 247 / 100 bytes, both directions
  sensor-gatt.btsnoop        plugin example: custom environment-sensor service
                             (5A1C0000-...), full discovery, measurement and
                             Calibration descriptor reads, 4 notifications,
                             4 control point write requests
  vendor-adv.btsnoop         plugin example: legacy advertising + active scanning,
                             vendor Manufacturer Specific Data (0xFFFF, AC 01 ...)
                             changed while scanning, 128-bit Service Data in the
                             scan response
plus, derived from gatt-discovery.btsnoop:
  gatt-discovery-be.pklg / gatt-discovery-le.pklg   Apple PacketLogger, both byte orders
  le-coc.sdus.json           the L2CAP SDUs sent on the LE CoC, in send order
and written alongside the new recordings:
  gatt-database.gatt.json    the peripheral's attribute table (from Bumble's
                             gatt_server), and what the central did per handle
  le-coc-stall.stalls.json   the stalls, found again in the recording, + the SDUs
  chat-coc.messages.json     the chat messages, in send order
  sensor-gatt.expected.json  each sensor value sent, with its decoded fields
  vendor-adv.expected.json   the advertising payloads set, with their decoded
                             fields, and the decoded scan response
  (the last three are checked against the recording, read again without Bumble)

Determinism: everything is fixed that Bumble lets one fix (addresses, IRKs, names,
payloads).  What Bumble draws at random (SMP random values, LTK/CSRK, ECDH private
keys, LE_Rand) is made reproducible by replacing ``secrets.token_bytes`` /
``secrets.randbelow``, ``random`` and ``bumble.crypto.EccKey.generate`` with
generators seeded per scenario.  asyncio runs on a virtual clock (the loop never
sleeps; when idle it jumps to the next timer), and the btsnoop timestamps are
taken from that clock, starting at 2025-01-01T00:00:00.123456Z.  Re-running the script
therefore re-creates byte-identical files.  NEVER use these patches outside of
test-capture generation: they remove all the security of the pairing.

The Bumble virtual controller is simplified; captures/README.md lists what in the
recordings differs from a real controller.  One controller behaviour is corrected
here (see ``RecordingController``): Bumble's scanner reports the advertising data
again as the "scan response"; the subclass puts the advertiser's real scan
response data in those reports and drops scan-response reports for advertisers
that have none.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import io
import json
import random
import secrets
import selectors
import struct
import sys
from pathlib import Path
from types import SimpleNamespace

from bumble import att, crypto, hci, l2cap
from bumble.controller import Controller
from bumble.core import UUID
from bumble.device import (
    AdvertisingEventProperties,
    AdvertisingParameters,
    Device,
    DeviceConfiguration,
    Peer,
)
from bumble.gatt import (
    GATT_PRIMARY_SERVICE_ATTRIBUTE_TYPE,
    Characteristic,
    CharacteristicDeclaration,
    CharacteristicValue,
    Descriptor,
    IncludedServiceDeclaration,
    Service,
)
from bumble.gatt_client import ServiceProxy
from bumble.host import Host
from bumble.link import LocalLink
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.snoop import BtSnooper
from bumble.transport.common import AsyncPipeSink

# -----------------------------------------------------------------------------
# Fixed parameters
# -----------------------------------------------------------------------------
# Static random addresses (two most significant bits set).
CENTRAL_ADDRESS = 'C0:DE:C0:DE:00:01'
PERIPHERAL_ADDRESS = 'C0:DE:C0:DE:00:02'
CENTRAL_IRK = bytes.fromhex('00112233445566778899aabbccddeeff')
PERIPHERAL_IRK = bytes.fromhex('ffeeddccbbaa99887766554433221100')
CENTRAL_NAME = 'bleinspect-central'
PERIPHERAL_NAME = 'bleinspect-periph'

# btsnoop timestamps: µs since 0000-01-01; the capture starts at 2025-01-01.
BTSNOOP_EPOCH_DELTA_US = 0x00DCDDB30F2F8000  # 1970-01-01 in btsnoop time
CAPTURE_START_UNIX_US = 1_735_689_600_123_456  # 2025-01-01T00:00:00.123456Z
MIN_PACKET_SPACING_US = 100  # strictly increasing timestamps within a burst

COMPANY_ID = 0xFFFF  # "reserved for testing" company identifier
MANUFACTURER_DATA = b'BLE'
TX_POWER = -4  # dBm, in the TX Power Level AD

PSM_CHARACTERISTIC_UUID = 'ABDD3056-28FA-441D-A470-55A75A52553A'
COC_SERVICE_UUID = 'B1E15EC7-0000-4000-8000-00000000C0C0'
CUSTOM_SERVICE_UUID = 'B1E15EC7-0000-4000-8000-000000000001'
CUSTOM_CHAR_UUID = 'B1E15EC7-0001-4000-8000-000000000001'
LE_PSM = 0x0085
# Bumble's receiver grants credits back to max_credits as soon as the sender's
# remaining credits fall to max_credits // 2.
# Peripheral side (receives central->peripheral SDUs): MPS 64, 4 credits.  The
# central sends 4 K-frames, is out of credits, and waits for grants of 2.
PERIPHERAL_COC = dict(mtu=512, mps=64, max_credits=4)
# Central side (receives peripheral->central SDUs): minimum MPS 23, 1 credit: the
# peripheral sends one K-frame, then waits for each grant of 1 credit.
CENTRAL_COC = dict(mtu=512, mps=23, max_credits=1)
SDU_LENGTHS = {
    'central->peripheral': (200, 333, 500),
    'peripheral->central': (256, 420, 487),
}

BATTERY_LEVELS = (87, 86, 85, 84)  # first: read value; the rest: notifications


def check(condition: bool, message) -> None:
    """Stop with an error when a scenario did not produce what it claims."""
    if not condition:
        raise RuntimeError(f'check failed: {message}')


# -----------------------------------------------------------------------------
# Determinism helpers
# -----------------------------------------------------------------------------
class _VirtualClockSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    """Selector that never sleeps: an idle wait advances the loop's virtual clock."""

    def __init__(self) -> None:
        super().__init__()
        self.loop: VirtualClockLoop | None = None

    def select(self, timeout=None):
        events = super().select(0)
        if events or timeout == 0 or self.loop is None:
            return events
        if timeout is None:  # nothing scheduled: only another thread can wake us
            return super().select(None)
        self.loop.now += timeout  # idle until the next timer: jump to it
        return events


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """Event loop whose time() is virtual: timers fire in order, instantly."""

    def __init__(self) -> None:
        selector = _VirtualClockSelector()
        self.now = 0.0
        super().__init__(selector)
        selector.loop = self

    def time(self) -> float:
        return self.now


def seed_randomness(seed: str) -> None:
    """Make every random value Bumble draws reproducible (see module docstring)."""
    rng = random.Random(f'bleinspect:{seed}')
    secrets.token_bytes = lambda n=32: rng.randbytes(n)  # type: ignore[assignment]
    secrets.randbelow = lambda n: rng.randrange(n)  # type: ignore[assignment]
    random.seed(f'bleinspect-random:{seed}')
    p256_order = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551

    def generate(_cls=None):
        d = rng.randrange(1, p256_order)
        return crypto.EccKey.from_private_key_bytes(d.to_bytes(32, 'big'))

    crypto.EccKey.generate = classmethod(generate)  # type: ignore[method-assign,assignment]


class RecordingBtSnooper(BtSnooper):
    """Bumble's BtSnooper, with timestamps from the virtual clock.

    Each record is produced by BtSnooper.snoop(); only its 64-bit timestamp field
    is replaced, so that the file does not depend on the wall clock.
    """

    def __init__(self, output, loop: VirtualClockLoop) -> None:
        super().__init__(output)
        self.loop = loop
        self.last_timestamp = 0

    def snoop(self, hci_packet: bytes, direction) -> None:
        real_output, self.output = self.output, io.BytesIO()
        try:
            super().snoop(hci_packet, direction)
            record = bytearray(self.output.getvalue())
        finally:
            self.output = real_output
        timestamp = (
            BTSNOOP_EPOCH_DELTA_US
            + CAPTURE_START_UNIX_US
            + round(self.loop.time() * 1_000_000)
        )
        timestamp = max(timestamp, self.last_timestamp + MIN_PACKET_SPACING_US)
        self.last_timestamp = timestamp
        struct.pack_into('>Q', record, 16, timestamp)
        self.output.write(record)


class RecordingController(Controller):
    """Bumble's virtual controller, with scan-response reports carrying real data.

    Bumble's controller answers every received advertising PDU with two reports,
    the second flagged as scan response but carrying the advertising data again.
    Here the second report gets the advertiser's configured scan response data,
    and is dropped when the advertiser has none (non-scannable) or the scan is
    passive.  Nothing else is changed.
    """

    def _scan_response_of(self, address: hci.Address) -> bytes:
        advertiser = self.link.find_le_controller(address)
        if advertiser is None:
            return b''
        legacy = advertiser.le_legacy_advertiser
        if legacy.enabled and legacy.address == address:
            return bytes(legacy.scan_response_data)
        for adv_set in advertiser.advertising_sets.values():
            if adv_set.enabled and adv_set.address == address:
                return bytes(adv_set.scan_response_data)
        return b''

    def send_hci_packet(self, packet: hci.HCI_Packet) -> None:
        if isinstance(packet, hci.HCI_LE_Advertising_Report_Event):
            scan_rsp = hci.HCI_LE_Advertising_Report_Event.EventType.SCAN_RSP
            report = packet.reports[0]
            if report.event_type == scan_rsp:
                data = self._scan_response_of(report.address)
                if not data or self.le_scan_type == 0:
                    return
                packet = hci.HCI_LE_Advertising_Report_Event(
                    [
                        hci.HCI_LE_Advertising_Report_Event.Report(
                            event_type=scan_rsp,
                            address_type=report.address_type,
                            address=report.address,
                            data=data,
                            rssi=report.rssi,
                        )
                    ]
                )
        elif isinstance(packet, hci.HCI_LE_Extended_Advertising_Report_Event):
            ext = hci.HCI_LE_Extended_Advertising_Report_Event
            report = packet.reports[0]
            if report.event_type & ext.EventType.SCAN_RESPONSE:
                data = self._scan_response_of(report.address)
                if not data:
                    return
                report.data = data
                packet = ext([report])
        super().send_hci_packet(packet)


# -----------------------------------------------------------------------------
# Setup
# -----------------------------------------------------------------------------
LEGACY_ONLY_LE_FEATURES = Controller.le_features & ~(
    hci.LeFeatureMask.LE_EXTENDED_ADVERTISING | hci.LeFeatureMask.LE_PERIODIC_ADVERTISING
)


class Pair:
    """A central and a peripheral, each a Bumble host on a Bumble controller."""

    def __init__(self, loop: VirtualClockLoop, snoop_file, extended: bool = False):
        self.link = LocalLink()
        self.devices: list[Device] = []
        self.controllers: list[Controller] = []
        for name, address, irk in (
            (CENTRAL_NAME, CENTRAL_ADDRESS, CENTRAL_IRK),
            (PERIPHERAL_NAME, PERIPHERAL_ADDRESS, PERIPHERAL_IRK),
        ):
            controller = RecordingController(
                f'controller-{name}', link=self.link, public_address='00:00:00:00:00:00'
            )
            if not extended:
                controller.le_features = LEGACY_ONLY_LE_FEATURES
            config = DeviceConfiguration()
            config.name = name
            config.address = hci.Address(address)
            config.irk = irk
            host = Host(controller, AsyncPipeSink(controller))
            device = Device(config=config, host=host)
            self.controllers.append(controller)
            self.devices.append(device)
        self.snooper = RecordingBtSnooper(snoop_file, loop)
        self.central.host.snooper = self.snooper

    @property
    def central(self) -> Device:
        return self.devices[0]

    @property
    def peripheral(self) -> Device:
        return self.devices[1]

    async def power_on(self) -> None:
        for device in self.devices:
            await device.power_on()

    async def connect(self):
        """Peripheral advertises (legacy, connectable), central connects."""
        peripheral_connection = asyncio.get_running_loop().create_future()
        self.peripheral.once('connection', peripheral_connection.set_result)
        await self.peripheral.start_advertising(
            advertising_data=ad_structure(0x01, b'\x06')
            + ad_structure(0x09, PERIPHERAL_NAME.encode()),
            advertising_interval_min=100,
            advertising_interval_max=100,
        )
        central_connection = await self.central.connect(
            hci.Address(PERIPHERAL_ADDRESS), timeout=10
        )
        return central_connection, await peripheral_connection


def ad_structure(ad_type: int, payload: bytes) -> bytes:
    return bytes([len(payload) + 1, ad_type]) + payload


def uuid16_list(*uuids: int) -> bytes:
    return b''.join(struct.pack('<H', u) for u in uuids)


def uuid128_bytes(uuid: str) -> bytes:
    return bytes(UUID(uuid))  # little-endian, as on the air


# -----------------------------------------------------------------------------
# Scenarios
# -----------------------------------------------------------------------------
ADV_DATA = (
    ad_structure(0x01, b'\x06')  # Flags: LE General Discoverable, BR/EDR not supp.
    + ad_structure(0x09, b'bleinspect')  # Complete Local Name
    + ad_structure(0x03, uuid16_list(0x180F, 0x180A))  # Complete 16-bit UUIDs
    + ad_structure(0x0A, struct.pack('<b', TX_POWER))  # TX Power Level
    + ad_structure(0xFF, struct.pack('<H', COMPANY_ID) + MANUFACTURER_DATA)
)
SCAN_RESPONSE_DATA = ad_structure(
    0x07, uuid128_bytes(CUSTOM_SERVICE_UUID)  # Complete 128-bit UUIDs
) + ad_structure(0x19, struct.pack('<H', 0x0540))  # Appearance: Generic Sensor
EXTENDED_ADV_DATA = (
    ad_structure(0x01, b'\x06')
    + ad_structure(0x09, b'bleinspect extended advertiser')
    + ad_structure(0x03, uuid16_list(0x180F, 0x180A, 0x1809))
    + ad_structure(0x07, uuid128_bytes(CUSTOM_SERVICE_UUID) + uuid128_bytes(COC_SERVICE_UUID))
    + ad_structure(0x0A, struct.pack('<b', TX_POWER))
    + ad_structure(0xFF, struct.pack('<H', COMPANY_ID) + bytes(range(0x20, 0x60)))
)
check(len(ADV_DATA) <= 31 and len(SCAN_RESPONSE_DATA) <= 31, 'legacy AD too long')
check(len(EXTENDED_ADV_DATA) <= 251, 'extended AD too long')


def connectable_extended(include_tx_power: bool) -> AdvertisingEventProperties:
    """Connectable, non-scannable, undirected extended (non-legacy) advertising."""
    return AdvertisingEventProperties(
        is_connectable=True,
        is_scannable=False,
        is_directed=False,
        is_high_duty_cycle_directed_connectable=False,
        is_legacy=False,
        is_anonymous=False,
        include_tx_power=include_tx_power,
    )


async def scenario_adv_scan(pair: Pair, extended: bool) -> dict:
    await pair.power_on()
    if extended:
        await pair.peripheral.create_advertising_set(
            advertising_parameters=AdvertisingParameters(
                advertising_event_properties=connectable_extended(include_tx_power=True),
                primary_advertising_interval_min=100,
                primary_advertising_interval_max=100,
                primary_advertising_phy=hci.Phy.LE_1M,
                secondary_advertising_phy=hci.Phy.LE_2M,
                advertising_sid=3,
            ),
            random_address=hci.Address(PERIPHERAL_ADDRESS),
            advertising_data=EXTENDED_ADV_DATA,
        )
    else:
        await pair.peripheral.start_advertising(
            advertising_data=ADV_DATA,
            scan_response_data=SCAN_RESPONSE_DATA,
            advertising_interval_min=100,
            advertising_interval_max=100,
        )

    wanted = 4
    advertisements = []
    done = asyncio.get_running_loop().create_future()

    def on_advertisement(advertisement):
        advertisements.append(advertisement)
        if len(advertisements) == wanted and not done.done():
            done.set_result(None)

    pair.central.on('advertisement', on_advertisement)
    await pair.central.start_scanning(
        legacy=not extended, active=True, scan_interval=60, scan_window=30
    )
    await asyncio.wait_for(done, 30)
    await pair.central.stop_scanning(legacy=not extended)
    first = advertisements[0]
    return {
        'advertisements': len(advertisements),
        'name': str(first.data.get(0x09)),
    }


async def scenario_gatt_discovery(pair: Pair) -> dict:
    battery_level = Characteristic(
        '2A19',
        Characteristic.Properties.READ | Characteristic.Properties.NOTIFY,
        Characteristic.READABLE,
        bytes([BATTERY_LEVELS[0]]),
    )
    custom = Characteristic(
        CUSTOM_CHAR_UUID,
        Characteristic.Properties.READ | Characteristic.Properties.WRITE,
        Characteristic.READABLE | Characteristic.WRITEABLE,
        b'hello bleinspect',
        descriptors=[
            Descriptor('2901', Descriptor.READABLE, b'bleinspect test value'),
        ],
    )
    pair.peripheral.add_services(
        [
            Service('180F', [battery_level]),
            Service(
                '180A',
                [
                    Characteristic(
                        '2A29',
                        Characteristic.Properties.READ,
                        Characteristic.READABLE,
                        b'bleinspect',
                    )
                ],
            ),
            Service(CUSTOM_SERVICE_UUID, [custom]),
        ]
    )
    await pair.power_on()
    connection, peripheral_connection = await pair.connect()
    peer = Peer(connection)
    mtu = await peer.request_mtu(247)
    await peer.discover_all()

    name_chars = peer.get_characteristics_by_uuid(UUID('2A00'))
    device_name = (await peer.read_value(name_chars[0])).decode()
    battery_chars = peer.get_characteristics_by_uuid(UUID('2A19'))
    level = (await peer.read_value(battery_chars[0]))[0]

    notifications: list[int] = []
    await peer.subscribe(battery_chars[0], lambda value: notifications.append(value[0]))
    for value in BATTERY_LEVELS[1:]:
        await asyncio.sleep(1.0)
        await pair.peripheral.notify_subscribers(battery_level, bytes([value]))
    await asyncio.sleep(0.5)
    await connection.disconnect()
    check(notifications == list(BATTERY_LEVELS[1:]), f'notifications {notifications}')
    return {
        'mtu': mtu,
        'services': len(peer.services),
        'device_name': device_name,
        'battery_level': level,
        'notifications': notifications,
    }


def sdu_payload(direction: str, index: int, length: int) -> bytes:
    tag = b'C>P' if direction == 'central->peripheral' else b'P>C'
    head = tag + b' SDU %d len %03d |' % (index, length)
    base = (0x40 if direction == 'central->peripheral' else 0xA0) + 0x10 * index
    body = bytes((base + i) & 0xFF for i in range(length - len(head)))
    return head + body


async def scenario_le_coc(pair: Pair) -> dict:
    psm_characteristic = Characteristic(
        PSM_CHARACTERISTIC_UUID,
        Characteristic.Properties.READ,
        Characteristic.READABLE,
        struct.pack('<H', LE_PSM),
    )
    pair.peripheral.add_service(Service(COC_SERVICE_UUID, [psm_characteristic]))

    sent: list[dict] = []
    received = {'central->peripheral': [], 'peripheral->central': []}
    peripheral_channel = asyncio.get_running_loop().create_future()

    def on_peripheral_channel(channel):
        channel.sink = received['central->peripheral'].append
        peripheral_channel.set_result(channel)

    pair.peripheral.create_l2cap_server(
        spec=l2cap.LeCreditBasedChannelSpec(psm=LE_PSM, **PERIPHERAL_COC),
        handler=on_peripheral_channel,
    )

    await pair.power_on()
    connection, _ = await pair.connect()
    peer = Peer(connection)
    services = await peer.discover_service(UUID(COC_SERVICE_UUID))
    characteristics = await peer.discover_characteristics(
        uuids=[UUID(PSM_CHARACTERISTIC_UUID)], service=services[0]
    )
    psm = struct.unpack('<H', await peer.read_value(characteristics[0]))[0]
    check(psm == LE_PSM, f'PSM read from GATT is {psm:#06x}')

    channel = await connection.create_l2cap_channel(
        spec=l2cap.LeCreditBasedChannelSpec(psm=psm, **CENTRAL_COC)
    )
    channel.sink = received['peripheral->central'].append
    remote = await peripheral_channel

    for direction, sender in (
        ('central->peripheral', channel),
        ('peripheral->central', remote),
    ):
        for index, length in enumerate(SDU_LENGTHS[direction], start=1):
            sdu = sdu_payload(direction, index, length)
            sent.append({'direction': direction, 'hex': sdu.hex()})
            sender.write(sdu)
            await sender.drain()
            await asyncio.sleep(0.05)

    await asyncio.sleep(0.1)
    await channel.disconnect()
    await asyncio.sleep(0.1)
    await connection.disconnect()

    for direction in received:
        expected = [bytes.fromhex(s['hex']) for s in sent if s['direction'] == direction]
        check(received[direction] == expected, f'{direction}: SDUs differ')
    return {'psm': psm, 'sdus': sent}


KEY_DISTRIBUTION = (
    PairingDelegate.KeyDistribution.DISTRIBUTE_ENCRYPTION_KEY
    | PairingDelegate.KeyDistribution.DISTRIBUTE_IDENTITY_KEY
    | PairingDelegate.KeyDistribution.DISTRIBUTE_SIGNING_KEY
)


async def scenario_smp(pair: Pair, secure_connections: bool) -> dict:
    for device in pair.devices:
        device.pairing_config_factory = lambda connection, sc=secure_connections: (
            PairingConfig(
                sc=sc,
                mitm=False,
                bonding=True,
                delegate=PairingDelegate(
                    io_capability=PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT,
                    local_initiator_key_distribution=KEY_DISTRIBUTION,
                    local_responder_key_distribution=KEY_DISTRIBUTION,
                ),
            )
        )
    await pair.power_on()
    connection, peripheral_connection = await pair.connect()
    paired = asyncio.get_running_loop().create_future()
    peripheral_connection.on('pairing', lambda keys: paired.set_result(keys))
    central_keys = asyncio.get_running_loop().create_future()
    connection.on('pairing', lambda keys: central_keys.set_result(keys))
    await connection.pair()
    await asyncio.wait_for(paired, 10)
    keys = await asyncio.wait_for(central_keys, 10)
    check(connection.is_encrypted, 'link not encrypted after pairing')
    await asyncio.sleep(0.5)
    await connection.disconnect()

    def key(k):
        return k.value.hex() if k else None

    return {
        'secure_connections': secure_connections,
        'ltk': key(keys.ltk),
        'peripheral_ltk': key(keys.ltk_peripheral),
        'peer_irk': key(keys.irk),
        'peer_csrk': key(keys.csrk),
    }


# gatt-database: a richer GATT server (secondary service included by a primary
# one, 16- and 128-bit UUIDs, varied properties and descriptors), notifications
# and indications, a Service Changed indication, and a second connection.
DB_STREAM_UUID = 'B1E15EC7-0002-4000-8000-000000000001'
DB_EVENTS_UUID = 'B1E15EC7-0003-4000-8000-000000000001'
DB_TEMPERATURE = 2150  # 21.50 °C: Temperature 0x2A6E is a sint16 in 0.01 °C
DB_CONTROL_VALUES = (b'mode=idle', b'mode=fast')  # initial, then written (request)
DB_STREAM_VALUE = bytes(range(0x30, 0x40))  # written once with a Write Command
DB_EVENTS = (b'\x01door open', b'\x02door shut')  # indications
DB_TX_POWER = -4  # the service that is added later, announced by Service Changed
CCCD_UUID = UUID('2902')


def presentation_format(fmt: int, exponent: int, unit: int) -> bytes:
    """Characteristic Presentation Format value (0x2904): namespace 1 (SIG)."""
    return struct.pack('<BbHBH', fmt, exponent, unit, 0x01, 0x0000)


def gatt_database_services() -> dict:
    """The gatt-database peripheral's own services, in the order they are added."""
    props = Characteristic.Properties
    temperature = Characteristic(
        '2A6E',
        props.READ,
        Characteristic.READABLE,
        struct.pack('<h', DB_TEMPERATURE),
        descriptors=[
            # sint16, exponent -2, unit 0x272F (degree Celsius)
            Descriptor('2904', Descriptor.READABLE, presentation_format(0x0E, -2, 0x272F))
        ],
    )
    environment = Service('181A', [temperature], primary=False)
    battery_level = Characteristic(
        '2A19',
        props.READ | props.NOTIFY,
        Characteristic.READABLE,
        bytes([BATTERY_LEVELS[0]]),
        descriptors=[
            # uint8, exponent 0, unit 0x27AD (percentage)
            Descriptor('2904', Descriptor.READABLE, presentation_format(0x04, 0, 0x27AD))
        ],
    )
    control = Characteristic(
        CUSTOM_CHAR_UUID,
        props.READ | props.WRITE | props.EXTENDED_PROPERTIES,
        Characteristic.READABLE | Characteristic.WRITEABLE,
        DB_CONTROL_VALUES[0],
        descriptors=[
            Descriptor('2900', Descriptor.READABLE, struct.pack('<H', 0x0001)),  # reliable
            Descriptor('2901', Descriptor.READABLE, b'bleinspect control'),
        ],
    )
    stream = Characteristic(
        DB_STREAM_UUID, props.WRITE_WITHOUT_RESPONSE, Characteristic.WRITEABLE, b''
    )
    events = Characteristic(
        DB_EVENTS_UUID, props.READ | props.INDICATE, Characteristic.READABLE, b'\x00'
    )

    def read_only(uuid: str, value: bytes) -> Characteristic:
        return Characteristic(uuid, props.READ, Characteristic.READABLE, value)

    tx_power_level = read_only('2A07', struct.pack('<b', DB_TX_POWER))
    return {
        'services': [
            environment,  # first, so that its handles do not nest in the includer's
            Service('180F', [battery_level]),
            Service(
                '180A',
                [
                    read_only('2A29', b'bleinspect'),  # Manufacturer Name String
                    read_only('2A24', b'BI-DB-1'),  # Model Number String
                    read_only('2A26', b'0.0.236'),  # Firmware Revision String
                ],
            ),
            Service(
                CUSTOM_SERVICE_UUID,
                [control, stream, events],
                included_services=[environment],
            ),
        ],
        'later': Service('1804', [tx_power_level]),  # added during connection 1
        'battery_level': battery_level,
        'stream': stream,
        'events': events,
    }


def uuid_hex(uuid: UUID) -> str:
    return uuid.to_hex_str('-')


def gatt_database_json(device: Device) -> list[dict]:
    """The server's attribute table, from Bumble's own gatt_server.attributes."""
    out: list[dict] = []
    owner: Characteristic | None = None
    for attribute in device.gatt_server.attributes:
        entry = {'handle': attribute.handle, 'type': uuid_hex(attribute.type)}
        if isinstance(attribute, Service):
            owner = None
            entry['kind'] = 'primary_service' if attribute.primary else 'secondary_service'
            entry['uuid'] = uuid_hex(attribute.uuid)
            entry['end_handle'] = attribute.end_group_handle
        elif isinstance(attribute, IncludedServiceDeclaration):
            entry['kind'] = 'include'
            entry['included_start'] = attribute.service.handle
            entry['included_end'] = attribute.service.end_group_handle
            entry['uuid'] = uuid_hex(attribute.service.uuid)
        elif isinstance(attribute, CharacteristicDeclaration):
            owner = attribute.characteristic
            entry['kind'] = 'characteristic'
            entry['uuid'] = uuid_hex(owner.uuid)
            entry['properties'] = int(owner.properties)
            entry['value_handle'] = attribute.value_handle
        elif isinstance(attribute, Characteristic):
            entry['kind'] = 'value'
        else:
            check(owner is not None, f'descriptor {attribute} outside a characteristic')
            entry['kind'] = 'descriptor'
            entry['characteristic'] = uuid_hex(owner.uuid)  # type: ignore[union-attr]
        # Values of characteristics and descriptors, as the server holds them at
        # the end; CCCDs have none (their state is per client), and the Database
        # Hash is computed as Bumble computes it when it is read.
        gatt_svc = device.gatt_service
        if entry['kind'] in ('value', 'descriptor') and isinstance(attribute.value, bytes):
            entry['value'] = attribute.value.hex()
        elif gatt_svc and attribute is gatt_svc.database_hash_characteristic:
            entry['value'] = gatt_svc.get_database_hash(
                SimpleNamespace(device=device)  # type: ignore[arg-type]
            ).hex()
        out.append(entry)
    return out


class GattActivity:
    """What the central did, per attribute handle, recorded as the script does it."""

    def __init__(self) -> None:
        self.activity: dict[int, dict] = {}
        self.subscriptions: dict[int, str] = {}

    def _entry(self, handle: int) -> dict:
        return self.activity.setdefault(
            handle,
            {'reads': 0, 'writes': 0, 'notifications': 0, 'indications': 0, 'last_value': ''},
        )

    async def read(self, peer: Peer, attribute) -> bytes:
        value = await peer.read_value(attribute)
        entry = self._entry(attribute.handle)
        entry['reads'] += 1
        entry['last_value'] = value.hex()
        return value

    async def write(self, peer: Peer, attribute, value: bytes, with_response: bool):
        await peer.write_value(attribute, value, with_response=with_response)
        entry = self._entry(attribute.handle)
        entry['writes'] += 1
        entry['last_value'] = value.hex()

    async def subscribe(self, peer: Peer, characteristic, values: list):
        indicate = not characteristic.properties & Characteristic.Properties.NOTIFY

        def on_value(value: bytes) -> None:
            entry = self._entry(characteristic.handle)
            entry['indications' if indicate else 'notifications'] += 1
            entry['last_value'] = value.hex()
            values.append(value)

        await peer.subscribe(characteristic, on_value)
        cccd = characteristic.get_descriptor(CCCD_UUID)
        self.subscriptions[cccd.handle] = '0200' if indicate else '0100'
        return on_value

    async def unsubscribe(self, peer: Peer, characteristic, subscriber) -> None:
        await peer.unsubscribe(characteristic, subscriber)
        self.subscriptions[characteristic.get_descriptor(CCCD_UUID).handle] = '0000'

    def to_json(self) -> tuple[dict, dict]:
        activity = {str(h): self.activity[h] for h in sorted(self.activity)}
        subscriptions = {str(h): self.subscriptions[h] for h in sorted(self.subscriptions)}
        return activity, subscriptions


async def rediscover_range(peer: Peer, start: int, end: int) -> list[ServiceProxy]:
    """Discover the primary services in start..end (after a Service Changed)."""
    services: list[ServiceProxy] = []
    while start <= end:
        response = await peer.gatt_client.send_request(
            att.ATT_Read_By_Group_Type_Request(
                starting_handle=start,
                ending_handle=end,
                attribute_group_type=GATT_PRIMARY_SERVICE_ATTRIBUTE_TYPE,
            )
        )
        if response.op_code == att.Opcode.ATT_ERROR_RESPONSE or not response.attributes:
            break
        for handle, end_group_handle, value in response.attributes:
            services.append(
                ServiceProxy(
                    peer.gatt_client, handle, end_group_handle, UUID.from_bytes(value)
                )
            )
        start = response.attributes[-1][1] + 1
    return services


async def scenario_gatt_database(pair: Pair) -> dict:
    db = gatt_database_services()
    pair.peripheral.add_services(db['services'])
    gatt_svc = pair.peripheral.gatt_service
    check(gatt_svc is not None and gatt_svc.service_changed_characteristic, 'no 0x2A05')
    activity = GattActivity()
    notified: dict[str, list] = {'battery': [], 'events': [], 'service_changed': []}

    await pair.power_on()

    # Connection 1: full discovery, reads, writes, subscriptions, Service Changed.
    connection, _ = await pair.connect()
    peer = Peer(connection)
    mtu = await peer.request_mtu(247)
    primaries = await peer.discover_services()
    included = []
    for service in primaries:
        included += await peer.discover_included_services(service)
    check(
        [uuid_hex(s.uuid) for s in included] == ['181A'],
        f'included services {[str(s.uuid) for s in included]}',
    )
    for service in primaries + included:
        await peer.discover_characteristics(service=service)
    for service in primaries + included:
        for characteristic in service.characteristics:
            await peer.discover_descriptors(characteristic=characteristic)

    def char(uuid: str, services=None):
        found = [
            c for s in (services or primaries + included) for c in s.characteristics
            if c.uuid == UUID(uuid)
        ]
        check(len(found) == 1, f'characteristic {uuid}: {len(found)} found')
        return found[0]

    def descriptor(characteristic, uuid: str):
        found = characteristic.get_descriptor(UUID(uuid))
        check(found is not None, f'descriptor {uuid} of {characteristic.uuid}')
        return found

    reads = {
        'device_name': (await activity.read(peer, char('2A00'))).decode(),
        'battery_level': (await activity.read(peer, char('2A19')))[0],
        'manufacturer': (await activity.read(peer, char('2A29'))).decode(),
        'temperature': struct.unpack('<h', await activity.read(peer, char('2A6E')))[0],
        'control': (await activity.read(peer, char(CUSTOM_CHAR_UUID))).decode(),
        'user_description': (
            await activity.read(peer, descriptor(char(CUSTOM_CHAR_UUID), '2901'))
        ).decode(),
        'battery_format': (
            await activity.read(peer, descriptor(char('2A19'), '2904'))
        ).hex(),
    }
    check(
        reads['device_name'] == PERIPHERAL_NAME
        and reads['battery_level'] == BATTERY_LEVELS[0]
        and reads['temperature'] == DB_TEMPERATURE
        and reads['control'] == DB_CONTROL_VALUES[0].decode(),
        f'reads {reads}',
    )
    await activity.write(peer, char(CUSTOM_CHAR_UUID), DB_CONTROL_VALUES[1], True)
    await activity.write(peer, char(DB_STREAM_UUID), DB_STREAM_VALUE, False)

    battery_sub = await activity.subscribe(peer, char('2A19'), notified['battery'])
    await activity.subscribe(peer, char(DB_EVENTS_UUID), notified['events'])
    await activity.subscribe(peer, char('2A05'), notified['service_changed'])
    for index, level in enumerate(BATTERY_LEVELS[1:]):
        await asyncio.sleep(1.0)
        db['battery_level'].value = bytes([level])  # the server's value changes,
        await pair.peripheral.notify_subscribers(db['battery_level'])  # then notifies
        if index < len(DB_EVENTS):
            await asyncio.sleep(0.25)
            db['events'].value = DB_EVENTS[index]
            await pair.peripheral.indicate_subscribers(db['events'])

    # The peripheral adds a service and says so; the central rediscovers that range.
    await asyncio.sleep(1.0)
    pair.peripheral.add_service(db['later'])
    changed = struct.pack('<HH', db['later'].handle, db['later'].end_group_handle)
    await pair.peripheral.indicate_subscribers(
        gatt_svc.service_changed_characteristic, changed
    )
    check(notified['service_changed'] == [changed], 'no Service Changed indication')
    start, end = struct.unpack('<HH', notified['service_changed'][0])
    new_services = await rediscover_range(peer, start, end)
    for service in new_services:
        await peer.discover_characteristics(service=service)
    tx_power = struct.unpack('<b', await activity.read(peer, char('2A07', new_services)))[0]
    check(tx_power == DB_TX_POWER, f'Tx Power {tx_power}')

    await asyncio.sleep(0.5)
    await activity.unsubscribe(peer, char('2A19'), battery_sub)
    await asyncio.sleep(0.5)
    await connection.disconnect()
    check(notified['battery'] == [bytes([v]) for v in BATTERY_LEVELS[1:]], 'notifications')
    check(notified['events'] == list(DB_EVENTS), f'indications {notified["events"]}')
    check(db['stream'].value == DB_STREAM_VALUE, 'Write Command not applied')

    # Connection 2: the same two devices again; a short discovery and one read.
    await asyncio.sleep(2.0)
    connection, _ = await pair.connect()
    peer = Peer(connection)
    again = await peer.discover_service(UUID(CUSTOM_SERVICE_UUID))
    check(len(again) == 1, 'custom service not found again')
    await peer.discover_characteristics(uuids=[UUID(CUSTOM_CHAR_UUID)], service=again[0])
    control = (await activity.read(peer, char(CUSTOM_CHAR_UUID, again))).decode()
    check(control == DB_CONTROL_VALUES[1].decode(), f'control after reconnection: {control}')
    await asyncio.sleep(0.5)
    await connection.disconnect()

    activity_json, subscriptions_json = activity.to_json()
    database = {
        'address': PERIPHERAL_ADDRESS,
        'attributes': gatt_database_json(pair.peripheral),
        'activity': activity_json,
        'subscriptions': subscriptions_json,
    }
    return {
        'mtu': mtu,
        'primary_services': len(primaries),
        'reads': reads,
        'service_changed': [start, end],
        'control_after_reconnection': control,
        'database': database,
    }


# le-coc-stall: the receiver (peripheral) withholds credits.  Same PSM and channel
# parameters as le-coc (PERIPHERAL_COC: MPS 64, 4 credits, Bumble re-grants 2
# whenever the sender's credits fall to 2); SDUs only go central->peripheral.
# Each step: (SDU lengths written together, hold in seconds or None).  At most
# two writes are pending at once, because Bumble's sender joins all queued writes
# into one SDU when it starts the next SDU.
STALL_STEPS = (
    ((120,), None),  # 2 K-frames: credits 4 -> 2, re-granted at once
    ((300, 60), 1.500),  # 5 + 1 K-frames: 0 credits after 4, SDU 2 unfinished
    ((200,), None),  # 4 K-frames: 0 credits, but nothing left to send: no stall
    ((400,), 0.750),  # 7 K-frames: 0 credits after 4, SDU 5 unfinished
)


STALL_DEFINITION = (
    'A stall is an interval in which a sender on the LE credit-based channel holds '
    '0 credits while it still has SDU data to send. It starts at start_frame, the '
    'HCI ACL packet that completes the K-frame that takes the last credit while the '
    'SDU of that K-frame is not complete yet, and ends at end_frame, the LE Flow '
    'Control Credit packet (signalling code 0x16) that gives the sender credits '
    'again. Frames are numbered from 1 in file order (tshark frame.number). '
    'duration_us = end_time_us - start_time_us. channel_cid is the CID the K-frames '
    'are sent to; sdu is the 1-based number of the unfinished SDU in that direction.'
)
STALL_TIME_BASE = (
    'start_time_us and end_time_us are Unix time in microseconds (tshark '
    'frame.time_epoch * 1e6): the btsnoop record timestamp as stored (microseconds '
    'since 0000-01-01) minus 0x00DCDDB30F2F8000.'
)


class CreditWithholder:
    """Holds back the LE Flow Control Credit packets of ONE receiving channel.

    Bumble's ``LeCreditBasedChannel.on_pdu`` re-grants credits by calling
    ``self.send_control_frame(L2CAP_LE_Flow_Control_Credit(...))`` as soon as the
    sender's credits fall to half.  This replaces ``send_control_frame`` on the
    one channel object.  After ``arm(delay)``, the next credit packet, and every
    one that follows before the delay has passed, is held; when the delay has
    passed ONE credit packet is sent that grants their sum (with the identifier
    of the first one).  Other signalling packets, and credit packets while not
    armed, go out at once, unchanged.
    """

    def __init__(self, channel: l2cap.LeCreditBasedChannel) -> None:
        self.send = channel.send_control_frame
        channel.send_control_frame = self.send_control_frame  # type: ignore[method-assign]
        self.delay: float | None = None
        self.held: list[l2cap.L2CAP_LE_Flow_Control_Credit] = []
        self.holds: list[tuple[int, float]] = []  # (packets held, delay)

    def arm(self, delay: float) -> None:
        check(self.delay is None and not self.held, 'credit hold already armed')
        self.delay = delay

    def send_control_frame(self, frame) -> None:
        if not isinstance(frame, l2cap.L2CAP_LE_Flow_Control_Credit) or (
            self.delay is None and not self.held
        ):
            self.send(frame)
            return
        if not self.held:
            asyncio.get_running_loop().call_later(self.delay, self.release)
            self.holds.append((0, self.delay))
            self.delay = None
        self.held.append(frame)

    def release(self) -> None:
        frames, self.held = self.held, []
        self.holds[-1] = (len(frames), self.holds[-1][1])
        self.send(
            l2cap.L2CAP_LE_Flow_Control_Credit(
                identifier=frames[0].identifier,
                cid=frames[0].cid,
                credits=sum(f.credits for f in frames),
            )
        )


class CreditMonitor:
    """Bumble's own view of a sending channel's stalls (to cross-check coc_check).

    A stall starts when ``process_output`` leaves the channel with 0 credits and
    SDU data still waiting (the rest of an SDU, or queued writes), and ends when
    credits arrive (``on_credits``).  Times are the loop's virtual time.
    """

    def __init__(self, channel: l2cap.LeCreditBasedChannel) -> None:
        self.start: float | None = None
        self.stalls: list[tuple[float, float]] = []
        process_output, on_credits = channel.process_output, channel.on_credits
        loop = asyncio.get_running_loop()

        def watched_process_output() -> None:
            process_output()
            waiting = channel.out_sdu is not None or bool(channel.out_queue)
            if channel.credits == 0 and waiting and self.start is None:
                self.start = loop.time()

        def watched_on_credits(credits: int) -> None:
            if self.start is not None and credits > 0:
                self.stalls.append((self.start, loop.time()))
                self.start = None
            on_credits(credits)

        channel.process_output = watched_process_output  # type: ignore[method-assign]
        channel.on_credits = watched_on_credits  # type: ignore[method-assign]


async def scenario_le_coc_stall(pair: Pair) -> dict:
    direction = 'central->peripheral'
    received: list[bytes] = []
    peripheral_channel = asyncio.get_running_loop().create_future()

    def on_peripheral_channel(channel):
        channel.sink = received.append
        peripheral_channel.set_result((channel, CreditWithholder(channel)))

    pair.peripheral.create_l2cap_server(
        spec=l2cap.LeCreditBasedChannelSpec(psm=LE_PSM, **PERIPHERAL_COC),
        handler=on_peripheral_channel,
    )
    await pair.power_on()
    connection, _ = await pair.connect()
    channel = await connection.create_l2cap_channel(
        spec=l2cap.LeCreditBasedChannelSpec(psm=LE_PSM, **CENTRAL_COC)
    )
    _remote, withholder = await peripheral_channel
    monitor = CreditMonitor(channel)

    sent: list[dict] = []
    index = 0
    for lengths, hold in STALL_STEPS:
        if hold is not None:
            withholder.arm(hold)
        for length in lengths:
            index += 1
            sdu = sdu_payload(direction, index, length)
            sent.append({'direction': direction, 'hex': sdu.hex()})
            channel.write(sdu)
        await channel.drain()
        await asyncio.sleep(0.1)

    await channel.disconnect()
    await asyncio.sleep(0.1)
    await connection.disconnect()

    expected = [bytes.fromhex(s['hex']) for s in sent]
    check(received == expected, 'le-coc-stall: SDUs differ')
    holds = [hold for _, hold in STALL_STEPS if hold is not None]
    check([d for _, d in withholder.holds] == holds, f'holds {withholder.holds}')
    check(len(monitor.stalls) == len(holds), f'Bumble saw stalls {monitor.stalls}')
    return {
        'psm': LE_PSM,
        'sdus': sent,
        'held_credit_packets': [n for n, _ in withholder.holds],
        'bumble_stalls_s': [round(end - start, 6) for start, end in monitor.stalls],
    }


# -----------------------------------------------------------------------------
# Plugin examples: recordings of the three protocols that bleinspect's example
# profiles (plugins) decode.  Their values are fixed by those profiles.
# -----------------------------------------------------------------------------
# chat-coc: JSON chat messages on an LE credit-based channel, PSM 0x0081.  Each
# message is compact UTF-8 JSON, then the 3 bytes 'EOF', then spaces up to the
# next multiple of 1024 bytes; each 1024-byte chunk is written as ONE SDU.
CHAT_PSM = 0x0081
CHAT_CHUNK = 1024
CHAT_END = b'EOF'
# L2CAP MTU 1024 both ways: Bumble's sender fills an SDU with queued writes up
# to the peer's MTU, so with MTU 1024 each 1024-byte write stays one SDU.
# The peripheral (server) takes K-frames of up to 247 bytes (5 per SDU, each in
# 10 ACL fragments from the central's host), the central K-frames of up to 100
# bytes (11 per SDU).  16 credits each way: Bumble's receiver grants 8 as soon as
# the sender's count falls to 8, so credits flow without running out.
CHAT_PERIPHERAL_COC = dict(mtu=CHAT_CHUNK, mps=247, max_credits=16)
CHAT_CENTRAL_COC = dict(mtu=CHAT_CHUNK, mps=100, max_credits=16)
CHAT_LONG_TEXT = ' '.join(
    f'Line {i:02d}: the quick brown fox jumps over {i * 7} lazy dogs.' for i in range(1, 29)
)
CHAT_MESSAGES = (  # (direction, from, seq, text), in send order
    ('central->peripheral', 'alice', 1, 'hello from alice'),
    ('peripheral->central', 'bob', 1, 'hi alice'),
    ('central->peripheral', 'alice', 2, CHAT_LONG_TEXT),
    ('central->peripheral', 'alice', 3, 'caf\u00e9 \u2615 see you'),
    ('peripheral->central', 'bob', 2, 'bye'),
)


def chat_json(sender: str, seq: int, text: str) -> str:
    message = {'from': sender, 'seq': seq, 'text': text}
    return json.dumps(message, separators=(',', ':'), ensure_ascii=False)


def chat_chunks(message_json: str) -> list[bytes]:
    """The message as sent: JSON, 'EOF', spaces to a multiple of 1024, in chunks."""
    data = message_json.encode('utf-8') + CHAT_END
    check(CHAT_END not in message_json.encode('utf-8'), 'EOF inside a chat message')
    data += b' ' * (-len(data) % CHAT_CHUNK)
    return [data[i : i + CHAT_CHUNK] for i in range(0, len(data), CHAT_CHUNK)]


class ChatReader:
    """Reads chat messages from the SDUs of one direction (1024-byte chunks)."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.chunks = 0
        self.messages: list[dict] = []  # {'json', 'chunks'}
        self.changed: asyncio.Future | None = None

    def feed(self, sdu: bytes) -> None:
        check(len(sdu) == CHAT_CHUNK, f'chat SDU of {len(sdu)} bytes')
        self.buffer += sdu
        self.chunks += 1
        end = self.buffer.find(CHAT_END)
        if end < 0:
            return
        check(self.buffer[end + len(CHAT_END) :].strip(b' ') == b'', 'data after EOF')
        message_json = self.buffer[:end].decode('utf-8')
        self.messages.append({'json': message_json, 'chunks': self.chunks})
        self.buffer.clear()
        self.chunks = 0
        if self.changed is not None and not self.changed.done():
            self.changed.set_result(None)

    async def wait_for(self, count: int) -> None:
        while len(self.messages) < count:
            self.changed = asyncio.get_running_loop().create_future()
            await self.changed


async def scenario_chat_coc(pair: Pair) -> dict:
    readers = {'central->peripheral': ChatReader(), 'peripheral->central': ChatReader()}
    peripheral_channel = asyncio.get_running_loop().create_future()

    def on_peripheral_channel(channel):
        channel.sink = readers['central->peripheral'].feed
        peripheral_channel.set_result(channel)

    pair.peripheral.create_l2cap_server(
        spec=l2cap.LeCreditBasedChannelSpec(psm=CHAT_PSM, **CHAT_PERIPHERAL_COC),
        handler=on_peripheral_channel,
    )
    await pair.power_on()
    connection, _ = await pair.connect()
    channel = await connection.create_l2cap_channel(
        spec=l2cap.LeCreditBasedChannelSpec(psm=CHAT_PSM, **CHAT_CENTRAL_COC)
    )
    channel.sink = readers['peripheral->central'].feed
    remote = await peripheral_channel
    senders = {'central->peripheral': channel, 'peripheral->central': remote}

    sdus: list[dict] = []
    messages: list[dict] = []
    for direction, sender, seq, text in CHAT_MESSAGES:
        await asyncio.sleep(0.5)  # the time it takes to type
        message_json = chat_json(sender, seq, text)
        chunks = chat_chunks(message_json)
        for chunk in chunks:
            sdus.append({'direction': direction, 'hex': chunk.hex()})
            senders[direction].write(chunk)
            await senders[direction].drain()
        reader = readers[direction]
        count = sum(m['direction'] == direction for m in messages) + 1
        await asyncio.wait_for(reader.wait_for(count), 10)
        check(
            reader.messages[-1] == {'json': message_json, 'chunks': len(chunks)},
            f'{direction}: received {reader.messages[-1]}',
        )
        messages.append(
            {
                'direction': direction,
                'json': message_json,
                'from': sender,
                'seq': seq,
                'text': text,
                'chunks': len(chunks),
            }
        )

    await asyncio.sleep(0.5)
    await channel.disconnect()
    await asyncio.sleep(0.1)
    await connection.disconnect()
    return {'psm': CHAT_PSM, 'sdus': sdus, 'messages': messages}


def chat_check(records, sdus: list[dict], messages: list[dict]) -> dict:
    """The chat, read again from the recording alone: channel, SDUs, messages."""
    requests = [
        payload
        for _f, _t, direction, cid, payload in l2cap_pdus(records)
        if cid == 0x0005 and direction == 0 and payload[0] == 0x14
    ]
    check(len(requests) == 1, f'{len(requests)} LE credit-based connection requests')
    psm, _scid, mtu, mps, credits = struct.unpack_from('<HHHHH', requests[0], 4)
    check((psm, mtu, mps) == (CHAT_PSM, CHAT_CHUNK, CHAT_CENTRAL_COC['mps']), 'request')
    credit_info, recorded_sdus, stalls = coc_check(records)
    check(recorded_sdus == sdus, 'SDUs reassembled from chat-coc.btsnoop differ')
    check(not stalls, f'chat-coc: stalls {stalls}')
    check(
        any(c['credit_packets_received'] for c in credit_info.values()),
        f'chat-coc: no credit grant: {credit_info}',
    )
    # The messages, read from the recorded SDUs in file order
    readers = {'central->peripheral': ChatReader(), 'peripheral->central': ChatReader()}
    recorded = []
    for sdu in recorded_sdus:
        reader = readers[sdu['direction']]
        reader.feed(bytes.fromhex(sdu['hex']))
        if reader.chunks == 0:  # this SDU ended a message
            message = reader.messages[-1]
            recorded.append(
                {
                    'direction': sdu['direction'],
                    'json': message['json'],
                    **json.loads(message['json']),
                    'chunks': message['chunks'],
                }
            )
    check(recorded == messages, f'chat messages in chat-coc.btsnoop: {recorded}')
    return {'credits': credit_info, 'connection_request': [psm, mtu, mps, credits]}


# sensor-gatt: a custom environment-sensor GATT service.
SENSOR_SERVICE_UUID = '5A1C0000-7E3D-4C8B-9F2A-1B0E5D4C3A20'
SENSOR_MEASUREMENT_UUID = '5A1C0001-7E3D-4C8B-9F2A-1B0E5D4C3A20'
SENSOR_CONTROL_UUID = '5A1C0002-7E3D-4C8B-9F2A-1B0E5D4C3A20'
SENSOR_CALIBRATION_UUID = '5A1C0003-7E3D-4C8B-9F2A-1B0E5D4C3A20'
SENSOR_OPERATIONS = {1: 'Set Interval', 2: 'Set Name', 3: 'Reset', 4: 'Set Thresholds'}


def sensor_measurement(
    sensor_id: int,
    temperature: int,  # 0.01 °C
    humidity: int,  # 0.01 %
    pressure: int,  # hPa = raw * 0.1 + 800
    battery: int | None = None,
    calibrated: bool = True,
    alarm: bool = False,
) -> bytes:
    flags = (battery is not None) | calibrated << 1 | alarm << 2 | sensor_id << 4
    value = struct.pack('<BhHH', flags, temperature, humidity, pressure)
    return value + (bytes([battery]) if battery is not None else b'')


SENSOR_READ_VALUE = sensor_measurement(1, 2345, 4650, 2132, battery=87)
SENSOR_NOTIFICATIONS = (
    sensor_measurement(1, 2351, 4642, 2131, battery=86),
    sensor_measurement(2, -512, 8120, 2140),  # no battery, negative temperature
    sensor_measurement(1, 3612, 2210, 2125, battery=85, alarm=True),
    sensor_measurement(15, 1999, 10000, 2000, calibrated=False),
)
SENSOR_CALIBRATION = struct.pack('<hI', -25, 1_735_689_600)  # -0.25 °C, 2025-01-01
SENSOR_CONTROL_WRITES = (
    struct.pack('<BH', 1, 500),  # Set Interval 500 ms
    b'\x02' + 'lab-sensor-7'.encode(),  # Set Name
    b'\x03',  # Reset
    struct.pack('<Bhh', 4, -1000, 3500),  # Set Thresholds -10.00 .. 35.00 °C
)


def decode_sensor_value(kind: str, value: bytes) -> dict:
    """The values of the sensor-gatt protocol, decoded from the raw bytes."""
    out: dict = {'kind': kind, 'hex': value.hex()}
    if kind in ('read', 'notify'):
        flags, temperature, humidity, pressure = struct.unpack_from('<BhHH', value)
        battery_present = bool(flags & 0x01)
        check(len(value) == 7 + battery_present, f'measurement of {len(value)} bytes')
        out.update(
            flags=flags,
            battery_present=battery_present,
            calibrated=bool(flags & 0x02),
            alarm=bool(flags & 0x04),
            sensor_id=flags >> 4,
            temperature_c=round(temperature * 0.01, 2),
            humidity_pct=round(humidity * 0.01, 2),
            pressure_hpa=round(pressure * 0.1 + 800, 1),
            battery=value[7] if battery_present else None,
        )
    elif kind == 'descriptor':
        offset, calibrated_at = struct.unpack('<hI', value)
        out.update(offset_c=round(offset * 0.01, 2), calibrated_at=calibrated_at)
    elif kind == 'control':
        opcode, rest = value[0], value[1:]
        out.update(opcode=opcode, operation=SENSOR_OPERATIONS[opcode])
        if opcode == 1:
            out['interval_ms'] = struct.unpack('<H', rest)[0]
        elif opcode == 2:
            out['name'] = rest.decode('utf-8')
        elif opcode == 3:
            check(rest == b'', 'Reset with parameters')
        else:
            low, high = struct.unpack('<hh', rest)
            out.update(low_c=round(low * 0.01, 2), high_c=round(high * 0.01, 2))
    return out


async def scenario_sensor_gatt(pair: Pair) -> dict:
    props = Characteristic.Properties
    measurement = Characteristic(
        SENSOR_MEASUREMENT_UUID,
        props.READ | props.NOTIFY,  # Bumble adds the CCCD after the descriptors
        Characteristic.READABLE,
        SENSOR_READ_VALUE,
        descriptors=[
            Descriptor(SENSOR_CALIBRATION_UUID, Descriptor.READABLE, SENSOR_CALIBRATION)
        ],
    )
    written: list[bytes] = []
    control = Characteristic(
        SENSOR_CONTROL_UUID,
        props.WRITE,
        Characteristic.WRITEABLE,
        CharacteristicValue(write=lambda _connection, value: written.append(value)),
    )
    pair.peripheral.add_service(Service(SENSOR_SERVICE_UUID, [measurement, control]))

    await pair.power_on()
    connection, _ = await pair.connect()
    peer = Peer(connection)
    mtu = await peer.request_mtu(247)
    await peer.discover_all()

    def one(uuid: str):
        found = peer.get_characteristics_by_uuid(UUID(uuid))
        check(len(found) == 1, f'characteristic {uuid}: {len(found)} found')
        return found[0]

    measurement_proxy, control_proxy = one(SENSOR_MEASUREMENT_UUID), one(SENSOR_CONTROL_UUID)
    calibration = measurement_proxy.get_descriptor(UUID(SENSOR_CALIBRATION_UUID))
    check(calibration is not None, 'no Calibration descriptor')
    check(measurement_proxy.get_descriptor(CCCD_UUID) is not None, 'no CCCD')

    sent: list[tuple[str, int, bytes]] = []  # (kind, handle, value), in order
    value = await peer.read_value(measurement_proxy)
    check(value == SENSOR_READ_VALUE, f'measurement read {value.hex()}')
    sent.append(('read', measurement_proxy.handle, value))
    value = await peer.read_value(calibration)
    check(value == SENSOR_CALIBRATION, f'calibration read {value.hex()}')
    sent.append(('descriptor', calibration.handle, value))

    notified: list[bytes] = []
    await peer.subscribe(measurement_proxy, notified.append)
    for value in SENSOR_NOTIFICATIONS:
        await asyncio.sleep(1.0)
        measurement.value = value  # the server's value changes, then it notifies
        await pair.peripheral.notify_subscribers(measurement)
        sent.append(('notify', measurement.handle, value))
    await asyncio.sleep(0.5)
    for value in SENSOR_CONTROL_WRITES:
        await peer.write_value(control_proxy, value, with_response=True)
        sent.append(('control', control_proxy.handle, value))
        await asyncio.sleep(0.25)
    await asyncio.sleep(0.25)
    await connection.disconnect()

    check(notified == list(SENSOR_NOTIFICATIONS), f'notifications {notified}')
    check(written == list(SENSOR_CONTROL_WRITES), f'control point writes {written}')
    return {
        'mtu': mtu,
        'handles': {
            'measurement': measurement.handle,
            'calibration': calibration.handle,
            'cccd': measurement_proxy.get_descriptor(CCCD_UUID).handle,
            'control': control.handle,
        },
        'sent': sent,
    }


def sensor_check(records, handles: dict, sent: list) -> list[dict]:
    """The sensor values, found again in the recording (ATT on CID 4).

    Returns, per value, its kind, ATT handle, the frame that carries it and the
    values decoded from its bytes; stops when they differ from what was sent.
    """
    found: list[tuple[str, int, int, bytes]] = []
    pending_read: int | None = None
    for frame, _ts, direction, cid, pdu in l2cap_pdus(records):
        if cid != 0x0004 or not pdu:
            continue
        opcode = pdu[0]
        if direction == 0 and opcode == 0x0A:  # Read Request
            pending_read = struct.unpack_from('<H', pdu, 1)[0]
        elif direction == 1 and opcode == 0x0B and pending_read is not None:
            kind = {handles['measurement']: 'read', handles['calibration']: 'descriptor'}
            found.append((kind.get(pending_read, 'other'), pending_read, frame, pdu[1:]))
            pending_read = None
        elif direction == 1 and opcode == 0x1B:  # Handle Value Notification
            handle = struct.unpack_from('<H', pdu, 1)[0]
            found.append(('notify', handle, frame, pdu[3:]))
        elif direction == 0 and opcode in (0x12, 0x52):  # Write Request / Command
            handle = struct.unpack_from('<H', pdu, 1)[0]
            if handle != handles['cccd']:
                found.append(('control', handle, frame, pdu[3:]))
            else:
                check(pdu[3:] == b'\x01\x00', f'CCCD write {pdu[3:].hex()}')
    check(
        [(k, h, v) for k, h, _f, v in found] == sent,
        f'sensor values in the recording: {found}',
    )
    return [
        {'frame': frame, 'handle': handle, **decode_sensor_value(kind, value)}
        for kind, handle, frame, value in found
    ]


# vendor-adv: a vendor payload in Manufacturer Specific Data (company 0xFFFF)
# and a scan response with 128-bit Service Data.
VENDOR_PREFIX = b'\xac\x01'  # magic 0xAC, format version 1
VENDOR_MODELS = {1: 'Tag Mini', 2: 'Tag Pro'}
VENDOR_SERVICE_DATA_UUID = '5A1C00FF-7E3D-4C8B-9F2A-1B0E5D4C3A20'


def vendor_payload(
    model: int,
    battery: int,
    temperature: int,
    counter: int,
    moving: bool,
    button_pressed: bool,
    tx_level: int,
    history: tuple[int, ...],
) -> bytes:
    status = moving | button_pressed << 1 | tx_level << 2
    fixed = struct.pack('>BBbIB', model, battery, temperature, counter, status)
    return VENDOR_PREFIX + fixed + struct.pack(f'{len(history)}b', *history)


VENDOR_ADVERTS = (  # Manufacturer Specific Data payloads after the company ID
    vendor_payload(2, 100, 21, 1, False, False, 2, (20, 21)),
    vendor_payload(2, 99, 22, 2, True, False, 2, (20, 21, 22)),
    MANUFACTURER_DATA,  # company 0xFFFF without the AC 01 prefix: not the vendor's
    vendor_payload(2, 97, -3, 3, True, True, 3, (22, 5, -1, -3)),
    vendor_payload(1, 15, -12, 0x12345678, False, True, 0, (-10, -12)),
)
VENDOR_SCAN_RESPONSE = ad_structure(
    0x21,  # Service Data - 128-bit UUID
    uuid128_bytes(VENDOR_SERVICE_DATA_UUID)
    + struct.pack('>IBBBB', 0x0A0B0C0D, 2, 7, 13, 3),  # serial, firmware 2.7.13, hw 3
)
REPORTS_PER_ADVERT = 2  # advertising events the scanner reports per payload


def vendor_adv_data(payload: bytes) -> bytes:
    return ad_structure(0x01, b'\x06') + ad_structure(
        0xFF, struct.pack('<H', COMPANY_ID) + payload
    )


check(
    all(len(vendor_adv_data(p)) <= 31 for p in VENDOR_ADVERTS)
    and len(VENDOR_SCAN_RESPONSE) <= 31,
    'vendor-adv: legacy AD too long',
)


def decode_vendor_payload(payload: bytes) -> dict | None:
    """The vendor's advertising payload, or None when it is not one (no AC 01)."""
    if payload[:2] != VENDOR_PREFIX or len(payload) < 10:
        return None
    model, battery, temperature, counter, status = struct.unpack_from('>BBbIB', payload, 2)
    history = list(struct.unpack(f'{len(payload) - 10}b', payload[10:]))
    check(2 <= len(history) <= 4, f'history of {len(history)} readings')
    return {
        'model': model,
        'model_name': VENDOR_MODELS[model],
        'battery': battery,
        'temperature': temperature,
        'counter': counter,
        'status': status,
        'moving': bool(status & 0x01),
        'button_pressed': bool(status & 0x02),
        'tx_level': (status >> 2) & 0x03,
        'history': history,
    }


def decode_vendor_scan_response(data: bytes) -> dict:
    check(data[1] == 0x21 and data[0] == len(data) - 1, 'not one 128-bit Service Data')
    uuid = UUID.from_bytes(data[2:18])
    serial, major, minor, patch, hardware = struct.unpack('>IBBBB', data[18:])
    return {
        'hex': data.hex(),
        'uuid': uuid_hex(uuid),
        'serial': serial,
        'firmware_major': major,
        'firmware_minor': minor,
        'firmware_patch': patch,
        'firmware': f'{major}.{minor}.{patch}',
        'hardware_revision': hardware,
    }


async def scenario_vendor_adv(pair: Pair) -> dict:
    """Like adv-scan (legacy, active scanning); the advertising data changes."""
    await pair.power_on()
    await pair.peripheral.start_advertising(
        advertising_data=vendor_adv_data(VENDOR_ADVERTS[0]),
        scan_response_data=VENDOR_SCAN_RESPONSE,
        advertising_interval_min=100,
        advertising_interval_max=100,
    )
    seen: list[tuple[bytes, bytes]] = []  # (manufacturer data, service data) per report
    current = {'data': VENDOR_ADVERTS[0], 'count': 0}
    enough = asyncio.get_running_loop().create_future()

    def on_advertisement(advertisement):
        manufacturer = advertisement.data.get_all(0xFF, raw=True)
        service_data = advertisement.data.get_all(0x21, raw=True)
        check(len(manufacturer) == 1 and len(service_data) == 1, f'{advertisement}')
        seen.append((manufacturer[0], service_data[0]))
        if manufacturer[0][2:] == current['data']:
            current['count'] += 1
            if current['count'] == REPORTS_PER_ADVERT and not enough.done():
                enough.set_result(None)

    pair.central.on('advertisement', on_advertisement)
    await pair.central.start_scanning(
        legacy=True, active=True, scan_interval=60, scan_window=30
    )
    for payload in VENDOR_ADVERTS:
        if payload != current['data']:
            # Update the data while advertising, as a tag would (LE Set Advertising
            # Data; the peripheral's command is not in the central's recording).
            current.update(data=payload, count=0)
            enough = asyncio.get_running_loop().create_future()
            pair.peripheral.advertising_data = vendor_adv_data(payload)
            await pair.peripheral.send_sync_command(
                hci.HCI_LE_Set_Advertising_Data_Command(
                    advertising_data=vendor_adv_data(payload)
                )
            )
        await asyncio.wait_for(enough, 30)
    await pair.central.stop_scanning(legacy=True)
    await pair.peripheral.stop_advertising()

    service_data = uuid128_bytes(VENDOR_SERVICE_DATA_UUID) + VENDOR_SCAN_RESPONSE[18:]
    expected = [
        (struct.pack('<H', COMPANY_ID) + p, service_data)
        for p in VENDOR_ADVERTS
        for _ in range(REPORTS_PER_ADVERT)
    ]
    check(seen == expected, f'vendor-adv: advertisements {seen}')
    return {'advertisements': len(seen)}


def vendor_adv_check(records) -> dict:
    """The adverts and scan responses found again in the recording (LE Advertising
    Report events), and the decoded values of each payload that was set."""
    reports: list[tuple[int, int, bytes]] = []  # (frame, event type, data)
    for frame, (_flags, _ts, packet) in enumerate(records, start=1):
        if packet[0] != 0x04 or packet[1] != 0x3E or packet[3] != 0x02:
            continue
        check(packet[4] == 1, 'one report per event')
        event_type, _addr_type = packet[5], packet[6]
        check(hci.Address(packet[7:13]) == hci.Address(PERIPHERAL_ADDRESS), 'address')
        length = packet[13]
        reports.append((frame, event_type, packet[14 : 14 + length]))
    adv_ind = [(f, d) for f, t, d in reports if t == 0x00]
    scan_rsp = [d for _f, t, d in reports if t == 0x04]
    check(len(scan_rsp) == len(adv_ind), 'one scan response per ADV_IND report')
    check(all(d == VENDOR_SCAN_RESPONSE for d in scan_rsp), 'scan response data')
    check(
        [d for _f, d in adv_ind]
        == [vendor_adv_data(p) for p in VENDOR_ADVERTS for _ in range(REPORTS_PER_ADVERT)],
        'ADV_IND reports in the recording',
    )
    adverts = []
    for index, payload in enumerate(VENDOR_ADVERTS):
        data = vendor_adv_data(payload)
        decoded = decode_vendor_payload(payload)
        adverts.append(
            {
                'index': index + 1,
                'adv_data_hex': data.hex(),
                'company_id': COMPANY_ID,
                'manufacturer_data_hex': payload.hex(),
                'vendor_payload': decoded is not None,
                'decoded': decoded,
                'report_frames': [f for f, d in adv_ind if d == data],
            }
        )
    return {
        'address': PERIPHERAL_ADDRESS,
        'adverts': adverts,
        'scan_response': decode_vendor_scan_response(VENDOR_SCAN_RESPONSE),
        'scan_response_frames': [f for f, t, _d in reports if t == 0x04],
    }


# -----------------------------------------------------------------------------
# btsnoop reading, checks, PacketLogger conversion
# -----------------------------------------------------------------------------
def read_btsnoop(path: Path) -> list[tuple[int, int, bytes]]:
    data = path.read_bytes()
    check(data[:8] == b'btsnoop\0', 'not a btsnoop file')
    version, datalink = struct.unpack_from('>II', data, 8)
    check((version, datalink) == (1, 1002), 'not btsnoop v1 / H4')
    records, offset = [], 16
    while offset < len(data):
        _orig_len, incl_len, flags, _drops, ts = struct.unpack_from('>IIIIQ', data, offset)
        offset += 24
        records.append((flags, ts, data[offset : offset + incl_len]))
        offset += incl_len
    return records


def write_packetlogger(records, path: Path, byte_order: str) -> int:
    """PacketLogger: len(4) secs(4) usecs(4) type(1) payload, len = 9 + payload."""
    fmt = byte_order + 'III'
    out = bytearray()
    first_unix_us = records[0][1] - BTSNOOP_EPOCH_DELTA_US

    def add(unix_us: int, ptype: int, payload: bytes) -> None:
        secs, usecs = divmod(unix_us, 1_000_000)
        out.extend(struct.pack(fmt, 9 + len(payload), secs, usecs))
        out.append(ptype)
        out.extend(payload)

    add(first_unix_us, 0xFC, b'bleinspect test capture')
    for flags, ts, packet in records:
        h4_type, payload = packet[0], packet[1:]
        received = flags & 1
        if h4_type == 0x01:
            ptype = 0x00
        elif h4_type == 0x04:
            ptype = 0x01
        elif h4_type == 0x02:
            ptype = 0x03 if received else 0x02
        else:
            raise ValueError(f'unexpected H4 packet type {h4_type:#x}')
        add(ts - BTSNOOP_EPOCH_DELTA_US, ptype, payload)
    path.write_bytes(out)
    return len(records) + 1


def l2cap_pdus(records) -> list[tuple[int, int, int, int, bytes]]:
    """Reassemble the ACL packets of a recording into L2CAP PDUs.

    Returns (frame, timestamp, direction, cid, payload) per PDU, where frame is
    the 1-based number (file order) of the ACL packet that completes the PDU,
    timestamp is that packet's btsnoop timestamp as stored, and direction is
    0 for host->controller (sent by the central) and 1 for controller->host.
    """
    pdus = {0: bytearray(), 1: bytearray()}  # per direction: reassembly
    out = []
    for number, (flags, ts, packet) in enumerate(records, start=1):
        if packet[0] != 0x02:
            continue
        direction = flags & 1
        handle_flags, length = struct.unpack_from('<HH', packet, 1)
        pb = (handle_flags >> 12) & 0x3
        data = packet[5 : 5 + length]
        if pb in (0, 2):
            pdus[direction] = bytearray(data)
        else:
            pdus[direction] += data
        buf = pdus[direction]
        if len(buf) >= 4:
            l2len, cid = struct.unpack_from('<HH', buf, 0)
            if len(buf) == 4 + l2len:
                out.append((number, ts, direction, cid, bytes(buf[4:])))
                pdus[direction] = bytearray()
    return out


def coc_check(records) -> tuple[dict, list[dict], list[dict]]:
    """Follow the LE CoC in the central's recording, independently of Bumble.

    Reassembles ACL fragments into L2CAP PDUs and K-frames into SDUs, and
    follows each sender's credits (initial credits, minus one per K-frame, plus
    LE Flow Control Credit grants).  Returns a per-direction summary (K-frames,
    lowest credit count, how often credits reached zero, credit packets), the
    reassembled SDUs in order, and the stalls.

    A stall is an interval in which a sender holds 0 credits while it has SDU
    data left to send.  It starts at the K-frame that takes the sender's last
    credit while the SDU that K-frame belongs to is not complete yet, and ends
    at the next LE Flow Control Credit packet that grants that sender credits.
    (When the last credit goes on the last K-frame of an SDU the recording
    cannot show whether more data was waiting; such a moment is not counted.)
    """
    # Signalling on CID 5: find the channel, its initial credits and grants.
    # Index 0 = central->peripheral (sent by this host), 1 = peripheral->central.
    names = {0: 'central->peripheral', 1: 'peripheral->central'}
    credits: dict[int, int] = {}  # sender -> credits it holds
    target_cid: dict[int, int] = {}  # sender -> CID its K-frames are sent to
    psm = {0: 0, 1: 0}
    minimum: dict[int, int] = {}
    zero_hits = {0: 0, 1: 0}
    credit_packets = {0: 0, 1: 0}  # sender -> 0x16 packets granting it credits
    k_frames = {0: 0, 1: 0}
    partial = {0: bytearray(), 1: bytearray()}
    sdu_length = {0: 0, 1: 0}
    sdus: list[dict] = []  # reassembled from the recording, in order
    stalls: list[dict] = []
    open_stall: dict[int, dict] = {}  # sender -> stall not ended yet
    for frame, ts, direction, cid, payload in l2cap_pdus(records):
        other = 1 - direction
        time_us = ts - BTSNOOP_EPOCH_DELTA_US
        if cid == 0x0005:
            code = payload[0]
            if code == 0x14:  # LE Credit Based Connection Request
                le_psm, scid, _mtu, _mps, initial = struct.unpack_from('<HHHHH', payload, 4)
                target_cid[other], credits[other] = scid, initial
                psm = {0: le_psm, 1: le_psm}
            elif code == 0x15:  # LE Credit Based Connection Response
                dcid, _mtu, _mps, initial, _res = struct.unpack_from('<HHHHH', payload, 4)
                target_cid[other], credits[other] = dcid, initial
            elif code == 0x16:  # LE Flow Control Credit: receiver grants sender
                _cid, amount = struct.unpack_from('<HH', payload, 4)
                credits[other] += amount
                credit_packets[other] += 1
                stall = open_stall.pop(other, None)
                if stall is not None and amount > 0:
                    stall['end_frame'] = frame
                    stall['end_time_us'] = time_us
                    stall['duration_us'] = time_us - stall['start_time_us']
                    stall['credits_granted'] = amount
                    stalls.append(stall)
        elif target_cid.get(direction) == cid:
            credits[direction] -= 1
            k_frames[direction] += 1
            if not partial[direction]:  # first K-frame of an SDU: SDU length
                sdu_length[direction] = struct.unpack_from('<H', payload, 0)[0]
                payload = payload[2:]
            partial[direction] += payload
            if len(partial[direction]) == sdu_length[direction]:
                sdus.append({'direction': names[direction], 'hex': partial[direction].hex()})
                partial[direction] = bytearray()
            check(credits[direction] >= 0, 'K-frame sent without credit')
            minimum[direction] = min(minimum.get(direction, 1 << 16), credits[direction])
            zero_hits[direction] += credits[direction] == 0
            if credits[direction] == 0 and partial[direction]:
                open_stall[direction] = {
                    'direction': names[direction],
                    'channel_psm': psm[direction],
                    'channel_cid': cid,
                    'sdu': sum(s['direction'] == names[direction] for s in sdus) + 1,
                    'start_frame': frame,
                    'end_frame': None,
                    'start_time_us': time_us,
                    'end_time_us': None,
                    'duration_us': None,
                }
    check(not open_stall, f'stall never ended: {open_stall}')
    summary = {
        names[d]: {
            'k_frames': k_frames[d],
            'min_credits': minimum.get(d),
            'times_credits_ran_out': zero_hits[d],
            'credit_packets_received': credit_packets[d],
            'stalls': sum(s['direction'] == names[d] for s in stalls),
        }
        for d in (0, 1)
    }
    return summary, sdus, stalls


def att_activity_check(records) -> tuple[dict, dict]:
    """What the central did per ATT handle, counted from the recording alone.

    The same shape as GattActivity.to_json(): reads (Read Request answered by a
    Read Response), writes (Write Request and Write Command), notifications and
    indications received, and the last value seen; writes to handles that Find
    Information reported as CCCDs (0x2902) go to the subscriptions instead.
    """
    activity: dict[int, dict] = {}
    subscriptions: dict[int, str] = {}
    cccds: set[int] = set()
    pending_read: int | None = None

    def entry(handle: int) -> dict:
        return activity.setdefault(
            handle,
            {'reads': 0, 'writes': 0, 'notifications': 0, 'indications': 0, 'last_value': ''},
        )

    for _frame, _ts, direction, cid, pdu in l2cap_pdus(records):
        if cid != 0x0004 or not pdu:
            continue
        opcode = pdu[0]
        if direction == 0 and opcode == 0x0A:  # Read Request
            pending_read = struct.unpack_from('<H', pdu, 1)[0]
        elif direction == 0 and opcode in (0x12, 0x52):  # Write Request / Command
            handle, value = struct.unpack_from('<H', pdu, 1)[0], pdu[3:]
            if handle in cccds:
                subscriptions[handle] = value.hex()
            else:
                entry(handle)['writes'] += 1
                entry(handle)['last_value'] = value.hex()
        elif direction == 1 and opcode == 0x05 and pdu[1] == 0x01:  # Find Info, 16-bit
            for offset in range(2, len(pdu), 4):
                handle, uuid16 = struct.unpack_from('<HH', pdu, offset)
                if uuid16 == 0x2902:
                    cccds.add(handle)
        elif direction == 1 and opcode == 0x0B and pending_read is not None:
            entry(pending_read)['reads'] += 1
            entry(pending_read)['last_value'] = pdu[1:].hex()
            pending_read = None
        elif direction == 1 and opcode == 0x01:  # Error Response ends a request
            pending_read = None
        elif direction == 1 and opcode in (0x1B, 0x1D):  # Notification / Indication
            handle = struct.unpack_from('<H', pdu, 1)[0]
            entry(handle)['notifications' if opcode == 0x1B else 'indications'] += 1
            entry(handle)['last_value'] = pdu[3:].hex()
    return (
        {str(h): activity[h] for h in sorted(activity)},
        {str(h): subscriptions[h] for h in sorted(subscriptions)},
    )


# -----------------------------------------------------------------------------
# Main
# -----------------------------------------------------------------------------
def run_scenario(name: str, outdir: Path, coroutine_factory, extended=False) -> dict:
    seed_randomness(name)
    path = outdir / f'{name}.btsnoop'

    async def run(snoop_file) -> dict:
        pair = Pair(asyncio.get_running_loop(), snoop_file, extended=extended)
        result = await asyncio.wait_for(coroutine_factory(pair), 120)
        # let the last packets (e.g. Disconnection Complete) arrive
        await asyncio.sleep(0.5)
        return result

    with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
        with open(path, 'wb') as snoop_file:
            result = runner.run(run(snoop_file))
    result['frames'] = len(read_btsnoop(path))
    result['bytes'] = path.stat().st_size
    check(result['bytes'] < 64 * 1024, f'{path} is too large')
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument(
        'outdir',
        nargs='?',
        type=Path,
        default=Path(__file__).resolve().parent.parent / 'captures',
        help="where to write the files (default: the repository's captures/)",
    )
    args = parser.parse_args()
    outdir: Path = args.outdir
    outdir.mkdir(parents=True, exist_ok=True)

    import bumble

    print(f'Bumble {bumble.__version__}, writing to {outdir}/')
    results = {}
    results['adv-scan'] = run_scenario(
        'adv-scan', outdir, lambda p: scenario_adv_scan(p, extended=False)
    )
    results['adv-extended'] = run_scenario(
        'adv-extended', outdir, lambda p: scenario_adv_scan(p, extended=True), True
    )
    results['gatt-discovery'] = run_scenario(
        'gatt-discovery', outdir, scenario_gatt_discovery
    )
    results['le-coc'] = run_scenario('le-coc', outdir, scenario_le_coc)
    results['smp-pairing'] = run_scenario(
        'smp-pairing', outdir, lambda p: scenario_smp(p, secure_connections=True)
    )
    results['smp-legacy-pairing'] = run_scenario(
        'smp-legacy-pairing', outdir, lambda p: scenario_smp(p, secure_connections=False)
    )
    results['gatt-database'] = run_scenario('gatt-database', outdir, scenario_gatt_database)
    results['le-coc-stall'] = run_scenario('le-coc-stall', outdir, scenario_le_coc_stall)

    # LE CoC SDUs and credit accounting
    sdus = results['le-coc'].pop('sdus')
    (outdir / 'le-coc.sdus.json').write_text(json.dumps(sdus, indent=1) + '\n')
    credit_info, recorded_sdus, _stalls = coc_check(read_btsnoop(outdir / 'le-coc.btsnoop'))
    results['le-coc']['credits'] = credit_info
    check(
        all(c['min_credits'] == 0 for c in credit_info.values()),
        f'LE CoC credits never ran out: {credit_info}',
    )
    check(recorded_sdus == sdus, 'SDUs reassembled from le-coc.btsnoop differ')
    results['le-coc']['sdus_reassembled_from_recording'] = len(recorded_sdus)

    # PacketLogger files derived from gatt-discovery
    gatt_records = read_btsnoop(outdir / 'gatt-discovery.btsnoop')
    for suffix, order in (('be', '>'), ('le', '<')):
        n = write_packetlogger(gatt_records, outdir / f'gatt-discovery-{suffix}.pklg', order)
        results[f'gatt-discovery-{suffix}.pklg'] = {'frames': n}

    # gatt-database: the peripheral's database and what the central did with it
    database = results['gatt-database'].pop('database')
    gatt_records = read_btsnoop(outdir / 'gatt-database.btsnoop')
    activity, subscriptions = att_activity_check(gatt_records)
    check(activity == database['activity'], f'ATT activity in the recording: {activity}')
    check(subscriptions == database['subscriptions'], f'CCCD writes: {subscriptions}')
    (outdir / 'gatt-database.gatt.json').write_text(json.dumps(database, indent=1) + '\n')
    results['gatt-database']['attributes'] = len(database['attributes'])

    # le-coc-stall: the stalls, found again in the recording
    stall_sdus = results['le-coc-stall'].pop('sdus')
    stall_records = read_btsnoop(outdir / 'le-coc-stall.btsnoop')
    credit_info, recorded_sdus, stalls = coc_check(stall_records)
    check(recorded_sdus == stall_sdus, 'SDUs reassembled from le-coc-stall.btsnoop differ')
    bumble_stalls = results['le-coc-stall']['bumble_stalls_s']
    check(
        len(stalls) == len(bumble_stalls)
        and all(
            # the file's times spread a burst 100 µs per packet: allow 10 ms
            abs(s['duration_us'] - round(b * 1_000_000)) <= 10_000
            for s, b in zip(stalls, bumble_stalls)
        ),
        f'stalls in the recording {stalls} != stalls Bumble saw {bumble_stalls}',
    )
    results['le-coc-stall']['credits'] = credit_info
    (outdir / 'le-coc-stall.stalls.json').write_text(
        json.dumps(
            {
                'definition': STALL_DEFINITION,
                'time_base': STALL_TIME_BASE,
                'stalls': stalls,
                'sdus': stall_sdus,
            },
            indent=1,
        )
        + '\n'
    )

    # Plugin examples: each recording is read again, its sidecar written from it
    results['chat-coc'] = run_scenario('chat-coc', outdir, scenario_chat_coc)
    chat_sdus = results['chat-coc'].pop('sdus')
    chat_messages = results['chat-coc'].pop('messages')
    results['chat-coc'].update(
        chat_check(read_btsnoop(outdir / 'chat-coc.btsnoop'), chat_sdus, chat_messages)
    )
    results['chat-coc']['sdus'] = len(chat_sdus)
    (outdir / 'chat-coc.messages.json').write_text(
        json.dumps(chat_messages, indent=1, ensure_ascii=False) + '\n', encoding='utf-8'
    )

    results['sensor-gatt'] = run_scenario('sensor-gatt', outdir, scenario_sensor_gatt)
    sensor_values = sensor_check(
        read_btsnoop(outdir / 'sensor-gatt.btsnoop'),
        results['sensor-gatt']['handles'],
        results['sensor-gatt'].pop('sent'),
    )
    (outdir / 'sensor-gatt.expected.json').write_text(
        json.dumps(sensor_values, indent=1, ensure_ascii=False) + '\n', encoding='utf-8'
    )

    results['vendor-adv'] = run_scenario('vendor-adv', outdir, scenario_vendor_adv)
    vendor = vendor_adv_check(read_btsnoop(outdir / 'vendor-adv.btsnoop'))
    (outdir / 'vendor-adv.expected.json').write_text(
        json.dumps(vendor, indent=1, ensure_ascii=False) + '\n', encoding='utf-8'
    )
    results['vendor-adv']['payloads'] = len(vendor['adverts'])

    for name, result in results.items():
        print(f'{name}: {json.dumps(result)}')
    print('LE CoC SDUs (send order):')
    for sdu in sdus:
        data = bytes.fromhex(sdu['hex'])
        print(
            f"  {sdu['direction']:<20} {len(data):4d} bytes  "
            f"sha256 {hashlib.sha256(data).hexdigest()}"
        )
    return 0


if __name__ == '__main__':
    sys.exit(main())
