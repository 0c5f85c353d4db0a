//! The kernel guards itself on the GPU as the CPU executor does: an index
//! out of bounds, a loop that never ends and a loop the device ends early
//! are errors that name the place in the source, on both backends and in
//! every mode, and say what the launch left in the buffers; a device that
//! timed out fails every later call at once instead of hanging.

use crate::support as common;

use common::runtimes;
use ld::{Error, FaultKind, Mode, Runtime};
use std::time::{Duration, Instant};

const MODES: [Mode; 3] = [Mode::Native, Mode::Check, Mode::Deterministic];

/// The line and column of `needle` in this file (the column of its first
/// character, counted from 1, as `column!()` counts).
fn at(needle: &str) -> (u32, u32) {
    let src = include_str!("guards.rs");
    let (n, line) = src.lines().enumerate().find(|(_, l)| l.contains(needle) && !l.contains("at(\"") && !l.contains("const ")).expect(needle);
    (n as u32 + 1, line.find(needle).unwrap() as u32 + 1)
}

/// Where each kernel's loop is: the needles below are unique lines.
const COUNT_LOOP: &str = "for k in 0..n {";
const BARRIER_LOOP: &str = "for r in 0..n {";
const LONG_LOOP: &str = "for j in 0..n {";

/// The fault of a launch that must fail with one.
fn fault(r: ld::Result<ld::Run>, what: &str) -> (String, FaultKind, String) {
    match r {
        Err(Error::Fault { invocation, kind, message, .. }) => (invocation, kind, message),
        Err(e) => panic!("{what}: expected a fault, got: {e}"),
        Ok(_) => panic!("{what}: expected a fault, the launch succeeded"),
    }
}

fn is_lavapipe(rt: &Runtime) -> bool {
    matches!(rt.backend(), ld::Backend::Gpu { adapter } if adapter.contains("llvmpipe"))
}

// ------------------------------------------------------------ bounds

#[ld::kernel(workgroup_size = 64)]
fn write_past_end(dst: &mut [u32]) {
    let i = global_id().x;
    dst[i + 1] = i;
}

#[ld::kernel(workgroup_size = 64)]
fn read_past_end(src: &[u32], dst: &mut [u32]) {
    let i = global_id().x;
    dst[i] = src[i + 1] + 1;
}

#[ld::kernel(workgroup_size = 64)]
fn shared_past_end(dst: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    tile[lid] = lid;
    barrier();
    dst[global_id().x] = tile[lid / 63 * 64];
}

#[ld::kernel(workgroup_size = 64)]
fn shared_write_past_end(dst: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    tile[lid] = lid;
    barrier();
    if lid == 63 {
        tile[lid + 1] = 1000;
    }
    barrier();
    dst[global_id().x] = tile[lid];
}

#[ld::kernel(workgroup_size = 64)]
fn before_start(dst: &mut [u32]) {
    let i = global_id().x as i32;
    dst[i - 1] = 5;
}

#[ld::kernel(workgroup_size = 64)]
fn local_past_end(dst: &mut [u32]) {
    let i = global_id().x;
    let mut a = [1u32; 4];
    a[i / 63 * 4] = 2;
    dst[i] = a[3];
}

#[ld::kernel(workgroup_size = 64)]
fn atomic_past_end(bins: &[AtomicU32]) {
    let i = global_id().x;
    bins[i + 1].fetch_add(1);
}

/// Each case's fault, and the buffer it writes afterwards.
fn bounds_cases(rt: &Runtime, mode: Mode) -> Vec<(String, FaultKind, String, Vec<u32>)> {
    let mut out = Vec::new();
    let mut push = |r, words: Vec<u32>, what: &str| {
        let (inv, kind, msg) = fault(r, what);
        out.push((inv, kind, msg, words));
    };
    let mut dst = rt.zeros::<u32>(64).unwrap();
    let r = write_past_end.launch(rt, 1u32, &mut dst).mode(mode).run();
    push(r, dst.to_vec().unwrap(), "write_past_end");
    let src = rt.upload(&(0..64u32).collect::<Vec<_>>()).unwrap();
    let mut dst = rt.zeros::<u32>(64).unwrap();
    let r = read_past_end.launch(rt, 1u32, &src, &mut dst).mode(mode).run();
    push(r, dst.to_vec().unwrap(), "read_past_end");
    let mut dst = rt.zeros::<u32>(64).unwrap();
    let r = shared_past_end.launch(rt, 1u32, &mut dst).mode(mode).run();
    push(r, dst.to_vec().unwrap(), "shared_past_end");
    let mut dst = rt.zeros::<u32>(64).unwrap();
    let r = shared_write_past_end.launch(rt, 1u32, &mut dst).mode(mode).run();
    push(r, dst.to_vec().unwrap(), "shared_write_past_end");
    let mut dst = rt.zeros::<u32>(64).unwrap();
    let r = before_start.launch(rt, 1u32, &mut dst).mode(mode).run();
    push(r, dst.to_vec().unwrap(), "before_start");
    let mut dst = rt.zeros::<u32>(64).unwrap();
    let r = local_past_end.launch(rt, 1u32, &mut dst).mode(mode).run();
    push(r, dst.to_vec().unwrap(), "local_past_end");
    let mut bins = rt.zeros::<u32>(64).unwrap();
    let r = atomic_past_end.launch(rt, 1u32, &mut bins).mode(mode).run();
    push(r, bins.to_vec().unwrap(), "atomic_past_end");
    out
}

#[test]
fn an_index_out_of_bounds_is_the_same_fault_on_both_backends() {
    let oob = |array: &str, index: i64, len: u32, (line, column): (u32, u32)| FaultKind::OutOfBounds { array: array.into(), index, len, line, column };
    let expected = [
        oob("dst", 64, 64, at("dst[i + 1] = i;")),
        oob("src", 64, 64, at("src[i + 1] + 1")),
        oob("tile", 64, 64, at("tile[lid / 63 * 64]")),
        oob("tile", 64, 64, at("tile[lid + 1] = 1000;")),
        oob("dst", -1, 64, at("dst[i - 1] = 5;")),
        oob("", 4, 4, at("a[i / 63 * 4] = 2;")),
        oob("bins", 64, 64, at("bins[i + 1].fetch_add(1)")),
    ];
    // One invocation faults in each: the last (the first for `before_start`).
    let last = "global id (63, 0, 0) (workgroup (0, 0, 0), local id (63, 0, 0))";
    let first = "global id (0, 0, 0) (workgroup (0, 0, 0), local id (0, 0, 0))";
    for mode in MODES {
        let mut by_backend = Vec::new();
        for rt in runtimes() {
            let got = bounds_cases(&rt, mode);
            for (k, ((inv, kind, msg, words), want)) in got.iter().zip(&expected).enumerate() {
                let what = format!("{:?} {mode:?} case {k}", rt.backend());
                assert_eq!(kind, want, "{what}: {msg}");
                assert_eq!(inv, if k == 4 { first } else { last }, "{what}");
                let FaultKind::OutOfBounds { line, column, .. } = kind else { unreachable!() };
                assert!(msg.contains(&format!("line {line}, column {column}")), "{what}: {msg}");
                if mode == Mode::Native {
                    assert!(msg.contains("may hold partial results") && msg.contains("not performed"), "{what}: {msg}");
                } else {
                    // Nothing reaches the user's buffers; atomics are put back.
                    assert!(msg.contains("as they were before the launch"), "{what}: {msg}");
                    assert_eq!(words, &vec![0u32; 64], "{what}: the buffer is unchanged");
                }
            }
            if mode == Mode::Native {
                // The others' accesses were performed, the one out of
                // bounds was not.
                let shifted: Vec<u32> = std::iter::once(0).chain(0..63).collect();
                assert_eq!(got[0].3, shifted, "{:?}: write_past_end", rt.backend());
                let ones: Vec<u32> = std::iter::once(0).chain(std::iter::repeat_n(1, 63)).collect();
                assert_eq!(got[6].3, ones, "{:?}: atomic_past_end", rt.backend());
            }
            if mode == Mode::Native && rt.is_gpu() {
                // The GPU's invocations go on after a fault (the CPU stops
                // the launch): a write past the end of a shared or a local
                // array was skipped, where clamping it would have hit the
                // last element (1000, 2).
                assert_eq!(got[3].3, (0..64).collect::<Vec<u32>>(), "shared_write_past_end");
                assert_eq!(got[5].3, vec![1; 64], "local_past_end");
            }
            by_backend.push(got);
        }
        // The same faults, in the same words (the buffers differ where a
        // read out of bounds let the GPU's invocation go on).
        if let [cpu, gpu] = &by_backend[..] {
            for (c, g) in cpu.iter().zip(gpu) {
                assert_eq!((&c.0, &c.1, &c.2), (&g.0, &g.1, &g.2), "{mode:?}: the GPU's fault is the CPU's");
            }
        }
    }
}

// ------------------------------------------------------- WGSL's rule

/// A shader reading its left neighbour as WGSL code often does: `select`
/// evaluates both operands, so invocation 0 reads `a[0u - 1u]`; and the
/// last invocation writes one past the end of `out`.
const SHIFT: &str = "\
@group(0) @binding(0) var<storage, read> a: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let left = select(0u, a[i - 1u], i > 0u);
    out[i + 1u] = a[i] + left;
}
";

/// The line and column of `needle` in [`SHIFT`].
fn in_shift(needle: &str) -> (u32, u32) {
    let (n, line) = SHIFT.lines().enumerate().find(|(_, l)| l.contains(needle)).expect(needle);
    (n as u32 + 1, line.find(needle).unwrap() as u32 + 1)
}

/// A loaded shader follows WGSL's rule on both backends and in every mode:
/// the run goes on past an index out of bounds (the read gives the last
/// element, the write is skipped), its results are whole, and the run and
/// the report say where it happened.
#[test]
fn a_shader_goes_on_past_an_index_out_of_bounds_and_says_where() {
    const N: u32 = 128;
    let shader = ld::Shader::parse(SHIFT.to_string(), "shift.wgsl".as_ref()).unwrap();
    let kernel = ld::ShaderKernel::new(&shader, "main", &[]).unwrap();
    let input: Vec<u32> = (0..N).map(|i| i * i + 1).collect();
    let want: Vec<u32> = (0..N).map(|k| if k == 0 { 7 } else { input[k as usize - 1] + if k > 1 { input[k as usize - 2] } else { 0 } }).collect();
    let (left, store) = (in_shift("a[i - 1u]"), in_shift("out[i + 1u]"));
    for rt in runtimes() {
        for mode in [Mode::Native, Mode::Check, Mode::Deterministic, Mode::Exact] {
            let what = format!("{:?} {mode:?}", rt.backend());
            let a = rt.upload(&input).unwrap();
            let mut out = rt.upload(&vec![7u32; N as usize]).unwrap();
            let launch = kernel.launch(&rt, [N / 64, 1, 1], ld::Bindings::new().buffer(0, 0, &a).buffer(0, 1, &mut out)).unwrap();
            let run = launch.mode(mode).run().unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(out.to_vec().unwrap(), want, "{what}");
            let got: Vec<_> = run.out_of_bounds.iter().map(|o| (o.array.as_str(), o.len, o.line, o.column, o.min_index, o.max_index)).collect();
            assert_eq!(got, [("a", N, left.0, left.1, u32::MAX as i64, u32::MAX as i64), ("out", N, store.0, store.1, N as i64, N as i64)], "{what}");
            if let Some(report) = &run.report {
                assert!(!report.has_races(), "{what}: {report}");
                assert_eq!(report.out_of_bounds, run.out_of_bounds, "{what}");
                let text = report.to_string();
                assert!(text.contains("index out of bounds") && text.contains(&format!("shift.wgsl:{}:{}", left.0, left.1)), "{what}: {text}");
                assert!(text.contains("index 4294967295 into `a` of length 128"), "{what}: {text}");
            }
        }
    }
}

// ------------------------------------------------------------ loops

#[ld::kernel(workgroup_size = 64)]
fn spin_lock(flag: &[AtomicU32], out: &mut [u32]) {
    let i = global_id().x;
    while flag[0].load() == 0 {}
    out[i] = 1;
}

#[ld::kernel(workgroup_size = 64)]
fn spin_in_helper(flag: &[u32], out: &mut [u32]) {
    fn wait_for(flag: &[u32]) -> u32 {
        let mut n = 1u32;
        while flag[0] == 0 {
            n += 1;
        }
        n
    }
    let i = global_id().x;
    out[i] = wait_for(flag);
}

#[test]
fn a_spin_lock_is_non_termination_at_its_loop_in_every_mode() {
    for rt in runtimes() {
        for mode in MODES {
            let what = format!("{:?} {mode:?}", rt.backend());
            let start = Instant::now();
            let mut flag = rt.zeros::<u32>(1).unwrap();
            let mut out = rt.zeros::<u32>(64).unwrap();
            let r = spin_lock.launch(&rt, 1u32, &mut flag, &mut out).mode(mode).max_loop_iterations(2000).run();
            let (_, kind, msg) = fault(r, &what);
            let (line, column) = at("while flag[0].load() == 0 {}");
            // Whatever the loop's atomics did, the error is the loop's.
            assert_eq!(kind, FaultKind::NonTermination { fuel: 2000, line, column }, "{what}: {msg}");
            assert!(msg.contains(&format!("line {line}")) && msg.contains("never terminates"), "{what}: {msg}");
            // The spinning invocations stopped there: nothing after the loop ran.
            assert_eq!(out.to_vec().unwrap(), vec![0; 64], "{what}");
            let flag2 = rt.zeros::<u32>(1).unwrap();
            let mut out = rt.zeros::<u32>(64).unwrap();
            let r = spin_in_helper.launch(&rt, 1u32, &flag2, &mut out).mode(mode).max_loop_iterations(2000).run();
            let (_, kind, msg) = fault(r, &what);
            let (line, column) = at("while flag[0] == 0 {");
            assert_eq!(kind, FaultKind::NonTermination { fuel: 2000, line, column }, "{what}: {msg}");
            // The caller stopped too: the helper's zero was not written.
            assert_eq!(out.to_vec().unwrap(), vec![0; 64], "{what}");
            assert!(start.elapsed() < Duration::from_secs(60), "{what}: {:?}", start.elapsed());
        }
    }
}

#[ld::kernel(workgroup_size = 64)]
fn count_to(out: &mut [u32], n: u32) {
    let i = global_id().x;
    let mut s = 0u32;
    for k in 0..n {
        s += k;
    }
    out[i] = s;
}

#[ld::kernel(workgroup_size = 64)]
fn count_with_barrier(out: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    for r in 0..n {
        tile[lid] += r;
        barrier();
    }
    out[global_id().x] = tile[lid];
}

/// Fuel is one notion on both backends and in every mode: each time a loop
/// starts an iteration (tests its condition) spends one unit. A loop of n
/// iterations tests its condition n + 1 times.
#[test]
fn fuel_counts_loop_iterations_alike_everywhere() {
    for rt in runtimes() {
        for mode in MODES {
            let what = format!("{:?} {mode:?}", rt.backend());
            let mut out = rt.zeros::<u32>(64).unwrap();
            count_to.launch(&rt, 1u32, &mut out, 10u32).mode(mode).max_loop_iterations(11).run().unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(out.to_vec().unwrap(), vec![45; 64], "{what}");
            let r = count_to.launch(&rt, 1u32, &mut out, 10u32).mode(mode).max_loop_iterations(10).run();
            let (line, column) = at(COUNT_LOOP);
            assert_eq!(fault(r, &what).1, FaultKind::NonTermination { fuel: 10, line, column }, "{what}");
            // A loop holding a barrier (a state machine on the CPU and in
            // check mode, a plain loop natively and in deterministic mode).
            let mut out = rt.zeros::<u32>(64).unwrap();
            count_with_barrier.launch(&rt, 1u32, &mut out, 10u32).mode(mode).max_loop_iterations(11).run().unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(out.to_vec().unwrap(), vec![45; 64], "{what}");
            let r = count_with_barrier.launch(&rt, 1u32, &mut out, 10u32).mode(mode).max_loop_iterations(10).run();
            let (line, column) = at(BARRIER_LOOP);
            assert_eq!(fault(r, &what).1, FaultKind::NonTermination { fuel: 10, line, column }, "{what}");
        }
    }
}

#[ld::kernel(workgroup_size = 1)]
fn long_sum(out: &mut [u32], n: u32) {
    let mut s = 0u32;
    for j in 0..n {
        s += j;
    }
    out[0] = s;
}

/// lavapipe ends the loops of an invocation once they ran 65535 iterations
/// in all; the guard notices the loop that did not end by its own hand.
#[test]
fn a_loop_past_lavapipes_cap_is_named_not_cut_short() {
    let sum = |n: u32| (0..n).fold(0u32, |s, k| s.wrapping_add(k));
    for rt in runtimes() {
        let what = format!("{:?}", rt.backend());
        // Under the cap: the same result everywhere.
        let mut out = rt.zeros::<u32>(1).unwrap();
        long_sum.launch(&rt, 1u32, &mut out, 60000u32).run().unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(out.to_vec().unwrap(), vec![sum(60000)], "{what}");
        let mut out = rt.zeros::<u32>(1).unwrap();
        let r = long_sum.launch(&rt, 1u32, &mut out, 100_000u32).run();
        if !is_lavapipe(&rt) {
            r.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(out.to_vec().unwrap(), vec![sum(100_000)], "{what}");
            continue;
        }
        let e = r.expect_err("lavapipe cuts the loop at 65535 iterations");
        let s = e.to_string();
        let (line, _) = at(LONG_LOOP);
        assert!(matches!(e, Error::LoopLimit { mode: Mode::Native, line: Some(l), .. } if l == line), "{s}");
        assert!(s.contains("65535") && s.contains("LD_BACKEND=cpu") && s.contains(&format!("line {line}")), "{s}");
        // The invocation stopped: the cut sum was not written.
        assert_eq!(out.to_vec().unwrap(), vec![0], "{what}");
    }
}

/// Check mode on lavapipe with the default fuel: the spin lock is cut at
/// lavapipe's cap before its fuel runs out, and named as such.
#[test]
fn lavapipe_cutting_a_spin_lock_names_the_loop_in_check_mode() {
    let Some(rt) = common::gpu() else { return };
    if !is_lavapipe(&rt) {
        return;
    }
    for mode in [Mode::Native, Mode::Check, Mode::Deterministic] {
        let mut flag = rt.zeros::<u32>(1).unwrap();
        let mut out = rt.zeros::<u32>(64).unwrap();
        let e = spin_lock.launch(&rt, 1u32, &mut flag, &mut out).mode(mode).run().expect_err("the lock is never released");
        let s = e.to_string();
        let (line, _) = at("while flag[0].load() == 0 {}");
        assert!(matches!(e, Error::LoopLimit { line: Some(l), .. } if l == line), "{mode:?}: {s}");
        assert!(s.contains("LD_BACKEND=cpu"), "{s}");
    }
}

#[ld::kernel(workgroup_size = 64)]
fn many_atomics(counter: &[AtomicU32], out: &mut [u32]) {
    let mut last = 0u32;
    for _ in 0..40u32 {
        last = counter[0].fetch_add(1);
    }
    out[global_id().x] = last / 10000;
}

/// A kernel that uses many atomic results checks in one run: atomics are
/// never privatized and run once, so nothing is logged or replayed, and
/// the counter ends as a native run leaves it.
#[test]
fn a_kernel_using_many_atomic_results_checks_in_one_run() {
    for rt in runtimes() {
        let mut counter = rt.zeros::<u32>(1).unwrap();
        let mut out = rt.zeros::<u32>(64).unwrap();
        let run = many_atomics.launch(&rt, 1u32, &mut counter, &mut out).mode(Mode::Check).run().unwrap_or_else(|e| panic!("{:?}: {e}", rt.backend()));
        let stats = run.stats.unwrap();
        assert_eq!((stats.retries, stats.dispatches > 0), (0, true), "{:?}: {stats:?}", rt.backend());
        assert_eq!(counter.to_vec().unwrap(), vec![64 * 40], "{:?}", rt.backend());
    }
}

#[ld::kernel(workgroup_size = 64)]
fn cas_mutex(lock: &[AtomicU32], counter: &mut [u32]) {
    let mut done = false;
    while !done {
        if lock[0].compare_and_swap(0, 1) == 0 {
            counter[0] += 1;
            lock[0].store(0);
            done = true;
        }
    }
}

/// A compare-and-swap mutex whose holder releases it in the iteration that
/// took it (so lanes running in lockstep make progress) terminates on both
/// backends, and deterministic mode gives the same counter on both.
#[test]
fn a_cas_mutex_runs_alike_on_both_backends() {
    let mut counters = Vec::new();
    for rt in runtimes() {
        for (mode, want) in [(Mode::Native, Some(128u32)), (Mode::Deterministic, None)] {
            let mut lock = rt.zeros::<u32>(1).unwrap();
            let mut counter = rt.zeros::<u32>(1).unwrap();
            cas_mutex.launch(&rt, 2u32, &mut lock, &mut counter).mode(mode).run().unwrap_or_else(|e| panic!("{:?} {mode:?}: {e}", rt.backend()));
            assert_eq!(lock.to_vec().unwrap(), vec![0], "{:?} {mode:?}: released", rt.backend());
            let c = counter.to_vec().unwrap()[0];
            match want {
                Some(w) => assert_eq!(c, w, "{:?} {mode:?}: every invocation counted once", rt.backend()),
                None => counters.push(c),
            }
        }
    }
    assert!(counters.windows(2).all(|w| w[0] == w[1]), "deterministic mode: {counters:?}");
}

// ------------------------------------------------------------ a lost device

#[ld::kernel(workgroup_size = 64)]
fn busy(out: &mut [f32], n: u32) {
    let i = global_id().x;
    let mut x = i as f32;
    for _ in 0..n {
        x = x * 0.999 + 1.0;
    }
    out[i] = x;
}

/// A launch that times out leaves the device running it: every later call
/// on that runtime fails at once (a download no longer waits behind it).
#[test]
fn a_timed_out_device_fails_every_later_call_at_once() {
    let Some(gpu) = common::gpu() else { return };
    drop(gpu);
    // About 0.4 s of work on lavapipe, against a timeout of 10 ms.
    let settings = ld::Settings { gpu_timeout: Duration::from_millis(10), ..ld::Settings::get().unwrap().clone() };
    let rt = Runtime::with_settings(&settings).unwrap();
    assert!(rt.is_gpu());
    let mut out = rt.zeros::<f32>(256 * 64).unwrap();
    let r = busy.launch(&rt, 256u32, &mut out, 30000u32).run();
    match r {
        Err(Error::Timeout { kernel: "busy", .. }) => {}
        Ok(_) if !is_lavapipe(&rt) => {
            eprintln!("note: {:?} ran `busy` within 10 ms; nothing timed out to test", rt.backend());
            return;
        }
        r => panic!("expected a timeout: {:?}", r.map(|r| r.elapsed)),
    }
    let start = Instant::now();
    let lost = |r: ld::Result<()>, what: &str| match r {
        Err(Error::DeviceLost { reason, .. }) => assert!(reason.contains("did not finish within 10ms"), "{what}: {reason}"),
        other => panic!("{what}: expected the device lost, got {other:?}"),
    };
    lost(out.to_vec().map(drop), "download");
    lost(busy.launch(&rt, 1u32, &mut out, 1u32).run().map(drop), "launch");
    lost(busy.launch(&rt, 1u32, &mut out, 1u32).mode(Mode::Check).run().map(drop), "check");
    lost(rt.upload(&[1.0f32; 4]).map(drop), "upload");
    lost(out.write(&vec![0.0; 256 * 64]), "write");
    assert!(start.elapsed() < Duration::from_millis(500), "every call failed at once: {:?}", start.elapsed());
}
