#!/usr/bin/env bash
# Instructions per invocation step on the CPU reference, a Rust kernel's
# twin beside the same kernel loaded from WGSL (native code), counted by
# valgrind inside the executor's regions (`Workgroup::run_region` and all
# it calls): a measure of `benches/wgsl.rs`'s CPU columns that a shared,
# noisy machine does not move. Needs valgrind.
#
#   scripts/cpu-steps.sh [KERNEL ...]     (default: saxpy block_sum)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then kernels=("$@"); else kernels=(saxpy block_sum); fi
cargo bench --bench wgsl --no-run 2>/dev/null
bench=$(ls -t target/release/deps/wgsl-* | grep -v '\.d$' | head -1)
out=$(mktemp -d)
printf '%-10s %-14s %10s %10s %6s\n' kernel mode twin native ratio
for kernel in "${kernels[@]}"; do
  for mode in native check deterministic exact; do
    declare -A per
    for side in rust wgsl; do
      file="$out/$kernel.$mode.$side"
      # No GPU adapter (the CPU runtime only), one thread, 2^14 elements.
      LD_ADAPTER=none LD_BENCH_SIZE=0.02 RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$file" \
        --toggle-collect='*Workgroup*run_region*' "$bench" --bench "$kernel/cpu/$mode/$side\$" --profile-time 2 >/dev/null 2>&1
      report=$(callgrind_annotate --tree=calling "$file" 2>/dev/null)
      total=$(grep 'PROGRAM TOTALS' <<<"$report" | awk '{print $1}' | tr -d ,)
      # Steps: calls of the twin's step, or of native code (no symbol).
      steps=$(grep -E '> +\?\?\?:(<.*Invocation>::step|0x[0-9a-f]+) \(' <<<"$report" | head -1 | grep -oE '\([0-9,]+x\)' | tr -d '(),x')
      per[$side]=$(awk -v t="$total" -v s="$steps" 'BEGIN { printf "%.1f", t / s }')
    done
    printf '%-10s %-14s %10s %10s %6s\n' "$kernel" "$mode" "${per[rust]}" "${per[wgsl]}" "$(awk -v a="${per[rust]}" -v b="${per[wgsl]}" 'BEGIN { printf "%.2f", b / a }')"
  done
done
rm -rf "$out"
