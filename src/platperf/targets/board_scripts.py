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

# The session that runs every probe step of a target, one after another (the probe's command on
# the board), after M=<marker> B=<base directory> P=<probe, or empty> H=<its sha256>. Without P
# it first runs `uname -m` and SETUP_SCRIPT (in a subshell: their exits end only it) and reads the
# probe and its hash from the host once the host has uploaded it if needed. Nothing runs before
# that file's sha256 is the probe's (where the board has sha256sum). Then each line in is one
# step's arguments, shell-quoted by the host; the first line out is the probe's PID (interrupt()
# and kill() signal it), a line "M end STATUS" ends the step's stdout and a line "M" its stderr.
# The session's stdin is a pipe platperf holds: when it closes (platperf ended in any way, the
# master or the connection lost) the watcher stops the probe at once, not at its next write, and
# the loop ends. The probe's exit status is passed on, a signal's as 128+N (SIGKILL: 137).
STEP_SERVER = r"""exec 3<&0 </dev/null
say() { printf '\n%s %s\n' "$M" "$*"; printf '\n%s\n' "$M" >&2; }
if [ -z "$P" ]; then
( uname -m || exit 127
""" + SETUP_SCRIPT + r"""); say "setup $?"
    IFS= read -r go <&3 || exit 0
    eval "$go"
fi
[ -f "$P" ] && [ ! -L "$P" ] || { say "bad $P is not a regular file"; exit 0; }
if h=$(sha256sum "$P" 2>/dev/null); then
    [ "${h%% *}" = "$H" ] || { say "bad the sha256 of $P is not the probe's"; exit 0; }
fi
say ready
while IFS= read -r line <&3; do
    eval "set -- $line"
"$P" "$@" 3<&- &
    p=$!
    echo $p
    ( read -r _ <&3; kill -TERM $p 2>/dev/null ) &
    w=$!
    while :; do wait $p; s=$?; kill -0 $p 2>/dev/null || break; done
    kill $w 2>/dev/null; wait $w 2>/dev/null
    say "end $s"
done
"""
