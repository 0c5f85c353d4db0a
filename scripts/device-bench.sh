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
# ends inside one call; the full outputs go to $OUT.
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
    if ! ls .gl/libvulkan1_*.deb >/dev/null 2>&1; then
        o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
        mkdir -p /tmp/amd64/partial
        apt-get $o update -qq
        (cd .gl && apt-get $o download libvulkan1)
    fi
    du -sh .bin .gl
    exit 0
fi

for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export XDG_RUNTIME_DIR=/tmp LD_REQUIRE_GPU=1 LD_ADAPTER="${LD_ADAPTER:-nvidia}"
if ! ls /usr/share/vulkan/icd.d/*nvidia* /etc/vulkan/icd.d/*nvidia* >/dev/null 2>&1; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
OUT="${OUT:-/tmp/ld-bench}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$OUT/gpu.txt"

step() {
    local name=$1 limit=$2
    shift 2
    echo "== $name ($*)"
    timeout "$limit" "$@" >"$OUT/$name.txt" 2>"$OUT/$name.err"
    echo "exit $?"
    grep -v '^\s*$' "$OUT/$name.txt" | tail -n "${TAIL:-16}"
}

step table6_0.1 120 .bin/table6 --size 0.1 --runs 3
step em_1 60 .bin/em --check --size 1 --runs 3
TAIL=30 step table6_1 200 .bin/table6 --size 1 --runs 3
TAIL=12 step scaling 120 .bin/scaling
LD_BENCH_SIZE=4 TAIL=12 step level1 60 .bin/check-bench --bench
