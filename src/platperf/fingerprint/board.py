"""What a board tells of itself beyond its model, for the report's board table (TI's
*Evaluation Modules*: ``AM62x SK rev E2 ... DDR4 data rate 1600 MT/S``).

* revision: DMI's ``board_version`` or ``product_version`` (placeholders such as "To be
  filled by O.E.M." are no revision), else /proc/cpuinfo's ``Revision`` (boards that put
  their revision code there);
* memory: SMBIOS type 17 (Memory Device) entries, as ``dmidecode -t memory`` reads them,
  from /sys/firmware/dmi/entries/17-*/raw (the kernel's dmi-sysfs, readable by root): the
  memory type and the configured data rate in MT/s (the rated speed where the configured
  one is not given).

A device tree carries neither (its ``model`` is the board's name, nothing says the DDR
rate), and the raw entries are only read on this machine, not over ssh: the report then
says "not reported"."""
from __future__ import annotations

from ..machine.sysroot import SysRoot

PLACEHOLDERS = {"", "none", "0", "0.0", "n/a", "na", "not specified", "not applicable", "default string",
                "to be filled by o.e.m.", "system version", "type2 - board version", "x.x"}
# SMBIOS 3.x, 7.18.2 (Memory Device, Type): the kinds a board's RAM is
TYPES = {0x12: "DDR", 0x13: "DDR2", 0x18: "DDR3", 0x1A: "DDR4", 0x1B: "LPDDR", 0x1C: "LPDDR2",
         0x1D: "LPDDR3", 0x1E: "LPDDR4", 0x22: "DDR5", 0x23: "LPDDR5"}
ENTRIES = "sys/firmware/dmi/entries"


def revision(sysroot: SysRoot, machine_fields: dict) -> str | None:
    for name in ("board_version", "product_version"):
        text = (sysroot.read(f"sys/class/dmi/id/{name}") or "").strip()
        if text.lower() not in PLACEHOLDERS:
            return text
    text = (machine_fields.get("Revision") or "").strip()
    return text if text.lower() not in PLACEHOLDERS else None


def memory_device(raw: bytes) -> tuple[str | None, int | None] | None:
    """(type, MT/s) of one SMBIOS type 17 structure; None for an empty slot or a short one."""
    if len(raw) < 0x17 or raw[0] != 17:
        return None
    length = raw[1]
    size = int.from_bytes(raw[0x0C:0x0E], "little")
    if size == 0:                       # no device installed in this slot
        return None
    speed = int.from_bytes(raw[0x15:0x17], "little")
    if length >= 0x22 and len(raw) >= 0x22:
        configured = int.from_bytes(raw[0x20:0x22], "little")
        speed = configured or speed
    rate = speed if 0 < speed < 0xFFFF else None
    return TYPES.get(raw[0x12]), rate


def memory(sysroot: SysRoot) -> dict:
    """{"type", "data_rate_mts"} of the board's memory devices (the slowest rate, all types
    when they differ), empty when the board does not say."""
    devices = []
    for name in sysroot.listdir(ENTRIES):
        if not name.startswith("17-"):
            continue
        raw = sysroot.read_binary(f"{ENTRIES}/{name}/raw")
        device = memory_device(raw) if raw else None
        if device:
            devices.append(device)
    kinds = sorted({k for k, _ in devices if k})
    rates = [r for _, r in devices if r]
    out = {}
    if kinds:
        out["type"] = "/".join(kinds)
    if rates:
        out["data_rate_mts"] = min(rates)
    return out
