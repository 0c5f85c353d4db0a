//! Synchronization idioms and data-structure kernels as GPU programmers
//! write them (append buffers, work queues, union-find, bitsets, packed
//! bytes, broadcasts, storage trees, grid-stride loops, private arrays,
//! struct reductions, CAS loops, linked lists, hash tables, "last
//! workgroup done", pointer jumping, votes), each with a verdict decided by
//! hand under the WGSL memory model and a racy twin with one realistic bug.
//! The harness is tests/suite/support/verdicts.rs, as the catalogue's.
use crate::support as common;

use common::verdicts::*;
use ld::{Report, Runtime};

#[allow(clippy::ptr_arg)]
fn sort_tail(v: &mut Vec<u32>) {
    v[1..].sort();
}

// ===================================== 1. append buffer (variable-length)

#[ld::kernels]
pub mod app {
    /// RACE-FREE: invocation i appends `input[i] % 4` copies of its value:
    /// one `fetch_add(k)` reserves k consecutive slots, then plain writes
    /// fill them (every slot has one writer).
    #[kernel(workgroup_size = 64)]
    pub fn append_runs(input: &[u32], counter: &[AtomicU32], out: &mut [u32]) {
        let i = global_id().x;
        if i < input.len() {
            let v = input[i];
            let k = v % 4;
            if k > 0 {
                let base = counter[0].fetch_add(k);
                for j in 0..k {
                    out[base + j] = v;
                }
            }
        }
    }

    /// RACY (ww and rw, storage, every level): the counter is a plain word,
    /// read then written back incremented: two invocations get the same
    /// base and both write the counter (and the same slots).
    #[kernel(workgroup_size = 64)]
    pub fn append_runs_plain(input: &[u32], counter: &mut [u32], out: &mut [u32]) {
        let i = global_id().x;
        if i < input.len() {
            let v = input[i];
            let k = v % 4;
            if k > 0 {
                let base = counter[0];
                counter[0] = base + k;
                for j in 0..k {
                    out[base + j] = v;
                }
            }
        }
    }
}

const APP_N: usize = 256;

fn append_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&iota(APP_N, 4)).unwrap();
        let mut c = rt.zeros::<u32>(1).unwrap();
        let mut o = rt.zeros::<u32>(3 * APP_N).unwrap();
        let r = if k == "append_runs" {
            go(app::append_runs.launch(rt, 4, &inb, &mut c, &mut o), how)
        } else {
            go(app::append_runs_plain.launch(rt, 4, &inb, &mut c, &mut o), how)
        };
        let mut v = c.to_vec().unwrap();
        v.extend(o.to_vec().unwrap());
        (r, v)
    }
}

#[test]
fn variable_length_append_with_atomic_reservation_is_clean() {
    clean_all_by("append_runs", &append_case("append_runs"), sort_tail);
    let input = iota(APP_N, 4);
    let mut runs: Vec<u32> = input.iter().flat_map(|&v| std::iter::repeat_n(v, (v % 4) as usize)).collect();
    let total = runs.len() as u32;
    runs.resize(3 * APP_N, 0);
    let mut want = [vec![total], runs].concat();
    sort_tail(&mut want);
    for mut got in native_both(&append_case("append_runs")) {
        sort_tail(&mut got);
        common::expect("append_runs", &got, &want);
    }
}

#[test]
fn append_with_plain_counter_races() {
    racy_verdict(&[32, 1], "append_runs_plain", &append_case("append_runs_plain"), &[ww(ST, WGS, "counter")]);
}

// ===================================== 2. work queue drained with a shared head

#[ld::kernels]
pub mod queue {
    /// RACE-FREE: every workgroup drains its own queue of `per_wg` items
    /// with a shared atomic head; item t is processed by whoever took it,
    /// and written once.
    #[kernel(workgroup_size = 64)]
    pub fn drain_atomic(input: &[u32], out: &mut [u32], per_wg: u32) {
        let head = shared::<[AtomicU32; 1]>();
        let base = workgroup_id().x * per_wg;
        loop {
            let t = head[0].fetch_add(1);
            if t >= per_wg {
                break;
            }
            let x = input[base + t];
            out[base + t] = x * x + 1;
        }
    }

    /// RACY (rw/ww, workgroup memory): the head is a plain shared word,
    /// read and written back by every invocation.
    #[kernel(workgroup_size = 64)]
    pub fn drain_plain(input: &[u32], out: &mut [u32], per_wg: u32) {
        let head = shared::<[u32; 1]>();
        let base = workgroup_id().x * per_wg;
        loop {
            let t = head[0];
            if t >= per_wg {
                break;
            }
            head[0] = t + 1;
            let x = input[base + t];
            out[base + t] = x * x + 1;
        }
    }
}

const Q_PER: u32 = 200;

fn queue_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&iota(3 * Q_PER as usize, 2)).unwrap();
        let mut o = rt.zeros::<u32>(3 * Q_PER as usize).unwrap();
        let r = if k == "drain_atomic" {
            go(queue::drain_atomic.launch(rt, 3, &inb, &mut o, Q_PER), how)
        } else {
            go(queue::drain_plain.launch(rt, 3, &inb, &mut o, Q_PER), how)
        };
        (r, o.to_vec().unwrap())
    }
}

#[test]
fn work_queue_with_atomic_head_is_clean() {
    clean_all("drain_atomic", &queue_case("drain_atomic"));
    let want: Vec<u32> = iota(3 * Q_PER as usize, 2).iter().map(|x| x * x + 1).collect();
    for got in native_both(&queue_case("drain_atomic")) {
        common::expect("drain_atomic", &got, &want);
    }
}

#[test]
fn work_queue_with_plain_head_races() {
    racy_verdict(&[32, 1], "drain_plain", &queue_case("drain_plain"), &[]);
    for rt in common::runtimes() {
        let (rep, _) = queue_case("drain_plain")(&rt, How::Check(1));
        let rep = rep.unwrap();
        assert!(rep.races.iter().any(|r| r.variable == "head" && format!("{:?}", r.memory) == WG), "{rep}");
    }
}

// ===================================== 3. connected components (label propagation)

#[ld::kernels]
pub mod cc {
    /// RACE-FREE: one hooking round over the edges: each endpoint's label
    /// goes down to the smaller of the two with `fetch_min`; a change raises
    /// `changed` (an atomic store). The host repeats until nothing changes.
    #[kernel(workgroup_size = 64)]
    pub fn hook_atomic(src: &[u32], dst: &[u32], labels: &[AtomicU32], changed: &[AtomicU32]) {
        let e = global_id().x;
        if e < src.len() {
            let u = src[e];
            let v = dst[e];
            let lu = labels[u].load();
            let lv = labels[v].load();
            if lu < lv {
                if labels[v].fetch_min(lu) > lu {
                    changed[0].store(1);
                }
            } else if lv < lu {
                if labels[u].fetch_min(lv) > lv {
                    changed[0].store(1);
                }
            }
        }
    }

    /// RACY (rw/ww, storage, inter-workgroup): the same with plain loads and
    /// stores of the labels; every vertex is an endpoint of edges in
    /// several workgroups.
    #[kernel(workgroup_size = 64)]
    pub fn hook_plain(src: &[u32], dst: &[u32], labels: &mut [u32]) {
        let e = global_id().x;
        if e < src.len() {
            let u = src[e];
            let v = dst[e];
            let m = labels[u].min(labels[v]);
            labels[u] = m;
            labels[v] = m;
        }
    }
}

const CC_N: u32 = 256;

/// Vertex v is joined to v + 8 and to v + 64 (mod 256): 8 components, the
/// vertices of one residue mod 8, whose smallest vertex is the residue.
fn cc_edges() -> (Vec<u32>, Vec<u32>) {
    let mut s = Vec::new();
    let mut d = Vec::new();
    for step in [8, 64] {
        for v in 0..CC_N {
            s.push(v);
            d.push((v + step) % CC_N);
        }
    }
    (s, d)
}

fn cc_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let (s, d) = cc_edges();
        let (sb, db) = (rt.upload(&s).unwrap(), rt.upload(&d).unwrap());
        let ids: Vec<u32> = (0..CC_N).collect();
        let mut labels = rt.upload(&ids).unwrap();
        let wgs = (s.len() / 64) as u32;
        if k == "hook_plain" {
            let r = go(cc::hook_plain.launch(rt, wgs, &sb, &db, &mut labels), how);
            return (r, labels.to_vec().unwrap());
        }
        let mut report: Option<Report> = None;
        let mut rounds = 0u32;
        loop {
            let mut changed = rt.zeros::<u32>(1).unwrap();
            let r = go(cc::hook_atomic.launch(rt, wgs, &sb, &db, &mut labels, &mut changed), how);
            if let Some(r) = r {
                if report.as_ref().is_none_or(|p| !p.has_races()) {
                    report = Some(r);
                }
            }
            rounds += 1;
            if changed.to_vec().unwrap()[0] == 0 || rounds == 64 {
                break;
            }
        }
        assert!(rounds < 64, "{k}: labels did not converge");
        (report, labels.to_vec().unwrap())
    }
}

#[test]
fn connected_components_with_atomic_min_are_clean() {
    clean_all("hook_atomic", &cc_case("hook_atomic"));
    let want: Vec<u32> = (0..CC_N).map(|v| v % 8).collect();
    for got in native_both(&cc_case("hook_atomic")) {
        common::expect("hook_atomic", &got, &want);
    }
}

#[test]
fn connected_components_with_plain_min_race() {
    for w in [32, 1] {
        expect_race("hook_plain", w, &cc_case("hook_plain"), &[ww(ST, WGS, "labels")]);
    }
}

// ===================================== 4. bitsets

#[ld::kernels]
pub mod bits {
    /// RACE-FREE: a global membership bitset, one `fetch_or` per value.
    #[kernel(workgroup_size = 64)]
    pub fn bitset_atomic(values: &[u32], bits: &[AtomicU32]) {
        let i = global_id().x;
        if i < values.len() {
            let v = values[i] % (bits.len() * 32);
            bits[v / 32].fetch_or(1u32 << (v % 32));
        }
    }

    /// RACY (ww and rw, storage, inter-workgroup): plain `|=` on words other
    /// invocations set bits of.
    #[kernel(workgroup_size = 64)]
    pub fn bitset_plain(values: &[u32], bits: &mut [u32]) {
        let i = global_id().x;
        if i < values.len() {
            let v = values[i] % (bits.len() * 32);
            bits[v / 32] |= 1u32 << (v % 32);
        }
    }

    /// RACE-FREE: a per-workgroup "seen" bitset in shared atomics, a
    /// barrier, then the first 8 invocations flush one word each.
    #[kernel(workgroup_size = 64)]
    pub fn seen_shared_atomic(values: &[u32], out: &mut [u32]) {
        let seen = shared::<[AtomicU32; 8]>();
        let lid = local_index();
        let v = values[global_id().x] % 256;
        seen[v / 32].fetch_or(1u32 << (v % 32));
        barrier();
        if lid < 8 {
            out[workgroup_id().x * 8 + lid] = seen[lid].load();
        }
    }

    /// RACY (ww, workgroup memory, inter-warp): the shared bitset with
    /// plain `|=`.
    #[kernel(workgroup_size = 64)]
    pub fn seen_shared_plain(values: &[u32], out: &mut [u32]) {
        let seen = shared::<[u32; 8]>();
        let lid = local_index();
        let v = values[global_id().x] % 256;
        seen[v / 32] |= 1u32 << (v % 32);
        barrier();
        if lid < 8 {
            out[workgroup_id().x * 8 + lid] = seen[lid];
        }
    }
}

fn bits_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let vb = rt.upload(&iota(256, 5)).unwrap();
        match k {
            "bitset_atomic" | "bitset_plain" => {
                let mut b = rt.zeros::<u32>(16).unwrap();
                let r = if k == "bitset_atomic" {
                    go(bits::bitset_atomic.launch(rt, 4, &vb, &mut b), how)
                } else {
                    go(bits::bitset_plain.launch(rt, 4, &vb, &mut b), how)
                };
                (r, b.to_vec().unwrap())
            }
            _ => {
                let mut o = rt.zeros::<u32>(32).unwrap();
                let r = if k == "seen_shared_atomic" {
                    go(bits::seen_shared_atomic.launch(rt, 4, &vb, &mut o), how)
                } else {
                    go(bits::seen_shared_plain.launch(rt, 4, &vb, &mut o), how)
                };
                (r, o.to_vec().unwrap())
            }
        }
    }
}

#[test]
fn atomic_bitsets_are_clean() {
    let vals = iota(256, 5);
    clean_all("bitset_atomic", &bits_case("bitset_atomic"));
    let mut want = vec![0u32; 16];
    for v in &vals {
        let v = v % 512;
        want[(v / 32) as usize] |= 1 << (v % 32);
    }
    for got in native_both(&bits_case("bitset_atomic")) {
        common::expect("bitset_atomic", &got, &want);
    }
    clean_all("seen_shared_atomic", &bits_case("seen_shared_atomic"));
    let mut want = vec![0u32; 32];
    for (i, v) in vals.iter().enumerate() {
        let v = v % 256;
        want[(i / 64) * 8 + (v / 32) as usize] |= 1 << (v % 32);
    }
    for got in native_both(&bits_case("seen_shared_atomic")) {
        common::expect("seen_shared_atomic", &got, &want);
    }
}

#[test]
fn plain_bitsets_race() {
    for w in [32, 1] {
        expect_race("bitset_plain", w, &bits_case("bitset_plain"), &[ww(ST, WGS, "bits")]);
        expect_race("seen_shared_plain", w, &bits_case("seen_shared_plain"), &[ww(WG, WARP, "seen")]);
    }
}

// ===================================== 5. packed bytes

#[ld::kernels]
pub mod pack {
    /// RACY (ww, storage): four invocations update different bytes of one
    /// word with a plain read-modify-write; stores are word-sized, so they
    /// race (intra-warp where the four share a warp, inter-warp at warp
    /// size 1).
    #[kernel(workgroup_size = 64)]
    pub fn pack_bytes_plain(bytes: &[u32], out: &mut [u32]) {
        let i = global_id().x;
        if i < bytes.len() {
            let w = i / 4;
            let sh = (i % 4) * 8;
            out[w] = (out[w] & !(0xffu32 << sh)) | ((bytes[i] & 0xff) << sh);
        }
    }

    /// RACE-FREE: the same bytes merged with `fetch_or` into a zeroed
    /// buffer.
    #[kernel(workgroup_size = 64)]
    pub fn pack_bytes_atomic(bytes: &[u32], out: &[AtomicU32]) {
        let i = global_id().x;
        if i < bytes.len() {
            let sh = (i % 4) * 8;
            out[i / 4].fetch_or((bytes[i] & 0xff) << sh);
        }
    }
}

fn pack_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let bb = rt.upload(&iota(256, 7)).unwrap();
        let mut o = rt.zeros::<u32>(64).unwrap();
        let r = if k == "pack_bytes_plain" {
            go(pack::pack_bytes_plain.launch(rt, 4, &bb, &mut o), how)
        } else {
            go(pack::pack_bytes_atomic.launch(rt, 4, &bb, &mut o), how)
        };
        (r, o.to_vec().unwrap())
    }
}

#[test]
fn packed_bytes_with_atomic_or_are_clean() {
    clean_all("pack_bytes_atomic", &pack_case("pack_bytes_atomic"));
    let b = iota(256, 7);
    let want: Vec<u32> = b.chunks(4).map(|c| c.iter().enumerate().fold(0u32, |a, (j, &x)| a | ((x & 0xff) << (8 * j)))).collect();
    for got in native_both(&pack_case("pack_bytes_atomic")) {
        common::expect("pack_bytes_atomic", &got, &want);
    }
}

#[test]
fn packed_bytes_with_plain_read_modify_write_race() {
    expect_race("pack_bytes_plain", 32, &pack_case("pack_bytes_plain"), &[ww(ST, INTRA, "out")]);
    expect_race("pack_bytes_plain", 4, &pack_case("pack_bytes_plain"), &[ww(ST, INTRA, "out")]);
    expect_race("pack_bytes_plain", 1, &pack_case("pack_bytes_plain"), &[ww(ST, WARP, "out")]);
}

// ===================================== 6. broadcast through shared memory

#[ld::kernels]
pub mod bcast {
    /// RACE-FREE: the tile's maximum with a shared `fetch_max`, a barrier,
    /// invocation 0 turns it into a scale factor in shared memory, a
    /// barrier, everyone scales by it.
    #[kernel(workgroup_size = 64)]
    pub fn normalize_tile(input: &[u32], out: &mut [u32]) {
        let mx = shared::<[AtomicU32; 1]>();
        let scale = shared::<[u32; 1]>();
        let lid = local_index();
        let x = input[global_id().x];
        mx[0].fetch_max(x);
        barrier();
        if lid == 0 {
            scale[0] = 1000000 / (mx[0].load() + 1);
        }
        barrier();
        out[global_id().x] = x * scale[0];
    }

    /// RACY (rw, workgroup memory, inter-warp): the broadcast without its
    /// barrier: invocations read `scale[0]` while invocation 0 writes it.
    #[kernel(workgroup_size = 64)]
    pub fn normalize_tile_racy(input: &[u32], out: &mut [u32]) {
        let mx = shared::<[AtomicU32; 1]>();
        let scale = shared::<[u32; 1]>();
        let lid = local_index();
        let x = input[global_id().x];
        mx[0].fetch_max(x);
        barrier();
        if lid == 0 {
            scale[0] = 1000000 / (mx[0].load() + 1);
        }
        out[global_id().x] = x * scale[0];
    }
}

fn bcast_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&iota(256, 1)).unwrap();
        let mut o = rt.zeros::<u32>(256).unwrap();
        let r = if k == "normalize_tile" {
            go(bcast::normalize_tile.launch(rt, 4, &inb, &mut o), how)
        } else {
            go(bcast::normalize_tile_racy.launch(rt, 4, &inb, &mut o), how)
        };
        (r, o.to_vec().unwrap())
    }
}

#[test]
fn broadcast_after_barrier_is_clean() {
    clean_all("normalize_tile", &bcast_case("normalize_tile"));
    let input = iota(256, 1);
    let want: Vec<u32> = input
        .chunks(64)
        .flat_map(|c| {
            let s = 1000000 / (c.iter().max().unwrap() + 1);
            c.iter().map(move |x| x * s)
        })
        .collect();
    for got in native_both(&bcast_case("normalize_tile")) {
        common::expect("normalize_tile", &got, &want);
    }
}

#[test]
fn broadcast_without_barrier_races() {
    for w in [32, 1] {
        expect_race("normalize_tile_racy", w, &bcast_case("normalize_tile_racy"), &[rw(WG, WARP, "scale")]);
    }
}

// ===================================== 7. tree reduction in storage

#[ld::kernels]
pub mod stree {
    /// RACE-FREE: each workgroup reduces its 64 words of `data` in place, a
    /// `storage_barrier()` after every step.
    #[kernel(workgroup_size = 64)]
    pub fn storage_tree(data: &mut [u32], out: &mut [u32]) {
        let lid = local_index();
        let base = workgroup_id().x * 64;
        let mut s = 32u32;
        while s > 0 {
            if lid < s {
                data[base + lid] += data[base + lid + s];
            }
            storage_barrier();
            s >>= 1;
        }
        if lid == 0 {
            out[workgroup_id().x] = data[base];
        }
    }

    /// RACY (rw, storage): the CUDA port with `__syncthreads()` become
    /// `barrier()`, which does not order storage.
    #[kernel(workgroup_size = 64)]
    pub fn storage_tree_wg_barrier(data: &mut [u32], out: &mut [u32]) {
        let lid = local_index();
        let base = workgroup_id().x * 64;
        let mut s = 32u32;
        while s > 0 {
            if lid < s {
                data[base + lid] += data[base + lid + s];
            }
            barrier();
            s >>= 1;
        }
        if lid == 0 {
            out[workgroup_id().x] = data[base];
        }
    }
}

fn stree_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let mut d = rt.upload(&iota(256, 8)).unwrap();
        let mut o = rt.zeros::<u32>(4).unwrap();
        let r = if k == "storage_tree" {
            go(stree::storage_tree.launch(rt, 4, &mut d, &mut o), how)
        } else {
            go(stree::storage_tree_wg_barrier.launch(rt, 4, &mut d, &mut o), how)
        };
        let mut v = o.to_vec().unwrap();
        v.extend(d.to_vec().unwrap());
        (r, v)
    }
}

#[test]
fn storage_tree_with_storage_barriers_is_clean() {
    clean_all("storage_tree", &stree_case("storage_tree"));
    let want: Vec<u32> = iota(256, 8).chunks(64).map(|c| c.iter().sum()).collect();
    for got in native_both(&stree_case("storage_tree")) {
        common::expect("storage_tree", &got[..4], &want);
    }
}

#[test]
fn storage_tree_with_workgroup_barriers_races() {
    expect_race("storage_tree_wg_barrier", 1, &stree_case("storage_tree_wg_barrier"), &[rw(ST, WARP, "data")]);
    expect_race("storage_tree_wg_barrier", 4, &stree_case("storage_tree_wg_barrier"), &[rw(ST, WARP, "data")]);
    // At warp size 32 every racing pair lies in warp 0, across a barrier
    // that does not order storage: lanes of one warp across a barrier are
    // a known miss (README).
}

// ===================================== 8. grid-stride loops

#[ld::kernels]
pub mod gs {
    /// RACE-FREE: y = a * x + y with a grid-stride loop (fewer invocations
    /// than items).
    #[kernel(workgroup_size = 64)]
    pub fn axpy_grid_stride(x: &[u32], y: &mut [u32], a: u32, n: u32) {
        let stride = num_workgroups().x * workgroup_size().x;
        let mut i = global_id().x;
        while i < n {
            y[i] = a * x[i] + y[i];
            i += stride;
        }
    }

    /// RACY (ww/rw, storage, inter-workgroup): the stride is the workgroup
    /// size alone (CUDA's `blockDim.x` for `blockDim.x * gridDim.x`), so
    /// workgroups overlap.
    #[kernel(workgroup_size = 64)]
    pub fn axpy_block_stride(x: &[u32], y: &mut [u32], a: u32, n: u32) {
        let stride = workgroup_size().x;
        let mut i = global_id().x;
        while i < n {
            y[i] = a * x[i] + y[i];
            i += stride;
        }
    }
}

const GS_N: u32 = 1000;

fn gs_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let xb = rt.upload(&iota(GS_N as usize, 3)).unwrap();
        let mut y = rt.upload(&iota(GS_N as usize, 9)).unwrap();
        let r = if k == "axpy_grid_stride" {
            go(gs::axpy_grid_stride.launch(rt, 4, &xb, &mut y, 3u32, GS_N), how)
        } else {
            go(gs::axpy_block_stride.launch(rt, 4, &xb, &mut y, 3u32, GS_N), how)
        };
        (r, y.to_vec().unwrap())
    }
}

#[test]
fn grid_stride_loop_is_clean() {
    clean_all("axpy_grid_stride", &gs_case("axpy_grid_stride"));
    let (x, y) = (iota(GS_N as usize, 3), iota(GS_N as usize, 9));
    let want: Vec<u32> = x.iter().zip(&y).map(|(a, b)| 3 * a + b).collect();
    for got in native_both(&gs_case("axpy_grid_stride")) {
        common::expect("axpy_grid_stride", &got, &want);
    }
}

#[test]
fn block_stride_loop_races_between_workgroups() {
    for w in [32, 1] {
        expect_race("axpy_block_stride", w, &gs_case("axpy_block_stride"), &[ww(ST, WGS, "y")]);
    }
}

// ===================================== 9. per-invocation private arrays

#[ld::kernels]
pub mod priv_ {
    /// RACE-FREE: each invocation insertion-sorts its 8 values in a local
    /// array and writes them back.
    #[kernel(workgroup_size = 64)]
    pub fn sort8_private(input: &[u32], out: &mut [u32]) {
        let i = global_id().x;
        let mut a = [0u32; 8];
        for k in 0..8u32 {
            a[k] = input[i * 8 + k];
        }
        for k in 1..8u32 {
            let v = a[k];
            let mut j = k;
            while j > 0 && a[j - 1] > v {
                a[j] = a[j - 1];
                j -= 1;
            }
            a[j] = v;
        }
        for k in 0..8u32 {
            out[i * 8 + k] = a[k];
        }
    }

    /// RACY (ww/rw, workgroup memory): the scratch array declared as
    /// workgroup memory, so every invocation sorts in the same 8 words.
    #[kernel(workgroup_size = 64)]
    pub fn sort8_shared_scratch(input: &[u32], out: &mut [u32]) {
        let a = shared::<[u32; 8]>();
        let i = global_id().x;
        for k in 0..8u32 {
            a[k] = input[i * 8 + k];
        }
        for k in 1..8u32 {
            let v = a[k];
            let mut j = k;
            while j > 0 && a[j - 1] > v {
                a[j] = a[j - 1];
                j -= 1;
            }
            a[j] = v;
        }
        for k in 0..8u32 {
            out[i * 8 + k] = a[k];
        }
    }
}

fn priv_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&iota(128 * 8, 11)).unwrap();
        let mut o = rt.zeros::<u32>(128 * 8).unwrap();
        let r = if k == "sort8_private" {
            go(priv_::sort8_private.launch(rt, 2, &inb, &mut o), how)
        } else {
            go(priv_::sort8_shared_scratch.launch(rt, 2, &inb, &mut o), how)
        };
        (r, o.to_vec().unwrap())
    }
}

#[test]
fn private_array_sort_is_clean() {
    clean_all("sort8_private", &priv_case("sort8_private"));
    let want = sorted_chunks(&iota(128 * 8, 11), 8);
    for got in native_both(&priv_case("sort8_private")) {
        common::expect("sort8_private", &got, &want);
    }
}

#[test]
fn scratch_array_in_workgroup_memory_races() {
    for w in [32, 1] {
        expect_race("sort8_shared_scratch", w, &priv_case("sort8_shared_scratch"), &[ww(WG, WARP, "a")]);
    }
}

// ===================================== 10. struct reduction in shared memory

#[ld::kernels]
pub mod stats {
    pub struct Stats {
        pub lo: u32,
        pub hi: u32,
        pub sum: u32,
        pub n: u32,
    }

    fn merge(a: Stats, b: Stats) -> Stats {
        Stats { lo: a.lo.min(b.lo), hi: a.hi.max(b.hi), sum: a.sum + b.sum, n: a.n + b.n }
    }

    /// RACE-FREE: min/max/sum/count of each workgroup's items (the last
    /// workgroup partial) by a tree over a shared array of structs.
    #[kernel(workgroup_size = 64)]
    pub fn stats_reduce(input: &[u32], out: &mut [Stats], n: u32) {
        let st = shared::<[Stats; 64]>();
        let lid = local_index();
        let i = global_id().x;
        if i < n {
            let x = input[i];
            st[lid] = Stats { lo: x, hi: x, sum: x, n: 1 };
        } else {
            st[lid] = Stats { lo: u32::MAX, hi: 0, sum: 0, n: 0 };
        }
        barrier();
        let mut s = 32u32;
        while s > 0 {
            if lid < s {
                st[lid] = merge(st[lid], st[lid + s]);
            }
            barrier();
            s >>= 1;
        }
        if lid == 0 {
            out[workgroup_id().x] = st[0];
        }
    }

    /// RACY (rw, workgroup memory, inter-warp): the barrier after the
    /// load is missing; warp 0 merges in warp 1's slots as they are written.
    #[kernel(workgroup_size = 64)]
    pub fn stats_reduce_no_load_barrier(input: &[u32], out: &mut [Stats], n: u32) {
        let st = shared::<[Stats; 64]>();
        let lid = local_index();
        let i = global_id().x;
        if i < n {
            let x = input[i];
            st[lid] = Stats { lo: x, hi: x, sum: x, n: 1 };
        } else {
            st[lid] = Stats { lo: u32::MAX, hi: 0, sum: 0, n: 0 };
        }
        let mut s = 32u32;
        while s > 0 {
            if lid < s {
                st[lid] = merge(st[lid], st[lid + s]);
            }
            barrier();
            s >>= 1;
        }
        if lid == 0 {
            out[workgroup_id().x] = st[0];
        }
    }
}

const ST_N: u32 = 200;

fn stats_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&iota(ST_N as usize, 12)).unwrap();
        let mut o = rt.upload(&[stats::Stats::default(); 4]).unwrap();
        let r = if k == "stats_reduce" {
            go(stats::stats_reduce.launch(rt, 4, &inb, &mut o, ST_N), how)
        } else {
            go(stats::stats_reduce_no_load_barrier.launch(rt, 4, &inb, &mut o, ST_N), how)
        };
        (r, o.to_vec().unwrap().iter().flat_map(|s| [s.lo, s.hi, s.sum, s.n]).collect())
    }
}

#[test]
fn struct_tree_reduction_is_clean() {
    clean_all("stats_reduce", &stats_case("stats_reduce"));
    let input = iota(ST_N as usize, 12);
    let want: Vec<u32> = input.chunks(64).flat_map(|c| [*c.iter().min().unwrap(), *c.iter().max().unwrap(), c.iter().sum(), c.len() as u32]).collect();
    for got in native_both(&stats_case("stats_reduce")) {
        common::expect("stats_reduce", &got, &want);
    }
}

#[test]
fn struct_tree_reduction_without_load_barrier_races() {
    for w in [32, 1] {
        expect_race("stats_reduce_no_load_barrier", w, &stats_case("stats_reduce_no_load_barrier"), &[rw(WG, WARP, "st")]);
    }
}

// ===================================== 11. float add by a compare-and-swap loop

#[ld::kernels]
pub mod cas {
    /// RACE-FREE: CUDA's pre-sm_20 float atomicAdd: a load / add /
    /// `compare_and_swap` loop on the bits, into a shared word per
    /// workgroup; a barrier; invocation 0 writes the workgroup's sum.
    #[kernel(workgroup_size = 64)]
    pub fn float_sum_cas(x: &[f32], out: &mut [f32]) {
        let acc = shared::<[AtomicU32; 1]>();
        let v = x[global_id().x];
        loop {
            let old = acc[0].load();
            let new = (f32::from_bits(old) + v).to_bits();
            if acc[0].compare_and_swap(old, new) == old {
                break;
            }
        }
        barrier();
        if local_index() == 0 {
            out[workgroup_id().x] = f32::from_bits(acc[0].load());
        }
    }

    /// RACY (ww, storage, inter-workgroup): invocation 0 of every
    /// workgroup writes `out[0]` (the index of the first workgroup, not its
    /// own).
    #[kernel(workgroup_size = 64)]
    pub fn float_sum_cas_wrong_slot(x: &[f32], out: &mut [f32]) {
        let acc = shared::<[AtomicU32; 1]>();
        let v = x[global_id().x];
        loop {
            let old = acc[0].load();
            let new = (f32::from_bits(old) + v).to_bits();
            if acc[0].compare_and_swap(old, new) == old {
                break;
            }
        }
        barrier();
        if local_index() == 0 {
            out[0] = f32::from_bits(acc[0].load());
        }
    }
}

fn cas_input() -> Vec<f32> {
    // Small integers: every order of the additions gives the same sum.
    iota(256, 13).iter().map(|&v| (v % 17) as f32).collect()
}

fn cas_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let xb = rt.upload(&cas_input()).unwrap();
        let mut o = rt.zeros::<f32>(4).unwrap();
        let r = if k == "float_sum_cas" {
            go(cas::float_sum_cas.launch(rt, 4, &xb, &mut o), how)
        } else {
            go(cas::float_sum_cas_wrong_slot.launch(rt, 4, &xb, &mut o), how)
        };
        (r, o.to_vec().unwrap().iter().map(|f| f.to_bits()).collect())
    }
}

#[test]
fn float_add_by_compare_and_swap_is_clean() {
    clean_all("float_sum_cas", &cas_case("float_sum_cas"));
    let want: Vec<u32> = cas_input().chunks(64).map(|c| c.iter().sum::<f32>().to_bits()).collect();
    for got in native_both(&cas_case("float_sum_cas")) {
        common::expect("float_sum_cas", &got, &want);
    }
}

#[test]
fn float_sums_into_one_slot_race() {
    for w in [32, 1] {
        expect_race("float_sum_cas_wrong_slot", w, &cas_case("float_sum_cas_wrong_slot"), &[ww(ST, WGS, "out")]);
    }
}

// ===================================== 12. cell lists: linked lists by swap

#[ld::kernels]
pub mod cells {
    /// RACE-FREE: particles pushed onto their cell's list: `swap` makes
    /// the particle the head and returns the old head, which becomes the
    /// particle's `next` (written only by that particle).
    #[kernel(workgroup_size = 64)]
    pub fn bin_particles(cell_of: &[u32], head: &[AtomicU32], next: &mut [u32]) {
        let i = global_id().x;
        if i < cell_of.len() {
            next[i] = head[cell_of[i]].swap(i);
        }
    }

    /// RACY (rw/ww, storage): the push with a plain head.
    #[kernel(workgroup_size = 64)]
    pub fn bin_particles_plain(cell_of: &[u32], head: &mut [u32], next: &mut [u32]) {
        let i = global_id().x;
        if i < cell_of.len() {
            let c = cell_of[i];
            next[i] = head[c];
            head[c] = i;
        }
    }
}

const NCELL: usize = 16;
const NP: usize = 256;

fn cell_of() -> Vec<u32> {
    (0..NP as u32).map(|i| (i * 7 + i / 16) % NCELL as u32).collect()
}

fn cells_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let cb = rt.upload(&cell_of()).unwrap();
        let mut h = rt.upload(&[u32::MAX; NCELL]).unwrap();
        let mut nx = rt.zeros::<u32>(NP).unwrap();
        let r = if k == "bin_particles" {
            go(cells::bin_particles.launch(rt, 4, &cb, &mut h, &mut nx), how)
        } else {
            go(cells::bin_particles_plain.launch(rt, 4, &cb, &mut h, &mut nx), how)
        };
        let mut v = h.to_vec().unwrap();
        v.extend(nx.to_vec().unwrap());
        (r, v)
    }
}

/// The lists in canonical form: per cell its members (walked from the
/// head, at most NP steps), sorted, then a separator.
#[allow(clippy::ptr_arg)]
fn canon_lists(v: &mut Vec<u32>) {
    let (head, next) = v.split_at(NCELL);
    let mut out = Vec::new();
    for &h in head {
        let mut m = Vec::new();
        let mut p = h;
        while p != u32::MAX && m.len() < NP {
            m.push(p);
            p = next.get(p as usize).copied().unwrap_or(u32::MAX);
        }
        m.sort();
        out.extend(m);
        out.push(u32::MAX);
    }
    *v = out;
}

#[test]
fn cell_lists_built_with_swap_are_clean() {
    clean_all_by("bin_particles", &cells_case("bin_particles"), canon_lists);
    let cells = cell_of();
    let mut want = Vec::new();
    for c in 0..NCELL as u32 {
        want.extend((0..NP as u32).filter(|&i| cells[i as usize] == c));
        want.push(u32::MAX);
    }
    for mut got in native_both(&cells_case("bin_particles")) {
        canon_lists(&mut got);
        common::expect("bin_particles", &got, &want);
    }
}

#[test]
fn cell_lists_with_plain_head_race() {
    for w in [32, 1] {
        expect_race("bin_particles_plain", w, &cells_case("bin_particles_plain"), &[ww(ST, WGS, "head")]);
    }
}

// ===================================== 13. open-addressing hash table

#[ld::kernels]
pub mod hash {
    const EMPTY: u32 = 0xffff_ffff;

    /// RACE-FREE for distinct keys: linear probing; a key claims a slot
    /// with `compare_and_swap(EMPTY, k)` and then writes the slot's value
    /// (plain) — the only writer of that slot. RACY (ww, storage) when a
    /// key comes twice (an upsert): both writers of the key's slot store
    /// their values.
    #[kernel(workgroup_size = 64)]
    pub fn hash_insert(keys_in: &[u32], vals_in: &[u32], keys: &[AtomicU32], vals: &mut [u32]) {
        let i = global_id().x;
        if i < keys_in.len() {
            let k = keys_in[i];
            let cap = vals.len();
            let mut slot = (k * 2654435761u32) % cap;
            let mut tries = 0u32;
            while tries < cap {
                let prev = keys[slot].compare_and_swap(EMPTY, k);
                if prev == EMPTY || prev == k {
                    vals[slot] = vals_in[i];
                    break;
                }
                slot = (slot + 1) % cap;
                tries += 1;
            }
        }
    }
}

const CAP: usize = 128;

fn hash_case(dups: bool) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let n = 100u32;
        let keys: Vec<u32> = (0..n).map(|i| if dups { i % 60 } else { i } * 7919 + 13).collect();
        let vals: Vec<u32> = (0..n).map(|i| i + 1).collect();
        let (kb, vb) = (rt.upload(&keys).unwrap(), rt.upload(&vals).unwrap());
        let mut tk = rt.upload(&vec![u32::MAX; CAP]).unwrap();
        let mut tv = rt.zeros::<u32>(CAP).unwrap();
        let r = go(hash::hash_insert.launch(rt, 2, &kb, &vb, &mut tk, &mut tv), how);
        let mut v = tk.to_vec().unwrap();
        v.extend(tv.to_vec().unwrap());
        (r, v)
    }
}

/// The table as sorted (key, value) pairs of occupied slots.
#[allow(clippy::ptr_arg)]
fn canon_table(v: &mut Vec<u32>) {
    let (k, val) = v.split_at(CAP);
    let mut p: Vec<(u32, u32)> = k.iter().zip(val).filter(|(k, _)| **k != u32::MAX).map(|(a, b)| (*a, *b)).collect();
    p.sort();
    *v = p.into_iter().flat_map(|(a, b)| [a, b]).collect();
}

#[test]
fn hash_insert_of_distinct_keys_is_clean() {
    clean_all_by("hash_insert", &hash_case(false), canon_table);
    let mut pairs: Vec<(u32, u32)> = (0..100u32).map(|i| (i * 7919 + 13, i + 1)).collect();
    pairs.sort();
    let want: Vec<u32> = pairs.into_iter().flat_map(|(a, b)| [a, b]).collect();
    for mut got in native_both(&hash_case(false)) {
        canon_table(&mut got);
        common::expect("hash_insert", &got, &want);
    }
}

#[test]
fn hash_upsert_of_duplicate_keys_races() {
    racy_verdict(&[32, 1], "hash_insert (duplicates)", &hash_case(true), &[ww(ST, WGS, "vals")]);
}

// ===================================== 14. "last workgroup done" with one atomic

#[ld::kernels]
pub mod last {
    /// RACE-FREE: each workgroup sums its tile in a shared atomic, then
    /// invocation 0 adds `(partial << 8) | 1` to one global word: the low
    /// byte counts finished workgroups, the rest sums. The `fetch_add`
    /// that returns a count of `num_workgroups - 1` is the last, and its
    /// old value holds every other partial: that invocation alone writes
    /// the total.
    #[kernel(workgroup_size = 64)]
    pub fn sum_last_done(input: &[u32], acc: &[AtomicU32], out: &mut [u32]) {
        let s = shared::<[AtomicU32; 1]>();
        s[0].fetch_add(input[global_id().x]);
        barrier();
        if local_index() == 0 {
            let part = s[0].load();
            let old = acc[0].fetch_add((part << 8) | 1);
            if (old & 0xff) == num_workgroups().x - 1 {
                out[0] = (old >> 8) + part;
            }
        }
    }

    /// RACY (ww/rw, storage, inter-workgroup): the packed counter updated
    /// with a plain read-modify-write.
    #[kernel(workgroup_size = 64)]
    pub fn sum_last_done_plain(input: &[u32], acc: &mut [u32], out: &mut [u32]) {
        let s = shared::<[AtomicU32; 1]>();
        s[0].fetch_add(input[global_id().x]);
        barrier();
        if local_index() == 0 {
            let part = s[0].load();
            let old = acc[0];
            acc[0] = old + ((part << 8) | 1);
            if (old & 0xff) == num_workgroups().x - 1 {
                out[0] = (old >> 8) + part;
            }
        }
    }
}

fn last_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&iota(256, 14)).unwrap();
        let mut a = rt.zeros::<u32>(1).unwrap();
        let mut o = rt.zeros::<u32>(1).unwrap();
        let r = if k == "sum_last_done" {
            go(last::sum_last_done.launch(rt, 4, &inb, &mut a, &mut o), how)
        } else {
            go(last::sum_last_done_plain.launch(rt, 4, &inb, &mut a, &mut o), how)
        };
        let mut v = a.to_vec().unwrap();
        v.extend(o.to_vec().unwrap());
        (r, v)
    }
}

#[test]
fn last_workgroup_done_with_one_atomic_is_clean() {
    clean_all("sum_last_done", &last_case("sum_last_done"));
    let total: u32 = iota(256, 14).iter().sum();
    for got in native_both(&last_case("sum_last_done")) {
        assert_eq!(got, vec![(total << 8) | 4, total]);
    }
}

#[test]
fn last_workgroup_done_with_plain_counter_races() {
    for w in [32, 1] {
        expect_race("sum_last_done_plain", w, &last_case("sum_last_done_plain"), &[ww(ST, WGS, "acc")]);
    }
}

// ===================================== 15. list ranking by pointer jumping

#[ld::kernels]
pub mod rank {
    /// RACE-FREE: each workgroup ranks a linked list of its 64 nodes
    /// (distance to the tail) by pointer jumping in shared memory: read
    /// into registers, barrier, write, barrier; six rounds.
    #[kernel(workgroup_size = 64)]
    pub fn list_rank(succ: &[u32], out: &mut [u32]) {
        let nxt = shared::<[u32; 64]>();
        let rk = shared::<[u32; 64]>();
        let lid = local_index();
        let base = workgroup_id().x * 64;
        let s = succ[base + lid];
        nxt[lid] = s;
        rk[lid] = if s == lid { 0 } else { 1 };
        barrier();
        for _round in 0..6u32 {
            let n = nxt[lid];
            let r = rk[lid] + rk[n];
            let nn = nxt[n];
            barrier();
            rk[lid] = r;
            nxt[lid] = nn;
            barrier();
        }
        out[base + lid] = rk[lid];
    }

    /// RACY (rw, workgroup memory, inter-warp): one barrier per round: the
    /// writes of a round race with other invocations' reads of it.
    #[kernel(workgroup_size = 64)]
    pub fn list_rank_one_barrier(succ: &[u32], out: &mut [u32]) {
        let nxt = shared::<[u32; 64]>();
        let rk = shared::<[u32; 64]>();
        let lid = local_index();
        let base = workgroup_id().x * 64;
        let s = succ[base + lid];
        nxt[lid] = s;
        rk[lid] = if s == lid { 0 } else { 1 };
        barrier();
        for _round in 0..6u32 {
            let n = nxt[lid];
            let r = rk[lid] + rk[n];
            let nn = nxt[n];
            rk[lid] = r;
            nxt[lid] = nn;
            barrier();
        }
        out[base + lid] = rk[lid];
    }
}

/// Per workgroup a list over its 64 local nodes in a scrambled order;
/// returns the successors (the tail points at itself) and each node's
/// distance to the tail.
fn rank_lists() -> (Vec<u32>, Vec<u32>) {
    let mut succ = vec![0u32; 128];
    let mut dist = vec![0u32; 128];
    for wg in 0..2u32 {
        let order: Vec<u32> = (0..64u32).map(|j| (j * 37 + wg * 5) % 64).collect();
        for (pos, &node) in order.iter().enumerate() {
            let idx = (wg * 64 + node) as usize;
            succ[idx] = if pos + 1 < 64 { order[pos + 1] } else { node };
            dist[idx] = 63 - pos as u32;
        }
    }
    (succ, dist)
}

fn rank_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let sb = rt.upload(&rank_lists().0).unwrap();
        let mut o = rt.zeros::<u32>(128).unwrap();
        let r = if k == "list_rank" {
            go(rank::list_rank.launch(rt, 2, &sb, &mut o), how)
        } else {
            go(rank::list_rank_one_barrier.launch(rt, 2, &sb, &mut o), how)
        };
        (r, o.to_vec().unwrap())
    }
}

#[test]
fn pointer_jumping_list_rank_is_clean() {
    clean_all("list_rank", &rank_case("list_rank"));
    let want = rank_lists().1;
    for got in native_both(&rank_case("list_rank")) {
        common::expect("list_rank", &got, &want);
    }
}

#[test]
fn pointer_jumping_with_one_barrier_per_round_races() {
    for w in [32, 1] {
        expect_race("list_rank_one_barrier", w, &rank_case("list_rank_one_barrier"), &[rw(WG, WARP, "rk")]);
    }
}

// ===================================== 16. workgroup vote

#[ld::kernels]
pub mod vote {
    /// RACE-FREE: "any invocation of the workgroup saw the target": a
    /// shared atomic store of 1, a barrier, everyone loads it.
    #[kernel(workgroup_size = 64)]
    pub fn vote_any_atomic(input: &[u32], out: &mut [u32], target: u32) {
        let hit = shared::<[AtomicU32; 1]>();
        if input[global_id().x] == target {
            hit[0].store(1);
        }
        barrier();
        out[global_id().x] = hit[0].load();
    }

    /// RACY (ww, workgroup memory, inter-warp): the flag as a plain shared
    /// word set to 1 by several invocations ("benign", but a data race).
    #[kernel(workgroup_size = 64)]
    pub fn vote_any_plain(input: &[u32], out: &mut [u32], target: u32) {
        let hit = shared::<[u32; 1]>();
        if input[global_id().x] == target {
            hit[0] = 1;
        }
        barrier();
        out[global_id().x] = hit[0];
    }
}

fn vote_input() -> Vec<u32> {
    // 5 at 3 and 40 (both warps of workgroup 0), at 70 (workgroup 1).
    (0..192u32).map(|i| if i == 3 || i == 40 || i == 70 { 5 } else { i % 4 + 100 }).collect()
}

fn vote_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&vote_input()).unwrap();
        let mut o = rt.zeros::<u32>(192).unwrap();
        let r = if k == "vote_any_atomic" {
            go(vote::vote_any_atomic.launch(rt, 3, &inb, &mut o, 5u32), how)
        } else {
            go(vote::vote_any_plain.launch(rt, 3, &inb, &mut o, 5u32), how)
        };
        (r, o.to_vec().unwrap())
    }
}

#[test]
fn atomic_workgroup_vote_is_clean() {
    clean_all("vote_any_atomic", &vote_case("vote_any_atomic"));
    let want: Vec<u32> = (0..192).map(|i| if i < 128 { 1 } else { 0 }).collect();
    for got in native_both(&vote_case("vote_any_atomic")) {
        common::expect("vote_any_atomic", &got, &want);
    }
}

#[test]
fn plain_workgroup_vote_races() {
    expect_race("vote_any_plain", 32, &vote_case("vote_any_plain"), &[ww(WG, WARP, "hit")]);
    expect_race("vote_any_plain", 1, &vote_case("vote_any_plain"), &[ww(WG, WARP, "hit")]);
}

// ===================================== 17. clamp in place (silent writes)

#[ld::kernels]
pub mod clampm {
    /// RACE-FREE: invocation g clamps its even word in place (the value
    /// already there wherever it is under the limit: a silent write) and
    /// reads an odd word, which nobody writes, of the next workgroup's
    /// range, on pages other workgroups write.
    #[kernel(workgroup_size = 64)]
    pub fn clamp_even_read_odd(data: &mut [u32], out: &mut [u32], limit: u32) {
        let g = global_id().x;
        let n = data.len();
        data[2 * g] = data[2 * g].min(limit);
        out[g] = data[(2 * g + 129) % n];
    }

    /// RACY (rw, storage, inter-workgroup): off by one, it reads the even
    /// word the next workgroup's invocation g + 64 clamps.
    #[kernel(workgroup_size = 64)]
    pub fn clamp_even_read_even(data: &mut [u32], out: &mut [u32], limit: u32) {
        let g = global_id().x;
        let n = data.len();
        data[2 * g] = data[2 * g].min(limit);
        out[g] = data[(2 * g + 128) % n];
    }
}

fn clamp_case(k: &'static str, limit: u32) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let mut d = rt.upload(&iota(512, 15)).unwrap();
        let mut o = rt.zeros::<u32>(256).unwrap();
        let r = if k == "clamp_even_read_odd" {
            go(clampm::clamp_even_read_odd.launch(rt, 4, &mut d, &mut o, limit), how)
        } else {
            go(clampm::clamp_even_read_even.launch(rt, 4, &mut d, &mut o, limit), how)
        };
        let mut v = d.to_vec().unwrap();
        v.extend(o.to_vec().unwrap());
        (r, v)
    }
}

#[test]
fn clamp_in_place_reading_unwritten_words_is_clean() {
    for limit in [900, 2000] {
        clean_all("clamp_even_read_odd", &clamp_case("clamp_even_read_odd", limit));
        let d = iota(512, 15);
        let mut want: Vec<u32> = d.iter().enumerate().map(|(i, &x)| if i % 2 == 0 { x.min(limit) } else { x }).collect();
        want.extend((0..256).map(|g| d[(2 * g + 129) % 512]));
        for got in native_both(&clamp_case("clamp_even_read_odd", limit)) {
            common::expect("clamp_even_read_odd", &got, &want);
        }
    }
}

#[test]
fn clamp_in_place_reading_clamped_words_races() {
    for w in [32, 1] {
        expect_race("clamp_even_read_even (limit 900)", w, &clamp_case("clamp_even_read_even", 900), &[rw(ST, WGS, "data")]);
    }
}

/// Every write is silent (the limit is above every value): the read of
/// another workgroup's silently written word races all the same, and
/// README says such a race is found.
#[test]
fn clamp_in_place_reading_silently_written_words_races() {
    for w in [32, 1] {
        expect_race("clamp_even_read_even (limit 2000)", w, &clamp_case("clamp_even_read_even", 2000), &[rw(ST, WGS, "data")]);
    }
}

// ===================================== 18. electing one initializer with swap

#[ld::kernels]
pub mod elect {
    /// RACE-FREE: the first invocation to `swap` a bucket's flag from 0 to 1
    /// initializes the bucket's header (one writer per header); every
    /// invocation counts itself into the bucket with `fetch_add`.
    #[kernel(workgroup_size = 64)]
    pub fn init_once(keys: &[u32], flags: &[AtomicU32], header: &mut [u32], count: &[AtomicU32]) {
        let i = global_id().x;
        if i < keys.len() {
            let b = keys[i] % 16;
            if flags[b].swap(1) == 0 {
                header[b] = b * 10 + 1;
            }
            count[b].fetch_add(1);
        }
    }

    /// RACY (rw/ww, storage, inter-workgroup): test-and-set with plain
    /// loads and stores of the flag.
    #[kernel(workgroup_size = 64)]
    pub fn init_once_plain(keys: &[u32], flags: &mut [u32], header: &mut [u32], count: &[AtomicU32]) {
        let i = global_id().x;
        if i < keys.len() {
            let b = keys[i] % 16;
            if flags[b] == 0 {
                flags[b] = 1;
                header[b] = b * 10 + 1;
            }
            count[b].fetch_add(1);
        }
    }
}

fn elect_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let kb = rt.upload(&iota(256, 16)).unwrap();
        let mut f = rt.zeros::<u32>(16).unwrap();
        let mut h = rt.zeros::<u32>(16).unwrap();
        let mut c = rt.zeros::<u32>(16).unwrap();
        let r = if k == "init_once" {
            go(elect::init_once.launch(rt, 4, &kb, &mut f, &mut h, &mut c), how)
        } else {
            go(elect::init_once_plain.launch(rt, 4, &kb, &mut f, &mut h, &mut c), how)
        };
        let mut v = f.to_vec().unwrap();
        v.extend(h.to_vec().unwrap());
        v.extend(c.to_vec().unwrap());
        (r, v)
    }
}

#[test]
fn election_by_swap_is_clean() {
    clean_all("init_once", &elect_case("init_once"));
    let keys = iota(256, 16);
    let mut counts = vec![0u32; 16];
    for k in &keys {
        counts[(k % 16) as usize] += 1;
    }
    let flags: Vec<u32> = counts.iter().map(|&c| (c > 0) as u32).collect();
    let header: Vec<u32> = (0..16u32).map(|b| if counts[b as usize] > 0 { b * 10 + 1 } else { 0 }).collect();
    let want = [flags, header, counts].concat();
    for got in native_both(&elect_case("init_once")) {
        common::expect("init_once", &got, &want);
    }
}

#[test]
fn election_by_plain_test_and_set_races() {
    racy_verdict(&[32, 1], "init_once_plain", &elect_case("init_once_plain"), &[ww(ST, WGS, "flags")]);
}

// ===================================== 19. minimal repros

#[ld::kernels]
pub mod mini {
    /// RACY (rw, storage, intra-warp): lane 1 writes `data[0]`, a
    /// `barrier()` (which does not order storage), lane 0 reads it.
    #[kernel(workgroup_size = 32)]
    pub fn intra_across_wg_barrier(data: &mut [u32], out: &mut [u32]) {
        let lid = local_index();
        if lid == 1 {
            data[0] = 7;
        }
        barrier();
        if lid == 0 {
            out[0] = data[0];
        }
    }

    /// RACY (rw, workgroup memory, intra-warp): the mirror: lane 1 writes
    /// `s[0]`, a `storage_barrier()`, lane 0 reads it.
    #[kernel(workgroup_size = 32)]
    pub fn intra_shared_across_storage_barrier(out: &mut [u32]) {
        let s = shared::<[u32; 1]>();
        let lid = local_index();
        if lid == 1 {
            s[0] = 7;
        }
        storage_barrier();
        if lid == 0 {
            out[0] = s[0];
        }
    }

    /// RACY (rw, storage): invocation `writer` clamps `data[0]` in place
    /// (a read, then a write of the value already there), invocation
    /// `reader` reads it; no barrier.
    #[kernel(workgroup_size = 64)]
    pub fn silent_rmw(data: &mut [u32], out: &mut [u32], writer: u32, reader: u32) {
        let g = global_id().x;
        if g == writer {
            data[0] = data[0].min(100);
        }
        if g == reader {
            out[0] = data[0];
        }
    }

    /// RACY (rw, storage): the same with a write that does not read first.
    #[kernel(workgroup_size = 64)]
    pub fn silent_store(data: &mut [u32], out: &mut [u32], writer: u32, reader: u32) {
        let g = global_id().x;
        if g == writer {
            data[0] = 5;
        }
        if g == reader {
            out[0] = data[0];
        }
    }
}

#[ld::kernels]
pub mod mini2 {
    /// RACY (ww, storage, intra-warp): lane 1 writes `data[0]`,
    /// `barrier()`, lane 0 writes it.
    #[kernel(workgroup_size = 32)]
    pub fn intra_ww_across_wg_barrier(data: &mut [u32]) {
        let lid = local_index();
        if lid == 1 {
            data[0] = 7;
        }
        barrier();
        if lid == 0 {
            data[0] = 9;
        }
    }

    /// RACY (rw, storage, intra-warp): lane 0 reads `data[0]`,
    /// `barrier()`, lane 1 writes it.
    #[kernel(workgroup_size = 32)]
    pub fn intra_war_across_wg_barrier(data: &mut [u32], out: &mut [u32]) {
        let lid = local_index();
        if lid == 0 {
            out[0] = data[0];
        }
        barrier();
        if lid == 1 {
            data[0] = 7;
        }
    }
}

fn mini2_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let mut d = rt.upload(&[5u32, 6, 7, 8]).unwrap();
        let mut o = rt.zeros::<u32>(1).unwrap();
        let r = if k == "intra_ww_across_wg_barrier" {
            go(mini2::intra_ww_across_wg_barrier.launch(rt, 1, &mut d), how)
        } else {
            go(mini2::intra_war_across_wg_barrier.launch(rt, 1, &mut d, &mut o), how)
        };
        let mut v = d.to_vec().unwrap();
        v.extend(o.to_vec().unwrap());
        (r, v)
    }
}

fn mini_case(k: &'static str, writer: u32, reader: u32) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let mut d = rt.upload(&[5u32, 6, 7, 8]).unwrap();
        let mut o = rt.zeros::<u32>(1).unwrap();
        let r = match k {
            "intra_across_wg_barrier" => go(mini::intra_across_wg_barrier.launch(rt, 1, &mut d, &mut o), how),
            "intra_shared_across_storage_barrier" => go(mini::intra_shared_across_storage_barrier.launch(rt, 1, &mut o), how),
            "silent_rmw" => go(mini::silent_rmw.launch(rt, 2, &mut d, &mut o, writer, reader), how),
            _ => go(mini::silent_store.launch(rt, 2, &mut d, &mut o, writer, reader), how),
        };
        let mut v = d.to_vec().unwrap();
        v.extend(o.to_vec().unwrap());
        (r, v)
    }
}

/// A barrier of the wrong kind lies between lane 1's write and lane 0's
/// read: nothing orders them (exact mode reports it), but lane tags only
/// see lanes of a warp race inside one region, so at warp size 32 the
/// check reports nothing (a known miss, README). At warp size 1
/// (different warps) it is found.
#[test]
fn inter_warp_race_across_wrong_barrier_is_found() {
    expect_race("intra_across_wg_barrier", 1, &mini_case("intra_across_wg_barrier", 0, 0), &[rw(ST, WARP, "data")]);
    expect_race("intra_shared_across_storage_barrier", 1, &mini_case("intra_shared_across_storage_barrier", 0, 0), &[rw(WG, WARP, "s")]);
    expect_race("intra_ww_across_wg_barrier", 1, &mini2_case("intra_ww_across_wg_barrier"), &[ww(ST, WARP, "data")]);
    expect_race("intra_war_across_wg_barrier", 1, &mini2_case("intra_war_across_wg_barrier"), &[rw(ST, WARP, "data")]);
}

/// A write of the value already there that does not read first races with
/// another unit's read, and is found at every level.
#[test]
fn silent_store_racing_with_a_read_is_found() {
    expect_race("silent_store wg", 32, &mini_case("silent_store", 0, 64), &[rw(ST, WGS, "data")]);
    expect_race("silent_store warp", 32, &mini_case("silent_store", 0, 32), &[rw(ST, WARP, "data")]);
    expect_race("silent_store warp 1", 1, &mini_case("silent_store", 0, 1), &[rw(ST, WARP, "data")]);
    expect_race("silent_store lanes", 32, &mini_case("silent_store", 0, 1), &[]);
}

/// The writer reads the word, then writes back the value it held
/// (`x = x.min(limit)` under the limit): a write all the same, unordered
/// with the other unit's read, found at every level.
#[test]
fn silent_read_modify_write_racing_with_a_read_is_found() {
    expect_race("silent_rmw wg", 32, &mini_case("silent_rmw", 0, 64), &[rw(ST, WGS, "data")]);
    expect_race("silent_rmw warp", 32, &mini_case("silent_rmw", 0, 32), &[rw(ST, WARP, "data")]);
    expect_race("silent_rmw warp 1", 1, &mini_case("silent_rmw", 0, 1), &[rw(ST, WARP, "data")]);
}

// ===================================== 20. idempotent resets across storage barriers

#[ld::kernels]
pub mod reset {
    /// RACE-FREE: each invocation resets its slot to the default 7 (a
    /// silent write where it holds 7 already), `storage_barrier()`, reads
    /// the slot 33 away (the other warp's), `storage_barrier()`, resets
    /// that slot (one writer per slot), `storage_barrier()`, reads its own.
    #[kernel(workgroup_size = 64)]
    pub fn reset_read_reset(data: &mut [u32], out: &mut [u32]) {
        let lid = local_index();
        let base = workgroup_id().x * 64;
        data[base + lid] = 7;
        storage_barrier();
        let r = data[base + (lid + 33) % 64];
        storage_barrier();
        data[base + (lid + 33) % 64] = 7;
        storage_barrier();
        out[base + lid] = r + data[base + lid];
    }

    /// RACY (rw, storage, inter-warp): the second reset goes to slot
    /// lid + 1 with no barrier after the reads: slot j is read by j - 33
    /// and reset (to the 7 it holds: silently) by j - 1 in one epoch.
    #[kernel(workgroup_size = 64)]
    pub fn reset_read_reset_racy(data: &mut [u32], out: &mut [u32]) {
        let lid = local_index();
        let base = workgroup_id().x * 64;
        data[base + lid] = 7;
        storage_barrier();
        let r = data[base + (lid + 33) % 64];
        data[base + (lid + 1) % 64] = 7;
        storage_barrier();
        out[base + lid] = r + data[base + lid];
    }

    /// RACE-FREE: the same protocol in workgroup memory with `barrier()`.
    #[kernel(workgroup_size = 64)]
    pub fn reset_read_reset_shared(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 64]>();
        let lid = local_index();
        s[lid] = input[global_id().x];
        barrier();
        s[lid] = 7;
        barrier();
        let r = s[(lid + 33) % 64];
        barrier();
        s[(lid + 33) % 64] = 7;
        barrier();
        out[global_id().x] = r + s[lid];
    }
}

fn reset_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let init: Vec<u32> = (0..128u32).map(|i| if i % 3 == 0 { 3 } else { 7 }).collect();
        let mut d = rt.upload(&init).unwrap();
        let mut o = rt.zeros::<u32>(128).unwrap();
        let r = match k {
            "reset_read_reset" => go(reset::reset_read_reset.launch(rt, 2, &mut d, &mut o), how),
            "reset_read_reset_racy" => go(reset::reset_read_reset_racy.launch(rt, 2, &mut d, &mut o), how),
            _ => go(reset::reset_read_reset_shared.launch(rt, 2, &d, &mut o), how),
        };
        let mut v = d.to_vec().unwrap();
        v.extend(o.to_vec().unwrap());
        (r, v)
    }
}

#[test]
fn idempotent_resets_across_barriers_are_clean() {
    clean_all("reset_read_reset", &reset_case("reset_read_reset"));
    clean_all("reset_read_reset_shared", &reset_case("reset_read_reset_shared"));
    let want = [vec![7u32; 128], vec![14u32; 128]].concat();
    for got in native_both(&reset_case("reset_read_reset")) {
        common::expect("reset_read_reset", &got, &want);
    }
}

#[test]
fn silent_reset_racing_with_a_read_races() {
    for w in [32, 1] {
        expect_race("reset_read_reset_racy", w, &reset_case("reset_read_reset_racy"), &[rw(ST, WARP, "data")]);
    }
}

// ===================================== 21. label propagation in workgroup memory

#[ld::kernels]
pub mod lprop {
    /// RACE-FREE: each workgroup's 64 nodes form rings of 16 (node j's
    /// neighbours are j +- 1 within its ring); 16 rounds of "take the
    /// smallest label among me and my two neighbours", read into a
    /// register, barrier, write, barrier. Later rounds write the labels
    /// already there (silent writes).
    #[kernel(workgroup_size = 64)]
    pub fn ring_labels(seed: &[u32], out: &mut [u32]) {
        let lab = shared::<[u32; 64]>();
        let lid = local_index();
        let ring = lid / 16 * 16;
        let left = ring + (lid + 15) % 16;
        let right = ring + (lid + 1) % 16;
        lab[lid] = seed[global_id().x];
        barrier();
        for _round in 0..16u32 {
            let m = lab[lid].min(lab[left]).min(lab[right]);
            barrier();
            lab[lid] = m;
            barrier();
        }
        out[global_id().x] = lab[lid];
    }

    /// RACY (rw, workgroup memory): one barrier per round: a node writes
    /// its label while its neighbours read it. Rings 1 and 2 straddle
    /// lanes 31 and 32 only at warp sizes below 16, so at warp size 32 the
    /// races are between lanes of a warp.
    #[kernel(workgroup_size = 64)]
    pub fn ring_labels_one_barrier(seed: &[u32], out: &mut [u32]) {
        let lab = shared::<[u32; 64]>();
        let lid = local_index();
        let ring = lid / 16 * 16;
        let left = ring + (lid + 15) % 16;
        let right = ring + (lid + 1) % 16;
        lab[lid] = seed[global_id().x];
        barrier();
        for _round in 0..16u32 {
            let m = lab[lid].min(lab[left]).min(lab[right]);
            lab[lid] = m;
            barrier();
        }
        out[global_id().x] = lab[lid];
    }
}

fn lprop_case(k: &'static str, seed: Vec<u32>) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let sb = rt.upload(&seed).unwrap();
        let mut o = rt.zeros::<u32>(128).unwrap();
        let r = if k == "ring_labels" {
            go(lprop::ring_labels.launch(rt, 2, &sb, &mut o), how)
        } else {
            go(lprop::ring_labels_one_barrier.launch(rt, 2, &sb, &mut o), how)
        };
        (r, o.to_vec().unwrap())
    }
}

#[test]
fn ring_label_propagation_in_shared_memory_is_clean() {
    let seed = iota(128, 17);
    clean_all("ring_labels", &lprop_case("ring_labels", seed.clone()));
    let want: Vec<u32> = seed.chunks(16).flat_map(|c| std::iter::repeat_n(*c.iter().min().unwrap(), 16)).collect();
    for got in native_both(&lprop_case("ring_labels", seed.clone())) {
        common::expect("ring_labels", &got, &want);
    }
}

#[test]
fn ring_label_propagation_with_one_barrier_races() {
    let seed = iota(128, 17);
    for w in [32, 4, 1] {
        expect_race("ring_labels_one_barrier", w, &lprop_case("ring_labels_one_barrier", seed.clone()), &[]);
    }
    expect_race("ring_labels_one_barrier", 1, &lprop_case("ring_labels_one_barrier", seed.clone()), &[rw(WG, WARP, "lab")]);
}

/// The seed is already settled (every ring holds one label): every write
/// of every round stores the value already there, after reading it; the
/// neighbours' reads in the same region race with those silent writes all
/// the same. Between lanes of one warp the tags show it.
#[test]
fn settled_ring_labels_with_one_barrier_race_between_lanes() {
    let seed: Vec<u32> = (0..128u32).map(|i| i / 16 + 1).collect();
    expect_race("ring_labels_one_barrier (settled)", 32, &lprop_case("ring_labels_one_barrier", seed.clone()), &[rw(WG, INTRA, "lab")]);
}

#[test]
fn settled_ring_labels_with_one_barrier_race_between_warps() {
    let seed: Vec<u32> = (0..128u32).map(|i| i / 16 + 1).collect();
    for w in [1, 4] {
        expect_race("ring_labels_one_barrier (settled)", w, &lprop_case("ring_labels_one_barrier", seed.clone()), &[rw(WG, WARP, "lab")]);
    }
}

// ===================================== 21b. own words across the wrong barrier, resets between workgroups

#[ld::kernels]
pub mod own {
    /// RACE-FREE: each invocation resets its own slot to 7 (silently
    /// where it holds 7), `barrier()` (which does not order storage, but
    /// one invocation's accesses are in program order), reads it back, and
    /// resets it again after reading it.
    #[kernel(workgroup_size = 64)]
    pub fn own_reset_across_wg_barrier(data: &mut [u32], out: &mut [u32]) {
        let i = global_id().x;
        data[i] = 7;
        barrier();
        out[i] = data[i] * 2;
        barrier();
        data[i] = out[i] / 2;
    }

    /// RACE-FREE: invocation g resets even word 2g (silently where it
    /// holds 7) and reads odd word 2g + 129 of another workgroup's range
    /// (nobody writes odd words).
    #[kernel(workgroup_size = 64)]
    pub fn reset_even_read_odd(data: &mut [u32], out: &mut [u32]) {
        let g = global_id().x;
        data[2 * g] = 7;
        out[g] = data[(2 * g + 129) % data.len()];
    }
}

fn own_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let init: Vec<u32> = (0..512u32).map(|i| if i % 5 == 0 { 3 } else { 7 }).collect();
        let mut d = rt.upload(&init).unwrap();
        let mut o = rt.zeros::<u32>(256).unwrap();
        let r = if k == "own_reset_across_wg_barrier" {
            go(own::own_reset_across_wg_barrier.launch(rt, 4, &mut d, &mut o), how)
        } else {
            go(own::reset_even_read_odd.launch(rt, 4, &mut d, &mut o), how)
        };
        let mut v = d.to_vec().unwrap();
        v.extend(o.to_vec().unwrap());
        (r, v)
    }
}

#[test]
fn own_words_across_a_workgroup_barrier_are_clean() {
    clean_all("own_reset_across_wg_barrier", &own_case("own_reset_across_wg_barrier"));
    let init: Vec<u32> = (0..512u32).map(|i| if i % 5 == 0 { 3 } else { 7 }).collect();
    let mut want: Vec<u32> = init.iter().enumerate().map(|(i, &x)| if i < 256 { 7 } else { x }).collect();
    want.extend(vec![14u32; 256]);
    for got in native_both(&own_case("own_reset_across_wg_barrier")) {
        common::expect("own_reset_across_wg_barrier", &got, &want);
    }
}

#[test]
fn silent_resets_beside_reads_of_unwritten_words_are_clean() {
    clean_all("reset_even_read_odd", &own_case("reset_even_read_odd"));
    let init: Vec<u32> = (0..512u32).map(|i| if i % 5 == 0 { 3 } else { 7 }).collect();
    let mut want: Vec<u32> = init.iter().enumerate().map(|(i, &x)| if i % 2 == 0 { 7 } else { x }).collect();
    want.extend((0..256).map(|g| init[(2 * g + 129) % 512]));
    for got in native_both(&own_case("reset_even_read_odd")) {
        common::expect("reset_even_read_odd", &got, &want);
    }
}

// ===================================== 21c. silent resets behind both kinds of barrier, in a loop

#[ld::kernels]
pub mod both {
    /// RACE-FREE: three rounds of: reset my slot (silently where it
    /// holds 7), `barrier()` then `storage_barrier()`, read the other
    /// warp's slot, `storage_barrier()` then `barrier()`, reset the slot I
    /// read (its owner's reset is ordered before by the storage barrier),
    /// both barriers again. Shared memory takes the same path with the
    /// barriers' roles swapped.
    #[kernel(workgroup_size = 64)]
    pub fn reset_rounds(data: &mut [u32], out: &mut [u32]) {
        let s = shared::<[u32; 64]>();
        let lid = local_index();
        let base = workgroup_id().x * 64;
        let other = (lid + 32) % 64;
        let mut acc = 0u32;
        for round in 0..3u32 {
            data[base + lid] = 7;
            s[lid] = 7 + round % 2;
            barrier();
            storage_barrier();
            acc += data[base + other] + s[other];
            storage_barrier();
            barrier();
            data[base + other] = 7;
            s[other] = 7;
            barrier();
            storage_barrier();
        }
        out[base + lid] = acc + data[base + lid] + s[lid];
    }
}

fn both_case(rt: &Runtime, how: How) -> (Option<Report>, Vec<u32>) {
    let init: Vec<u32> = (0..128u32).map(|i| if i % 3 == 0 { 3 } else { 7 }).collect();
    let mut d = rt.upload(&init).unwrap();
    let mut o = rt.zeros::<u32>(128).unwrap();
    let r = go(both::reset_rounds.launch(rt, 2, &mut d, &mut o), how);
    let mut v = d.to_vec().unwrap();
    v.extend(o.to_vec().unwrap());
    (r, v)
}

#[test]
fn silent_resets_behind_both_barriers_in_a_loop_are_clean() {
    clean_all("reset_rounds", &both_case);
    // acc = (7 + 7) + (7 + 8) + (7 + 7) = 43; then 7 + 7.
    let want = [vec![7u32; 128], vec![57u32; 128]].concat();
    for got in native_both(&both_case) {
        common::expect("reset_rounds", &got, &want);
    }
}

// ===================================== 21d. radix split with a Blelloch scan

#[ld::kernels]
pub mod split {
    /// RACE-FREE: one pass of a radix sort inside each 128-key workgroup:
    /// flags of keys whose bit is 0, a work-efficient (Blelloch) exclusive
    /// scan, up-sweep and down-sweep, a barrier after every level; every
    /// invocation reads the total, a barrier, invocation 0 clears the root,
    /// and the keys scatter stably to their slots.
    #[kernel(workgroup_size = 128)]
    pub fn split_by_bit(keys: &[u32], out: &mut [u32], bit: u32) {
        let t = shared::<[u32; 128]>();
        let lid = local_index();
        let base = workgroup_id().x * 128;
        let k = keys[base + lid];
        let f = 1 - ((k >> bit) & 1);
        t[lid] = f;
        barrier();
        let mut off = 1u32;
        let mut d = 64u32;
        while d > 0 {
            if lid < d {
                let ai = off * (2 * lid + 1) - 1;
                let bi = off * (2 * lid + 2) - 1;
                t[bi] += t[ai];
            }
            off *= 2;
            d >>= 1;
            barrier();
        }
        let total = t[127];
        barrier();
        if lid == 0 {
            t[127] = 0;
        }
        barrier();
        let mut d2 = 1u32;
        while d2 < 128 {
            off >>= 1;
            if lid < d2 {
                let ai = off * (2 * lid + 1) - 1;
                let bi = off * (2 * lid + 2) - 1;
                let x = t[ai];
                t[ai] = t[bi];
                t[bi] += x;
            }
            d2 *= 2;
            barrier();
        }
        let pos = if f == 1 { t[lid] } else { total + lid - t[lid] };
        out[base + pos] = k;
    }

    /// RACY (rw, workgroup memory, inter-warp): no barrier between
    /// everyone reading the total from the root and invocation 0 clearing
    /// it.
    #[kernel(workgroup_size = 128)]
    pub fn split_by_bit_racy_root(keys: &[u32], out: &mut [u32], bit: u32) {
        let t = shared::<[u32; 128]>();
        let lid = local_index();
        let base = workgroup_id().x * 128;
        let k = keys[base + lid];
        let f = 1 - ((k >> bit) & 1);
        t[lid] = f;
        barrier();
        let mut off = 1u32;
        let mut d = 64u32;
        while d > 0 {
            if lid < d {
                let ai = off * (2 * lid + 1) - 1;
                let bi = off * (2 * lid + 2) - 1;
                t[bi] += t[ai];
            }
            off *= 2;
            d >>= 1;
            barrier();
        }
        let total = t[127];
        if lid == 0 {
            t[127] = 0;
        }
        barrier();
        let mut d2 = 1u32;
        while d2 < 128 {
            off >>= 1;
            if lid < d2 {
                let ai = off * (2 * lid + 1) - 1;
                let bi = off * (2 * lid + 2) - 1;
                let x = t[ai];
                t[ai] = t[bi];
                t[bi] += x;
            }
            d2 *= 2;
            barrier();
        }
        let pos = if f == 1 { t[lid] } else { total + lid - t[lid] };
        out[base + pos] = k;
    }
}

fn split_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let kb = rt.upload(&iota(256, 18)).unwrap();
        let mut o = rt.zeros::<u32>(256).unwrap();
        let r = if k == "split_by_bit" {
            go(split::split_by_bit.launch(rt, 2, &kb, &mut o, 2u32), how)
        } else {
            go(split::split_by_bit_racy_root.launch(rt, 2, &kb, &mut o, 2u32), how)
        };
        (r, o.to_vec().unwrap())
    }
}

#[test]
fn radix_split_with_blelloch_scan_is_clean() {
    clean_all("split_by_bit", &split_case("split_by_bit"));
    let want: Vec<u32> = iota(256, 18)
        .chunks(128)
        .flat_map(|c| {
            let mut v: Vec<u32> = c.iter().copied().filter(|k| (k >> 2) & 1 == 0).collect();
            v.extend(c.iter().copied().filter(|k| (k >> 2) & 1 == 1));
            v
        })
        .collect();
    for got in native_both(&split_case("split_by_bit")) {
        common::expect("split_by_bit", &got, &want);
    }
}

#[test]
fn radix_split_clearing_the_root_without_barrier_races() {
    for w in [32, 1] {
        expect_race("split_by_bit_racy_root", w, &split_case("split_by_bit_racy_root"), &[rw(WG, WARP, "t")]);
    }
}

// ===================================== 22. deterministic mode on the racy twins, run after run

/// A named case, boxed.
type Named = (&'static str, Box<dyn Fn(&Runtime, How) -> (Option<Report>, Vec<u32>)>);

#[test]
fn deterministic_mode_repeats_on_racy_twins() {
    let cases: Vec<Named> = vec![
        ("append_runs_plain", Box::new(append_case("append_runs_plain"))),
        ("drain_plain", Box::new(queue_case("drain_plain"))),
        ("hook_plain", Box::new(cc_case("hook_plain"))),
        ("bitset_plain", Box::new(bits_case("bitset_plain"))),
        ("pack_bytes_plain", Box::new(pack_case("pack_bytes_plain"))),
        ("normalize_tile_racy", Box::new(bcast_case("normalize_tile_racy"))),
        ("axpy_block_stride", Box::new(gs_case("axpy_block_stride"))),
        ("sort8_shared_scratch", Box::new(priv_case("sort8_shared_scratch"))),
        ("bin_particles_plain", Box::new(cells_case("bin_particles_plain"))),
        ("list_rank_one_barrier", Box::new(rank_case("list_rank_one_barrier"))),
        ("vote_any_plain", Box::new(vote_case("vote_any_plain"))),
    ];
    for (name, case) in &cases {
        let mut first: Option<Vec<u32>> = None;
        for rt in common::runtimes() {
            for _ in 0..3 {
                let (_, v) = case(&rt, How::Deterministic);
                match &first {
                    None => first = Some(v),
                    Some(f) => assert!(f == &v, "{name}: deterministic mode on {:?} differs from the first run", rt.backend()),
                }
            }
        }
    }
}

// ===================================== 23. report text

/// A group's diagnostic lists the union of its races' words on the
/// `words:` line, but the `places:` line names only the first race's
/// words: the inter-warp group of `bin_particles_plain` at warp size 1
/// says "words: 0..16 (16 in all)" and "places: head[0], ...".
#[test]
fn group_places_name_the_groups_words() {
    for rt in common::runtimes() {
        let (rep, _) = cells_case("bin_particles_plain")(&rt, How::Check(1));
        let text = rep.unwrap().to_string();
        let group = text.split("warning:").find(|g| g.contains("(inter-warp)")).expect("an inter-warp group");
        let places = group.lines().find(|l| l.contains("= places:")).expect("a places line");
        assert!(places.contains("head[1]"), "on {:?}: {places}\n{group}", rt.backend());
    }
}
