#!/usr/bin/env bash
# Writes a stray-write variant of a correct solution: its hone_forward is
# renamed and wrapped by one that calls it, then writes past the end of the
# first output. MODE near: 4 bytes 64 bytes past it; far: 64 KiB 4 MiB past
# it (into another buffer set or the arena's tail canaries).
#   bench/stray/make_stray.sh SOLUTION(.cu|.cpp) near|far OUT_FILE
set -euo pipefail
src=$1 mode=$2 out=$3
case $mode in
  near) offset=64 bytes=4 ;;
  far) offset=$((4 << 20)) bytes=$((64 << 10)) ;;
  *) echo "mode: near or far" >&2; exit 2 ;;
esac
sed 's/HONE_EXPORT int hone_forward(/static int hone_real_forward(/' "$src" > "$out"
cat >> "$out" <<WRAP

// --- stray-write wrapper (bench/stray/make_stray.sh $mode) ---
HONE_EXPORT int hone_forward(const hone_args* args) {
  int rc = hone_real_forward(args);
  const hone_tensor* o = &args->outputs[0];
  char* past = static_cast<char*>(o->data) + hone_numel(o) * hone_dtype_size(o->dtype) + $offset;
WRAP
if [[ $src == *.cu ]]; then
  cat >> "$out" <<WRAP
  cudaMemsetAsync(past, 0x5A, $bytes, static_cast<cudaStream_t>(args->stream));
  return rc;
}
WRAP
else
  cat >> "$out" <<WRAP
  __builtin_memset(past, 0x5A, $bytes);
  return rc;
}
WRAP
fi
