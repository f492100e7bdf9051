# platperf on a LAVA device: platperf's files as `platperf lava definitions` wrote them, from
# the lab (docs/lava.md): its file server at $PLATPERF_URL (curl or wget on the device), or
# the test-definition repository LAVA cloned into its overlay ($2, the definition's
# directory, then $PLATPERF_REPO_DIR in it). The job names their sha256: the files of another
# platperf version are refused in one line, before anything runs.
# $1: the job's directory on the device; $2: the directory the test definition runs in.
PLATPERF_FILES="$2/$PLATPERF_REPO_DIR"

# One of platperf's files into the job's directory.
platperf_fetch() {
    if [ -z "$PLATPERF_URL" ]; then
        cp "$PLATPERF_FILES/$1" "$2" 2>/dev/null || platperf_fail "no $1 $PLATPERF_SOURCE; $PLATPERF_STALE"
        return 0
    fi
    if command -v curl >/dev/null 2>&1; then
        curl -fsS -o "$2" "$PLATPERF_URL/$1" 2>"$D/stderr"
    elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$2" "$PLATPERF_URL/$1" 2>"$D/stderr"
    else
        platperf_fail "the device has neither curl nor wget to download platperf's files $PLATPERF_SOURCE"
    fi || platperf_fail "cannot download $PLATPERF_URL/$1: $(tail -n 1 "$D/stderr")"
}

for f in device.sh snapshot.sh cases.awk; do
    platperf_fetch "$f" "$D/$f"
done
if command -v sha256sum >/dev/null 2>&1; then
    sum=$(cd "$D" && cat device.sh snapshot.sh cases.awk | sha256sum)
    [ "${sum%% *}" = "$PLATPERF_KIT_SHA256" ] || platperf_fail "platperf's files $PLATPERF_SOURCE" \
        "are not those of platperf $PLATPERF_VERSION, which made this job (sha256); $PLATPERF_STALE"
fi

platperf_probe_into() {
    platperf_fetch "platperf-probe-$PLATPERF_ARCH" "$1"
}
