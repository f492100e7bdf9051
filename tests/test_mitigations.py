"""Mitigations around an interference cell: what they do to a (fake) system, that they are
undone afterwards, also on Ctrl-C, and that one that cannot be applied says so."""
from __future__ import annotations

import struct

import pytest

from platperf import mitigations
from platperf.mitigations import isolated, resctrl, rt


def fake_resctrl(tmp_path, cbm="fff", min_bits="1", schemata="L3:0=fff;1=fff\nMB:0=100;1=100\n"):
    root = tmp_path / "resctrl"
    (root / "info" / "L3").mkdir(parents=True)
    (root / "info" / "L3" / "cbm_mask").write_text(cbm + "\n")
    (root / "info" / "L3" / "min_cbm_bits").write_text(min_bits + "\n")
    (root / "schemata").write_text(schemata)
    return root


def groups(root):
    return sorted(p.name for p in root.iterdir() if p.name.startswith("platperf-"))


def test_resctrl_gives_victim_and_aggressors_disjoint_l3_masks_while_the_cell_runs(tmp_path):
    root = fake_resctrl(tmp_path)
    with resctrl.partitioned(root, 1, [2, 3]) as applied:
        assert applied.applied
        victim = (root / "platperf-victim" / "schemata").read_text()
        hammers = (root / "platperf-aggressors" / "schemata").read_text()
        assert victim == "L3:0=007;1=007\n"
        assert hammers == "L3:0=ff8;1=ff8\n"
        assert int("007", 16) & int("ff8", 16) == 0
        assert (root / "platperf-victim" / "cpus_list").read_text().strip() == "1"
        assert (root / "platperf-aggressors" / "cpus_list").read_text().strip() == "2,3"
    assert groups(root) == []


def test_resctrl_groups_are_removed_after_ctrl_c(tmp_path):
    root = fake_resctrl(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        with mitigations.applied(["resctrl", "rt"], victim=0, aggressors=[1], root=str(tmp_path),
                                 resctrl_root=root) as (applied, argv):
            assert groups(root) == ["platperf-aggressors", "platperf-victim"]
            raise KeyboardInterrupt
    assert groups(root) == []


def test_resctrl_replaces_groups_left_by_a_killed_run(tmp_path):
    root = fake_resctrl(tmp_path)
    (root / "platperf-victim").mkdir()
    (root / "platperf-victim" / "schemata").write_text("L3:0=fff\n")
    with resctrl.partitioned(root, 0, [1]) as applied:
        assert applied.applied
        assert (root / "platperf-victim" / "schemata").read_text() == "L3:0=007;1=007\n"
    assert groups(root) == []


@pytest.mark.parametrize("setup, why", [
    (lambda tmp: tmp / "absent", "not mounted"),
    (lambda tmp: fake_resctrl(tmp, cbm="1"), "no L3 allocation that can be split"),
    (lambda tmp: fake_resctrl(tmp, schemata="MB:0=100\n"), "no L3 allocation"),
])
def test_resctrl_that_cannot_be_applied_says_why_and_changes_nothing(tmp_path, setup, why):
    root = setup(tmp_path)
    with resctrl.partitioned(root, 0, [1]) as applied:
        assert not applied.applied
        assert why in applied.detail
    assert not root.exists() or groups(root) == []


def test_masks_respect_min_cbm_bits():
    assert resctrl.masks(0xfff, 1) == (0x7, 0xff8)
    assert resctrl.masks(0xff, 4) == (0xf, 0xf0)
    assert resctrl.masks(0x7, 4) is None


def proc_tree(tmp_path, cmdline, isolated_cpus=None, nohz=None):
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "cmdline").write_text(cmdline + "\n")
    cpu = tmp_path / "sys" / "devices" / "system" / "cpu"
    cpu.mkdir(parents=True)
    if isolated_cpus is not None:
        (cpu / "isolated").write_text(isolated_cpus + "\n")
    if nohz is not None:
        (cpu / "nohz_full").write_text(nohz + "\n")
    return str(tmp_path)


def test_isolated_says_what_is_missing_for_the_victim(tmp_path):
    root = proc_tree(tmp_path, "console=ttyS0 isolcpus=domain,managed_irq,2-3 rcu_nocbs=3")
    result = isolated.check(3, root)
    assert not result.applied
    assert "not in nohz_full" in result.detail and "nohz_full=3" in result.detail
    assert "isolcpus" not in result.detail.split(";")[0]


def test_isolated_holds_when_every_parameter_covers_the_victim(tmp_path):
    root = proc_tree(tmp_path, "isolcpus=1 nohz_full=1 rcu_nocbs=1", isolated_cpus="1", nohz="1")
    assert isolated.check(1, root).applied
    assert not isolated.check(0, root).applied


def test_rt_holds_cpu_dma_latency_at_zero_and_asks_the_probe(tmp_path):
    (tmp_path / "dev").mkdir()
    dma = tmp_path / "dev" / "cpu_dma_latency"
    dma.write_bytes(b"")
    with mitigations.applied(["rt"], victim=0, aggressors=[], root=str(tmp_path)) as (applied, argv):
        assert [a.applied for a in applied] == [True]
        assert argv == ["--rt", "1"]
    assert struct.unpack("i", dma.read_bytes()) == (0,)


def test_rt_without_cpu_dma_latency_is_recorded_as_not_applied(tmp_path):
    with rt.dma_latency_held(str(tmp_path)) as applied:
        assert not applied.applied
        assert "cpu_dma_latency" in applied.detail


@pytest.mark.parametrize("spec, names", [("none", []), ("rt", ["rt"]), ("rt+resctrl", ["rt", "resctrl"]),
                                         ("resctrl+rt", ["resctrl", "rt"])])
def test_mitigation_sets_are_parsed_in_the_order_applied(spec, names):
    assert mitigations.parse(spec) == names
    # in the order applied, as the study prints them (rt+resctrl is not resctrl+rt)
    assert mitigations.label(names) == spec


@pytest.mark.parametrize("spec", ["qos", "rt+rt", "rt+nl3a"])
def test_unknown_or_repeated_mitigations_are_refused(spec):
    with pytest.raises(mitigations.MitigationError):
        mitigations.parse(spec)


def test_rt_says_when_rt_throttling_will_stall_the_loop(tmp_path):
    kernel = tmp_path / "proc" / "sys" / "kernel"
    kernel.mkdir(parents=True)
    (kernel / "sched_rt_period_us").write_text("1000000\n")
    (kernel / "sched_rt_runtime_us").write_text("950000\n")
    with rt.dma_latency_held(str(tmp_path)) as applied:
        assert "stopped up to 50 ms each 1000 ms" in applied.caveat
    (kernel / "sched_rt_runtime_us").write_text("-1\n")
    assert rt.throttling(str(tmp_path)) == ""


def test_on_a_remote_target_the_host_writes_nothing_but_the_probe_still_gets_rt(tmp_path):
    (tmp_path / "dev").mkdir()
    dma = tmp_path / "dev" / "cpu_dma_latency"
    dma.write_bytes(b"")
    resctrl_root = fake_resctrl(tmp_path)
    proc_tree(tmp_path, "isolcpus=1 nohz_full=1 rcu_nocbs=1")
    with mitigations.applied(["isolated", "resctrl", "rt"], victim=1, aggressors=[2], root=str(tmp_path),
                             resctrl_root=resctrl_root, local=False) as (applied, argv):
        by_name = {a.name: a for a in applied}
        assert groups(resctrl_root) == []
    assert argv == ["--rt", "1"]
    assert not by_name["rt"].applied and not by_name["resctrl"].applied
    assert by_name["rt"].detail.startswith("not applied on a remote target (")
    assert by_name["resctrl"].detail.startswith("not applied on a remote target (")
    # The checks read the target's tree: isolation is a check, so it still holds.
    assert by_name["isolated"].applied
    assert dma.read_bytes() == b""


def test_checks_read_a_sysroot_given_instead_of_a_path(tmp_path):
    from platperf.machine import SysRoot
    proc_tree(tmp_path, "isolcpus=3 nohz_full=3 rcu_nocbs=3")
    kernel = tmp_path / "proc" / "sys" / "kernel"
    kernel.mkdir(parents=True)
    (kernel / "sched_rt_period_us").write_text("1000000\n")
    (kernel / "sched_rt_runtime_us").write_text("950000\n")
    machine = SysRoot(tmp_path)
    assert isolated.check(3, machine).applied and not isolated.check(2, machine).applied
    assert "stopped up to 50 ms" in rt.throttling(machine)
