#!/usr/bin/env python3
"""Generate the Bluetooth SIG assigned-number tables of the BLEAssignedNumbers target.

Usage:
    python3 -m pip install -r scripts/requirements-assigned-numbers.txt
    python3 scripts/generate_assigned_numbers.py           # (re)write Sources/BLEAssignedNumbers/Generated/
    python3 scripts/generate_assigned_numbers.py --check   # exit 1 if the committed files differ

The tables are never written by hand: they come from the PyPI package bluetooth-numbers,
at exactly the version pinned in scripts/requirements-assigned-numbers.txt (the script
refuses any other installed version), through this script, and its output is committed.
``--check`` regenerates in memory and compares byte for byte; CI runs it.

What is read from the package (its dicts, walked with ``dict.items`` so that none of the
package's lookup fallbacks run):
  company         16-bit company identifiers -> name
  service         16-bit UUIDs (ints) and vendor 128-bit UUIDs (``uuid.UUID``) -> name
  characteristic  the same
  descriptor      the same
``oui`` (IEEE MAC prefixes) is not used.

Normalisation, all mechanical and stated in the generated files' headers:
  * A 128-bit key built on the Bluetooth base UUID (0000xxxx-0000-1000-8000-00805F9B34FB)
    is stored under its 16-bit value. (bluetooth-numbers 1.1.2 has none.)
  * bluetooth-numbers 1.1.2 writes the SIG member-service UUIDs (0xFC00-0xFFFE) as ``0x``
    followed by the *decimal* value: GN Netcom's 0xFEFF is written ``0x65279``. An int
    key above 0xFFFF whose hex digits are all decimal digits and whose decimal reading
    is at most 0xFFFF is read that way (0x65279 -> 65279 == 0xFEFF). Where the same
    16-bit value is also listed under its proper key (0xFEAA "Eddystone" and 0x65194
    "Google LLC"), the properly keyed entry wins.
  * Anything else unexpected (a key that is neither, a 32-bit base UUID, a name that is
    not a non-empty string) stops the script: a new package version gets looked at by a
    person before its tables are committed.

Output: one Swift file per table, each a set of sorted parallel arrays (``[UInt16]`` keys
or ``[UInt64]`` 128-bit UUIDs as high and low halves in turn, and ``[StaticString]``
names), one entry per line so that a package update shows up as a line-per-entry diff.
Array literals of a single literal type with an explicit element type type-check quickly;
``switch`` statements or arrays of tuples/structs over thousands of entries do not. A
128-bit UUID's two halves share a line, so the low halves that a vendor's UUIDs share do
not repeat line for line.
The output depends only on the package's data: entries are sorted by key.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
import unicodedata
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS = ROOT / "scripts" / "requirements-assigned-numbers.txt"
OUTPUT_DIR = ROOT / "Sources" / "BLEAssignedNumbers" / "Generated"
SCRIPT = "scripts/generate_assigned_numbers.py"
DISTRIBUTION = "bluetooth-numbers"

LINE_LIMIT = 120  # .swift-format lineLength
INDENT = "    "

BASE_UUID = uuid.UUID("00000000-0000-1000-8000-00805F9B34FB").int
LOW_96_BITS = (1 << 96) - 1


class GenerationError(Exception):
    """The package's data is not what this script knows how to turn into Swift."""


# ---------------------------------------------------------------------------
# Reading the package


def pinned_version() -> str:
    pattern = re.compile(r"^bluetooth[-_.]numbers\s*==\s*([A-Za-z0-9_.+-]+)\s*$", re.IGNORECASE)
    for raw in REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        match = pattern.match(line)
        if match:
            return match.group(1)
    raise GenerationError(f"{REQUIREMENTS.relative_to(ROOT)} has no 'bluetooth-numbers==VERSION' line")


def load_package(pin: str):
    try:
        import bluetooth_numbers
    except ImportError:
        raise GenerationError(
            f"the Python package {DISTRIBUTION} is not installed; run:\n"
            f"    python3 -m pip install -r {REQUIREMENTS.relative_to(ROOT)}"
        ) from None
    from importlib import metadata

    try:
        installed = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        installed = getattr(bluetooth_numbers, "__version__", "unknown")
    if installed != pin:
        raise GenerationError(
            f"{DISTRIBUTION} {installed} is installed but {REQUIREMENTS.relative_to(ROOT)} pins {pin}; run:\n"
            f"    python3 -m pip install -r {REQUIREMENTS.relative_to(ROOT)}\n"
            "(to move to a new version, change the pin first, then regenerate and commit both)"
        )
    return bluetooth_numbers, installed


def check_name(table: str, key: object, name: object) -> str:
    if not isinstance(name, str) or not name:
        raise GenerationError(f"{table}[{key!r}] is {name!r}, not a non-empty string")
    return name


def is_plain_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_companies(package) -> dict[int, str]:
    table: dict[int, str] = {}
    for key, name in dict.items(package.company):
        if not is_plain_int(key) or not 0 <= key <= 0xFFFF:
            raise GenerationError(f"company key {key!r} is not a 16-bit integer")
        table[key] = check_name("company", key, name)
    return table


@dataclass
class UUIDTable:
    """One of the package's UUID dicts, split into 16-bit and 128-bit keys."""

    source: str
    entries16: dict[int, str] = field(default_factory=dict)
    entries128: dict[int, str] = field(default_factory=dict)
    total: int = 0
    direct16: int = 0
    base_form: int = 0
    decimal_keys: int = 0
    decimal_keys_shadowed: int = 0


def read_uuid_table(package, source: str) -> UUIDTable:
    result = UUIDTable(source)
    direct: dict[int, str] = {}
    base_form: dict[int, str] = {}
    decimal: dict[int, str] = {}
    for key, name in dict.items(getattr(package, source)):
        result.total += 1
        name = check_name(source, key, name)
        if is_plain_int(key):
            if 0 <= key <= 0xFFFF:
                direct[key] = name
                continue
            digits = format(key, "x")
            if key > 0xFFFF and digits.isdigit() and int(digits, 10) <= 0xFFFF:
                decimal[int(digits, 10)] = name
                continue
            raise GenerationError(f"{source} key {key:#x} is neither a 16-bit UUID nor 0x<decimal 16-bit value>")
        if isinstance(key, uuid.UUID):
            if key.int & LOW_96_BITS == BASE_UUID:
                short = key.int >> 96
                if short > 0xFFFF:
                    raise GenerationError(
                        f"{source} key {key} is a 32-bit UUID; the Swift tables have no 32-bit column"
                    )
                base_form[short] = name
            else:
                result.entries128[key.int] = name
            continue
        raise GenerationError(f"{source} key {key!r} is of type {type(key).__name__}, not int or uuid.UUID")

    result.direct16 = len(direct)
    merged = dict(direct)
    for short, name in base_form.items():
        if short not in merged:
            merged[short] = name
            result.base_form += 1
    for short, name in decimal.items():
        if short in merged:
            result.decimal_keys_shadowed += 1
        else:
            merged[short] = name
            result.decimal_keys += 1
    result.entries16 = merged
    return result


# ---------------------------------------------------------------------------
# Writing Swift

ESCAPED_CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp", "Zs"}


def swift_string_literal(text: str) -> str:
    """A Swift string literal for ``text``: quotes and backslashes escaped, control, format and
    unusual space characters written as ``\\u{...}``, everything else kept as UTF-8."""
    out = ['"']
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char == '"':
            out.append('\\"')
        elif char != " " and unicodedata.category(char) in ESCAPED_CATEGORIES:
            if 0xD800 <= ord(char) <= 0xDFFF:
                raise GenerationError(f"name {text!r} contains a lone surrogate")
            out.append(f"\\u{{{ord(char):X}}}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def width(line: str) -> int:
    # swift-format counts characters; UTF-8 bytes are never fewer, so a line that passes this
    # measure passes swift-format's.
    return len(line.encode("utf-8"))


def hex16(value: int) -> str:
    return f"0x{value:04X}"


def hex64(value: int) -> str:
    digits = f"{value:016X}"
    return "0x" + "_".join(digits[i : i + 4] for i in range(0, 16, 4))


def uuid_text(value: int) -> str:
    return str(uuid.UUID(int=value)).upper()


def emit_array(lines: list[str], doc: list[str], name: str, element_type: str, elements: list[tuple[str, str]]) -> None:
    """``elements``: (Swift literal, comment or "")."""
    for doc_line in doc:
        lines.append(f"{INDENT}/// {doc_line}")
    head = f"{INDENT}package static let {name}: [{element_type}] = ["
    if not elements:
        lines.append(f"{head}]")
        return
    if len(elements) == 1:
        literal, comment = elements[0]
        single = f"{head}{literal}]"
        if comment and width(f"{single}  // {comment}") <= LINE_LIMIT:
            lines.append(f"{single}  // {comment}")
            return
        if width(single) <= LINE_LIMIT:
            if comment:
                lines.append(f"{INDENT}// {comment}")
            lines.append(single)
            return
    lines.append(head)
    for literal, comment in elements:
        entry = f"{INDENT}{INDENT}{literal},"
        if comment and width(f"{entry}  // {comment}") <= LINE_LIMIT:
            lines.append(f"{entry}  // {comment}")
        else:
            if comment:
                lines.append(f"{INDENT}{INDENT}// {comment}")
            lines.append(entry)
    lines.append(f"{INDENT}]")


def header(version: str, notes: list[str]) -> list[str]:
    lines = [
        f"// Generated by {SCRIPT} from {DISTRIBUTION} {version}. Do not edit.",
        f"// To change it, edit the script or its pin ({relative(REQUIREMENTS)}), rerun it and commit the output.",
    ]
    if notes:
        lines.append("//")
        lines.extend(f"// {note}" if note else "//" for note in notes)
    lines.append("")
    return lines


def wrap(text: str, width_limit: int = LINE_LIMIT - 3) -> list[str]:
    words = text.split()
    result: list[str] = []
    current = ""
    for word in words:
        candidate = f"{current} {word}" if current else word
        if current and len(candidate) > width_limit:
            result.append(current)
            current = word
        else:
            current = candidate
    if current:
        result.append(current)
    return result


def company_file(version: str, companies: dict[int, str]) -> str:
    keys = sorted(companies)
    lines = header(
        version,
        wrap(f"bluetooth_numbers.company: {len(keys)} company identifiers, ascending."),
    )
    lines.append("extension AssignedNumbers {")
    emit_array(
        lines,
        ["Company identifiers, ascending. `companyNames[i]` is the name of `companyKeys[i]`."],
        "companyKeys",
        "UInt16",
        [(hex16(key), "") for key in keys],
    )
    lines.append("")
    emit_array(
        lines,
        ["Company names, in the order of `companyKeys`."],
        "companyNames",
        "StaticString",
        [(swift_string_literal(companies[key]), hex16(key)) for key in keys],
    )
    lines.append("}")
    return "\n".join(lines) + "\n"


def uuid_file(version: str, table: UUIDTable, prefix: str, plural: str) -> str:
    keys16 = sorted(table.entries16)
    keys128 = sorted(table.entries128)
    summary = (
        f"bluetooth_numbers.{table.source}: {table.total} entries. {len(keys16)} 16-bit UUIDs: "
        f"{table.direct16} keyed as such"
    )
    if table.base_form:
        summary += f", {table.base_form} given as base-UUID 128-bit keys"
    if table.decimal_keys or table.decimal_keys_shadowed:
        summary += (
            f", {table.decimal_keys} written in the package as 0x followed by the decimal value"
            f" (0x65279 for 0xFEFF) and read as decimal"
        )
        if table.decimal_keys_shadowed:
            summary += (
                f" ({table.decimal_keys_shadowed} more such entries dropped: the same UUID is"
                " also listed under its proper key, which wins)"
            )
    summary += f". {len(keys128)} vendor 128-bit UUIDs."
    lines = header(version, wrap(summary))
    lines.append("extension AssignedNumbers {")
    emit_array(
        lines,
        [f"SIG 16-bit {plural} UUIDs, ascending. `{prefix}16Names[i]` is the name of `{prefix}16Keys[i]`."],
        f"{prefix}16Keys",
        "UInt16",
        [(hex16(key), "") for key in keys16],
    )
    lines.append("")
    emit_array(
        lines,
        [f"Names of the 16-bit {plural} UUIDs, in the order of `{prefix}16Keys`."],
        f"{prefix}16Names",
        "StaticString",
        [(swift_string_literal(table.entries16[key]), hex16(key)) for key in keys16],
    )
    lines.append("")
    emit_array(
        lines,
        [
            f"Vendor 128-bit {plural} UUIDs, ascending, two elements each: the high 64 bits (bytes 0-7 in",
            "display order), then the low 64 bits (bytes 8-15).",
        ],
        f"{prefix}128Keys",
        "UInt64",
        [(f"{hex64(key >> 64)}, {hex64(key & ((1 << 64) - 1))}", uuid_text(key)) for key in keys128],
    )
    lines.append("")
    emit_array(
        lines,
        [f"Names of the 128-bit {plural} UUIDs, in the order of `{prefix}128Keys`."],
        f"{prefix}128Names",
        "StaticString",
        [(swift_string_literal(table.entries128[key]), uuid_text(key)) for key in keys128],
    )
    lines.append("}")
    return "\n".join(lines) + "\n"


def version_file(version: str) -> str:
    lines = header(version, [])
    lines += [
        "extension AssignedNumbers {",
        f"{INDENT}/// The {DISTRIBUTION} release the generated tables come from.",
        f'{INDENT}package static var sourcePackageVersion: String {{ "{version}" }}',
        "}",
    ]
    return "\n".join(lines) + "\n"


def generate() -> dict[str, str]:
    package, version = load_package(pinned_version())
    return {
        "Companies.swift": company_file(version, read_companies(package)),
        "Services.swift": uuid_file(version, read_uuid_table(package, "service"), "service", "service"),
        "Characteristics.swift": uuid_file(
            version, read_uuid_table(package, "characteristic"), "characteristic", "characteristic"
        ),
        "Descriptors.swift": uuid_file(version, read_uuid_table(package, "descriptor"), "descriptor", "descriptor"),
        "SourceVersion.swift": version_file(version),
    }


# ---------------------------------------------------------------------------
# Main


def relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def check(expected: dict[str, str]) -> int:
    problems: list[str] = []
    existing = {path.name for path in OUTPUT_DIR.glob("*.swift")} if OUTPUT_DIR.is_dir() else set()
    for name in sorted(set(expected) | existing):
        path = OUTPUT_DIR / name
        if name not in expected:
            problems.append(f"{relative(path)} is not generated by the script (remove it)")
            continue
        if name not in existing:
            problems.append(f"{relative(path)} is missing")
            continue
        actual = path.read_bytes()
        wanted = expected[name].encode("utf-8")
        if actual == wanted:
            continue
        diff = list(
            difflib.unified_diff(
                actual.decode("utf-8", errors="replace").splitlines(),
                expected[name].splitlines(),
                fromfile=f"{relative(path)} (committed)",
                tofile=f"{relative(path)} (generated)",
                lineterm="",
                n=1,
            )
        )
        shown = "\n".join(diff[:24]) + ("\n..." if len(diff) > 24 else "")
        problems.append(f"{relative(path)} differs from the generator's output:\n{shown}")
    if problems:
        print(f"{SCRIPT} --check: the committed assigned-number tables are out of date.", file=sys.stderr)
        for problem in problems:
            print(f"  - {problem}", file=sys.stderr)
        print(f"Run `python3 {SCRIPT}` and commit {relative(OUTPUT_DIR)}/.", file=sys.stderr)
        return 1
    print(f"{SCRIPT} --check: {len(expected)} files in {relative(OUTPUT_DIR)}/ are up to date.")
    return 0


def write(expected: dict[str, str]) -> int:
    OUTPUT_DIR.mkdir(parents=True, exist_ok=True)
    for path in sorted(OUTPUT_DIR.glob("*.swift")):
        if path.name not in expected:
            path.unlink()
            print(f"removed {relative(path)}")
    for name, text in sorted(expected.items()):
        path = OUTPUT_DIR / name
        data = text.encode("utf-8")
        if path.exists() and path.read_bytes() == data:
            print(f"unchanged {relative(path)}")
            continue
        path.write_bytes(data)
        print(f"wrote {relative(path)}")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument(
        "--check",
        action="store_true",
        help="regenerate in memory and exit 1 if the committed files differ (for CI)",
    )
    args = parser.parse_args(argv)
    try:
        expected = generate()
    except GenerationError as error:
        print(f"{SCRIPT}: error: {error}", file=sys.stderr)
        return 2
    return check(expected) if args.check else write(expected)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
