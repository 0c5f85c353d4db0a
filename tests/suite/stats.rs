//! What a check costs, as `Run::stats` reports it: the engine works inside
//! the kernel, so the host's share (dispatches, submissions, read-backs)
//! does not grow with the barriers the kernel executes.

use crate::support as common;

use ld::{CheckOptions, Mode, Runtime, Stats};

/// A shared-memory relaxation with a barrier in a loop of `steps` iterations.
#[ld::kernel(workgroup_size = 64)]
fn relax(out: &mut [u32], steps: u32) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    tile[lid] = lid;
    barrier();
    for _ in 0..steps {
        let left = tile[(lid + 63) % 64];
        barrier();
        tile[lid] = (tile[lid] + left) % 1000;
        barrier();
    }
    out[global_id().x] = tile[lid];
}

/// `probe`: whether the launch may be answered by the probe (the engine
/// runs where it is not).
fn stats(rt: &Runtime, mode: Mode, steps: u32, probe: bool) -> (Stats, Vec<u32>) {
    let mut out = rt.zeros::<u32>(4 * 64).unwrap();
    let opts = CheckOptions::default().probe(probe);
    let run = relax.launch(rt, 4u32, &mut out, steps).mode(mode).check_options(opts).run().unwrap();
    let waited = run.stats.unwrap().waited_us as u128;
    assert!(waited <= run.elapsed.as_micros(), "{mode:?}: the waits are part of the run ({waited} us of {:?})", run.elapsed);
    if let Some(r) = &run.report {
        assert!(!r.has_races(), "{r}");
    }
    (run.stats.expect("check and deterministic runs report their cost"), out.to_vec().unwrap())
}

#[test]
fn submissions_do_not_grow_with_the_barriers_executed() {
    let Some(gpu) = common::gpu() else { return };
    for (mode, probe) in [Mode::Check, Mode::Deterministic].into_iter().flat_map(|m| [(m, false), (m, true)]) {
        let (few, _) = stats(&gpu, mode, 4, probe);
        let (many, out) = stats(&gpu, mode, 400, probe);
        assert_eq!(
            (few.dispatches, few.submissions, few.readbacks),
            (many.dispatches, many.submissions, many.readbacks),
            "{mode:?}, probe {probe}: 9 vs 801 barriers executed"
        );
        assert!(few.submissions <= 4 && few.readbacks <= 5, "{mode:?}: {few:?}");
        if mode == Mode::Check {
            // One round: the kernel, then level 1 and the fold, each
            // submission ended by one read-back (the status, the records).
            assert!(few.submissions <= 2 && few.readbacks <= 2, "{mode:?}: {few:?}");
        }
        if probe {
            // No two invocations share a word in a region: the probe's one
            // dispatch answers the launch.
            assert_eq!((few.dispatches, few.submissions, few.readbacks), (1, 1, 1), "{mode:?}: {few:?}");
        }
        assert_eq!((few.probed, many.probed), (probe, probe), "{mode:?}: {few:?}");
        assert!(few.bytes_allocated > 0 && few.bytes_allocated == many.bytes_allocated, "{few:?} {many:?}");
        assert!(few.waited_us > 0, "{mode:?}: the host waits for the device: {few:?}");
        let mut native = gpu.zeros::<u32>(4 * 64).unwrap();
        relax.launch(&gpu, 4u32, &mut native, 400u32).run().unwrap();
        assert_eq!(out, native.to_vec().unwrap(), "{mode:?}: a race-free kernel's result is its native one");
    }
}

#[test]
fn the_cpu_reference_reports_the_same_work_per_workgroup() {
    let cpu = common::cpu();
    let (few, _) = stats(&cpu, Mode::Check, 4, true);
    let (many, _) = stats(&cpu, Mode::Check, 400, true);
    assert_eq!(few.dispatches, many.dispatches, "{few:?} {many:?}");
    assert_eq!((few.submissions, few.readbacks, few.waited_us), (0, 0, 0), "the CPU reference submits nothing: {few:?}");
}

/// Each workgroup adds 1 to its own 512 consecutive words (8 pages).
#[ld::kernel(workgroup_size = 256)]
fn bump_block(data: &mut [u32]) {
    let base = workgroup_id().x * 512 + local_index();
    data[base] += 1;
    data[base + 256] += 1;
}

/// A table that hashes a workgroup's pages (the buffer's 2048 pages are too
/// many to map directly for 256 workgroups) has room for the eight pages a
/// workgroup touches at the first try: the hash spreads consecutive pages
/// (a hash that did not would run every such check twice).
#[test]
fn a_workgroup_s_consecutive_pages_fit_its_table_at_once() {
    let Some(gpu) = common::gpu() else { return };
    let mut data = gpu.upload(&vec![7u32; 256 * 512]).unwrap();
    let r = bump_block.launch(&gpu, 256u32, &mut data).check().unwrap();
    assert!(!r.has_races(), "{r}");
    assert_eq!(r.stats.expect("a check reports its stats").retries, 0, "{r}");
    assert!(data.to_vec().unwrap().iter().all(|&v| v == 8));
}

/// A CPU runs a few workgroups at a time, a thread each: a check there holds
/// slots for at most 32 workgroups per thread, whatever the budget allows
/// (more only cost memory, page faults and clears).
#[test]
fn a_check_on_a_cpu_batches_a_few_workgroups_per_thread() {
    let threads = std::thread::available_parallelism().unwrap().get() as u64;
    for rt in common::runtimes() {
        let on_cpu = match rt.backend() {
            ld::Backend::Cpu => true,
            ld::Backend::Gpu { adapter } => adapter.contains("(Cpu,"),
            other => panic!("a backend this test does not know: {other}"),
        };
        let mut data = rt.upload(&vec![7u32; 1024 * 512]).unwrap();
        let r = bump_block.launch(&rt, 1024u32, &mut data).check().unwrap();
        let batch = r.plan.as_ref().expect("a check reports its plan").batch;
        assert!(!r.has_races(), "{r}");
        if on_cpu {
            assert!(batch <= 32 * threads, "{threads} threads, batches of {batch}");
        }
        assert!(data.to_vec().unwrap().iter().all(|&v| v == 8));
    }
}
