#!/usr/bin/env bash
# The whole test suite, on a fresh Debian machine or a developer's.
#
# Installs Mesa's lavapipe (a conformant Vulkan driver that runs on the CPU)
# when no Vulkan driver is present, and a headless Chromium when none is on
# the PATH (tests/suite/html_report.rs loads the HTML report in it), then runs
# every test with LD_REQUIRE_GPU=1 and LD_REQUIRE_BROWSER=1 so that
# GPU-vs-CPU differential tests and the browser test fail instead of
# skipping when no adapter or browser can be opened, then the doc tests,
# packaging, formatting and clippy (run by the tests' build, see below).
set -euo pipefail
cd "$(dirname "$0")/.."

# (Globs and captured output rather than pipes: with pipefail, `ls` of a
# missing directory or a reader that stops early fails the pipe.)
have_vulkan_driver() {
    local icds=(/usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json) f found=0
    for f in "${icds[@]}"; do [ -e "$f" ] && found=1; done
    [ "$found" = 1 ] && [[ "$(ldconfig -p 2>/dev/null)" == *libvulkan.so.1* ]]
}

have_browser() {
    [ -n "${LD_BROWSER:-}" ] || command -v chromium-headless-shell >/dev/null || command -v chromium >/dev/null ||
        command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null
}

# One apt-get update for whatever is missing. chromium-headless-shell is
# Debian's smallest Chromium that runs headless (quick to install without
# recommends).
need_vulkan=0
need_browser=0
if ! have_vulkan_driver; then
    echo "scripts/test.sh: no Vulkan driver found; installing lavapipe (mesa-vulkan-drivers)" >&2
    need_vulkan=1
fi
if ! have_browser; then
    echo "scripts/test.sh: no Chromium found; installing chromium-headless-shell" >&2
    need_browser=1
fi
if [ "$need_vulkan$need_browser" != 00 ]; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update
    if [ "$need_vulkan" = 1 ]; then
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y mesa-vulkan-drivers
    fi
    if [ "$need_browser" = 1 ]; then
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium-headless-shell
    fi
fi

if ! command -v cargo >/dev/null; then
    echo "scripts/test.sh: cargo not found; install Rust (https://rustup.rs) first" >&2
    exit 1
fi

export LD_REQUIRE_GPU=1
export LD_REQUIRE_BROWSER=1
# Benchmarks run once each under `cargo test`: keep their inputs small.
export LD_BENCH_SIZE="${LD_BENCH_SIZE:-0.02}"
# A fresh build gains nothing from incremental caches (a large part of
# the target directory); keep them where a developer asks for them.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# Mesa's Vulkan loader probes Wayland and complains without a runtime dir.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
# Clippy's lints, warnings denied, run as the tests build the workspace's
# crates (clippy-driver as cargo's RUSTC_WORKSPACE_WRAPPER,
# scripts/clippy-rustc): the dependencies are compiled once, where
# `cargo clippy` would check them all again, a good part of a run on a
# small machine. Without clippy-driver, `cargo clippy` runs at the end.
CLIPPY_DRIVER="$(command -v clippy-driver || rustup which clippy-driver 2>/dev/null || true)"
if [ -n "$CLIPPY_DRIVER" ]; then
    export CLIPPY_DRIVER RUSTC_WORKSPACE_WRAPPER="$PWD/scripts/clippy-rustc"
fi
# Everything builds once: the integration suite, the crates' unit tests,
# the examples and the benches (and clippy's lints, see above).
cargo test --workspace --all-targets --no-run "$@"
# What is left runs as jobs, at most LD_TEST_JOBS (default: the number of
# cores) at once, the longest first, so that the cores stay busy to the end.
# A fresh machine spends most of it in lavapipe compiling pipelines with
# LLVM, on the queue thread of the process's one device: a process of the
# suite keeps about one core busy, so the suite (tests/suite, one binary)
# runs as several processes, a module or a group of modules each. Every
# test runs in exactly one of them: the last takes every module the others
# do not name.
# (The same selection as the build above, so cargo resolves the same
# features and only names what it built.)
suite="$(cargo test --workspace --all-targets --no-run --message-format=json "$@" 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\/suite-[^"]*\)".*/\1/p' | tail -n 1)"
if [ -z "$suite" ]; then
    echo "scripts/test.sh: cargo named no tests/suite binary" >&2
    exit 1
fi
shards=(numerics:: check_catalogue:: idioms:: classics:: patterns:: corpus::)
rest=()
for m in "${shards[@]}"; do rest+=(--skip "$m"); done
# The round trip (launch/round_trip.rs): every Rust kernel the suite
# launches also runs its plain WGSL read back through the shader
# front-end, and the two must agree. These jobs do it for the launches
# on the GPU...
job_names=(suite:rest)
job_cmds=("$(printf '%q ' env LD_ROUND_TRIP=gpu "$suite" "${rest[@]}")")
for m in "${shards[@]}"; do
    job_names+=("suite:${m%::}")
    job_cmds+=("$(printf '%q ' env LD_ROUND_TRIP=gpu "$suite" "$m")")
done
# ...and this one runs the suite again on the CPU reference, the GPU
# hidden (no adapter has that name), with the round trip there.
job_names+=(round-trip)
job_cmds+=("$(printf '%q ' env LD_ROUND_TRIP=cpu LD_BACKEND=cpu LD_REQUIRE_GPU=0 LD_ADAPTER=ld-round-trip-on-the-cpu "$suite" --skip corpus:: --skip html_report::)")
# Every crate's unit tests, each bench once, trybuild's cases (all of the
# workspace in one selection: a narrower one resolves other features and
# rebuilds dependencies).
job_names+=(units)
job_cmds+=("$(printf '%q ' cargo test --workspace --lib --benches --test compile_fail "$@")")
# ld-check as a user runs it: the binary on shaders, its output and exit status.
job_names+=(ld-check)
job_cmds+=("$(printf '%q ' cargo test --workspace --test cli "$@")")

logs="$(mktemp -d)"
max_jobs="${LD_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}"
for i in "${!job_names[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$max_jobs" ]; do wait -n || true; done
    (
        t0=$SECONDS
        rc=0
        eval "${job_cmds[$i]}" >"$logs/$i.log" 2>&1 || rc=$?
        echo "$rc $((SECONDS - t0))" >"$logs/$i.rc"
    ) &
done
wait
failed=()
for i in "${!job_names[@]}"; do
    read -r rc secs <"$logs/$i.rc"
    echo "=== ${job_names[$i]}: exit $rc, ${secs} s"
    cat "$logs/$i.log"
    if [ "$rc" != 0 ]; then failed+=("${job_names[$i]}"); fi
done
for i in "${!job_names[@]}"; do
    read -r rc secs <"$logs/$i.rc"
    echo "scripts/test.sh: ${job_names[$i]}: exit $rc, ${secs} s" >&2
done
if [ "${#failed[@]}" != 0 ]; then
    echo "scripts/test.sh: failed: ${failed[*]} (their output above)" >&2
    exit 1
fi
# Doc examples (every KERNELS.md example is a doctest of the ld crate).
cargo test --workspace --doc "$@"
# Every crate packages, the engine's WGSL included (no verify build: the
# suite above has built and tested the same sources).
cargo package --workspace --allow-dirty --no-verify --offline -q
cargo package -p ld-shaders --allow-dirty --offline --list | grep -qx wgsl/engine/check.wgsl
# Style gates: formatting, and lints where the build did not run them.
cargo fmt --all --check
if [ -z "$CLIPPY_DRIVER" ]; then
    cargo clippy --workspace --all-targets "$@" -- -D warnings
fi
