#!/bin/sh
# private-symbols.sh NM PUBLIC -- PROGRAM_OBJECTS -- LIBRARY_OBJECTS -
# the functions of libqopt outside its public headers that the qopt
# program calls (the manager's qm_, calibration's calib_, the plan's
# plan_): libqopt exports them too, so that the program links the one
# shared copy of the manager and no second one of its own. They are no
# contract: names with no public prefix (qopt_, qir_, qk_), for the qopt
# program of the same build only (docs/hacking.md). PUBLIC: the public
# list (public-symbols.sh), left out. Objects: .o, or libtool .lo
# (their PIC object is read). One name per line, sorted.
nm=$1 public=$2
shift 2
[ "$1" = -- ] && shift
prog= lib= side=prog
for f in "$@"; do
	if [ "$f" = -- ]; then side=lib; continue; fi
	case $f in
	*.lo) f=$(dirname "$f")/.libs/$(basename "$f" .lo).o ;;
	esac
	if [ $side = prog ]; then prog="$prog $f"; else lib="$lib $f"; fi
done
tmp=${TMPDIR:-/tmp}/qopt-private.$$
trap 'rm -f "$tmp".*' EXIT
# shellcheck disable=SC2086
$nm -u $prog | awk '{ print $NF }' | sort -u >"$tmp.used" || exit 1
# shellcheck disable=SC2086
$nm --defined-only -g $lib | awk 'NF == 3 && $2 ~ /^[TW]$/ { print $3 }' |
	sort -u >"$tmp.defined" || exit 1
sort -u "$public" >"$tmp.public"
comm -12 "$tmp.used" "$tmp.defined" | comm -23 - "$tmp.public" |
	grep -Ev '^(qopt|qir|qk)_'
exit 0
