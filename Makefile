# platperf — the two commands of the README:
#   make run    set up, build the probe, measure this machine, write the report
#   make test   install what the tests need and run every test (C, Python, qemu-user)
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

# Debian packages the tests need: cross compilers and binutils (the disassembly checks),
# qemu-user to run the aarch64/armv7 builds, chromium for the HTML report test, postgresql
# for the store tests against a real server (tests/pg_server.py starts its own), a real sshd
# (and the ssh client) for the SSH target tests, LAVA's dispatcher (lava-run, lava-worker),
# schema (lava-common) and server (lava-server, gunicorn) for the LAVA tests' lab
# (tests/lava_server.py starts its own), the tools the adapters run (tests/test_adapters.py),
# ip and tc (iproute2) for the shaped link of the iperf3 0-loss tests (tests/test_iperf3_udp.py).
DEB_TEST := gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf binutils-aarch64-linux-gnu \
            binutils-arm-linux-gnueabihf qemu-user-static chromium cmake postgresql \
            openssh-server openssh-client lava-dispatcher lava-common lava-server \
            openssl fio iperf3 iproute2 stress-ng sysbench rt-tests p7zip-full systemd
# Peers measured by bench/ in the same run.
DEB_BENCH := likwid rt-tests mbw

.PHONY: run test probe probe-cross venv deps deps-bench bench clean

run: venv
	$(PLATPERF) run --suite $(SUITE) --db $(DB) --label local
	$(PLATPERF) report latest --db $(DB) --format all -o $(REPORT)
	@echo "results: $(DB)    report: $(REPORT)/index.html $(REPORT)/guide.rst $(REPORT)/guide.md"

# deps first: the package build (hatch_build.py) ships the aarch64/armv7 probes only when
# the cross compilers are there.
venv: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml hatch_build.py $(PROBE_SRC) | deps
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

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

# Installs missing Debian packages (as root, or with sudo when it is there). No service a
# package brings is started (postgresql, lava-server's, sshd): a policy-rc.d that refuses
# them all is in place during the install, unless the machine has one. The tests start
# their own, on 127.0.0.1.
deps:
	@missing=""; for p in $(DEB_TEST); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  held=; if [ ! -e /usr/sbin/policy-rc.d ]; then \
	    printf '#!/bin/sh\nexit 101\n' | $$SUDO tee /usr/sbin/policy-rc.d >/dev/null && \
	    $$SUDO chmod 755 /usr/sbin/policy-rc.d && held=1; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	  rc=$$?; [ -z "$$held" ] || $$SUDO rm -f /usr/sbin/policy-rc.d; exit $$rc; \
	fi

deps-bench:
	@missing=""; for p in $(DEB_BENCH); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

test: deps venv probe probe-cross
	$(PY) -m pytest -q

bench: deps-bench venv probe
	@for s in bench/*.py; do echo "== $$s"; $(PY) $$s || exit 1; done

clean:
	rm -rf build $(VENV) src/platperf/_bin
