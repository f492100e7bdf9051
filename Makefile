# platperf — the two commands of the README:
#   make run    install what building and running need, build the probes, measure this
#               machine, write the report of the runs it just made
#   make test   install what the tests need and run every test (C, Python, qemu-user, the
#               wheel on every supported Python this machine has)
SHELL := /bin/bash
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PLATPERF := $(VENV)/bin/platperf
DB     ?= platperf.db
SUITE  ?= quick
REPORT ?= platperf-report
BUILD  := build/probe
CMAKE_FLAGS := -DCMAKE_BUILD_TYPE=Release
PROBE_SRC := $(shell find probe -type f 2>/dev/null)

# Debian packages `make run` needs (README, "make run"): the compiler, C library and CMake
# that build the probe, the cross compilers and C libraries of the aarch64 and armv7 probes
# the package ships (hatch_build.py refuses a wheel without them), venv for .venv.
DEB_RUN := gcc libc6-dev cmake python3-venv \
           gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
# Debian packages the tests need on top of DEB_RUN: cross binutils (the disassembly checks),
# qemu-user to run the aarch64/armv7 builds, chromium for the HTML report test, postgresql
# for the store tests against a real server (tests/pg_server.py starts its own), a real sshd
# (and the ssh client) for the SSH target tests, LAVA's dispatcher (lava-run, lava-worker),
# schema (lava-common) and server (lava-server, gunicorn) for the LAVA tests' lab
# (tests/lava_server.py starts its own), the tools the adapters run (tests/test_adapters.py),
# ip and tc (iproute2) for the shaped link of the iperf3 0-loss tests (tests/test_iperf3_udp.py),
# QEMU's Arm system emulators and dtc for the virtual boards (tests/vboard.py).
DEB_TEST := binutils-aarch64-linux-gnu binutils-arm-linux-gnueabihf qemu-user-static chromium \
            postgresql openssh-server openssh-client lava-dispatcher lava-common lava-server \
            openssl fio iperf3 iproute2 stress-ng sysbench rt-tests p7zip-full systemd \
            qemu-system-arm device-tree-compiler binutils
# The virtual boards are built from Debian's own arm64 and armhf packages (a kernel, busybox,
# dropbear), fetched by the tests with apt-get download: apt must know those architectures.
FOREIGN_ARCHES := arm64 armhf
# Peers measured by bench/ in the same run.
DEB_BENCH := likwid rt-tests mbw

# The label of the runs `make run` makes, new each time (`make run LABEL=v2.12` to choose):
# its report covers exactly them, and two of them compare (`platperf compare LABEL1 LABEL2`).
ifndef LABEL
LABEL := local-$(shell date -u +%Y%m%dT%H%M%SZ)
endif

# Installs the packages of $(1) that are missing (as root, or with sudo when not root). It
# waits for another apt or dpkg to finish instead of failing on its lock: DPkg::Lock::Timeout
# for install; `apt-get update` cannot wait for the lists lock, so it is tried again. No
# service a package brings is started (postgresql, lava-server's, sshd): a policy-rc.d that
# refuses them all is in place during the install, unless the machine has one; the tests
# start their own, on 127.0.0.1.
APT := -o DPkg::Lock::Timeout=600
define apt_install
@missing=""; for p in $(1); do \
  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
done; \
if [ -n "$$missing" ]; then \
  echo "installing Debian packages:$$missing"; \
  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
  updated=; for try in 1 2 3 4 5 6 7 8 9 10; do \
    if $$SUDO apt-get $(APT) update -qq; then updated=1; break; fi; sleep 15; \
  done; [ -n "$$updated" ] || echo "apt-get update failed 10 times (a mirror in the middle of a sync?): installing from the package lists apt has"; \
  held=; if [ ! -e /usr/sbin/policy-rc.d ]; then \
    printf '#!/bin/sh\nexit 101\n' | $$SUDO tee /usr/sbin/policy-rc.d >/dev/null && \
    $$SUDO chmod 755 /usr/sbin/policy-rc.d && held=1; fi; \
  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get $(APT) install -y -qq $$missing >/dev/null; \
  rc=$$?; [ -z "$$held" ] || $$SUDO rm -f /usr/sbin/policy-rc.d; exit $$rc; \
fi
endef

.PHONY: run test wheel probe probe-cross venv venv-run deps deps-run deps-bench bench clean vboard vboard-stop

# Every run `make run` just made (the suite's `repeat`) is in the report: its label's.
run: venv-run
	$(PLATPERF) run --suite $(SUITE) --db $(DB) --label $(LABEL)
	$(PLATPERF) report $(LABEL) --db $(DB) --format all -o $(REPORT)
	@echo "results: $(DB) (label $(LABEL))    report: $(REPORT)/index.html $(REPORT)/guide.rst $(REPORT)/guide.md"

# The package, editable, into .venv: alone for `make run`, with its test extra for `make test`.
# The Debian packages first: the package build (hatch_build.py) compiles every probe it ships.
define venv_install
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.$(1)'
	touch $@
endef
venv-run: $(VENV)/.installed-run
$(VENV)/.installed-run: pyproject.toml hatch_build.py $(PROBE_SRC) | deps-run
	$(call venv_install,)
venv: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml hatch_build.py $(PROBE_SRC) | deps
	$(call venv_install,[test])

# The portable wheel into dist/ (py3-none-<platform>, the x86_64, aarch64 and armv7 probes):
# `pipx install dist/platperf-*.whl` on any machine of this platform, no checkout needed.
wheel: venv-run
	$(PY) -m pip wheel -q --no-deps -w dist .

probe: $(BUILD)/native/platperf-probe
$(BUILD)/native/platperf-probe: $(PROBE_SRC)
	cmake -S probe -B $(BUILD)/native $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD)/native --parallel

probe-cross: $(BUILD)/aarch64/platperf-probe $(BUILD)/armv7/platperf-probe
$(BUILD)/aarch64/platperf-probe: $(PROBE_SRC)
	cmake -S probe -B $(BUILD)/aarch64 $(CMAKE_FLAGS) -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake >/dev/null
	cmake --build $(BUILD)/aarch64 --parallel
$(BUILD)/armv7/platperf-probe: $(PROBE_SRC)
	cmake -S probe -B $(BUILD)/armv7 $(CMAKE_FLAGS) -DCMAKE_TOOLCHAIN_FILE=cmake/arm-linux-gnueabihf.cmake >/dev/null
	cmake --build $(BUILD)/armv7 --parallel

deps-run:
	$(call apt_install,$(DEB_RUN))
# The foreign architectures first (their package lists come with the update apt_install makes).
deps:
	@SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	for a in $(FOREIGN_ARCHES); do \
	  dpkg --print-foreign-architectures | grep -qx $$a && \
	    apt-cache show busybox-static:$$a >/dev/null 2>&1 && continue; \
	  $$SUDO dpkg --add-architecture $$a; \
	  for try in 1 2 3 4 5 6 7 8 9 10; do $$SUDO apt-get $(APT) update -qq && break; sleep 15; done; \
	done
	$(call apt_install,$(DEB_RUN) $(DEB_TEST))
deps-bench:
	$(call apt_install,$(DEB_BENCH))

test: deps venv probe probe-cross
	$(PY) -m pytest -q

bench: deps-bench venv probe
	@for s in bench/*.py; do echo "== $$s"; $(PY) $$s || exit 1; done

# A virtual aarch64 board to try platperf on (docs/vboard.md): QEMU boots Debian's arm64
# kernel; it prints the ssh alias to pass to --target. VBOARD_ARGS: e.g. --arch armv7,
# --sockets 2 --clusters 2 --cores 2, --idle-states.
VBOARD_ARGS ?=
vboard: deps venv probe-cross
	$(PY) tests/vboard.py start $(VBOARD_ARGS)
vboard-stop:
	$(PY) tests/vboard.py stop $(VBOARD_ARGS)

clean:
	rm -rf build dist $(VENV) src/platperf/_bin
