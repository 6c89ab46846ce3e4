import BLEInspectCore

/// Names of advertising-data values, written from the Bluetooth SIG Assigned Numbers ("Common Data
/// Types", "Appearance Values", "URI Scheme Name String Mapping"), the Core Specification
/// Supplement and the Core Specification. Looked up only when something is shown.
enum ADNames {
    // MARK: AD types

    /// Wireshark's names for AD types where they differ from the Assigned Numbers', for filters
    /// written in Wireshark (`btcommon.eir_ad.entry.type == "Device Name"`).
    static let wiresharkADTypes: [(UInt64, String)] = [
        (0x02, "16-bit Service Class UUIDs (incomplete)"), (0x03, "16-bit Service Class UUIDs"),
        (0x04, "32-bit Service Class UUIDs (incomplete)"), (0x05, "32-bit Service Class UUIDs"),
        (0x06, "128-bit Service Class UUIDs (incomplete)"), (0x07, "128-bit Service Class UUIDs"),
        (0x08, "Device Name (shortened)"), (0x09, "Device Name"), (0x0B, "OOB Optional Data Length"),
        (0x0C, "BD_ADDR"), (0x0E, "Simple Pairing Hash C"), (0x0F, "Simple Pairing Randomizer R"),
        (0x12, "Slave Connection Interval Range"), (0x16, "Service Data - 16 bit UUID"),
        (0x20, "Service Data - 32 bit UUID"), (0x21, "Service Data - 128 bit UUID"), (0x2D, "Broadcast Code"),
        (0xFF, "Manufacturer Specific"),
    ]

    /// AD type code → name, as the Assigned Numbers "Common Data Types" list calls them.
    static let adTypes: [(UInt64, String)] = [
        (0x01, "Flags"),
        (0x02, "Incomplete List of 16-bit Service or Service Class UUIDs"),
        (0x03, "Complete List of 16-bit Service or Service Class UUIDs"),
        (0x04, "Incomplete List of 32-bit Service or Service Class UUIDs"),
        (0x05, "Complete List of 32-bit Service or Service Class UUIDs"),
        (0x06, "Incomplete List of 128-bit Service or Service Class UUIDs"),
        (0x07, "Complete List of 128-bit Service or Service Class UUIDs"),
        (0x08, "Shortened Local Name"),
        (0x09, "Complete Local Name"),
        (0x0A, "Tx Power Level"),
        (0x0D, "Class of Device"),
        (0x0E, "Simple Pairing Hash C-192"),
        (0x0F, "Simple Pairing Randomizer R-192"),
        (0x10, "Device ID / Security Manager TK Value"),
        (0x11, "Security Manager Out of Band Flags"),
        (0x12, "Peripheral Connection Interval Range"),
        (0x14, "List of 16-bit Service Solicitation UUIDs"),
        (0x15, "List of 128-bit Service Solicitation UUIDs"),
        (0x16, "Service Data - 16-bit UUID"),
        (0x17, "Public Target Address"),
        (0x18, "Random Target Address"),
        (0x19, "Appearance"),
        (0x1A, "Advertising Interval"),
        (0x1B, "LE Bluetooth Device Address"),
        (0x1C, "LE Role"),
        (0x1D, "Simple Pairing Hash C-256"),
        (0x1E, "Simple Pairing Randomizer R-256"),
        (0x1F, "List of 32-bit Service Solicitation UUIDs"),
        (0x20, "Service Data - 32-bit UUID"),
        (0x21, "Service Data - 128-bit UUID"),
        (0x22, "LE Secure Connections Confirmation Value"),
        (0x23, "LE Secure Connections Random Value"),
        (0x24, "URI"),
        (0x25, "Indoor Positioning"),
        (0x26, "Transport Discovery Data"),
        (0x27, "LE Supported Features"),
        (0x28, "Channel Map Update Indication"),
        (0x29, "PB-ADV"),
        (0x2A, "Mesh Message"),
        (0x2B, "Mesh Beacon"),
        (0x2C, "BIGInfo"),
        (0x2D, "Broadcast_Code"),
        (0x2E, "Resolvable Set Identifier"),
        (0x2F, "Advertising Interval - long"),
        (0x30, "Broadcast_Name"),
        (0x31, "Encrypted Advertising Data"),
        (0x32, "Periodic Advertising Response Timing Information"),
        (0x34, "Electronic Shelf Label"),
        (0x3D, "3D Information Data"),
        (0xFF, "Manufacturer Specific Data"),
    ]

    /// The name of every AD type code, "Unknown" for codes without one (indexed by code).
    static let adTypeByCode: [String] = {
        var table = [String](repeating: "Unknown", count: 256)
        for (code, name) in adTypes { table[Int(code)] = name }
        return table
    }()

    // MARK: Small value sets

    static let leRole = ValueNames([
        (0x00, "Only Peripheral Role supported"),
        (0x01, "Only Central Role supported"),
        (0x02, "Peripheral and Central Role supported, Peripheral Role preferred for connection establishment"),
        (0x03, "Peripheral and Central Role supported, Central Role preferred for connection establishment"),
    ])

    static let addressType = ValueNames([(0, "Public"), (1, "Random")])

    static let oobAddressType = ValueNames([(0, "Public Device Address"), (1, "Random Device Address")])

    static let didVendorIDSource = ValueNames([(0x0001, "Bluetooth SIG"), (0x0002, "USB Implementer's Forum")])

    static let connectionInterval = ValueNames([(0xFFFF, "No specific value")])

    static let majorDeviceClass = ValueNames([
        (0x00, "Miscellaneous"), (0x01, "Computer"), (0x02, "Phone"), (0x03, "LAN/Network Access Point"),
        (0x04, "Audio/Video"), (0x05, "Peripheral"), (0x06, "Imaging"), (0x07, "Wearable"), (0x08, "Toy"),
        (0x09, "Health"), (0x1F, "Uncategorized"),
    ])

    static let ipsCoordinateSystem = ValueNames([(0, "WGS84 Coordinate System"), (1, "Local Coordinate System")])

    static let ipsPrecision = ValueNames([
        (0, "Less than 0.1 m"), (1, "0.1-1 m"), (2, "1-2 m"), (3, "2-5 m"), (4, "5-10 m"), (5, "10-50 m"),
        (6, "Greater than 50 m"), (7, "N/A"),
    ])

    static let ipsUpdateTime = ValueNames([
        (0, "Up to 3 s"), (1, "Up to 4 s"), (2, "Up to 6 s"), (3, "Up to 12 s"), (4, "Up to 28 s"),
        (5, "Up to 89 s"), (6, "Up to 426 s"), (7, "3541 s"),
    ])

    static let ipsStationary = ValueNames([(0, "Stationary"), (1, "Mobile")])

    static let tdsOrganization = ValueNames([(0x00, "Reserved"), (0x01, "Bluetooth SIG")])

    static let tdsTransportState = ValueNames([
        (0, "Off"), (1, "On"), (2, "Temporarily Unavailable"), (3, "Reserved"),
    ])

    static let tdsRole = ValueNames([
        (0, "Not Specified"), (1, "Seeker Only"), (2, "Provider Only"), (3, "Both Seeker and Provider"),
    ])

    static let bigOffsetUnits = ValueNames([(0, "30 µs"), (1, "300 µs")])

    static let phy = ValueNames([(0, "LE 1M"), (1, "LE 2M"), (2, "LE Coded")])

    static let framing = ValueNames([(0, "Unframed"), (1, "Framed")])

    // MARK: LE supported features (Core Vol 6 Part B §4.6, bit number → name)

    static let leFeatureBits: [String] = [
        "LE Encryption",
        "Connection Parameters Request Procedure",
        "Extended Reject Indication",
        "Peripheral-initiated Features Exchange",
        "LE Ping",
        "LE Data Packet Length Extension",
        "LL Privacy",
        "Extended Scanner Filter Policies",
        "LE 2M PHY",
        "Stable Modulation Index - Transmitter",
        "Stable Modulation Index - Receiver",
        "LE Coded PHY",
        "LE Extended Advertising",
        "LE Periodic Advertising",
        "Channel Selection Algorithm #2",
        "LE Power Class 1",
        "Minimum Number of Used Channels Procedure",
        "Connection CTE Request",
        "Connection CTE Response",
        "Connectionless CTE Transmitter",
        "Connectionless CTE Receiver",
        "Antenna Switching During CTE Transmission (AoD)",
        "Antenna Switching During CTE Reception (AoA)",
        "Receiving Constant Tone Extensions",
        "Periodic Advertising Sync Transfer - Sender",
        "Periodic Advertising Sync Transfer - Recipient",
        "Sleep Clock Accuracy Updates",
        "Remote Public Key Validation",
        "Connected Isochronous Stream - Central",
        "Connected Isochronous Stream - Peripheral",
        "Isochronous Broadcaster",
        "Synchronized Receiver",
        "Connected Isochronous Stream (Host Support)",
        "LE Power Control Request",
        "LE Power Control Request",
        "LE Path Loss Monitoring",
        "Periodic Advertising ADI support",
        "Connection Subrating",
        "Connection Subrating (Host Support)",
        "Channel Classification",
        "Advertising Coding Selection",
        "Advertising Coding Selection (Host Support)",
        "Decision-Based Advertising Filtering",
        "Periodic Advertising with Responses - Advertiser",
        "Periodic Advertising with Responses - Scanner",
        "Unsegmented Framed Mode",
        "Channel Sounding",
        "Channel Sounding (Host Support)",
    ]

    static let leFeature = ValueNames(lookup: { bit in
        bit < UInt64(leFeatureBits.count) ? leFeatureBits[Int(bit)] : nil
    })

    // MARK: URI schemes ("URI Scheme Name String Mapping": code point → scheme, 0x01 = none)

    static let uriSchemes: [String] = [
        "", "aaa:", "aaas:", "about:", "acap:", "acct:", "cap:", "cid:", "coap:", "coaps:", "crid:", "data:",
        "dav:", "dict:", "dns:", "file:", "ftp:", "geo:", "go:", "gopher:", "h323:", "http:", "https:", "iax:",
        "icap:", "im:", "imap:", "info:", "ipp:", "ipps:", "iris:", "iris.beep:", "iris.xpc:", "iris.xpcs:",
        "iris.lwz:", "jabber:", "ldap:", "mailto:", "mid:", "msrp:", "msrps:", "mtqp:", "mupdate:", "news:",
        "nfs:", "ni:", "nih:", "nntp:", "opaquelocktoken:", "pop:", "pres:", "reload:", "rtsp:", "rtsps:",
        "rtspu:", "service:", "session:", "shttp:", "sieve:", "sip:", "sips:", "sms:", "snmp:", "soap.beep:",
        "soap.beeps:", "stun:", "stuns:", "tag:", "tel:", "telnet:", "tftp:", "thismessage:", "tn3270:", "tip:",
        "turn:", "turns:", "tv:", "urn:", "vemmi:", "ws:", "wss:", "xcon:", "xcon-userid:", "xmlrpc.beep:",
        "xmlrpc.beeps:", "xmpp:", "z39.50r:", "z39.50s:", "acr:", "adiumxtra:", "afp:", "afs:", "aim:", "apt:",
        "attachment:", "aw:", "barion:", "beshare:", "bitcoin:", "bolo:", "callto:", "chrome:",
        "chrome-extension:", "com-eventbrite-attendee:", "content:", "cvs:", "dlna-playsingle:",
        "dlna-playcontainer:", "dtn:", "dvb:", "ed2k:", "facetime:", "feed:", "feedready:", "finger:", "fish:",
        "gg:", "git:", "gizmoproject:", "gtalk:", "ham:", "hcp:", "icon:", "ipn:", "irc:", "irc6:", "ircs:",
        "itms:", "jar:", "jms:", "keyparc:", "lastfm:", "ldaps:", "magnet:", "maps:", "market:", "message:",
        "mms:", "ms-help:", "ms-settings-power:", "msnim:", "mumble:", "mvn:", "notes:", "oid:", "palm:",
        "paparazzi:", "pkcs11:", "platform:", "proxy:", "psyc:", "query:", "res:", "resource:", "rmi:", "rsync:",
        "rtmfp:", "rtmp:", "secondlife:", "sftp:", "sgn:", "skype:", "smb:", "smtp:", "soldat:", "spotify:",
        "ssh:", "steam:", "submit:", "svn:", "teamspeak:", "teliaeid:", "things:", "udp:", "unreal:", "ut2004:",
        "ventrilo:", "view-source:", "webcal:", "wtai:", "wyciwyg:", "xfire:", "xri:", "ymsgr:", "example:",
        "ms-settings-cloudstorage:",
    ]

    /// The scheme of a URI scheme code point (0x0001 is "no scheme", the empty string).
    static func uriScheme(_ codePoint: UInt64) -> String? {
        codePoint >= 1 && codePoint <= UInt64(uriSchemes.count) ? uriSchemes[Int(codePoint) - 1] : nil
    }

    static let uriSchemeNames = ValueNames(lookup: { code in
        guard let scheme = uriScheme(code) else { return nil }
        return scheme.isEmpty ? "(no scheme)" : scheme
    })

    // MARK: Appearance (Assigned Numbers "Appearance Values": category << 6 | subcategory)

    /// Category number → (category name, subcategory names from subcategory 1 on).
    static let appearanceCategories: [UInt16: (String, [String])] = [
        0x000: ("Unknown", []),
        0x001: ("Phone", []),
        0x002: (
            "Computer",
            [
                "Desktop Workstation", "Server-class Computer", "Laptop", "Handheld PC/PDA (clamshell)",
                "Palm-size PC/PDA", "Wearable computer (watch size)", "Tablet", "Docking Station", "All in One",
                "Blade Server", "Convertible", "Detachable", "IoT Gateway", "Mini PC", "Stick PC",
            ]
        ),
        0x003: ("Watch", ["Sports Watch", "Smartwatch"]),
        0x004: ("Clock", []),
        0x005: ("Display", []),
        0x006: ("Remote Control", []),
        0x007: ("Eye-glasses", []),
        0x008: ("Tag", []),
        0x009: ("Keyring", []),
        0x00A: ("Media Player", []),
        0x00B: ("Barcode Scanner", []),
        0x00C: ("Thermometer", ["Ear Thermometer"]),
        0x00D: ("Heart Rate Sensor", ["Heart Rate Belt"]),
        0x00E: ("Blood Pressure", ["Arm Blood Pressure", "Wrist Blood Pressure"]),
        0x00F: (
            "Human Interface Device",
            [
                "Keyboard", "Mouse", "Joystick", "Gamepad", "Digitizer Tablet", "Card Reader", "Digital Pen",
                "Barcode Scanner", "Touchpad", "Presentation Remote",
            ]
        ),
        0x010: ("Glucose Meter", []),
        0x011: (
            "Running Walking Sensor",
            [
                "In-Shoe Running Walking Sensor", "On-Shoe Running Walking Sensor",
                "On-Hip Running Walking Sensor",
            ]
        ),
        0x012: (
            "Cycling",
            ["Cycling Computer", "Speed Sensor", "Cadence Sensor", "Power Sensor", "Speed and Cadence Sensor"]
        ),
        0x013: (
            "Control Device",
            [
                "Switch", "Multi-switch", "Button", "Slider", "Rotary Switch", "Touch Panel", "Single Switch",
                "Double Switch", "Triple Switch", "Battery Switch", "Energy Harvesting Switch", "Push Button", "Dial",
            ]
        ),
        0x014: ("Network Device", ["Access Point", "Mesh Device", "Mesh Network Proxy"]),
        0x015: (
            "Sensor",
            [
                "Motion Sensor", "Air quality Sensor", "Temperature Sensor", "Humidity Sensor", "Leak Sensor",
                "Smoke Sensor", "Occupancy Sensor", "Contact Sensor", "Carbon Monoxide Sensor",
                "Carbon Dioxide Sensor", "Ambient Light Sensor", "Energy Sensor", "Color Light Sensor", "Rain Sensor",
                "Fire Sensor", "Wind Sensor", "Proximity Sensor", "Multi-Sensor", "Flush Mounted Sensor",
                "Ceiling Mounted Sensor", "Wall Mounted Sensor", "Multisensor", "Energy Meter", "Flame Detector",
                "Vehicle Tire Pressure Sensor",
            ]
        ),
        0x016: (
            "Light Fixtures",
            [
                "Wall Light", "Ceiling Light", "Floor Light", "Cabinet Light", "Desk Light", "Troffer Light",
                "Pendant Light", "In-ground Light", "Flood Light", "Underwater Light", "Bollard with Light",
                "Pathway Light", "Garden Light", "Pole-top Light", "Spotlight", "Linear Light", "Street Light",
                "Shelves Light", "Bay Light", "Emergency Exit Light", "Light Controller", "Light Driver", "Bulb",
                "Low-bay Light", "High-bay Light",
            ]
        ),
        0x017: ("Fan", ["Ceiling Fan", "Axial Fan", "Exhaust Fan", "Pedestal Fan", "Desk Fan", "Wall Fan"]),
        0x018: (
            "HVAC",
            [
                "Thermostat", "Humidifier", "De-humidifier", "Heater", "Radiator", "Boiler", "Heat Pump",
                "Infrared Heater", "Radiant Panel Heater", "Fan Heater", "Air Curtain",
            ]
        ),
        0x019: ("Air Conditioning", []),
        0x01A: ("Humidifier", []),
        0x01B: (
            "Heating",
            [
                "Radiator", "Boiler", "Heat Pump", "Infrared Heater", "Radiant Panel Heater", "Fan Heater",
                "Air Curtain",
            ]
        ),
        0x01C: (
            "Access Control",
            [
                "Access Door", "Garage Door", "Emergency Exit Door", "Access Lock", "Elevator", "Window",
                "Entrance Gate", "Door Lock", "Locker",
            ]
        ),
        0x01D: ("Motorized Device", ["Motorized Gate", "Awning", "Blinds or Shades", "Curtains", "Screen"]),
        0x01E: (
            "Power Device",
            [
                "Power Outlet", "Power Strip", "Plug", "Power Supply", "LED Driver", "Fluorescent Lamp Gear",
                "HID Lamp Gear", "Charge Case", "Power Bank",
            ]
        ),
        0x01F: (
            "Light Source",
            [
                "Incandescent Light Bulb", "LED Lamp", "HID Lamp", "Fluorescent Lamp", "LED Array",
                "Multi-Color LED Array", "Low voltage halogen", "Organic light emitting diode (OLED)",
            ]
        ),
        0x020: (
            "Window Covering",
            [
                "Window Shades", "Window Blinds", "Window Awning", "Window Curtain", "Exterior Shutter",
                "Exterior Screen",
            ]
        ),
        0x021: (
            "Audio Sink",
            ["Standalone Speaker", "Soundbar", "Bookshelf Speaker", "Standmounted Speaker", "Speakerphone"]
        ),
        0x022: (
            "Audio Source",
            [
                "Microphone", "Alarm", "Bell", "Horn", "Broadcasting Device", "Service Desk", "Kiosk",
                "Broadcasting Room", "Auditorium",
            ]
        ),
        0x023: (
            "Motorized Vehicle",
            [
                "Car", "Large Goods Vehicle", "2-Wheeled Vehicle", "Motorbike", "Scooter", "Moped",
                "3-Wheeled Vehicle", "Light Vehicle", "Quad Bike", "Minibus", "Bus", "Trolley",
                "Agricultural Vehicle", "Camper / Caravan", "Recreational Vehicle / Motor Home",
            ]
        ),
        0x024: (
            "Domestic Appliance",
            [
                "Refrigerator", "Freezer", "Oven", "Microwave", "Toaster", "Washing Machine", "Dryer",
                "Coffee maker", "Clothes iron", "Curling iron", "Hair dryer", "Vacuum cleaner",
                "Robotic vacuum cleaner", "Rice cooker", "Clothes steamer",
            ]
        ),
        0x025: ("Wearable Audio Device", ["Earbud", "Headset", "Headphones", "Neck Band"]),
        0x026: ("Aircraft", ["Light Aircraft", "Microlight", "Paraglider", "Large Passenger Aircraft"]),
        0x027: (
            "AV Equipment",
            [
                "Amplifier", "Receiver", "Radio", "Tuner", "Turntable", "CD Player", "DVD Player", "Bluray Player",
                "Optical Disc Player", "Set-Top Box",
            ]
        ),
        0x028: ("Display Equipment", ["Television", "Monitor", "Projector"]),
        0x029: ("Hearing aid", ["In-ear hearing aid", "Behind-ear hearing aid", "Cochlear Implant"]),
        0x02A: ("Gaming", ["Home Video Game Console", "Portable handheld console"]),
        0x02B: ("Signage", ["Digital Signage", "Electronic Label"]),
        0x031: ("Pulse Oximeter", ["Fingertip Pulse Oximeter", "Wrist Worn Pulse Oximeter"]),
        0x032: ("Weight Scale", []),
        0x033: ("Personal Mobility Device", ["Powered Wheelchair", "Mobility Scooter"]),
        0x034: ("Continuous Glucose Monitor", []),
        0x035: (
            "Insulin Pump",
            ["Insulin Pump, durable pump", "", "", "Insulin Pump, patch pump", "", "", "", "Insulin Pen"]
        ),
        0x036: ("Medication Delivery", []),
        0x037: ("Spirometer", ["Handheld Spirometer"]),
        0x051: (
            "Outdoor Sports Activity",
            [
                "Location Display", "Location and Navigation Display", "Location Pod",
                "Location and Navigation Pod",
            ]
        ),
        0x052: (
            "Industrial Measurement Device",
            ["Torque Testing Device", "Caliper", "Dial Indicator", "Micrometer", "Height Gauge", "Force Gauge"]
        ),
        0x053: (
            "Industrial Tools",
            [
                "Machine Tool Holder", "Generic Central Device", "Clamping Device", "Clamping Jaws/Jaw Chuck",
                "Clamping (Collet) Chuck", "Clamping Mandrel", "Vise", "Zero-Point Clamping System", "Torque Wrench",
                "Torque Screwdriver",
            ]
        ),
    ]

    /// The name of an Appearance value: the subcategory's, "Generic <category>" for subcategory 0,
    /// nil for an unassigned category.
    static func appearance(_ value: UInt64) -> String? {
        guard value <= 0xFFFF else { return nil }
        let category = UInt16(value >> 6)
        let sub = Int(value & 0x3F)
        guard let (name, subs) = appearanceCategories[category] else { return nil }
        if sub == 0 { return category == 0 ? name : "Generic " + name }
        if sub <= subs.count, !subs[sub - 1].isEmpty { return subs[sub - 1] }
        return name + ", subcategory " + String(sub)
    }

    static let appearanceNames = ValueNames(lookup: { appearance($0) })

    static let appearanceCategoryNames = ValueNames(lookup: { category in
        category <= 0x3FF ? appearanceCategories[UInt16(category)]?.0 : nil
    })
}
