# platperf on a LAVA device: how the job's script reports to LAVA (docs/lava.md). First in
# every job's script, so that a failure to fetch platperf's files is said as clearly as one
# to run them.
# A result as LAVA's results pages show it; outside LAVA (no lava-test-case) nothing.
platperf_case() {
    command -v lava-test-case >/dev/null 2>&1 || return 0
    if [ $# -gt 2 ]; then
        lava-test-case "$1" --result "$2" --measurement "$3" --units "$4"
    else
        lava-test-case "$1" --result "$2"
    fi
}

platperf_fail() {
    echo "PLATPERF-ERROR $*"
    platperf_case platperf-setup fail
    echo "PLATPERF-LAVA-END"
    exit 0
}
