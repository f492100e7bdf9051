"""The target inventory: `platperf targets` add / list / check / remove, and names as --target."""
import json
import subprocess
import sys

import pytest

import fake_probe
from platperf.targets import UnknownTarget, get_target, target_names
from platperf.targets.inventory import Entry, Inventory, InventoryError, inventory_path


def platperf(*args, **kw):
    return subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True, text=True,
                          timeout=60, **kw)


@pytest.fixture
def inventory(tmp_path, monkeypatch):
    path = tmp_path / "targets.toml"
    monkeypatch.setenv("PLATPERF_TARGETS", str(path))
    return path


def test_the_file_is_env_then_xdg_config_then_home(tmp_path, monkeypatch):
    monkeypatch.delenv("PLATPERF_TARGETS", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert inventory_path() == tmp_path / "xdg" / "platperf" / "targets.toml"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert inventory_path() == tmp_path / "home" / ".config" / "platperf" / "targets.toml"
    monkeypatch.setenv("PLATPERF_TARGETS", str(tmp_path / "mine.toml"))
    assert inventory_path() == tmp_path / "mine.toml"


def test_add_list_remove_through_the_command(inventory):
    assert platperf("targets", "add", "am62x", "ssh://root@am62x.lab").returncode == 0
    assert platperf("targets", "add", "juno-r2", "ssh://juno:2222", "--remote-dir", "/data/t",
                    "--remove-probe").returncode == 0
    listed = json.loads(platperf("targets", "list", "--json").stdout)
    assert listed == [
        {"name": "am62x", "url": "ssh://root@am62x.lab", "remote_dir": None, "keep_probe": True, "tools": {}},
        {"name": "juno-r2", "url": "ssh://juno:2222", "remote_dir": "/data/t", "keep_probe": False, "tools": {}}]
    assert "juno-r2\tssh://juno:2222  remote-dir /data/t  remove-probe" in platperf("targets", "list").stdout
    assert platperf("targets", "remove", "am62x").returncode == 0
    assert [e["name"] for e in json.loads(platperf("targets", "list", "--json").stdout)] == ["juno-r2"]
    # the file is TOML a person can read and edit
    assert Inventory.load(inventory).entries["juno-r2"].remote_dir == "/data/t"


@pytest.mark.parametrize("args, needle", [
    (["add", "local", "ssh://x"], "'local' is reserved"),
    (["add", "ssh://x", "ssh://x"], "'ssh://x' is reserved"),
    (["add", "my board", "ssh://x"], "only letters, digits and -_."),
    (["add", "b", "telnet://x"], "neither local nor ssh://"),
    (["remove", "nope"], "no target 'nope'"),
])
def test_bad_inventory_input_is_one_line_and_exit_2(inventory, args, needle):
    proc = platperf("targets", *args)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]
    assert proc.stderr.startswith("platperf: error: ") and needle in proc.stderr
    assert not inventory.exists()


def test_a_broken_inventory_file_is_one_line(inventory):
    inventory.write_text("[targets.a\nurl=")
    proc = platperf("targets", "list")
    assert proc.returncode == 2 and "is not valid TOML" in proc.stderr


def test_an_inventory_name_is_a_target_with_its_entrys_name(inventory):
    Inventory.load().add(Entry("bench-a", "local"))
    target = get_target("bench-a")
    assert target.name == "bench-a"
    assert target.sysroot().root.as_posix() == "/"
    with pytest.raises(UnknownTarget, match=r"valid: local, ssh://\[user@\]host\[:port\], or an "
                                            r"inventory name: bench-a"):
        get_target("bench-b")


def test_target_lists(inventory):
    assert target_names("a, b,a") == ["a", "b"]
    with pytest.raises(UnknownTarget, match="inventory is empty"):
        target_names("", every=True)
    for name in ("z", "a"):
        Inventory.load().add(Entry(name, "local"))
    assert target_names("", every=True) == ["a", "z"]
    with pytest.raises(InventoryError):
        Inventory.load().add(Entry("x", "ftp://x"))


def test_check_describes_each_board_and_says_each_failure(inventory, tmp_path, monkeypatch):
    fake_probe.install(tmp_path, monkeypatch)
    monkeypatch.setenv("FAKE_PROBE_BEHAVIOUR", "complete")
    Inventory.load().add(Entry("a", "local"))
    proc = platperf("targets", "check", "a", "nope")
    assert proc.returncode == 2
    assert proc.stdout.startswith("a: x86_64, ") and "probe 0.0-fake (build fake0001)" in proc.stdout
    assert proc.stderr.strip() == ("platperf: error: nope: unknown target 'nope' (valid: local, "
                                   "ssh://[user@]host[:port], or an inventory name: a)")
    rows = json.loads(platperf("targets", "check", "a", "--json").stdout)
    assert rows[0]["probe_build_id"] == "fake0001" and rows[0]["cpus"] >= 1


@pytest.mark.parametrize("command", ["add", "list", "check", "remove"])
def test_help_has_an_example(command):
    proc = platperf("targets", command, "--help")
    assert proc.returncode == 0 and "Example" in proc.stdout


HAND_WRITTEN = '''# Our lab's boards -- ask Kim before adding one.

[targets.juno]   # the r2 in rack 3
url = "ssh://juno:2222"
remote_dir = "/data/tmp"   # /tmp is a small tmpfs there

# the SK board on the bench
[targets.am62x]
url = "ssh://root@am62x.lab"
tools = { dhrystone = "/opt/bench/dhry" }
'''


def test_add_and_remove_keep_a_hand_written_file_as_it_was(inventory):
    inventory.write_text(HAND_WRITTEN)
    assert platperf("targets", "add", "agilex5", "ssh://root@agilex5", "--remove-probe").returncode == 0
    text = inventory.read_text()
    assert text.startswith(HAND_WRITTEN)     # every comment, blank line and key where it was
    assert not Inventory.load(inventory).entries["agilex5"].keep_probe
    # changing an entry changes its line only; removing one leaves the others' comments
    assert platperf("targets", "add", "juno", "ssh://juno:2223", "--remote-dir", "/data/tmp").returncode == 0
    assert platperf("targets", "remove", "agilex5").returncode == 0
    assert inventory.read_text() == HAND_WRITTEN.replace("ssh://juno:2222", "ssh://juno:2223")
