"""Naming CPU cores: Arm MIDR_EL1 implementer/part numbers and x86 vendor/family/model.

MIDR_EL1 layout (Arm ARM D17.2.100): implementer [31:24], variant [23:20], architecture
[19:16], part number [15:4], revision [3:0]. Part numbers are from each core's Technical
Reference Manual; a part not in the table is named by its number, never guessed.
"""
from __future__ import annotations

from dataclasses import dataclass

IMPLEMENTERS = {
    0x41: "Arm", 0x42: "Broadcom", 0x43: "Cavium", 0x46: "Fujitsu", 0x48: "HiSilicon",
    0x4E: "NVIDIA", 0x50: "Applied Micro", 0x51: "Qualcomm", 0x53: "Samsung", 0x56: "Marvell",
    0x61: "Apple", 0x66: "Faraday", 0x69: "Intel", 0x6D: "Microsoft", 0x70: "Phytium", 0xC0: "Ampere",
}

PARTS = {
    0x41: {
        0xC05: "Cortex-A5", 0xC07: "Cortex-A7", 0xC08: "Cortex-A8", 0xC09: "Cortex-A9",
        0xC0D: "Cortex-A12", 0xC0F: "Cortex-A15", 0xC0E: "Cortex-A17",
        0xD01: "Cortex-A32", 0xD02: "Cortex-A34", 0xD03: "Cortex-A53", 0xD04: "Cortex-A35",
        0xD05: "Cortex-A55", 0xD06: "Cortex-A65", 0xD07: "Cortex-A57", 0xD08: "Cortex-A72",
        0xD09: "Cortex-A73", 0xD0A: "Cortex-A75", 0xD0B: "Cortex-A76", 0xD0C: "Neoverse N1",
        0xD0D: "Cortex-A77", 0xD0E: "Cortex-A76AE", 0xD40: "Neoverse V1", 0xD41: "Cortex-A78",
        0xD42: "Cortex-A78AE", 0xD43: "Cortex-A65AE", 0xD44: "Cortex-X1", 0xD46: "Cortex-A510",
        0xD47: "Cortex-A710", 0xD48: "Cortex-X2", 0xD49: "Neoverse N2", 0xD4A: "Neoverse E1",
        0xD4B: "Cortex-A78C", 0xD4C: "Cortex-X1C", 0xD4D: "Cortex-A715", 0xD4E: "Cortex-X3",
        0xD4F: "Neoverse V2", 0xD80: "Cortex-A520", 0xD81: "Cortex-A720", 0xD82: "Cortex-X4",
        0xD84: "Neoverse V3", 0xD85: "Cortex-X925", 0xD87: "Cortex-A725", 0xD8E: "Neoverse N3",
    },
    0x51: {0x800: "Kryo 2xx Gold", 0x801: "Kryo 2xx Silver", 0x802: "Kryo 3xx Gold",
           0x803: "Kryo 3xx Silver", 0x804: "Kryo 4xx Gold", 0x805: "Kryo 4xx Silver", 0xC00: "Falkor"},
    0x43: {0x0A1: "ThunderX", 0x0AF: "ThunderX2"},
    0x46: {0x001: "A64FX"},
    0x48: {0xD01: "TSV110"},
    0xC0: {0xAC3: "Ampere-1", 0xAC4: "Ampere-1a"},
}


@dataclass(frozen=True)
class Midr:
    value: int

    @classmethod
    def parse(cls, text: str) -> "Midr":
        return cls(int(text, 16) & 0xFFFFFFFF)

    @classmethod
    def from_fields(cls, implementer: int, variant: int, part: int, revision: int, architecture: int = 0xF):
        return cls((implementer << 24) | (variant << 20) | (architecture << 16) | (part << 4) | revision)

    implementer = property(lambda self: self.value >> 24)
    variant = property(lambda self: (self.value >> 20) & 0xF)
    part = property(lambda self: (self.value >> 4) & 0xFFF)
    revision = property(lambda self: self.value & 0xF)

    @property
    def hex(self) -> str:
        return f"0x{self.value:08x}"

    @property
    def vendor(self) -> str:
        return IMPLEMENTERS.get(self.implementer, f"implementer 0x{self.implementer:02x}")

    @property
    def core_type(self) -> str:
        """'Cortex-A53'; unknown parts as 'Arm part 0xd99' so two unknown cores still differ."""
        name = PARTS.get(self.implementer, {}).get(self.part)
        return name or f"{self.vendor} part 0x{self.part:03x}"

    @property
    def rev(self) -> str:
        """Arm's rNpM revision notation."""
        return f"r{self.variant}p{self.revision}"


def x86_core_type(vendor_id: str | None, family: int | None, model: int | None, model_name: str | None) -> str:
    """x86 cores are named by the 'model name' the CPU reports (its brand string); family and
    model numbers are kept beside it because hypervisors often shorten the brand string."""
    if model_name:
        return " ".join(model_name.split())
    vendor = {"GenuineIntel": "Intel", "AuthenticAMD": "AMD"}.get(vendor_id or "", vendor_id or "x86")
    return f"{vendor} family {family} model {model}"
