# platperf on a LAVA device: places the probe, describes the board, runs the suite's probe
# commands and reports every result twice (docs/lava.md). One of platperf's files, which the
# job carries in its secrets or the lab delivers (`platperf lava definitions`); the job's
# script sources it after signals.sh and a platperf_probe_into FILE of its own (unpack or
# fetch the probe), then calls platperf_step once per probe command.
# POSIX sh and busybox: base64, gunzip, awk, tee, uname.
# $1: the job's directory on the device, holding snapshot.sh and cases.awk.
D=$1
P="$D/platperf-probe"

machine=$(uname -m 2>/dev/null)
case " $PLATPERF_MACHINES " in
*" $machine "*) ;;
*) platperf_fail "this job carries the $PLATPERF_ARCH probe but the device's uname -m says" \
       "'$machine'; generate the job with --arch for this device type" ;;
esac
platperf_probe_into "$P"
chmod 755 "$P" || platperf_fail "cannot make the probe in $D executable"
if command -v sha256sum >/dev/null 2>&1; then
    sum=$(sha256sum "$P") && [ "${sum%% *}" = "$PLATPERF_PROBE_SHA256" ] \
        || platperf_fail "the probe $PLATPERF_SOURCE is not the one this job names (sha256)${PLATPERF_STALE:+; $PLATPERF_STALE}"
fi
"$P" list >/dev/null 2>"$D/stderr" \
    || platperf_fail "the probe does not run from $D: $(tail -n 1 "$D/stderr")"
CPUS=$(cat /sys/devices/system/cpu/online 2>/dev/null) || CPUS=0
platperf_case platperf-setup pass

echo "PLATPERF-LAVA-BEGIN steps=$PLATPERF_STEPS suite=$PLATPERF_SUITE arch=$PLATPERF_ARCH cpus=$CPUS"
# The board's /sys and /proc as platperf's SSH target reads them, compressed: the snapshot
# holds NULs and exact byte counts that a console log would not keep.
echo "PLATPERF-SNAPSHOT-BEGIN interval=$PLATPERF_INTERVAL"
TMPDIR="$D" sh "$D/snapshot.sh" '' "$PLATPERF_INTERVAL" | gzip -c | base64
echo "PLATPERF-SNAPSHOT-END"

# One probe command: its JSON Lines into the log as they come (a job cut short keeps what
# was written), then one test case per result and one for the command.
platperf_step() {
    n=$1 name=$2
    shift 2
    echo "PLATPERF-JSONL-BEGIN $n"
    { "$P" "$@" 2>"$D/stderr"; echo $? > "$D/rc"; } | tee "$D/step.jsonl"
    rc=$(cat "$D/rc" 2>/dev/null) || rc=255
    echo "PLATPERF-JSONL-END $n exit=$rc"
    # A lab that also collects files from its boards can name one in the device's environment.
    if [ -n "${PLATPERF_JSONL_COPY:-}" ]; then cat "$D/step.jsonl" >> "$PLATPERF_JSONL_COPY"; fi
    sed "s/^/PLATPERF-STDERR $n: /" "$D/stderr"
    awk -f "$D/cases.awk" "$D/step.jsonl" | while read -r case value unit; do
        platperf_case "$case" pass "$value" "$unit"
    done
    if [ "$rc" = 0 ]; then platperf_case "$name" pass; else platperf_case "$name" fail; fi
}
