#!/usr/bin/env bash
# The benchmarks on a lent GPU machine (the `device` tool's `run`), from
# release binaries built here: that machine has no Rust toolchain and
# reaches no network, so it runs what `--build` left in .bin, with the
# Vulkan loader from .gl (both ignored by git, carried by the call).
#
#   scripts/device-bench.sh --build        # here: build, strip, copy to .bin and .gl
#   run(command="scripts/device-bench.sh", carry=[".bin", ".gl"], timeout_s=540)
#
# Prints Table VI at --size 0.1 and 1, the scaling example and level 1's
# merge against a shader copy, each bounded by `timeout` so the whole run
# ends inside one call; the full outputs go to $OUT (bench.txt, bench.err:
# the tool brings back at most 8 files).
set -uo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--build" ]; then
    set -e
    CARGO_INCREMENTAL=0 cargo build --release --example table6 --example scaling --example em
    bench=$(CARGO_INCREMENTAL=0 cargo bench --bench check --no-run --message-format=json 2>/dev/null |
        python3 -c 'import json,sys; print([j["executable"] for j in map(json.loads, sys.stdin) if j.get("target",{}).get("name")=="check" and j.get("executable")][0])')
    mkdir -p .bin .gl
    for b in table6 scaling em; do cp target/release/examples/$b .bin/; done
    cp "$bench" .bin/check-bench
    strip .bin/*
    if ! ls .gl/libglvnd0_*.deb >/dev/null 2>&1; then
        # The loader, and the GL vendor-neutral libraries the NVIDIA
        # driver's Vulkan ICD (libGLX_nvidia) needs to start.
        o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
        mkdir -p /tmp/amd64/partial
        apt-get $o update -qq
        (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
    fi
    du -sh .bin .gl
    exit 0
fi

for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export XDG_RUNTIME_DIR=/tmp LD_REQUIRE_GPU=1
# The loader finds no device there unless pointed at the driver's manifest.
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f "$icd" ]; then export VK_DRIVER_FILES="$icd"; fi
OUT="${OUT:-/tmp/ld-bench}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$OUT/gpu.txt"

# A GPU adapter first: without one there is nothing to measure.
if ! .bin/em --fixed --size 0.01 --runs 1 >"$OUT/probe.txt" 2>&1; then
    echo "no GPU adapter:"
    tail -n 3 "$OUT/probe.txt"
    VK_LOADER_DEBUG=error .bin/em --fixed --size 0.01 --runs 1 2>&1 | head -n 20
    exit 1
fi
grep -o 'backend=[^|]*' "$OUT/probe.txt"

step() {
    local name=$1 limit=$2
    shift 2
    echo "== $name ($*)"
    echo "== $name ($*)" >>"$OUT/bench.txt"
    echo "== $name ($*)" >>"$OUT/bench.err"
    timeout "$limit" "$@" >"$OUT/step.txt" 2>>"$OUT/bench.err"
    echo "exit $?"
    cat "$OUT/step.txt" >>"$OUT/bench.txt"
    grep -v '^\s*$' "$OUT/step.txt" | tail -n "${TAIL:-16}"
    rm "$OUT/step.txt"
}

step table6_0.1 90 .bin/table6 --size 0.1 --runs 3
# A baseline build's Table VI, when one was put beside (.bin/base-table6),
# for an A/B on the same card in the same call.
if [ -x .bin/base-table6 ]; then TAIL=3 step base_table6_0.1 60 .bin/base-table6 --size 0.1 --runs 3; fi
TAIL=30 step table6_1 180 .bin/table6 --size 1 --runs 3
TAIL=12 step scaling 90 .bin/scaling
LD_BENCH_SIZE=4 TAIL=12 step level1 45 .bin/check-bench --bench
step em_1 40 .bin/em --fixed --check --size 1 --runs 3
