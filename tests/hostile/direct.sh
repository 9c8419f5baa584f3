#!/bin/sh
# tests/hostile/direct.sh - the writer's O_DIRECT path (issue 40): a
# recipe's big outputs (fake mode's weights) are computed into memory
# and written with O_DIRECT where the file system takes it, the partial
# pages at their ends through the page cache; QOPT_NO_DIRECT_IO=1 asks
# for the mapping of the output instead (the writer before). Checked:
# both give the same bytes (external data: whole pages and a partial
# tail; inline: pieces at unaligned offsets); where O_DIRECT works, a
# recipe is handed memory, not a mapping of the output; a full disk
# under the O_DIRECT writes (a 2 MiB tmpfs in a user namespace) is an
# error naming the data file, the old output intact, also when the
# write-behind thread meets it (real mode's codes); where O_DIRECT is
# refused (ramfs) the output is the same as anywhere. QOPT_TRACE_WRITE
# says which way each recipe went: fake weights by their worker, real
# codes behind (ir/file/write_behind.c), all into mappings with
# QOPT_NO_DIRECT_IO=1.
. "$top_srcdir/tests/lib/common.sh"
GEN="$top_srcdir/tests/hostile/gen.py"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$PYTHON3
H="$PL/hostile.so"
FAKE=nvfp4-weights:mode=fake
cd "$W" || exit 1

# Where the file system here takes O_DIRECT, the writer's default is
# the direct path; QOPT_TRACE_WRITE says each recipe's way.
dd if=/dev/zero of=probe bs=4096 count=1 oflag=direct 2>/dev/null &&
	direct=1 || direct=
export QOPT_TRACE_WRITE=1
# ways WAY N [WAY N]...: the last command's messages say N recipes
# went each WAY.
ways() {
	while [ $# -ge 2 ]; do
		[ "$(grep -c "^qopt: write: recipe of '.*': $1\$" "$W/err")" = "$2" ] ||
			return 1
		shift 2
	done
}

# Three FLOAT16 weights of 2096640 bytes: not a whole number of pages.
"$PY" "$GEN" matmul16 1008 1040 3 mm.onnx

# same A B: the output files of A and B (o.onnx, o.onnx.data) are equal.
same() {
	cmp -s "$1/o.onnx" "$2/o.onnx" &&
		{ [ ! -e "$1/o.onnx.data" ] ||
		  cmp -s "$1/o.onnx.data" "$2/o.onnx.data"; }
}

# both_ways WHAT PASS MODEL N D M WAY COUNT...: PASS on MODEL's N
# deferred weights, external then inline: by default (into D-LAYOUT, the
# recipes going each WAY COUNT times where O_DIRECT is taken), and with
# QOPT_NO_DIRECT_IO=1 (into M-LAYOUT, every one into a mapping, none
# behind); the same bytes both ways.
both_ways() {
	bw_what=$1 bw_pass=$2 bw_model=$3 bw_n=$4 bw_d=$5 bw_m=$6
	shift 6
	for lay in external inline; do
		opt=
		[ $lay = external ] && opt="--external-threshold 1024"
		mkdir -p "$bw_d-$lay" "$bw_m-$lay"
		run "$QOPT" -q --passes "$bw_pass" "$bw_model" \
			-o "$bw_d-$lay/o.onnx" $opt
		t "$lay: $bw_what written (exit $rc)" [ "$rc" = 0 ]
		if [ -n "$direct" ]; then
			t "$lay: $bw_what: $*" ways "$@"
		else
			skip "$lay: $bw_what: $*" "this file system refuses O_DIRECT"
		fi
		run env QOPT_NO_DIRECT_IO=1 "$QOPT" -q --passes "$bw_pass" \
			"$bw_model" -o "$bw_m-$lay/o.onnx" $opt
		t "$lay: $bw_what through the mapping (exit $rc)" [ "$rc" = 0 ]
		t "$lay: QOPT_NO_DIRECT_IO=1: each into a mapping, none behind" \
			ways "computed into a mapping" "$bw_n" "written behind" 0
		t "$lay: $bw_what: the same bytes both ways" \
			same "$bw_d-$lay" "$bw_m-$lay"
	done
}

# Fake weights are as big as their inputs: written by their worker.
both_ways "fake weights" $FAKE mm.onnx 3 d m \
	"written by its worker" 3 "written behind" 0
# Real mode: each weight's codes (1059968 bytes: over 1 MiB, not a
# whole number of pages) are a quarter of its bytes, so the worker
# leaves their direct writes to its write-behind thread and computes
# the next weight meanwhile (ir/file/write_behind.c).
"$PY" "$GEN" matmul16 1456 1456 4 big.onnx
both_ways "real codes" nvfp4-weights big.onnx 4 rd rm "written behind" 4
# FLOAT16 from FLOAT (autocast): half the input, at the page offset of
# each piece, unaligned ones inline too: written behind all the same.
"$PY" "$GEN" matmul32 1040 1040 3 f32.onnx
both_ways "autocast's FLOAT16 weights" autocast f32.onnx 3 ad am \
	"written behind" 3

t "external: the codes are in the data file" \
	[ "$(stat -c %s rd-external/o.onnx.data)" -ge 4239872 ]

t "external: the weights are in the data file" \
	[ "$(stat -c %s d-external/o.onnx.data)" -ge 6289920 ]
t "the fake weights are not the input's" eval \
	'! cmp -s mm.onnx d-inline/o.onnx'

# t-refuse truncates the output under its mapping, which fails the
# save (tests/hostile/mapfault.sh); handed memory, it just fills it.
if [ -n "$direct" ]; then
	run "$QOPT" --load "$H" --passes t-refuse m.onnx -o r.onnx \
		--external-threshold 1024
	t "O_DIRECT here: the recipe is handed memory, not the mapping (exit $rc)" \
		[ "$rc" = 0 ]
	t "O_DIRECT here: its 4 MiB are in the data file" \
		[ "$(tr -cd Z <r.onnx.data | wc -c)" -ge 4194304 ]
else
	skip "O_DIRECT here: the recipe is handed memory" \
		"this file system refuses O_DIRECT"
	skip "O_DIRECT here: its 4 MiB are in the data file" \
		"this file system refuses O_DIRECT"
fi

# inns FS OPTS SCRIPT: SCRIPT sourced by sh in a new user and mount
# namespace, in $W/mnt with a FS (mount options OPTS) mounted there; it
# leaves its results in $W (the mount ends with the namespace).
mkdir mnt
export QOPT H W
inns() {
	unshare -rm sh -c 'mount -t "$1" -o "$2" qopt-test "$3" &&
		cd "$3" && . "$4"' sh "$1" "$2" "$W/mnt" "$3"
}
unshare -rm true 2>/dev/null && userns=1 || userns=

# The disk full under the writes: 4 MiB of t-refuse on a 2 MiB tmpfs
# (tmpfs takes O_DIRECT since Linux 6.6; before, the mapping path runs,
# whose fallocate finds the disk full and whose pwrite says so).
cat >full.sh <<'EOF'
echo old >o.onnx
"$QOPT" --load "$H" --passes t-refuse "$W/m.onnx" -o o.onnx \
	--external-threshold 1024 2>"$W/err"
echo $? >"$W/rc"
cat o.onnx >"$W/old"
ls -A >"$W/left"
EOF
for how in "" QOPT_NO_DIRECT_IO=1; do
	name="disk full${how:+ ($how)}"
	if [ -z "$userns" ]; then
		skip "$name: reported" "no user namespaces here (unshare -rm)"
		continue
	fi
	rm -f rc
	( [ -n "$how" ] && export QOPT_NO_DIRECT_IO=1
	  inns tmpfs size=2m "$W/full.sh" )
	rc=$(cat rc)
	t "$name: exit 1 (got $rc)" [ "$rc" = 1 ]
	t "$name: the message names the data file" \
		has "o.onnx.data': No space left on device" \
		"$W/err"
	t "$name: the old output is intact" [ "$(cat old)" = old ]
	t "$name: nothing else left" [ "$(cat left)" = o.onnx ]
done

# The disk full under the write-behind thread: 4 weights' codes (4 MiB)
# on a 2 MiB tmpfs. A batch fails on the thread; its worker learns it
# at its next post or its last wait.
cat >fullbehind.sh <<'EOF'
echo old >o.onnx
"$QOPT" -q --passes nvfp4-weights "$W/big.onnx" -o o.onnx \
	--external-threshold 1024 2>"$W/err"
echo $? >"$W/rc"
cat o.onnx >"$W/old"
ls -A >"$W/left"
EOF
if [ -n "$userns" ]; then
	rm -f rc
	inns tmpfs size=2m "$W/fullbehind.sh"
	rc=$(cat rc)
	t "disk full behind: exit 1 (got $rc)" [ "$rc" = 1 ]
	t "disk full behind: the message names the data file" \
		has "o.onnx.data': No space left on device" "$W/err"
	t "disk full behind: the batches were posted behind" \
		grep -q "^qopt: write: recipe of '.*': written behind\$" "$W/err"
	t "disk full behind: the old output is intact" [ "$(cat old)" = old ]
	t "disk full behind: nothing else left" [ "$(cat left)" = o.onnx ]
else
	for c in exit message behind intact left; do
		skip "disk full behind: $c" "no user namespaces here (unshare -rm)"
	done
fi

# O_DIRECT refused (ramfs: open gives EINVAL): the other paths.
cat >ramfs.sh <<'EOF'
"$QOPT" -q --passes nvfp4-weights:mode=fake "$W/mm.onnx" -o o.onnx \
	--external-threshold 1024 2>"$W/err"
echo $? >"$W/rc"
mkdir -p "$W/r-external" && cp o.onnx o.onnx.data "$W/r-external/"
EOF
if [ -n "$userns" ]; then
	inns ramfs mode=0755 "$W/ramfs.sh"
	rc=$(cat rc)
	t "ramfs (no O_DIRECT): the fake weights written (exit $rc)" [ "$rc" = 0 ]
	t "ramfs (no O_DIRECT): the same bytes" same r-external d-external
else
	skip "ramfs (no O_DIRECT): written" "no user namespaces here (unshare -rm)"
	skip "ramfs (no O_DIRECT): the same bytes" "no user namespaces here"
fi

done_testing
