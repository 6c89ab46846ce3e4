#!/usr/bin/env python3
"""Builds btmon from the BlueZ 5.87 source, once, and keeps the binary in a cache directory.

    python3 Benchmarks/btmon_build.py [--cache DIR]

Prints the path of the btmon 5.87 binary, building it first when the cache does not hold it.
Debian 12's btmon 5.66 crashes on ordinary captures, so the benchmark's -V reference is 5.87.

- The source is Debian's copy of the release tarball (SOURCE_URL); its sha256 is checked.
- Only btmon is built: `./configure` with CONFIGURE_FLAGS (no udev, systemd, OBEX, client or
  manual pages, so none of their libraries are needed), then `make monitor/btmon`.
- Needed: a C compiler, make, pkg-config and the development files of glib-2.0 and dbus-1
  (Debian: build-essential pkg-config libglib2.0-dev libdbus-1-dev). configure asks for dbus-1
  even though btmon does not link it.
- The binary goes to CACHE/btmon-5.87/btmon (CACHE: $XDG_CACHE_HOME/bleinspect-bench, else
  ~/.cache/bleinspect-bench); the tarball stays next to it, the build tree is removed.

Standard library only.
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request

VERSION = "5.87"
SOURCE_URL = f"http://deb.debian.org/debian/pool/main/b/bluez/bluez_{VERSION}.orig.tar.gz"
SOURCE_SHA256 = "8e086b38e7d269781fa78fb702fe2f38bd366d107cdc4debc1674ae9381988e4"
CONFIGURE_FLAGS = ["--disable-udev", "--disable-systemd", "--disable-obex", "--disable-client",
                   "--disable-manpages", "--disable-cups", "--disable-datafiles"]
# pkg-config module -> the Debian package with its development files
PKG_CONFIG_NEEDS = {"glib-2.0": "libglib2.0-dev", "dbus-1": "libdbus-1-dev"}


class BuildError(Exception):
    """Why btmon could not be built, in a few words for the benchmark table."""


def default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "bleinspect-bench")


def version_of(binary):
    try:
        p = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10)
        return p.stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None


def check_tools():
    missing = [t for t in ("cc", "make", "pkg-config") if not shutil.which(t)]
    if missing:
        raise BuildError(f"missing {', '.join(missing)} (apt-get install build-essential pkg-config)")
    absent = [m for m in PKG_CONFIG_NEEDS
              if subprocess.run(["pkg-config", "--exists", m]).returncode != 0]
    if absent:
        raise BuildError(f"missing development files of {', '.join(absent)} "
                         f"(apt-get install {' '.join(PKG_CONFIG_NEEDS[m] for m in absent)})")


def fetch(tarball, log):
    """The source tarball, downloaded unless a copy with the right sha256 is already there."""
    if not (os.path.exists(tarball) and sha256_of(tarball) == SOURCE_SHA256):
        log(f"downloading {SOURCE_URL}")
        try:
            with urllib.request.urlopen(SOURCE_URL, timeout=60) as r, open(tarball + ".part", "wb") as f:
                shutil.copyfileobj(r, f)
        except OSError as e:
            raise BuildError(f"download failed: {e}") from e
        digest = sha256_of(tarball + ".part")
        if digest != SOURCE_SHA256:
            os.remove(tarball + ".part")
            raise BuildError(f"sha256 mismatch: got {digest[:16]}…, want {SOURCE_SHA256[:16]}…")
        os.replace(tarball + ".part", tarball)
    return tarball


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def run_step(argv, cwd, log_path):
    with open(log_path, "ab") as out:
        p = subprocess.run(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        with open(log_path, "rb") as f:
            tail = f.read()[-2000:].decode("utf-8", "replace").strip().splitlines()
        errors = [line for line in tail if "error" in line.lower()]
        raise BuildError(f"`{' '.join(argv[:2])}` failed: {(errors or tail or ['?'])[-1].strip()} "
                         f"(log: {log_path})")


def build(tarball, target, log):
    """Configures and builds monitor/btmon in a temporary tree; copies it to `target`."""
    log_path = target + ".build.log"
    if os.path.exists(log_path):
        os.remove(log_path)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(target)) as tmp:
        with tarfile.open(tarball) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(tmp, filter="data")
            else:
                tar.extractall(tmp)
        src = os.path.join(tmp, f"bluez-{VERSION}")
        log(f"building btmon {VERSION} in {src} (log: {log_path})")
        run_step(["./configure", *CONFIGURE_FLAGS], src, log_path)
        # nice: the build must not slow down measurements that run beside it.
        run_step(["nice", "make", f"-j{os.cpu_count() or 1}", "monitor/btmon"], src, log_path)
        shutil.copy2(os.path.join(src, "monitor", "btmon"), target + ".part")
        os.replace(target + ".part", target)


def ensure_btmon(cache=None, log=lambda msg: print(msg, file=sys.stderr)):
    """The path of a btmon 5.87 binary; raises BuildError with the reason when there is none."""
    directory = os.path.join(cache or default_cache(), f"btmon-{VERSION}")
    target = os.path.join(directory, "btmon")
    if version_of(target) == VERSION:
        return target
    os.makedirs(directory, exist_ok=True)
    check_tools()
    build(fetch(os.path.join(directory, f"bluez_{VERSION}.orig.tar.gz"), log), target, log)
    got = version_of(target)
    if got != VERSION:
        raise BuildError(f"the built btmon says its version is {got!r}")
    return target


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default=default_cache())
    args = ap.parse_args()
    try:
        print(ensure_btmon(args.cache))
    except BuildError as e:
        sys.exit(f"btmon {VERSION} could not be built: {e}")


if __name__ == "__main__":
    main()
