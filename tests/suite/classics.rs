//! Textbook GPU kernels (CUDA samples, GPU Gems, "Programming Massively
//! Parallel Processors") in variants the other suites do not hold: a
//! row-looped transpose on a (32, 8) workgroup through a padded shared
//! tile and through per-workgroup storage scratch, a register-blocked
//! tiled matrix multiply on a (16, 4) workgroup with a helper over shared
//! slices, the GPU Gems 3 scan with bank-conflict-free offsets, odd-even
//! transposition sort in workgroup memory, a temporally blocked 2-D Jacobi
//! sweep ping-ponging between two halves of one shared array, CUDA's
//! `reduce6` (grid-stride, two loads per invocation) in f32, CSR-vector
//! SpMV (one workgroup per row, early return after the last barrier), a
//! 2-D-tiled image histogram with shared atomic bins, a segmented
//! Hillis-Steele scan and block-local stream compaction. Each kernel's
//! verdict is decided by hand under the WGSL memory model and stated in
//! its doc comment; each racy twin holds one realistic bug. The harness is
//! tests/suite/support/verdicts.rs, as the catalogue's.
use crate::support as common;

use common::verdicts::*;
use ld::{Report, Runtime};

/// A racy kernel at warp sizes 32, 4 and 1: every backend reports a race
/// like each `want`, exact mode contains every reported race.
fn racy_all(name: &str, case: Case, wants: &[Want]) {
    for w in [32, 4, 1] {
        expect_race(name, w, case, wants);
    }
}

// ===================================== 1. transpose, 32 x 8 invocations per 32 x 32 tile

#[ld::kernels]
pub mod tr {
    /// RACE-FREE: NVIDIA's `transposeNoBankConflicts`: a 32 x 32 tile
    /// padded to 33 columns, a (32, 8) workgroup, each invocation loading
    /// and storing four rows (`j` in steps of 8); one barrier between load
    /// and store. Edge tiles are partial (w = 48, h = 40).
    #[kernel(workgroup_size = (32, 8))]
    pub fn transpose_rows(input: &[f32], out: &mut [f32], w: u32, h: u32) {
        let tile = shared::<[f32; 1056]>();
        let tx = local_id().x;
        let ty = local_id().y;
        let x = workgroup_id().x * 32 + tx;
        let y0 = workgroup_id().y * 32 + ty;
        for j in (0..32u32).step_by(8) {
            if x < w && y0 + j < h {
                tile[(ty + j) * 33 + tx] = input[(y0 + j) * w + x];
            }
        }
        barrier();
        let ox = workgroup_id().y * 32 + tx;
        let oy0 = workgroup_id().x * 32 + ty;
        for j in (0..32u32).step_by(8) {
            if ox < h && oy0 + j < w {
                out[(oy0 + j) * h + ox] = tile[tx * 33 + ty + j];
            }
        }
    }

    /// RACY (rw, workgroup memory, inter-warp): `transpose_rows` with
    /// `storage_barrier()` where `barrier()` belongs; storageBarrier does
    /// not order workgroup memory, so (tx, ty) reads row tx of the tile,
    /// written by the invocations with ty' = tx % 8 in the same epoch.
    #[kernel(workgroup_size = (32, 8))]
    pub fn transpose_rows_storage_barrier(input: &[f32], out: &mut [f32], w: u32, h: u32) {
        let tile = shared::<[f32; 1056]>();
        let tx = local_id().x;
        let ty = local_id().y;
        let x = workgroup_id().x * 32 + tx;
        let y0 = workgroup_id().y * 32 + ty;
        for j in (0..32u32).step_by(8) {
            if x < w && y0 + j < h {
                tile[(ty + j) * 33 + tx] = input[(y0 + j) * w + x];
            }
        }
        storage_barrier();
        let ox = workgroup_id().y * 32 + tx;
        let oy0 = workgroup_id().x * 32 + ty;
        for j in (0..32u32).step_by(8) {
            if ox < h && oy0 + j < w {
                out[(oy0 + j) * h + ox] = tile[tx * 33 + ty + j];
            }
        }
    }

    /// RACE-FREE: the same transpose staged through a per-workgroup slice
    /// of a storage scratch buffer (what one writes when the tile does not
    /// fit workgroup memory), ordered by `storage_barrier()`; no two
    /// workgroups touch the same scratch words.
    #[kernel(workgroup_size = (32, 8))]
    pub fn transpose_scratch(input: &[f32], scratch: &mut [f32], out: &mut [f32], w: u32, h: u32) {
        let tx = local_id().x;
        let ty = local_id().y;
        let wg = workgroup_id().y * num_workgroups().x + workgroup_id().x;
        let sb = wg * 1056;
        let x = workgroup_id().x * 32 + tx;
        let y0 = workgroup_id().y * 32 + ty;
        for j in (0..32u32).step_by(8) {
            if x < w && y0 + j < h {
                scratch[sb + (ty + j) * 33 + tx] = input[(y0 + j) * w + x];
            }
        }
        storage_barrier();
        let ox = workgroup_id().y * 32 + tx;
        let oy0 = workgroup_id().x * 32 + ty;
        for j in (0..32u32).step_by(8) {
            if ox < h && oy0 + j < w {
                out[(oy0 + j) * h + ox] = scratch[sb + tx * 33 + ty + j];
            }
        }
    }

    /// RACY (rw, storage, inter-warp): `transpose_scratch` with
    /// `barrier()` (workgroupBarrier), which does not order storage.
    #[kernel(workgroup_size = (32, 8))]
    pub fn transpose_scratch_wg_barrier(input: &[f32], scratch: &mut [f32], out: &mut [f32], w: u32, h: u32) {
        let tx = local_id().x;
        let ty = local_id().y;
        let wg = workgroup_id().y * num_workgroups().x + workgroup_id().x;
        let sb = wg * 1056;
        let x = workgroup_id().x * 32 + tx;
        let y0 = workgroup_id().y * 32 + ty;
        for j in (0..32u32).step_by(8) {
            if x < w && y0 + j < h {
                scratch[sb + (ty + j) * 33 + tx] = input[(y0 + j) * w + x];
            }
        }
        barrier();
        let ox = workgroup_id().y * 32 + tx;
        let oy0 = workgroup_id().x * 32 + ty;
        for j in (0..32u32).step_by(8) {
            if ox < h && oy0 + j < w {
                out[(oy0 + j) * h + ox] = scratch[sb + tx * 33 + ty + j];
            }
        }
    }
}

const TRW: u32 = 48;
const TRH: u32 = 40;

fn tr_input() -> Vec<f32> {
    (0..TRW * TRH).map(|i| (i % 509) as f32 * 0.25 + 1.0).collect()
}

fn tr_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&tr_input()).unwrap();
        let mut o = rt.zeros::<f32>((TRW * TRH) as usize).unwrap();
        let grid = (TRW.div_ceil(32), TRH.div_ceil(32));
        let mut sc = rt.zeros::<f32>(1056 * 4).unwrap();
        let r = match k {
            "transpose_rows" => go(tr::transpose_rows.launch(rt, grid, &inb, &mut o, TRW, TRH), how),
            "transpose_rows_storage_barrier" => go(tr::transpose_rows_storage_barrier.launch(rt, grid, &inb, &mut o, TRW, TRH), how),
            "transpose_scratch" => go(tr::transpose_scratch.launch(rt, grid, &inb, &mut sc, &mut o, TRW, TRH), how),
            "transpose_scratch_wg_barrier" => go(tr::transpose_scratch_wg_barrier.launch(rt, grid, &inb, &mut sc, &mut o, TRW, TRH), how),
            _ => unreachable!(),
        };
        let mut v = f32s(&o.to_vec().unwrap());
        if k.starts_with("transpose_scratch") {
            v.extend(f32s(&sc.to_vec().unwrap()));
        }
        (r, v)
    }
}

fn tr_want() -> Vec<u32> {
    let input = tr_input();
    let mut want = vec![0.0f32; (TRW * TRH) as usize];
    for y in 0..TRH {
        for x in 0..TRW {
            want[(x * TRH + y) as usize] = input[(y * TRW + x) as usize];
        }
    }
    f32s(&want)
}

#[test]
fn transpose_32x8_rows_is_clean() {
    clean_all("transpose_rows", &tr_case("transpose_rows"));
    for got in native_both(&tr_case("transpose_rows")) {
        common::expect("transpose_rows", &got, &tr_want());
    }
}

#[test]
fn transpose_with_storage_barrier_for_shared_tile_races() {
    racy_all("transpose_rows_storage_barrier", &tr_case("transpose_rows_storage_barrier"), &[rw(WG, WARP, "tile")]);
}

#[test]
fn transpose_through_storage_scratch_with_storage_barrier_is_clean() {
    clean_all("transpose_scratch", &tr_case("transpose_scratch"));
    for got in native_both(&tr_case("transpose_scratch")) {
        common::expect("transpose_scratch", &got[..(TRW * TRH) as usize], &tr_want());
    }
}

#[test]
fn transpose_through_storage_scratch_with_workgroup_barrier_races() {
    racy_all(
        "transpose_scratch_wg_barrier",
        &tr_case("transpose_scratch_wg_barrier"),
        &[rw(ST, WARP, "scratch").note(&["workgroupBarrier does not order storage memory"])],
    );
}

// ===================================== 2. register-blocked tiled matrix multiply

#[ld::kernels]
pub mod mm {
    /// Row `r` of the A tile times column `c` of the B tile (16 x 16 each).
    fn tile_dot(ta: &[f32], tb: &[f32], r: u32, c: u32) -> f32 {
        let mut s = 0.0f32;
        for k in 0..16u32 {
            s += ta[r * 16 + k] * tb[k * 16 + c];
        }
        s
    }

    /// RACE-FREE: C (m x n) = A (m x kk) * B (kk x n) by 16 x 16 output
    /// tiles on a (16, 4) workgroup: every invocation loads four rows of
    /// each tile (zero-padded past the edges), barrier, accumulates four
    /// outputs in a private array through a helper that reads the shared
    /// tiles, barrier, next tile.
    #[kernel(workgroup_size = (16, 4))]
    pub fn matmul_blocked(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, kk: u32) {
        let ta = shared::<[f32; 256]>();
        let tb = shared::<[f32; 256]>();
        let tx = local_id().x;
        let ty = local_id().y;
        let col = workgroup_id().x * 16 + tx;
        let row0 = workgroup_id().y * 16;
        let mut acc = [0.0f32; 4];
        let tiles = (kk + 15) / 16;
        for t in 0..tiles {
            for q in 0..4u32 {
                let r = ty + 4 * q;
                let ar = row0 + r;
                let ac = t * 16 + tx;
                let mut av = 0.0f32;
                if ar < m && ac < kk {
                    av = a[ar * kk + ac];
                }
                ta[r * 16 + tx] = av;
                let br = t * 16 + r;
                let mut bv = 0.0f32;
                if br < kk && col < n {
                    bv = b[br * n + col];
                }
                tb[r * 16 + tx] = bv;
            }
            barrier();
            for q in 0..4u32 {
                acc[q] += tile_dot(ta, tb, ty + 4 * q, tx);
            }
            barrier();
        }
        for q in 0..4u32 {
            let r = row0 + ty + 4 * q;
            if r < m && col < n {
                c[r * n + col] = acc[q];
            }
        }
    }

    /// RACY (rw, workgroup memory, inter-warp): `matmul_blocked` without
    /// the barrier after the inner products: with two k-tiles, a warp
    /// loads tile 1 into `tb` while another still multiplies tile 0 (rows
    /// k of `tb` are loaded by the invocations with ty = k % 4, and read
    /// by every invocation).
    #[kernel(workgroup_size = (16, 4))]
    pub fn matmul_blocked_one_barrier(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, kk: u32) {
        let ta = shared::<[f32; 256]>();
        let tb = shared::<[f32; 256]>();
        let tx = local_id().x;
        let ty = local_id().y;
        let col = workgroup_id().x * 16 + tx;
        let row0 = workgroup_id().y * 16;
        let mut acc = [0.0f32; 4];
        let tiles = (kk + 15) / 16;
        for t in 0..tiles {
            for q in 0..4u32 {
                let r = ty + 4 * q;
                let ar = row0 + r;
                let ac = t * 16 + tx;
                let mut av = 0.0f32;
                if ar < m && ac < kk {
                    av = a[ar * kk + ac];
                }
                ta[r * 16 + tx] = av;
                let br = t * 16 + r;
                let mut bv = 0.0f32;
                if br < kk && col < n {
                    bv = b[br * n + col];
                }
                tb[r * 16 + tx] = bv;
            }
            barrier();
            for q in 0..4u32 {
                acc[q] += tile_dot(ta, tb, ty + 4 * q, tx);
            }
        }
        for q in 0..4u32 {
            let r = row0 + ty + 4 * q;
            if r < m && col < n {
                c[r * n + col] = acc[q];
            }
        }
    }
}

const MM_M: u32 = 40;
const MM_N: u32 = 36;
const MM_K: u32 = 20;

fn mm_inputs() -> (Vec<f32>, Vec<f32>) {
    let a = iota((MM_M * MM_K) as usize, 3).iter().map(|&x| (x % 9) as f32 - 4.0).collect();
    let b = iota((MM_K * MM_N) as usize, 7).iter().map(|&x| (x % 7) as f32 - 3.0).collect();
    (a, b)
}

fn mm_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let (a, b) = mm_inputs();
        let (a, b) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
        let mut c = rt.zeros::<f32>((MM_M * MM_N) as usize).unwrap();
        let grid = (MM_N.div_ceil(16), MM_M.div_ceil(16));
        let r = match k {
            "matmul_blocked" => go(mm::matmul_blocked.launch(rt, grid, &a, &b, &mut c, MM_M, MM_N, MM_K), how),
            "matmul_blocked_one_barrier" => go(mm::matmul_blocked_one_barrier.launch(rt, grid, &a, &b, &mut c, MM_M, MM_N, MM_K), how),
            _ => unreachable!(),
        };
        (r, f32s(&c.to_vec().unwrap()))
    }
}

#[test]
fn register_blocked_tiled_matmul_is_clean() {
    clean_all("matmul_blocked", &mm_case("matmul_blocked"));
    // Small integers: every sum is exact, whatever the order or fusion.
    let (a, b) = mm_inputs();
    let mut want = vec![0.0f32; (MM_M * MM_N) as usize];
    for i in 0..MM_M {
        for j in 0..MM_N {
            let mut s = 0.0f32;
            for k in 0..MM_K {
                s += a[(i * MM_K + k) as usize] * b[(k * MM_N + j) as usize];
            }
            want[(i * MM_N + j) as usize] = s;
        }
    }
    for got in native_both(&mm_case("matmul_blocked")) {
        common::expect("matmul_blocked", &got, &f32s(&want));
    }
}

#[test]
fn register_blocked_matmul_without_second_barrier_races() {
    racy_all("matmul_blocked_one_barrier", &mm_case("matmul_blocked_one_barrier"), &[rw(WG, WARP, "tb")]);
}

// ===================================== 3. GPU Gems 3 scan with conflict-free offsets

#[ld::kernels]
pub mod gems {
    /// CONFLICT_FREE_OFFSET of GPU Gems 3, chapter 39 (32 banks).
    fn cfo(i: u32) -> u32 {
        i >> 5
    }

    /// RACE-FREE: the work-efficient exclusive scan of 128 words per
    /// workgroup of 64 (two per invocation), padded by `cfo`: barrier at
    /// the top of every up-sweep level, invocation 0 saves the total and
    /// clears the root, barrier at the top of every down-sweep level, a
    /// last barrier before the store.
    #[kernel(workgroup_size = 64)]
    pub fn scan_gems(input: &[u32], out: &mut [u32], sums: &mut [u32]) {
        let temp = shared::<[u32; 132]>();
        let tid = local_index();
        let base = workgroup_id().x * 128;
        let ai = tid;
        let bi = tid + 64;
        temp[ai + cfo(ai)] = input[base + ai];
        temp[bi + cfo(bi)] = input[base + bi];
        let mut offset = 1u32;
        let mut d = 64u32;
        while d > 0 {
            barrier();
            if tid < d {
                let a = offset * (2 * tid + 1) - 1;
                let b = offset * (2 * tid + 2) - 1;
                temp[b + cfo(b)] += temp[a + cfo(a)];
            }
            offset *= 2;
            d >>= 1;
        }
        if tid == 0 {
            sums[workgroup_id().x] = temp[127 + cfo(127)];
            temp[127 + cfo(127)] = 0;
        }
        d = 1;
        while d < 128 {
            offset >>= 1;
            barrier();
            if tid < d {
                let a = offset * (2 * tid + 1) - 1;
                let b = offset * (2 * tid + 2) - 1;
                let t = temp[a + cfo(a)];
                temp[a + cfo(a)] = temp[b + cfo(b)];
                temp[b + cfo(b)] += t;
            }
            d *= 2;
        }
        barrier();
        out[base + ai] = temp[ai + cfo(ai)];
        out[base + bi] = temp[bi + cfo(bi)];
    }

    /// RACY (rw and ww, workgroup memory, inter-warp): the up-sweep's
    /// barrier moved to the bottom of the loop, so nothing orders the load
    /// before the first level: invocation t < 32 adds words 2t and 2t + 1,
    /// loaded by invocations 2t and 2t + 1 in the same epoch.
    #[kernel(workgroup_size = 64)]
    pub fn scan_gems_late_barrier(input: &[u32], out: &mut [u32], sums: &mut [u32]) {
        let temp = shared::<[u32; 132]>();
        let tid = local_index();
        let base = workgroup_id().x * 128;
        let ai = tid;
        let bi = tid + 64;
        temp[ai + cfo(ai)] = input[base + ai];
        temp[bi + cfo(bi)] = input[base + bi];
        let mut offset = 1u32;
        let mut d = 64u32;
        while d > 0 {
            if tid < d {
                let a = offset * (2 * tid + 1) - 1;
                let b = offset * (2 * tid + 2) - 1;
                temp[b + cfo(b)] += temp[a + cfo(a)];
            }
            barrier();
            offset *= 2;
            d >>= 1;
        }
        if tid == 0 {
            sums[workgroup_id().x] = temp[127 + cfo(127)];
            temp[127 + cfo(127)] = 0;
        }
        d = 1;
        while d < 128 {
            offset >>= 1;
            barrier();
            if tid < d {
                let a = offset * (2 * tid + 1) - 1;
                let b = offset * (2 * tid + 2) - 1;
                let t = temp[a + cfo(a)];
                temp[a + cfo(a)] = temp[b + cfo(b)];
                temp[b + cfo(b)] += t;
            }
            d *= 2;
        }
        barrier();
        out[base + ai] = temp[ai + cfo(ai)];
        out[base + bi] = temp[bi + cfo(bi)];
    }
}

const GEMS_WG: usize = 3;

fn gems_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&iota(128 * GEMS_WG, 6)).unwrap();
        let mut o = rt.zeros::<u32>(128 * GEMS_WG).unwrap();
        let mut s = rt.zeros::<u32>(GEMS_WG).unwrap();
        let r = match k {
            "scan_gems" => go(gems::scan_gems.launch(rt, GEMS_WG as u32, &inb, &mut o, &mut s), how),
            "scan_gems_late_barrier" => go(gems::scan_gems_late_barrier.launch(rt, GEMS_WG as u32, &inb, &mut o, &mut s), how),
            _ => unreachable!(),
        };
        let mut v = o.to_vec().unwrap();
        v.extend(s.to_vec().unwrap());
        (r, v)
    }
}

#[test]
fn gems_scan_with_conflict_free_offsets_is_clean() {
    clean_all("scan_gems", &gems_case("scan_gems"));
    let input = iota(128 * GEMS_WG, 6);
    let mut want = vec![];
    let mut sums = vec![];
    for c in input.chunks(128) {
        let mut acc = 0u32;
        for &x in c {
            want.push(acc);
            acc += x;
        }
        sums.push(acc);
    }
    want.extend(sums);
    for got in native_both(&gems_case("scan_gems")) {
        common::expect("scan_gems", &got, &want);
    }
}

#[test]
fn gems_scan_with_up_sweep_barrier_at_the_bottom_races() {
    racy_all("scan_gems_late_barrier", &gems_case("scan_gems_late_barrier"), &[rw(WG, WARP, "temp")]);
}

// ===================================== 4. odd-even transposition sort in workgroup memory

#[ld::kernels]
pub mod oets {
    fn cmp_swap(s: &mut [u32], i: u32) {
        let a = s[i];
        let b = s[i + 1];
        if a > b {
            s[i] = b;
            s[i + 1] = a;
        }
    }

    /// RACE-FREE: 128 keys per workgroup of 64, 128 phases, one barrier
    /// after each: in a phase invocation t owns the pair (2t + p, 2t + p + 1).
    #[kernel(workgroup_size = 64)]
    pub fn oets_shared(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 128]>();
        let tid = local_index();
        let base = workgroup_id().x * 128;
        s[tid] = input[base + tid];
        s[tid + 64] = input[base + tid + 64];
        barrier();
        for phase in 0..128u32 {
            let i = 2 * tid + (phase & 1);
            if i + 1 < 128 {
                cmp_swap(s, i);
            }
            barrier();
        }
        out[base + tid] = s[tid];
        out[base + tid + 64] = s[tid + 64];
    }

    /// RACY (rw/ww, workgroup memory, inter-warp): one barrier per even +
    /// odd pair of phases: in the odd phase invocation t touches 2t + 1
    /// and 2t + 2, which invocation t + 1 touches in the even phase of the
    /// same epoch.
    #[kernel(workgroup_size = 64)]
    pub fn oets_shared_pairs(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 128]>();
        let tid = local_index();
        let base = workgroup_id().x * 128;
        s[tid] = input[base + tid];
        s[tid + 64] = input[base + tid + 64];
        barrier();
        for _round in 0..64u32 {
            cmp_swap(s, 2 * tid);
            if 2 * tid + 2 < 128 {
                cmp_swap(s, 2 * tid + 1);
            }
            barrier();
        }
        out[base + tid] = s[tid];
        out[base + tid + 64] = s[tid + 64];
    }
}

fn oets_input() -> Vec<u32> {
    iota(256, 9).iter().map(|x| x % 97).collect()
}

fn oets_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&oets_input()).unwrap();
        let mut o = rt.zeros::<u32>(256).unwrap();
        let r = match k {
            "oets_shared" => go(oets::oets_shared.launch(rt, 2, &inb, &mut o), how),
            "oets_shared_pairs" => go(oets::oets_shared_pairs.launch(rt, 2, &inb, &mut o), how),
            _ => unreachable!(),
        };
        (r, o.to_vec().unwrap())
    }
}

#[test]
fn odd_even_transposition_sort_in_shared_memory_is_clean() {
    clean_all("oets_shared", &oets_case("oets_shared"));
    let want = sorted_chunks(&oets_input(), 128);
    for got in native_both(&oets_case("oets_shared")) {
        common::expect("oets_shared", &got, &want);
    }
}

#[test]
fn odd_even_transposition_sort_with_a_barrier_per_two_phases_races() {
    racy_all("oets_shared_pairs", &oets_case("oets_shared_pairs"), &[rw(WG, WARP, "s")]);
}

// ===================================== 5. 2-D Jacobi, temporally blocked in workgroup memory

#[ld::kernels]
pub mod jac {
    /// RACE-FREE: an 8 x 8 block plus a one-cell halo (clamped at the
    /// domain's edge) loaded into both halves of a 200-word shared array
    /// by a strided loop; then `iters` Jacobi sweeps of the interior,
    /// reading one half and writing the other, one barrier per sweep (the
    /// halo stays fixed: a block-local smoother).
    #[kernel(workgroup_size = (8, 8))]
    pub fn jacobi_tile(u: &[f32], out: &mut [f32], w: u32, h: u32, iters: u32) {
        let s = shared::<[f32; 200]>();
        let lid = local_index();
        let bx = workgroup_id().x * 8;
        let by = workgroup_id().y * 8;
        for k in (lid..100u32).step_by(64) {
            let gx = ((bx + k % 10) as i32 - 1).clamp(0, w as i32 - 1) as u32;
            let gy = ((by + k / 10) as i32 - 1).clamp(0, h as i32 - 1) as u32;
            let v = u[gy * w + gx];
            s[k] = v;
            s[100 + k] = v;
        }
        barrier();
        let tx = local_id().x + 1;
        let ty = local_id().y + 1;
        let c = ty * 10 + tx;
        let mut src = 0u32;
        let mut it = 0u32;
        while it < iters {
            let dst = 100 - src;
            s[dst + c] = 0.25 * (s[src + c - 1] + s[src + c + 1] + s[src + c - 10] + s[src + c + 10]);
            barrier();
            src = dst;
            it += 1;
        }
        out[(by + ty - 1) * w + bx + tx - 1] = s[src + c];
    }

    /// RACY (rw, workgroup memory, inter-warp and intra-warp): the sweep
    /// updates one buffer in place: (x, y) reads its neighbours' words
    /// while they overwrite them in the same epoch.
    #[kernel(workgroup_size = (8, 8))]
    pub fn jacobi_tile_in_place(u: &[f32], out: &mut [f32], w: u32, h: u32, iters: u32) {
        let s = shared::<[f32; 200]>();
        let lid = local_index();
        let bx = workgroup_id().x * 8;
        let by = workgroup_id().y * 8;
        for k in (lid..100u32).step_by(64) {
            let gx = ((bx + k % 10) as i32 - 1).clamp(0, w as i32 - 1) as u32;
            let gy = ((by + k / 10) as i32 - 1).clamp(0, h as i32 - 1) as u32;
            let v = u[gy * w + gx];
            s[k] = v;
            s[100 + k] = v;
        }
        barrier();
        let tx = local_id().x + 1;
        let ty = local_id().y + 1;
        let c = ty * 10 + tx;
        let mut it = 0u32;
        while it < iters {
            s[c] = 0.25 * (s[c - 1] + s[c + 1] + s[c - 10] + s[c + 10]);
            barrier();
            it += 1;
        }
        out[(by + ty - 1) * w + bx + tx - 1] = s[c];
    }
}

const JW: u32 = 16;
const JH: u32 = 24;
const JIT: u32 = 5;

fn jac_input() -> Vec<f32> {
    iota((JW * JH) as usize, 2).iter().map(|&x| (x % 16) as f32).collect()
}

fn jac_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let ub = rt.upload(&jac_input()).unwrap();
        let mut o = rt.zeros::<f32>((JW * JH) as usize).unwrap();
        let grid = (JW / 8, JH / 8);
        let r = match k {
            "jacobi_tile" => go(jac::jacobi_tile.launch(rt, grid, &ub, &mut o, JW, JH, JIT), how),
            "jacobi_tile_in_place" => go(jac::jacobi_tile_in_place.launch(rt, grid, &ub, &mut o, JW, JH, JIT), how),
            _ => unreachable!(),
        };
        (r, f32s(&o.to_vec().unwrap()))
    }
}

#[test]
fn temporally_blocked_jacobi_ping_pong_is_clean() {
    clean_all("jacobi_tile", &jac_case("jacobi_tile"));
    // Host: the same block-local smoother (multiples of 4^-5 below 16:
    // every value and sum is exact in f32).
    let u = jac_input();
    let mut want = vec![0.0f32; (JW * JH) as usize];
    for by in (0..JH).step_by(8) {
        for bx in (0..JW).step_by(8) {
            let mut t = [0.0f32; 100];
            for k in 0..100u32 {
                let gx = ((bx + k % 10) as i32 - 1).clamp(0, JW as i32 - 1) as u32;
                let gy = ((by + k / 10) as i32 - 1).clamp(0, JH as i32 - 1) as u32;
                t[k as usize] = u[(gy * JW + gx) as usize];
            }
            for _ in 0..JIT {
                let mut n = t;
                for y in 1..9 {
                    for x in 1..9 {
                        let c = y * 10 + x;
                        n[c] = 0.25 * (t[c - 1] + t[c + 1] + t[c - 10] + t[c + 10]);
                    }
                }
                t = n;
            }
            for y in 1..9u32 {
                for x in 1..9u32 {
                    want[((by + y - 1) * JW + bx + x - 1) as usize] = t[(y * 10 + x) as usize];
                }
            }
        }
    }
    for got in native_both(&jac_case("jacobi_tile")) {
        common::expect("jacobi_tile", &got, &f32s(&want));
    }
}

#[test]
fn jacobi_updating_the_tile_in_place_races() {
    // At warp size 32 the rows 3 and 4 of the block are in different
    // warps; at 4 and 1 every row boundary is.
    racy_all("jacobi_tile_in_place", &jac_case("jacobi_tile_in_place"), &[rw(WG, WARP, "s")]);
}

// ===================================== 6. CUDA reduce6 in f32

#[ld::kernels]
pub mod red {
    /// RACE-FREE: CUDA samples' `reduce6` shape: a grid-stride loop adding
    /// two elements per step (i and i + 64), the tree in workgroup memory
    /// with a barrier after every level down to one word, invocation 0
    /// storing the workgroup's partial sum.
    #[kernel(workgroup_size = 64)]
    pub fn reduce6(x: &[f32], partial: &mut [f32], n: u32) {
        let s = shared::<[f32; 64]>();
        let tid = local_index();
        let stride = num_workgroups().x * 128;
        let mut i = workgroup_id().x * 128 + tid;
        let mut acc = 0.0f32;
        while i < n {
            acc += x[i];
            if i + 64 < n {
                acc += x[i + 64];
            }
            i += stride;
        }
        s[tid] = acc;
        barrier();
        let mut step = 32u32;
        while step > 0 {
            if tid < step {
                s[tid] += s[tid + step];
            }
            barrier();
            step >>= 1;
        }
        if tid == 0 {
            partial[workgroup_id().x] = s[0];
        }
    }

    /// RACY (rw and ww, workgroup memory): `reduce6` with the CUDA
    /// "warp-synchronous" tail: after the level at 32 invocations 0..15
    /// finish without barriers (`volatile` in CUDA, a race under WGSL):
    /// lane t reads s[t + 8] while lane t + 8 writes it. Intra-warp at warp
    /// size 32, inter-warp at 4 and 1.
    #[kernel(workgroup_size = 64)]
    pub fn reduce6_warp_tail(x: &[f32], partial: &mut [f32], n: u32) {
        let s = shared::<[f32; 64]>();
        let tid = local_index();
        let stride = num_workgroups().x * 128;
        let mut i = workgroup_id().x * 128 + tid;
        let mut acc = 0.0f32;
        while i < n {
            acc += x[i];
            if i + 64 < n {
                acc += x[i + 64];
            }
            i += stride;
        }
        s[tid] = acc;
        barrier();
        if tid < 32 {
            s[tid] += s[tid + 32];
        }
        barrier();
        if tid < 16 {
            s[tid] += s[tid + 16];
            s[tid] += s[tid + 8];
            s[tid] += s[tid + 4];
            s[tid] += s[tid + 2];
            s[tid] += s[tid + 1];
        }
        if tid == 0 {
            partial[workgroup_id().x] = s[0];
        }
    }
}

const RN: u32 = 1000;
const RWG: u32 = 3;

fn red_input() -> Vec<f32> {
    iota(RN as usize, 1).iter().map(|&x| (x % 10) as f32).collect()
}

fn red_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let xb = rt.upload(&red_input()).unwrap();
        let mut p = rt.zeros::<f32>(RWG as usize).unwrap();
        let r = match k {
            "reduce6" => go(red::reduce6.launch(rt, RWG, &xb, &mut p, RN), how),
            "reduce6_warp_tail" => go(red::reduce6_warp_tail.launch(rt, RWG, &xb, &mut p, RN), how),
            _ => unreachable!(),
        };
        (r, f32s(&p.to_vec().unwrap()))
    }
}

#[test]
fn reduce6_grid_stride_f32_is_clean() {
    clean_all("reduce6", &red_case("reduce6"));
    let x = red_input();
    let mut want = vec![0.0f32; RWG as usize];
    for (i, v) in x.iter().enumerate() {
        // Element i is added by workgroup (i / 128) % RWG.
        want[(i / 128) % RWG as usize] += v;
    }
    for got in native_both(&red_case("reduce6")) {
        common::expect("reduce6", &got, &f32s(&want));
    }
}

#[test]
fn reduce6_with_warp_synchronous_tail_races() {
    expect_race("reduce6_warp_tail", 32, &red_case("reduce6_warp_tail"), &[rw(WG, INTRA, "s")]);
    for w in [4, 1] {
        expect_race("reduce6_warp_tail", w, &red_case("reduce6_warp_tail"), &[rw(WG, WARP, "s")]);
    }
}

// ===================================== 7. CSR-vector SpMV

#[ld::kernels]
pub mod spmv {
    /// RACE-FREE: CSR-vector: one workgroup of 32 per row, lanes stride
    /// over the row's nonzeros, a shared tree reduction with barriers,
    /// every lane but 0 returns after the last barrier, lane 0 stores.
    #[kernel(workgroup_size = 32)]
    pub fn spmv_vector(row_ptr: &[u32], cols: &[u32], vals: &[f32], x: &[f32], y: &mut [f32]) {
        let s = shared::<[f32; 32]>();
        let lane = local_index();
        let row = workgroup_id().x;
        let start = row_ptr[row];
        let end = row_ptr[row + 1];
        let mut acc = 0.0f32;
        let mut j = start + lane;
        while j < end {
            acc += vals[j] * x[cols[j]];
            j += 32;
        }
        s[lane] = acc;
        barrier();
        let mut step = 16u32;
        while step > 0 {
            if lane < step {
                s[lane] += s[lane + step];
            }
            barrier();
            step >>= 1;
        }
        if lane != 0 {
            return;
        }
        y[row] = s[0];
    }

    /// RACY (ww and rw, storage, inter-workgroup): a "split-K" CSR-vector
    /// with two workgroups per row, each reducing half the row's nonzeros
    /// and adding its half into `y[row]` with a plain `+=`.
    #[kernel(workgroup_size = 32)]
    pub fn spmv_vector_split(row_ptr: &[u32], cols: &[u32], vals: &[f32], x: &[f32], y: &mut [f32]) {
        let s = shared::<[f32; 32]>();
        let lane = local_index();
        let row = workgroup_id().x / 2;
        let half = workgroup_id().x % 2;
        let start = row_ptr[row];
        let end = row_ptr[row + 1];
        let mid = start + (end - start) / 2;
        let mut lo = start;
        let mut hi = mid;
        if half == 1 {
            lo = mid;
            hi = end;
        }
        let mut acc = 0.0f32;
        let mut j = lo + lane;
        while j < hi {
            acc += vals[j] * x[cols[j]];
            j += 32;
        }
        s[lane] = acc;
        barrier();
        let mut step = 16u32;
        while step > 0 {
            if lane < step {
                s[lane] += s[lane + step];
            }
            barrier();
            step >>= 1;
        }
        if lane == 0 {
            y[row] += s[0];
        }
    }
}

const SP_ROWS: usize = 24;

/// A CSR matrix whose rows have 0 to 70 nonzeros (some longer than a
/// workgroup), small integer values.
fn sp_matrix() -> (Vec<u32>, Vec<u32>, Vec<f32>, Vec<f32>) {
    let mut rp = vec![0u32];
    let mut cols = vec![];
    let mut vals = vec![];
    for r in 0..SP_ROWS {
        let nnz = (r * 37 + 11) % 71;
        for k in 0..nnz {
            cols.push(((r * 13 + k * 7) % 50) as u32);
            vals.push(((r + 3 * k) % 7) as f32 - 3.0);
        }
        rp.push(cols.len() as u32);
    }
    let x = (0..50).map(|i| (i % 5) as f32).collect();
    (rp, cols, vals, x)
}

fn sp_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let (rp, cols, vals, x) = sp_matrix();
        let (rp, cols, vals, x) = (rt.upload(&rp).unwrap(), rt.upload(&cols).unwrap(), rt.upload(&vals).unwrap(), rt.upload(&x).unwrap());
        let mut y = rt.zeros::<f32>(SP_ROWS).unwrap();
        let r = match k {
            "spmv_vector" => go(spmv::spmv_vector.launch(rt, SP_ROWS as u32, &rp, &cols, &vals, &x, &mut y), how),
            "spmv_vector_split" => go(spmv::spmv_vector_split.launch(rt, 2 * SP_ROWS as u32, &rp, &cols, &vals, &x, &mut y), how),
            _ => unreachable!(),
        };
        (r, f32s(&y.to_vec().unwrap()))
    }
}

#[test]
fn csr_vector_spmv_is_clean() {
    clean_all("spmv_vector", &sp_case("spmv_vector"));
    let (rp, cols, vals, x) = sp_matrix();
    let want: Vec<f32> = (0..SP_ROWS).map(|r| (rp[r]..rp[r + 1]).map(|p| vals[p as usize] * x[cols[p as usize] as usize]).sum()).collect();
    for got in native_both(&sp_case("spmv_vector")) {
        common::expect("spmv_vector", &got, &f32s(&want));
    }
}

#[test]
fn csr_vector_split_over_two_workgroups_races() {
    racy_all("spmv_vector_split", &sp_case("spmv_vector_split"), &[ww(ST, WGS, "y")]);
}

// ===================================== 8. image histogram, 2-D tiles, shared atomic bins

#[ld::kernels]
pub mod hist {
    const BINS: u32 = 32;

    /// RACE-FREE: every (16, 4) workgroup bins a 16 x 16 image tile (four
    /// rows per invocation) into shared atomic bins, barrier, then the
    /// first 32 invocations write the workgroup's bins to its own row of
    /// `partial` with plain stores (one writer per word).
    #[kernel(workgroup_size = (16, 4))]
    pub fn hist_tiles(img: &[u32], partial: &mut [u32], w: u32, h: u32) {
        let bins = shared::<[AtomicU32; 32]>();
        let x = global_id().x;
        let lid = local_index();
        for q in 0..4u32 {
            let y = workgroup_id().y * 16 + local_id().y + 4 * q;
            if x < w && y < h {
                bins[img[y * w + x] % BINS].fetch_add(1);
            }
        }
        barrier();
        let wg = workgroup_id().y * num_workgroups().x + workgroup_id().x;
        if lid < BINS {
            partial[wg * BINS + lid] = bins[lid].load();
        }
    }

    /// RACY (ww and rw, storage, inter-workgroup): the bins flushed into
    /// one global histogram with a plain read-modify-write.
    #[kernel(workgroup_size = (16, 4))]
    pub fn hist_tiles_plain_flush(img: &[u32], total: &mut [u32], w: u32, h: u32) {
        let bins = shared::<[AtomicU32; 32]>();
        let x = global_id().x;
        let lid = local_index();
        for q in 0..4u32 {
            let y = workgroup_id().y * 16 + local_id().y + 4 * q;
            if x < w && y < h {
                bins[img[y * w + x] % BINS].fetch_add(1);
            }
        }
        barrier();
        if lid < BINS {
            total[lid] += bins[lid].load();
        }
    }
}

const HW: u32 = 40;
const HH: u32 = 20;

fn hist_img() -> Vec<u32> {
    iota((HW * HH) as usize, 11)
}

fn hist_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let img = rt.upload(&hist_img()).unwrap();
        let grid = (HW.div_ceil(16), HH.div_ceil(16));
        let mut p = rt.zeros::<u32>((grid.0 * grid.1 * 32) as usize).unwrap();
        let r = match k {
            "hist_tiles" => go(hist::hist_tiles.launch(rt, grid, &img, &mut p, HW, HH), how),
            "hist_tiles_plain_flush" => go(hist::hist_tiles_plain_flush.launch(rt, grid, &img, &mut p, HW, HH), how),
            _ => unreachable!(),
        };
        (r, p.to_vec().unwrap())
    }
}

#[test]
fn tiled_image_histogram_with_per_workgroup_flush_is_clean() {
    clean_all("hist_tiles", &hist_case("hist_tiles"));
    let img = hist_img();
    let gx = HW.div_ceil(16);
    let mut want = vec![0u32; (gx * HH.div_ceil(16) * 32) as usize];
    for y in 0..HH {
        for x in 0..HW {
            let wg = (y / 16) * gx + x / 16;
            want[(wg * 32 + img[(y * HW + x) as usize] % 32) as usize] += 1;
        }
    }
    for got in native_both(&hist_case("hist_tiles")) {
        common::expect("hist_tiles", &got, &want);
    }
}

#[test]
fn tiled_image_histogram_flushed_with_plain_adds_races() {
    racy_all("hist_tiles_plain_flush", &hist_case("hist_tiles_plain_flush"), &[ww(ST, WGS, "total")]);
}

// ===================================== 9. segmented scan and block compaction

#[ld::kernels]
pub mod seg {
    /// RACE-FREE: segmented inclusive Hillis-Steele scan of each
    /// workgroup's 64 words (head flags restart the sum), values and flags
    /// double-buffered in two halves of shared arrays, one barrier per
    /// level.
    #[kernel(workgroup_size = 64)]
    pub fn seg_scan(vals: &[u32], heads: &[u32], out: &mut [u32]) {
        let v = shared::<[u32; 128]>();
        let f = shared::<[u32; 128]>();
        let tid = local_index();
        let g = global_id().x;
        v[tid] = vals[g];
        f[tid] = heads[g];
        barrier();
        let mut src = 0u32;
        let mut d = 1u32;
        while d < 64 {
            let dst = 64 - src;
            let mut x = v[src + tid];
            let mut fl = f[src + tid];
            if tid >= d {
                if fl == 0 {
                    x += v[src + tid - d];
                }
                fl |= f[src + tid - d];
            }
            v[dst + tid] = x;
            f[dst + tid] = fl;
            barrier();
            src = dst;
            d *= 2;
        }
        out[g] = v[src + tid];
    }

    /// RACY (rw, workgroup memory, inter-warp): the segmented scan in one
    /// buffer: invocation t reads word t - d while invocation t - d
    /// overwrites it in the same epoch.
    #[kernel(workgroup_size = 64)]
    pub fn seg_scan_single_buffer(vals: &[u32], heads: &[u32], out: &mut [u32]) {
        let v = shared::<[u32; 128]>();
        let f = shared::<[u32; 128]>();
        let tid = local_index();
        let g = global_id().x;
        v[tid] = vals[g];
        f[tid] = heads[g];
        barrier();
        let mut d = 1u32;
        while d < 64 {
            let mut x = v[tid];
            let mut fl = f[tid];
            if tid >= d {
                if fl == 0 {
                    x += v[tid - d];
                }
                fl |= f[tid - d];
            }
            v[tid] = x;
            f[tid] = fl;
            barrier();
            d *= 2;
        }
        out[g] = v[tid];
    }

    /// RACE-FREE: block-local stream compaction: keep the words divisible
    /// by 3, an inclusive Hillis-Steele scan of the keep flags (double
    /// buffered), then every kept word is stored at its rank in the
    /// workgroup's own slice of `out`, and the last invocation stores the
    /// count.
    #[kernel(workgroup_size = 64)]
    pub fn compact_block(input: &[u32], out: &mut [u32], counts: &mut [u32]) {
        let sc = shared::<[u32; 128]>();
        let tid = local_index();
        let g = global_id().x;
        let x = input[g];
        let mut keep = 0u32;
        if x % 3 == 0 {
            keep = 1;
        }
        sc[tid] = keep;
        barrier();
        let mut src = 0u32;
        let mut d = 1u32;
        while d < 64 {
            let dst = 64 - src;
            let mut a = sc[src + tid];
            if tid >= d {
                a += sc[src + tid - d];
            }
            sc[dst + tid] = a;
            barrier();
            src = dst;
            d *= 2;
        }
        let incl = sc[src + tid];
        if keep == 1 {
            out[workgroup_id().x * 64 + incl - 1] = x;
        }
        if tid == 63 {
            counts[workgroup_id().x] = incl;
        }
    }

    /// RACY (rw and ww, storage, inter-workgroup): compaction into one
    /// dense output: the last invocation reserves the workgroup's range by
    /// a plain read-modify-write of a global counter, broadcasts the base
    /// through shared memory, and every kept word is stored at base + rank.
    #[kernel(workgroup_size = 64)]
    pub fn compact_plain_counter(input: &[u32], out: &mut [u32], total: &mut [u32]) {
        let sc = shared::<[u32; 128]>();
        let off = shared::<[u32; 1]>();
        let tid = local_index();
        let g = global_id().x;
        let x = input[g];
        let mut keep = 0u32;
        if x % 3 == 0 {
            keep = 1;
        }
        sc[tid] = keep;
        barrier();
        let mut src = 0u32;
        let mut d = 1u32;
        while d < 64 {
            let dst = 64 - src;
            let mut a = sc[src + tid];
            if tid >= d {
                a += sc[src + tid - d];
            }
            sc[dst + tid] = a;
            barrier();
            src = dst;
            d *= 2;
        }
        let incl = sc[src + tid];
        if tid == 63 {
            let b = total[0];
            total[0] = b + incl;
            off[0] = b;
        }
        barrier();
        if keep == 1 {
            out[off[0] + incl - 1] = x;
        }
    }
}

const SEG_N: usize = 192;

fn seg_inputs() -> (Vec<u32>, Vec<u32>) {
    let vals = iota(SEG_N, 5).iter().map(|x| x % 50).collect();
    let heads = (0..SEG_N).map(|i| u32::from((i * 7) % 11 == 3)).collect();
    (vals, heads)
}

fn seg_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let (vals, heads) = seg_inputs();
        let (vb, hb) = (rt.upload(&vals).unwrap(), rt.upload(&heads).unwrap());
        let mut o = rt.zeros::<u32>(SEG_N).unwrap();
        let mut c = rt.zeros::<u32>(SEG_N / 64).unwrap();
        let wgs = (SEG_N / 64) as u32;
        let r = match k {
            "seg_scan" => go(seg::seg_scan.launch(rt, wgs, &vb, &hb, &mut o), how),
            "seg_scan_single_buffer" => go(seg::seg_scan_single_buffer.launch(rt, wgs, &vb, &hb, &mut o), how),
            "compact_block" => go(seg::compact_block.launch(rt, wgs, &vb, &mut o, &mut c), how),
            "compact_plain_counter" => {
                let mut t = rt.zeros::<u32>(1).unwrap();
                let r = go(seg::compact_plain_counter.launch(rt, wgs, &vb, &mut o, &mut t), how);
                c = t;
                r
            }
            _ => unreachable!(),
        };
        let mut v = o.to_vec().unwrap();
        if k.starts_with("compact") {
            v.extend(c.to_vec().unwrap());
        }
        (r, v)
    }
}

#[test]
fn segmented_scan_double_buffered_is_clean() {
    clean_all("seg_scan", &seg_case("seg_scan"));
    let (vals, heads) = seg_inputs();
    let mut want = vec![];
    for (i, (&v, &h)) in vals.iter().zip(&heads).enumerate() {
        let prev = if i % 64 == 0 || h == 1 { 0 } else { *want.last().unwrap() };
        want.push(prev + v);
    }
    for got in native_both(&seg_case("seg_scan")) {
        common::expect("seg_scan", &got, &want);
    }
}

#[test]
fn segmented_scan_in_one_buffer_races() {
    racy_all("seg_scan_single_buffer", &seg_case("seg_scan_single_buffer"), &[rw(WG, WARP, "v")]);
}

#[test]
fn block_compaction_with_workgroup_scan_is_clean() {
    clean_all("compact_block", &seg_case("compact_block"));
    let (vals, _) = seg_inputs();
    let mut want = vec![0u32; SEG_N];
    let mut counts = vec![];
    for (b, c) in vals.chunks(64).enumerate() {
        let kept: Vec<u32> = c.iter().copied().filter(|x| x % 3 == 0).collect();
        want[b * 64..b * 64 + kept.len()].copy_from_slice(&kept);
        counts.push(kept.len() as u32);
    }
    want.extend(counts);
    for got in native_both(&seg_case("compact_block")) {
        common::expect("compact_block", &got, &want);
    }
}

#[test]
fn compaction_reserving_with_a_plain_global_counter_races() {
    racy_verdict(&[32, 4, 1], "compact_plain_counter", &seg_case("compact_plain_counter"), &[ww(ST, WGS, "total")]);
}

// ===================================== 10. control flow, helpers, windows and index forms

#[ld::kernels]
pub mod cf {
    fn peek(s: &[u32], k: u32) -> u32 {
        s[k % 64]
    }

    /// RACY (rw, workgroup memory, inter-warp): an iterated neighbour
    /// exchange whose loop leaves between the store and the barrier: the
    /// read after the loop shares the last store's epoch (the `break` path
    /// carries no barrier).
    #[kernel(workgroup_size = 64)]
    pub fn exchange_break_early(input: &[u32], out: &mut [u32], iters: u32) {
        let s = shared::<[u32; 64]>();
        let tid = local_index();
        let mut v = input[global_id().x];
        let mut it = 0u32;
        loop {
            s[tid] = v;
            if it == iters {
                break;
            }
            barrier();
            v = s[(tid + 1) % 64] + 1;
            barrier();
            it += 1;
        }
        out[global_id().x] = s[(tid + 1) % 64];
    }

    /// RACE-FREE: `exchange_break_early` with a barrier after the loop.
    #[kernel(workgroup_size = 64)]
    pub fn exchange_break_fixed(input: &[u32], out: &mut [u32], iters: u32) {
        let s = shared::<[u32; 64]>();
        let tid = local_index();
        let mut v = input[global_id().x];
        let mut it = 0u32;
        loop {
            s[tid] = v;
            if it == iters {
                break;
            }
            barrier();
            v = s[(tid + 1) % 64] + 1;
            barrier();
            it += 1;
        }
        barrier();
        out[global_id().x] = s[(tid + 1) % 64];
    }

    /// RACY (rw, workgroup memory, inter-warp): one helper read at two
    /// call sites: the first in an epoch nobody writes `s` in (settled),
    /// the second in the epoch of `s[tid] = a * 3`.
    #[kernel(workgroup_size = 64)]
    pub fn peek_two_sites(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 64]>();
        let tid = local_index();
        s[tid] = input[global_id().x];
        barrier();
        let a = peek(s, tid + 1);
        barrier();
        s[tid] = a * 3;
        let b = peek(s, tid + 33);
        out[global_id().x] = a + b;
    }

    /// RACE-FREE: `peek_two_sites` with a barrier before the second read.
    #[kernel(workgroup_size = 64)]
    pub fn peek_two_sites_fixed(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 64]>();
        let tid = local_index();
        s[tid] = input[global_id().x];
        barrier();
        let a = peek(s, tid + 1);
        barrier();
        s[tid] = a * 3;
        barrier();
        let b = peek(s, tid + 33);
        out[global_id().x] = a + b;
    }

    /// RACE-FREE: every round rotates each workgroup's 64 storage words by
    /// one: read the neighbour's word, `storage_barrier()`, overwrite the
    /// own word, `storage_barrier()`.
    #[kernel(workgroup_size = 64)]
    pub fn rotate_storage(data: &mut [u32], rounds: u32) {
        let tid = local_index();
        let base = workgroup_id().x * 64;
        for r in 0..rounds {
            let v = data[base + (tid + 1) % 64];
            storage_barrier();
            data[base + tid] = v + r;
            storage_barrier();
        }
    }

    /// RACY (rw, storage, inter-warp): `rotate_storage` with `barrier()`,
    /// which does not order storage memory.
    #[kernel(workgroup_size = 64)]
    pub fn rotate_storage_wg_barrier(data: &mut [u32], rounds: u32) {
        let tid = local_index();
        let base = workgroup_id().x * 64;
        for r in 0..rounds {
            let v = data[base + (tid + 1) % 64];
            barrier();
            data[base + tid] = v + r;
            barrier();
        }
    }

    /// RACE-FREE: an 8 x 8 transpose whose tile rows and columns are
    /// windows (`&mut tile[ty * 9..]`, `&tile[tx * 9..]`).
    #[kernel(workgroup_size = (8, 8))]
    pub fn transpose_windows(input: &[u32], out: &mut [u32], w: u32) {
        let tile = shared::<[u32; 72]>();
        let tx = local_id().x;
        let ty = local_id().y;
        let row = &mut tile[ty * 9..];
        row[tx] = input[global_id().y * w + global_id().x];
        barrier();
        let col = &tile[tx * 9..];
        let ox = workgroup_id().y * 8 + tx;
        let oy = workgroup_id().x * 8 + ty;
        out[oy * w + ox] = col[ty];
    }

    /// RACY (rw, workgroup memory, inter-warp): `transpose_windows` without
    /// the barrier.
    #[kernel(workgroup_size = (8, 8))]
    pub fn transpose_windows_no_barrier(input: &[u32], out: &mut [u32], w: u32) {
        let tile = shared::<[u32; 72]>();
        let tx = local_id().x;
        let ty = local_id().y;
        let row = &mut tile[ty * 9..];
        row[tx] = input[global_id().y * w + global_id().x];
        let col = &tile[tx * 9..];
        let ox = workgroup_id().y * 8 + tx;
        let oy = workgroup_id().x * 8 + ty;
        out[oy * w + ox] = col[ty];
    }

    /// RACE-FREE: each invocation writes its own pair `2i`, `2i + 1`.
    #[kernel(workgroup_size = 64)]
    pub fn pairs_disjoint(out: &mut [u32]) {
        let i = global_id().x;
        out[2 * i] = i;
        out[2 * i + 1] = i + 1000;
    }

    /// RACY (ww, storage, inter-warp and inter-workgroup): writes `2i` and
    /// `2i + 2`: word 2i + 2 is also invocation i + 1's `2(i + 1)`.
    #[kernel(workgroup_size = 64)]
    pub fn pairs_overlap(out: &mut [u32]) {
        let i = global_id().x;
        out[2 * i] = i;
        out[2 * i + 2] = i + 1000;
    }

    /// RACY (ww, storage): on an (8, 8) workgroup `workgroup_id().x * 8 +
    /// local_id().x` repeats over the workgroup's 8 rows, which store
    /// different values.
    #[kernel(workgroup_size = (8, 8))]
    pub fn row_index_on_square_workgroup(out: &mut [u32]) {
        let i = workgroup_id().x * 8 + local_id().x;
        out[i] = local_id().y + 1;
    }
}

fn cf_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&iota(128, 3)).unwrap();
        let mut o = rt.zeros::<u32>(130).unwrap();
        let r = match k {
            "exchange_break_early" => go(cf::exchange_break_early.launch(rt, 2, &inb, &mut o, 3u32), how),
            "exchange_break_fixed" => go(cf::exchange_break_fixed.launch(rt, 2, &inb, &mut o, 3u32), how),
            "peek_two_sites" => go(cf::peek_two_sites.launch(rt, 2, &inb, &mut o), how),
            "peek_two_sites_fixed" => go(cf::peek_two_sites_fixed.launch(rt, 2, &inb, &mut o), how),
            "rotate_storage" => {
                let mut d = rt.upload(&iota(128, 3)).unwrap();
                let r = go(cf::rotate_storage.launch(rt, 2, &mut d, 3u32), how);
                o = d;
                r
            }
            "rotate_storage_wg_barrier" => {
                let mut d = rt.upload(&iota(128, 3)).unwrap();
                let r = go(cf::rotate_storage_wg_barrier.launch(rt, 2, &mut d, 3u32), how);
                o = d;
                r
            }
            "transpose_windows" | "transpose_windows_no_barrier" => {
                let inb = rt.upload(&iota(256, 8)).unwrap();
                let mut t = rt.zeros::<u32>(256).unwrap();
                let r = if k == "transpose_windows" {
                    go(cf::transpose_windows.launch(rt, (2u32, 2u32), &inb, &mut t, 16u32), how)
                } else {
                    go(cf::transpose_windows_no_barrier.launch(rt, (2u32, 2u32), &inb, &mut t, 16u32), how)
                };
                o = t;
                r
            }
            "pairs_disjoint" => go(cf::pairs_disjoint.launch(rt, 1, &mut o), how),
            "pairs_overlap" => go(cf::pairs_overlap.launch(rt, 1, &mut o), how),
            "row_index_on_square_workgroup" => go(cf::row_index_on_square_workgroup.launch(rt, (2u32, 1u32), &mut o), how),
            _ => unreachable!(),
        };
        (r, o.to_vec().unwrap())
    }
}

#[test]
fn exchange_loop_leaving_before_its_barrier_races() {
    racy_all("exchange_break_early", &cf_case("exchange_break_early"), &[rw(WG, WARP, "s")]);
}

#[test]
fn exchange_loop_with_barrier_after_it_is_clean() {
    clean_all("exchange_break_fixed", &cf_case("exchange_break_fixed"));
    let input = iota(128, 3);
    let mut want = vec![0u32; 130];
    for b in 0..2 {
        let mut v: Vec<u32> = input[b * 64..b * 64 + 64].to_vec();
        for _ in 0..3 {
            v = (0..64).map(|t| v[(t + 1) % 64] + 1).collect();
        }
        for t in 0..64 {
            want[b * 64 + t] = v[(t + 1) % 64];
        }
    }
    for got in native_both(&cf_case("exchange_break_fixed")) {
        common::expect("exchange_break_fixed", &got, &want);
    }
}

#[test]
fn helper_read_in_a_written_epoch_races() {
    racy_all("peek_two_sites", &cf_case("peek_two_sites"), &[rw(WG, WARP, "s")]);
}

#[test]
fn helper_read_at_two_settled_sites_is_clean() {
    clean_all("peek_two_sites_fixed", &cf_case("peek_two_sites_fixed"));
}

#[test]
fn storage_rotation_with_storage_barriers_is_clean() {
    clean_all("rotate_storage", &cf_case("rotate_storage"));
    let mut want = iota(128, 3);
    for r in 0..3u32 {
        let old = want.clone();
        for b in 0..2 {
            for t in 0..64 {
                want[b * 64 + t] = old[b * 64 + (t + 1) % 64] + r;
            }
        }
    }
    for got in native_both(&cf_case("rotate_storage")) {
        common::expect("rotate_storage", &got, &want);
    }
}

#[test]
fn storage_rotation_with_workgroup_barriers_races() {
    racy_all(
        "rotate_storage_wg_barrier",
        &cf_case("rotate_storage_wg_barrier"),
        &[rw(ST, WARP, "data").note(&["workgroupBarrier does not order storage memory"])],
    );
}

#[test]
fn transpose_through_window_rows_and_columns_is_clean() {
    clean_all("transpose_windows", &cf_case("transpose_windows"));
    let input = iota(256, 8);
    let want: Vec<u32> = (0..256).map(|i| input[(i % 16) * 16 + i / 16]).collect();
    for got in native_both(&cf_case("transpose_windows")) {
        common::expect("transpose_windows", &got, &want);
    }
}

#[test]
fn transpose_through_windows_without_barrier_races() {
    racy_all("transpose_windows_no_barrier", &cf_case("transpose_windows_no_barrier"), &[rw(WG, WARP, "tile")]);
}

#[test]
fn disjoint_stride_two_pairs_are_clean() {
    clean_all("pairs_disjoint", &cf_case("pairs_disjoint"));
}

#[test]
fn overlapping_stride_two_pairs_race() {
    racy_all("pairs_overlap", &cf_case("pairs_overlap"), &[ww(ST, WARP, "out")]);
}

#[test]
fn row_index_repeated_over_a_square_workgroup_races() {
    for w in [4, 1] {
        expect_race("row_index_on_square_workgroup", w, &cf_case("row_index_on_square_workgroup"), &[ww(ST, WARP, "out")]);
    }
    // At warp size 32 rows 0-3 and 4-7 are two warps: both inter-warp and
    // intra-warp write-write.
    expect_race("row_index_on_square_workgroup", 32, &cf_case("row_index_on_square_workgroup"), &[ww(ST, WARP, "out")]);
}

// ===================================== 11. buffers left in place, on grids where they are not

#[ld::kernels]
pub mod ip {
    /// RACE-FREE: `data[i] += 1` at the invocation's own element (left in
    /// place by check mode) beside a shared-memory block sum with barriers:
    /// checked in rounds (two copies), the in-place buffer must start
    /// every round from the launch's input.
    #[kernel(workgroup_size = 64)]
    pub fn bump_and_block_sum(data: &mut [u32], sums: &mut [u32]) {
        let s = shared::<[u32; 64]>();
        let i = global_id().x;
        let tid = local_index();
        data[i] += 1;
        s[tid] = data[i];
        barrier();
        let mut step = 32u32;
        while step > 0 {
            if tid < step {
                s[tid] += s[tid + step];
            }
            barrier();
            step >>= 1;
        }
        if tid == 0 {
            sums[workgroup_id().x] = s[0];
        }
    }

    /// RACY (rw, workgroup memory, inter-warp): a rotation through shared
    /// memory without its barrier, whose racy value reaches only the
    /// in-place buffer `data`.
    #[kernel(workgroup_size = 64)]
    pub fn rotate_into_in_place(data: &mut [u32]) {
        let s = shared::<[u32; 64]>();
        let i = global_id().x;
        let tid = local_index();
        s[tid] = data[i] * 2 + 1;
        data[i] = s[(tid + 1) % 64];
    }

    /// RACY (ww, storage, inter-workgroup) on a grid of more than one row:
    /// `global_id().x` repeats over the rows, which store different values.
    #[kernel(workgroup_size = 64)]
    pub fn own_index_on_two_rows(out: &mut [u32]) {
        out[global_id().x] = workgroup_id().y * 7 + workgroup_id().z * 3 + 1;
    }

    /// RACY (ww, storage, inter-workgroup) on a grid of two planes: the
    /// plane form repeats over z.
    #[kernel(workgroup_size = (8, 8))]
    pub fn plane_index_on_two_planes(out: &mut [u32]) {
        let g = global_id();
        out[g.x + g.y * num_workgroups().x * 8] = workgroup_id().z + 1;
    }
}

fn ip_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let mut d = rt.upload(&iota(256, 2)).unwrap();
        let mut s = rt.zeros::<u32>(4).unwrap();
        let r = match k {
            "bump_and_block_sum" => go(ip::bump_and_block_sum.launch(rt, 4, &mut d, &mut s), how),
            "rotate_into_in_place" => go(ip::rotate_into_in_place.launch(rt, 4, &mut d), how),
            "own_index_on_two_rows" => go(ip::own_index_on_two_rows.launch(rt, (2u32, 2u32), &mut d), how),
            "own_index_on_two_planes" => go(ip::own_index_on_two_rows.launch(rt, (2u32, 1u32, 2u32), &mut d), how),
            "plane_index_on_two_planes" => go(ip::plane_index_on_two_planes.launch(rt, (2u32, 2u32, 2u32), &mut d), how),
            _ => unreachable!(),
        };
        let mut v = d.to_vec().unwrap();
        v.extend(s.to_vec().unwrap());
        (r, v)
    }
}

#[test]
fn in_place_bump_beside_a_block_sum_is_clean() {
    clean_all("bump_and_block_sum", &ip_case("bump_and_block_sum"));
    let mut want: Vec<u32> = iota(256, 2).iter().map(|x| x + 1).collect();
    let sums: Vec<u32> = want.chunks(64).map(|c| c.iter().sum()).collect();
    want.extend(sums);
    for got in native_both(&ip_case("bump_and_block_sum")) {
        common::expect("bump_and_block_sum", &got, &want);
    }
}

#[test]
fn racy_rotation_into_an_in_place_buffer_races() {
    racy_all("rotate_into_in_place", &ip_case("rotate_into_in_place"), &[rw(WG, WARP, "s")]);
}

#[test]
fn own_index_repeated_over_grid_rows_and_planes_races() {
    for k in ["own_index_on_two_rows", "own_index_on_two_planes"] {
        for w in [32, 1] {
            expect_race(k, w, &ip_case(k), &[ww(ST, WGS, "out")]);
        }
    }
}

#[test]
fn plane_index_repeated_over_grid_planes_races() {
    for w in [32, 1] {
        expect_race("plane_index_on_two_planes", w, &ip_case("plane_index_on_two_planes"), &[ww(ST, WGS, "out")]);
    }
}

/// The tiled histogram over 100 workgroups, checked under shrinking
/// memory budgets down to the least the check accepts (its error names
/// it): the plain flush's inter-workgroup race must be found whatever
/// the batches, and the race-free kernel's buffers must not depend on them.
#[test]
fn histogram_verdicts_hold_under_small_budgets() {
    let (w, h) = (160u32, 160u32);
    let img = iota((w * h) as usize, 11);
    for rt in common::runtimes() {
        for (racy, name) in [(true, "hist_tiles_plain_flush"), (false, "hist_tiles")] {
            let mut results = vec![];
            let mut budgets = vec![None, Some(1u64 << 20), Some(256u64 << 10), Some(1000u64)];
            let mut k = 0;
            while k < budgets.len() {
                let budget = budgets[k];
                k += 1;
                let ib = rt.upload(&img).unwrap();
                let grid = (w / 16, h / 16);
                let mut p = rt.zeros::<u32>((grid.0 * grid.1 * 32) as usize).unwrap();
                let opts = ld::CheckOptions::default().memory_budget(budget);
                let l = if racy {
                    hist::hist_tiles_plain_flush.launch(&rt, grid, &ib, &mut p, w, h)
                } else {
                    hist::hist_tiles.launch(&rt, grid, &ib, &mut p, w, h)
                };
                let run = match l.mode(ld::Mode::Check).check_options(opts).run() {
                    Ok(r) => r,
                    Err(e) => {
                        let msg = e.to_string();
                        let needs: u64 = msg
                            .split("needs ")
                            .nth(1)
                            .and_then(|s| s.split(' ').next())
                            .and_then(|s| s.parse().ok())
                            .unwrap_or_else(|| panic!("{name} budget {budget:?} on {:?}: {msg}", rt.backend()));
                        assert!(budgets.len() < 8, "{name}: {msg}");
                        budgets.push(Some(needs));
                        continue;
                    }
                };
                let rep = run.report.unwrap();
                assert_eq!(rep.has_races(), racy, "{name} budget {budget:?} on {:?}:\n{rep}", rt.backend());
                if racy {
                    assert!(rep.races.iter().any(|r| matches(r, &ww(ST, WGS, "total"))), "{name} budget {budget:?} on {:?}:\n{rep}", rt.backend());
                }
                eprintln!("{name} on {:?}, budget {budget:?}: stats {:?}", rt.backend(), run.stats);
                // What the engine holds at once stays within the budget on
                // every backend, a check that restarts with larger tables
                // included (its attempts do not add up). The plan does not
                // count the GPU's few small buffers (the header, the
                // indirect arguments, a four-word minimum per buffer): a
                // few dozen bytes of slack.
                if let Some(b) = budget {
                    let held = run.stats.expect("a check reports its cost").bytes_allocated;
                    assert!(held <= b + 256, "{name} on {:?}: {held} bytes allocated under a budget of {b}", rt.backend());
                }
                results.push(p.to_vec().unwrap());
            }
            assert!(budgets.len() > 4, "{name}: a budget of 1000 bytes was accepted");
            if !racy {
                assert!(results.windows(2).all(|x| x[0] == x[1]), "{name} on {:?}: buffers depend on the budget", rt.backend());
            }
        }
    }
}
