"""The shell an SSH target runs on a board: POSIX sh, busybox is enough. Each is sent as the
command of one session (docs/security.md says what each guards against)."""
from __future__ import annotations

# The board side of _setup, after `uname -m` and B=<base directory>: POSIX sh, busybox is enough.
# The checks read `ls -ldn` (mode, links, uid, ...): stat(1) options differ between busybox
# and coreutils. ls -ldn "$B/" follows a link to the base (a TMPDIR that is a symlink).
SETUP_SCRIPT = r"""U=$(id -u) || exit 126
D="${B%/}/platperf-$U"
bad() { echo "bad $D $*"; exit 0; }
[ -d "$B" ] || mkdir -p "$B" 2>/dev/null || bad "cannot create $B"
set -f
set -- $(ls -ldn "$B/" 2>/dev/null)
case ${3:-?} in 0|"$U") ;; *) bad "$B belongs to uid ${3:-?}, who could replace what is in it" ;; esac
case $1 in ?????w????*|????????w?*)
    case $1 in ?????????[tT]*) ;; *) bad "$B is writable by others and not sticky" ;; esac ;;
esac
(umask 077 && mkdir "$D") 2>/dev/null
[ -L "$D" ] && bad "is a symbolic link"
[ -d "$D" ] || bad "cannot be created"
set -- $(ls -ldn "$D" 2>/dev/null)
[ "${3:-?}" = "$U" ] || bad "belongs to uid ${3:-?}, not to the login user ($U)"
case $1 in drwx------|drwx------.) ;; *) bad "has mode ${1:-?}, not drwx------ (0700)" ;; esac
[ -w "$D" ] || bad "is not writable"
echo "dir $D"
set +f
for P in "$D"/platperf-probe-*; do
    [ -f "$P" ] && [ ! -L "$P" ] || continue
    h=$(sha256sum "$P" 2>/dev/null) && echo "probe ${h%% *} $P"
done
exit 0
"""
# The board side of _upload, with P=<probe path> H=<its sha256> N=<its size>; the probe on stdin.
UPLOAD_SCRIPT = r"""T="$P.part"
rm -f "$T"
cat > "$T" || { rm -f "$T"; echo "cannot write $T" >&2; exit 4; }
if h=$(sha256sum "$T" 2>/dev/null); then
    [ "${h%% *}" = "$H" ] || { rm -f "$T"; echo "the copy's sha256 is not the probe's" >&2; exit 5; }
elif [ "$(($(wc -c < "$T")))" != "$N" ]; then
    rm -f "$T"; echo "the copy is not $N bytes long" >&2; exit 5
fi
chmod 700 "$T" && mv -f "$T" "$P" || { rm -f "$T"; echo "cannot rename $T" >&2; exit 4; }
( exec "$P" list ) >/dev/null 2>"$P.err"; s=$?
tail -n 1 "$P.err" >&2; rm -f "$P.err"; exit $s
"""

# The probe's command on the board, after P=<probe> and `set -- <its arguments>`. The first line
# out is the probe's PID (interrupt() and kill() signal it). The probe's session stdin is a pipe
# platperf holds and never writes: when it closes (platperf ended in any way, the master or the
# connection lost) the watcher stops the probe at once, not at its next write. The probe's own
# exit status is passed on, a signal's as 128+N (with the probe killed by SIGKILL: 137, where
# `exec` used to make ssh say 255, "connection lost").
RUN_WRAPPER = r"""exec 3<&0 </dev/null
"$P" "$@" 3<&- &
p=$!
echo $p
( read -r _ <&3; kill -TERM $p 2>/dev/null ) &
w=$!
exec 3<&-
while :; do wait $p; s=$?; kill -0 $p 2>/dev/null || break; done
kill $w 2>/dev/null
exit $s
"""
