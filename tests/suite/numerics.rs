//! Numerical and ML kernels written the way GPU programmers write them
//! (softmax, layer norm, Blelloch scan, argmax, matrix-vector product,
//! float atomics through compare-and-swap, vector normalisation, separable
//! convolution, segmented reduction, a radix sort's local pass, max-pool
//! backward, power iteration), each with a race verdict decided by hand
//! under the WGSL memory model, and a racy twin with one realistic bug.
//! The harness is tests/suite/support/verdicts.rs, as tests/suite/patterns.rs's.
use crate::support as common;

use common::verdicts::*;
use ld::{Report, Runtime};

fn floats(v: &[u32]) -> Vec<f32> {
    v.iter().map(|&x| f32::from_bits(x)).collect()
}

/// A case kept in a list beside others.
type BoxedCase = Box<dyn Fn(&Runtime, How) -> (Option<Report>, Vec<u32>)>;

/// Word ranges a report names.
type RacingWords = Vec<(u32, u32)>;

/// Small integers as floats: sums of them are exact in any order.
fn small_floats(n: usize, k: u32, m: u32) -> Vec<f32> {
    iota(n, k).iter().map(|&x| (x % m) as f32).collect()
}

// ===================================== 1. row-wise softmax and layer norm

#[ld::kernels]
pub mod rows {
    const B: u32 = 64;

    /// Stands in for exp(x - max): positive, 1 at the maximum, decreasing
    /// (rational, so both backends compute it to the same bits).
    fn weight(d: f32) -> f32 {
        1.0 / (1.0 + d)
    }

    /// RACE-FREE: one workgroup per row; a shared max-reduction, the max
    /// broadcast through s[0], a barrier before the array is reused, a
    /// sum-reduction, then every invocation scales its columns.
    #[kernel(workgroup_size = 64)]
    pub fn softmax(x: &[f32], y: &mut [f32], cols: u32) {
        let s = shared::<[f32; 64]>();
        let lid = local_index();
        let base = workgroup_id().x * cols;
        let mut m = -f32::MAX;
        let mut j = lid;
        while j < cols {
            m = m.max(x[base + j]);
            j += B;
        }
        s[lid] = m;
        barrier();
        let mut step = B / 2;
        while step > 0 {
            if lid < step {
                s[lid] = s[lid].max(s[lid + step]);
            }
            barrier();
            step >>= 1;
        }
        let mx = s[0];
        barrier();
        let mut sum = 0.0f32;
        j = lid;
        while j < cols {
            sum += weight(mx - x[base + j]);
            j += B;
        }
        s[lid] = sum;
        barrier();
        step = B / 2;
        while step > 0 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        let inv = 1.0 / s[0];
        j = lid;
        while j < cols {
            y[base + j] = weight(mx - x[base + j]) * inv;
            j += B;
        }
    }

    /// RACY (rw, workgroup memory): `softmax` without the barrier between
    /// reading the max from s[0] and reusing `s` for the partial sums:
    /// invocation 0 writes s[0] while the others still read the max there.
    #[kernel(workgroup_size = 64)]
    pub fn softmax_reuse_no_barrier(x: &[f32], y: &mut [f32], cols: u32) {
        let s = shared::<[f32; 64]>();
        let lid = local_index();
        let base = workgroup_id().x * cols;
        let mut m = -f32::MAX;
        let mut j = lid;
        while j < cols {
            m = m.max(x[base + j]);
            j += B;
        }
        s[lid] = m;
        barrier();
        let mut step = B / 2;
        while step > 0 {
            if lid < step {
                s[lid] = s[lid].max(s[lid + step]);
            }
            barrier();
            step >>= 1;
        }
        let mx = s[0];
        let mut sum = 0.0f32;
        j = lid;
        while j < cols {
            sum += weight(mx - x[base + j]);
            j += B;
        }
        s[lid] = sum;
        barrier();
        step = B / 2;
        while step > 0 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        let inv = 1.0 / s[0];
        j = lid;
        while j < cols {
            y[base + j] = weight(mx - x[base + j]) * inv;
            j += B;
        }
    }

    /// RACE-FREE: layer norm, one workgroup per row: mean by a shared
    /// reduction, barrier, variance by a second reduction over the same
    /// array, then `(x - mean) * rstd * gamma + beta`.
    #[kernel(workgroup_size = 64)]
    pub fn layer_norm(x: &[f32], gamma: &[f32], beta: &[f32], y: &mut [f32], cols: u32) {
        let s = shared::<[f32; 64]>();
        let lid = local_index();
        let base = workgroup_id().x * cols;
        let n = cols as f32;
        let mut acc = 0.0f32;
        let mut j = lid;
        while j < cols {
            acc += x[base + j];
            j += B;
        }
        s[lid] = acc;
        barrier();
        let mut step = B / 2;
        while step > 0 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        let mean = s[0] / n;
        barrier();
        acc = 0.0;
        j = lid;
        while j < cols {
            let d = x[base + j] - mean;
            acc += d * d;
            j += B;
        }
        s[lid] = acc;
        barrier();
        step = B / 2;
        while step > 0 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        let rstd = 1.0 / (s[0] / n + 0.00001).sqrt();
        j = lid;
        while j < cols {
            y[base + j] = (x[base + j] - mean) * rstd * gamma[j] + beta[j];
            j += B;
        }
    }

    /// RACY (rw, workgroup memory): the mean reduction's loop stops at
    /// step 2 and invocation 0 adds the last pair itself, then everyone
    /// reads the mean from s[0] with no barrier after that last add.
    #[kernel(workgroup_size = 64)]
    pub fn layer_norm_early_mean(x: &[f32], gamma: &[f32], beta: &[f32], y: &mut [f32], cols: u32) {
        let s = shared::<[f32; 64]>();
        let lid = local_index();
        let base = workgroup_id().x * cols;
        let n = cols as f32;
        let mut acc = 0.0f32;
        let mut j = lid;
        while j < cols {
            acc += x[base + j];
            j += B;
        }
        s[lid] = acc;
        barrier();
        let mut step = B / 2;
        while step > 1 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        if lid == 0 {
            s[0] += s[1];
        }
        let mean = s[0] / n;
        barrier();
        acc = 0.0;
        j = lid;
        while j < cols {
            let d = x[base + j] - mean;
            acc += d * d;
            j += B;
        }
        s[lid] = acc;
        barrier();
        step = B / 2;
        while step > 0 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        let rstd = 1.0 / (s[0] / n + 0.00001).sqrt();
        j = lid;
        while j < cols {
            y[base + j] = (x[base + j] - mean) * rstd * gamma[j] + beta[j];
            j += B;
        }
    }
}

const ROWS: u32 = 3;
const COLS: u32 = 150;

fn row_input() -> Vec<f32> {
    small_floats((ROWS * COLS) as usize, 3, 16)
}

fn gamma_beta() -> (Vec<f32>, Vec<f32>) {
    let g = (0..COLS).map(|j| 1.0 + (j % 4) as f32 * 0.25).collect();
    let b = (0..COLS).map(|j| (j % 3) as f32 - 1.0).collect();
    (g, b)
}

fn rows_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let xb = rt.upload(&row_input()).unwrap();
        let mut y = rt.zeros::<f32>((ROWS * COLS) as usize).unwrap();
        let (g, b) = gamma_beta();
        let (gb, bb) = (rt.upload(&g).unwrap(), rt.upload(&b).unwrap());
        let r = match k {
            "softmax" => go(rows::softmax.launch(rt, ROWS, &xb, &mut y, COLS), how),
            "softmax_reuse_no_barrier" => go(rows::softmax_reuse_no_barrier.launch(rt, ROWS, &xb, &mut y, COLS), how),
            "layer_norm" => go(rows::layer_norm.launch(rt, ROWS, &xb, &gb, &bb, &mut y, COLS), how),
            "layer_norm_early_mean" => go(rows::layer_norm_early_mean.launch(rt, ROWS, &xb, &gb, &bb, &mut y, COLS), how),
            _ => unreachable!(),
        };
        (r, f32s(&y.to_vec().unwrap()))
    }
}

#[test]
fn softmax_rows_are_clean() {
    clean_all("softmax", &rows_case("softmax"));
    let x = row_input();
    for got in native_both(&rows_case("softmax")) {
        let got = floats(&got);
        for r in 0..ROWS as usize {
            let row = &x[r * COLS as usize..(r + 1) * COLS as usize];
            let mx = row.iter().cloned().fold(f32::MIN, f32::max);
            let w: Vec<f64> = row.iter().map(|&v| 1.0 / (1.0 + (mx - v) as f64)).collect();
            let sum: f64 = w.iter().sum();
            for (j, wj) in w.iter().enumerate() {
                let want = (wj / sum) as f32;
                let g = got[r * COLS as usize + j];
                assert!((g - want).abs() <= 1e-6 + want * 1e-5, "softmax[{r}][{j}]: {g} vs host {want}");
            }
            let total: f32 = got[r * COLS as usize..(r + 1) * COLS as usize].iter().sum();
            assert!((total - 1.0).abs() < 1e-4, "softmax row {r} sums to {total}");
        }
    }
}

#[test]
fn softmax_reusing_shared_without_barrier_races() {
    for w in [32, 1] {
        expect_race("softmax_reuse_no_barrier", w, &rows_case("softmax_reuse_no_barrier"), &[]);
    }
    expect_race("softmax_reuse_no_barrier", 1, &rows_case("softmax_reuse_no_barrier"), &[rw(WG, WARP, "s")]);
}

#[test]
fn layer_norm_rows_are_clean() {
    clean_all("layer_norm", &rows_case("layer_norm"));
    let x = row_input();
    let (g, b) = gamma_beta();
    for got in native_both(&rows_case("layer_norm")) {
        let got = floats(&got);
        for r in 0..ROWS as usize {
            let row = &x[r * COLS as usize..(r + 1) * COLS as usize];
            let mean = row.iter().map(|&v| v as f64).sum::<f64>() / COLS as f64;
            let var = row.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / COLS as f64;
            let rstd = 1.0 / (var + 1e-5).sqrt();
            for j in 0..COLS as usize {
                let want = ((row[j] as f64 - mean) * rstd * g[j] as f64 + b[j] as f64) as f32;
                let gv = got[r * COLS as usize + j];
                assert!((gv - want).abs() <= 1e-4, "layer_norm[{r}][{j}]: {gv} vs host {want}");
            }
        }
    }
}

#[test]
fn layer_norm_reading_the_mean_before_the_last_add_is_ordered_races() {
    for w in [32, 1] {
        expect_race("layer_norm_early_mean", w, &rows_case("layer_norm_early_mean"), &[]);
    }
    expect_race("layer_norm_early_mean", 1, &rows_case("layer_norm_early_mean"), &[rw(WG, WARP, "s")]);
}

// ===================================== 2. Blelloch work-efficient scan

#[ld::kernels]
pub mod blel {
    const N: u32 = 128;

    /// RACE-FREE: GPU Gems 3 ch. 39 exclusive scan, 128 elements per
    /// workgroup of 64, in place: up-sweep and down-sweep with the barrier
    /// at the top of each step; invocation 0 clears the root between them.
    #[kernel(workgroup_size = 64)]
    pub fn blelloch(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 128]>();
        let t = local_index();
        let base = workgroup_id().x * N;
        s[2 * t] = input[base + 2 * t];
        s[2 * t + 1] = input[base + 2 * t + 1];
        let mut offset = 1u32;
        let mut d = N >> 1;
        while d > 0 {
            barrier();
            if t < d {
                let ai = offset * (2 * t + 1) - 1;
                let bi = offset * (2 * t + 2) - 1;
                s[bi] += s[ai];
            }
            offset *= 2;
            d >>= 1;
        }
        if t == 0 {
            s[N - 1] = 0;
        }
        d = 1;
        while d < N {
            offset >>= 1;
            barrier();
            if t < d {
                let ai = offset * (2 * t + 1) - 1;
                let bi = offset * (2 * t + 2) - 1;
                let v = s[ai];
                s[ai] = s[bi];
                s[bi] += v;
            }
            d *= 2;
        }
        barrier();
        out[base + 2 * t] = s[2 * t];
        out[base + 2 * t + 1] = s[2 * t + 1];
    }

    /// RACE-FREE: the same without the final barrier: in the last
    /// down-sweep step invocation t itself writes s[2t] and s[2t + 1],
    /// the two words it then stores.
    #[kernel(workgroup_size = 64)]
    pub fn blelloch_no_final_barrier(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 128]>();
        let t = local_index();
        let base = workgroup_id().x * N;
        s[2 * t] = input[base + 2 * t];
        s[2 * t + 1] = input[base + 2 * t + 1];
        let mut offset = 1u32;
        let mut d = N >> 1;
        while d > 0 {
            barrier();
            if t < d {
                let ai = offset * (2 * t + 1) - 1;
                let bi = offset * (2 * t + 2) - 1;
                s[bi] += s[ai];
            }
            offset *= 2;
            d >>= 1;
        }
        if t == 0 {
            s[N - 1] = 0;
        }
        d = 1;
        while d < N {
            offset >>= 1;
            barrier();
            if t < d {
                let ai = offset * (2 * t + 1) - 1;
                let bi = offset * (2 * t + 2) - 1;
                let v = s[ai];
                s[ai] = s[bi];
                s[bi] += v;
            }
            d *= 2;
        }
        out[base + 2 * t] = s[2 * t];
        out[base + 2 * t + 1] = s[2 * t + 1];
    }

    /// RACY (ww, workgroup memory): the down-sweep without its barrier: a
    /// step reads and rewrites what the previous step's other invocations
    /// wrote (a reader that also changes the word is judged write-write).
    #[kernel(workgroup_size = 64)]
    pub fn blelloch_downsweep_no_barrier(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 128]>();
        let t = local_index();
        let base = workgroup_id().x * N;
        s[2 * t] = input[base + 2 * t];
        s[2 * t + 1] = input[base + 2 * t + 1];
        let mut offset = 1u32;
        let mut d = N >> 1;
        while d > 0 {
            barrier();
            if t < d {
                let ai = offset * (2 * t + 1) - 1;
                let bi = offset * (2 * t + 2) - 1;
                s[bi] += s[ai];
            }
            offset *= 2;
            d >>= 1;
        }
        if t == 0 {
            s[N - 1] = 0;
        }
        barrier();
        d = 1;
        while d < N {
            offset >>= 1;
            if t < d {
                let ai = offset * (2 * t + 1) - 1;
                let bi = offset * (2 * t + 2) - 1;
                let v = s[ai];
                s[ai] = s[bi];
                s[bi] += v;
            }
            d *= 2;
        }
        barrier();
        out[base + 2 * t] = s[2 * t];
        out[base + 2 * t + 1] = s[2 * t + 1];
    }
}

fn blelloch_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&iota(384, 7)).unwrap();
        let mut o = rt.zeros::<u32>(384).unwrap();
        let r = match k {
            "blelloch" => go(blel::blelloch.launch(rt, 3, &inb, &mut o), how),
            "blelloch_no_final_barrier" => go(blel::blelloch_no_final_barrier.launch(rt, 3, &inb, &mut o), how),
            "blelloch_downsweep_no_barrier" => go(blel::blelloch_downsweep_no_barrier.launch(rt, 3, &inb, &mut o), how),
            _ => unreachable!(),
        };
        (r, o.to_vec().unwrap())
    }
}

fn exclusive_scan_want() -> Vec<u32> {
    iota(384, 7)
        .chunks(128)
        .flat_map(|c| {
            c.iter()
                .scan(0u32, |a, &x| {
                    let e = *a;
                    *a += x;
                    Some(e)
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn blelloch_scan_is_clean() {
    clean_all("blelloch", &blelloch_case("blelloch"));
    for got in native_both(&blelloch_case("blelloch")) {
        common::expect("blelloch", &got, &exclusive_scan_want());
    }
}

#[test]
fn blelloch_scan_without_the_final_barrier_is_clean() {
    clean_all("blelloch_no_final_barrier", &blelloch_case("blelloch_no_final_barrier"));
    for got in native_both(&blelloch_case("blelloch_no_final_barrier")) {
        common::expect("blelloch_no_final_barrier", &got, &exclusive_scan_want());
    }
}

#[test]
fn blelloch_downsweep_without_barrier_races() {
    for w in [32, 1] {
        expect_race("blelloch_downsweep_no_barrier", w, &blelloch_case("blelloch_downsweep_no_barrier"), &[]);
    }
    expect_race("blelloch_downsweep_no_barrier", 1, &blelloch_case("blelloch_downsweep_no_barrier"), &[ww(WG, WARP, "s")]);
}

// ===================================== 3. argmax: value and index pairs

#[ld::kernels]
pub mod amax {
    /// The block-level argmax shared by the kernels below would need a
    /// barrier in a helper, so each kernel spells it out.
    ///
    /// RACE-FREE: (value, index) pairs in two shared arrays, tree
    /// reduction with the barrier at the top of each step (the last step's
    /// writer, invocation 0, is the one that reads the result: no barrier
    /// after the loop); ties go to the lower index. Each workgroup's
    /// winner is packed as (value << 16 | 65535 - index) into one atomic
    /// `fetch_max`.
    #[kernel(workgroup_size = 64)]
    pub fn argmax_atomic(x: &[f32], best: &[AtomicU32], n: u32) {
        let sv = shared::<[f32; 64]>();
        let si = shared::<[u32; 64]>();
        let lid = local_index();
        let gid = global_id().x;
        sv[lid] = if gid < n { x[gid] } else { -1.0 };
        si[lid] = gid;
        let mut step = 32u32;
        while step > 0 {
            barrier();
            if lid < step {
                let ov = sv[lid + step];
                let oi = si[lid + step];
                if ov > sv[lid] || (ov == sv[lid] && oi < si[lid]) {
                    sv[lid] = ov;
                    si[lid] = oi;
                }
            }
            step >>= 1;
        }
        if lid == 0 {
            let key = ((sv[0] as u32) << 16) | (65535 - si[0]);
            best[0].fetch_max(key);
        }
    }

    /// RACY (ww, storage, between workgroups): the same block argmax, then
    /// invocation 0 of each workgroup compares with the global best and
    /// overwrites it with plain loads and stores (every workgroup here
    /// reads and changes the word, so ld judges it write-write).
    #[kernel(workgroup_size = 64)]
    pub fn argmax_plain(x: &[f32], best_v: &mut [f32], best_i: &mut [u32], n: u32) {
        let sv = shared::<[f32; 64]>();
        let si = shared::<[u32; 64]>();
        let lid = local_index();
        let gid = global_id().x;
        sv[lid] = if gid < n { x[gid] } else { -1.0 };
        si[lid] = gid;
        let mut step = 32u32;
        while step > 0 {
            barrier();
            if lid < step {
                let ov = sv[lid + step];
                let oi = si[lid + step];
                if ov > sv[lid] || (ov == sv[lid] && oi < si[lid]) {
                    sv[lid] = ov;
                    si[lid] = oi;
                }
            }
            step >>= 1;
        }
        if lid == 0 && sv[0] > best_v[0] {
            best_v[0] = sv[0];
            best_i[0] = si[0];
        }
    }

    /// RACY (rw, workgroup memory): the barrier at the bottom of each step
    /// but the first step reads before any barrier: invocations 0-31 read
    /// sv[32..64] while invocations 32-63 are still storing their input.
    #[kernel(workgroup_size = 64)]
    pub fn argmax_load_unsynced(x: &[f32], best: &[AtomicU32], n: u32) {
        let sv = shared::<[f32; 64]>();
        let si = shared::<[u32; 64]>();
        let lid = local_index();
        let gid = global_id().x;
        sv[lid] = if gid < n { x[gid] } else { -1.0 };
        si[lid] = gid;
        let mut step = 32u32;
        while step > 0 {
            if lid < step {
                let ov = sv[lid + step];
                let oi = si[lid + step];
                if ov > sv[lid] || (ov == sv[lid] && oi < si[lid]) {
                    sv[lid] = ov;
                    si[lid] = oi;
                }
            }
            barrier();
            step >>= 1;
        }
        if lid == 0 {
            let key = ((sv[0] as u32) << 16) | (65535 - si[0]);
            best[0].fetch_max(key);
        }
    }
}

const AN: u32 = 250;

/// Integers in 0..1000 with ties (the maximum, 999, at several indices
/// in different workgroups).
fn argmax_input() -> Vec<f32> {
    let mut v: Vec<f32> = iota(AN as usize, 9).iter().map(|&x| (x % 900) as f32).collect();
    for i in [77usize, 130, 201] {
        v[i] = 999.0;
    }
    v
}

fn argmax_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let xb = rt.upload(&argmax_input()).unwrap();
        match k {
            "argmax_atomic" | "argmax_load_unsynced" => {
                let mut best = rt.zeros::<u32>(1).unwrap();
                let r = if k == "argmax_atomic" {
                    go(amax::argmax_atomic.launch(rt, 4, &xb, &mut best, AN), how)
                } else {
                    go(amax::argmax_load_unsynced.launch(rt, 4, &xb, &mut best, AN), how)
                };
                (r, best.to_vec().unwrap())
            }
            "argmax_plain" => {
                let mut bv = rt.upload(&[-1.0f32]).unwrap();
                let mut bi = rt.zeros::<u32>(1).unwrap();
                let r = go(amax::argmax_plain.launch(rt, 4, &xb, &mut bv, &mut bi, AN), how);
                let mut v = f32s(&bv.to_vec().unwrap());
                v.extend(bi.to_vec().unwrap());
                (r, v)
            }
            _ => unreachable!(),
        }
    }
}

#[test]
fn argmax_with_packed_atomic_max_is_clean() {
    clean_all("argmax_atomic", &argmax_case("argmax_atomic"));
    for got in native_both(&argmax_case("argmax_atomic")) {
        assert_eq!(got, vec![(999 << 16) | (65535 - 77)], "argmax: value 999 first at index 77");
    }
}

#[test]
fn argmax_with_plain_global_compare_and_store_races() {
    // Whether a workgroup stores depends on the `best_v` it read: in exact
    // mode's one schedule a workgroup that finds a larger value stores
    // nothing, so only `best_v` (read by every workgroup) races there in
    // every schedule.
    for w in [32, 1] {
        expect_steered_race("argmax_plain", w, &argmax_case("argmax_plain"), &[ww(ST, WGS, "best_v"), ww(ST, WGS, "best_i")], &["best_i"]);
    }
}

#[test]
fn argmax_first_step_before_any_barrier_races() {
    for w in [32, 1] {
        expect_race("argmax_load_unsynced", w, &argmax_case("argmax_load_unsynced"), &[rw(WG, WARP, "sv")]);
    }
}

// ===================================== 4. matrix-vector product, a workgroup per row

#[ld::kernels]
pub mod mv {
    /// RACE-FREE: y = A x, one workgroup per row: strided partial dot
    /// products, a shared tree reduction, invocation 0 stores.
    #[kernel(workgroup_size = 64)]
    pub fn matvec_rows(a: &[f32], x: &[f32], y: &mut [f32], cols: u32) {
        let s = shared::<[f32; 64]>();
        let lid = local_index();
        let row = workgroup_id().x;
        let mut acc = 0.0f32;
        let mut j = lid;
        while j < cols {
            acc += a[row * cols + j] * x[j];
            j += 64;
        }
        s[lid] = acc;
        barrier();
        let mut step = 32u32;
        while step > 0 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        if lid == 0 {
            y[row] = s[0];
        }
    }

    /// RACY (ww, storage): the `if lid == 0` forgotten: every invocation
    /// stores the (same) row sum to y[row].
    #[kernel(workgroup_size = 64)]
    pub fn matvec_rows_all_store(a: &[f32], x: &[f32], y: &mut [f32], cols: u32) {
        let s = shared::<[f32; 64]>();
        let lid = local_index();
        let row = workgroup_id().x;
        let mut acc = 0.0f32;
        let mut j = lid;
        while j < cols {
            acc += a[row * cols + j] * x[j];
            j += 64;
        }
        s[lid] = acc;
        barrier();
        let mut step = 32u32;
        while step > 0 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        y[row] = s[0];
    }
}

const MR: u32 = 5;
const MC: u32 = 100;

fn matvec_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let a = rt.upload(&small_floats((MR * MC) as usize, 1, 9)).unwrap();
        let x = rt.upload(&small_floats(MC as usize, 4, 7)).unwrap();
        let mut y = rt.zeros::<f32>(MR as usize).unwrap();
        let r = match k {
            "matvec_rows" => go(mv::matvec_rows.launch(rt, MR, &a, &x, &mut y, MC), how),
            "matvec_rows_all_store" => go(mv::matvec_rows_all_store.launch(rt, MR, &a, &x, &mut y, MC), how),
            _ => unreachable!(),
        };
        (r, f32s(&y.to_vec().unwrap()))
    }
}

#[test]
fn matvec_one_workgroup_per_row_is_clean() {
    clean_all("matvec_rows", &matvec_case("matvec_rows"));
    let a = small_floats((MR * MC) as usize, 1, 9);
    let x = small_floats(MC as usize, 4, 7);
    let want: Vec<f32> = (0..MR as usize).map(|r| (0..MC as usize).map(|j| a[r * MC as usize + j] * x[j]).sum()).collect();
    for got in native_both(&matvec_case("matvec_rows")) {
        common::expect("matvec_rows", &floats(&got), &want);
    }
}

#[test]
fn matvec_every_invocation_storing_the_row_races() {
    for w in [32, 1] {
        expect_race("matvec_rows_all_store", w, &matvec_case("matvec_rows_all_store"), &[]);
    }
    expect_race("matvec_rows_all_store", 1, &matvec_case("matvec_rows_all_store"), &[ww(ST, WARP, "y")]);
}

// ===================================== 5. float sums through compare-and-swap

#[ld::kernels]
pub mod fsum {
    /// RACE-FREE: atomicAdd on f32 as CUDA programmers wrote it before
    /// hardware had it: a compare-and-swap loop on the bits of a storage
    /// word.
    #[kernel(workgroup_size = 64)]
    pub fn float_sum_cas(x: &[f32], acc: &[AtomicU32], n: u32) {
        let gid = global_id().x;
        if gid < n {
            let v = x[gid];
            let mut old = acc[0].load();
            loop {
                let new = (f32::from_bits(old) + v).to_bits();
                let prev = acc[0].compare_and_swap(old, new);
                if prev == old {
                    break;
                }
                old = prev;
            }
        }
    }

    /// RACY (ww and rw, storage, between invocations everywhere): the
    /// same with a plain `+=`.
    #[kernel(workgroup_size = 64)]
    pub fn float_sum_plain(x: &[f32], acc: &mut [f32], n: u32) {
        let gid = global_id().x;
        if gid < n {
            acc[0] += x[gid];
        }
    }

    /// RACE-FREE: the CAS loop on a shared word per workgroup, a barrier,
    /// invocation 0 stores the workgroup's sum.
    #[kernel(workgroup_size = 64)]
    pub fn float_sum_shared_cas(x: &[f32], out: &mut [f32], n: u32) {
        let s = shared::<[AtomicU32; 1]>();
        let lid = local_index();
        let gid = global_id().x;
        if gid < n {
            let v = x[gid];
            let mut old = s[0].load();
            loop {
                let prev = s[0].compare_and_swap(old, (f32::from_bits(old) + v).to_bits());
                if prev == old {
                    break;
                }
                old = prev;
            }
        }
        barrier();
        if lid == 0 {
            out[workgroup_id().x] = f32::from_bits(s[0].load());
        }
    }

    /// RACY (ww and rw, workgroup memory): a plain shared accumulator.
    #[kernel(workgroup_size = 64)]
    pub fn float_sum_shared_plain(x: &[f32], out: &mut [f32], n: u32) {
        let s = shared::<[f32; 1]>();
        let lid = local_index();
        let gid = global_id().x;
        if gid < n {
            s[0] += x[gid];
        }
        barrier();
        if lid == 0 {
            out[workgroup_id().x] = s[0];
        }
    }
}

const FN: u32 = 200;

fn fsum_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let xb = rt.upload(&small_floats(FN as usize, 2, 50)).unwrap();
        match k {
            "float_sum_cas" => {
                let mut acc = rt.upload(&[0.5f32.to_bits()]).unwrap();
                let r = go(fsum::float_sum_cas.launch(rt, 4, &xb, &mut acc, FN), how);
                (r, acc.to_vec().unwrap())
            }
            "float_sum_plain" => {
                let mut acc = rt.upload(&[0.5f32]).unwrap();
                let r = go(fsum::float_sum_plain.launch(rt, 4, &xb, &mut acc, FN), how);
                (r, f32s(&acc.to_vec().unwrap()))
            }
            "float_sum_shared_cas" | "float_sum_shared_plain" => {
                let mut out = rt.zeros::<f32>(4).unwrap();
                let r = if k == "float_sum_shared_cas" {
                    go(fsum::float_sum_shared_cas.launch(rt, 4, &xb, &mut out, FN), how)
                } else {
                    go(fsum::float_sum_shared_plain.launch(rt, 4, &xb, &mut out, FN), how)
                };
                (r, f32s(&out.to_vec().unwrap()))
            }
            _ => unreachable!(),
        }
    }
}

#[test]
fn float_sum_through_cas_loop_is_clean() {
    clean_all("float_sum_cas", &fsum_case("float_sum_cas"));
    let want = 0.5 + small_floats(FN as usize, 2, 50).iter().sum::<f32>();
    for got in native_both(&fsum_case("float_sum_cas")) {
        assert_eq!(f32::from_bits(got[0]), want);
    }
}

#[test]
fn float_sum_with_plain_add_races() {
    for w in [32, 1] {
        expect_race("float_sum_plain", w, &fsum_case("float_sum_plain"), &[ww(ST, WGS, "acc")]);
    }
    expect_race("float_sum_plain", 1, &fsum_case("float_sum_plain"), &[ww(ST, WARP, "acc")]);
}

#[test]
fn float_sum_through_shared_cas_loop_is_clean() {
    clean_all("float_sum_shared_cas", &fsum_case("float_sum_shared_cas"));
    let x = small_floats(FN as usize, 2, 50);
    let want: Vec<f32> = x.chunks(64).map(|c| c.iter().sum()).collect();
    for got in native_both(&fsum_case("float_sum_shared_cas")) {
        common::expect("float_sum_shared_cas", &floats(&got), &want);
    }
}

#[test]
fn float_sum_with_plain_shared_add_races() {
    for w in [32, 1] {
        expect_race("float_sum_shared_plain", w, &fsum_case("float_sum_shared_plain"), &[]);
    }
    expect_race("float_sum_shared_plain", 1, &fsum_case("float_sum_shared_plain"), &[ww(WG, WARP, "s")]);
}

// ===================================== 6. vector normalisation: one launch or two

#[ld::kernels]
pub mod vn {
    /// RACE-FREE (launch 1 of 2): each workgroup's sum of squares.
    #[kernel(workgroup_size = 64)]
    pub fn sumsq_blocks(x: &[f32], partial: &mut [f32]) {
        let s = shared::<[f32; 64]>();
        let lid = local_index();
        let v = x[global_id().x];
        s[lid] = v * v;
        barrier();
        let mut step = 32u32;
        while step > 0 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        if lid == 0 {
            partial[workgroup_id().x] = s[0];
        }
    }

    /// RACE-FREE (launch 2 of 2): every invocation adds the partials the
    /// previous launch wrote and scales its element.
    #[kernel(workgroup_size = 64)]
    pub fn scale_by_norm(x: &[f32], partial: &[f32], y: &mut [f32]) {
        let mut ss = 0.0f32;
        for k in 0..partial.len() {
            ss += partial[k];
        }
        let g = global_id().x;
        y[g] = x[g] / ss.sqrt();
    }

    /// RACY (rw, storage, between workgroups): both steps fused into one
    /// launch, with `storage_barrier()` taken for a grid-wide sync: each
    /// workgroup reads the partials the others are writing.
    #[kernel(workgroup_size = 64)]
    pub fn normalize_fused(x: &[f32], partial: &mut [f32], y: &mut [f32]) {
        let s = shared::<[f32; 64]>();
        let lid = local_index();
        let g = global_id().x;
        let v = x[g];
        s[lid] = v * v;
        barrier();
        let mut step = 32u32;
        while step > 0 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        if lid == 0 {
            partial[workgroup_id().x] = s[0];
        }
        storage_barrier();
        let mut ss = 0.0f32;
        for k in 0..num_workgroups().x {
            ss += partial[k];
        }
        y[g] = v / ss.sqrt();
    }
}

const VW: u32 = 4;

fn vec_input() -> Vec<f32> {
    iota((VW * 64) as usize, 5).iter().map(|&x| (x % 11) as f32 - 5.0).collect()
}

fn vn_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let xb = rt.upload(&vec_input()).unwrap();
        let mut p = rt.zeros::<f32>(VW as usize).unwrap();
        let mut y = rt.zeros::<f32>((VW * 64) as usize).unwrap();
        let r = match k {
            "two_launches" => {
                let r1 = go(vn::sumsq_blocks.launch(rt, VW, &xb, &mut p), how);
                let r2 = go(vn::scale_by_norm.launch(rt, VW, &xb, &p, &mut y), how);
                match (r1, r2) {
                    (Some(a), _) if a.has_races() => Some(a),
                    (_, b) => b,
                }
            }
            "normalize_fused" => go(vn::normalize_fused.launch(rt, VW, &xb, &mut p, &mut y), how),
            _ => unreachable!(),
        };
        let mut v = f32s(&p.to_vec().unwrap());
        v.extend(f32s(&y.to_vec().unwrap()));
        (r, v)
    }
}

#[test]
fn normalisation_in_two_launches_is_clean() {
    clean_all("two_launches", &vn_case("two_launches"));
    let x = vec_input();
    let norm = x.iter().map(|v| v * v).sum::<f32>().sqrt();
    for got in native_both(&vn_case("two_launches")) {
        let y = floats(&got[VW as usize..]);
        for (i, (g, xi)) in y.iter().zip(&x).enumerate() {
            assert!((g - xi / norm).abs() < 1e-6, "normalised[{i}]: {g} vs host {}", xi / norm);
        }
    }
}

#[test]
fn normalisation_fused_behind_storage_barrier_races() {
    for w in [32, 1] {
        expect_race("normalize_fused", w, &vn_case("normalize_fused"), &[rw(ST, WGS, "partial")]);
    }
}

// ===================================== 7. separable blur through a shared tile with halo

#[ld::kernels]
pub mod blur {
    const T: u32 = 8;
    const TW: u32 = 10;

    /// RACE-FREE: 3x3 separable [1 2 1]/4 blur, 2-D workgroups of 8x8 on a
    /// 20x12 image (partial tiles), clamp-to-edge. The 10x10 tile with its
    /// halo is loaded by a strided loop over the 64 invocations; barrier;
    /// the horizontal pass into a 10x8 `tmp`; barrier; the vertical pass.
    #[kernel(workgroup_size = (8, 8))]
    pub fn blur_separable(img: &[f32], out: &mut [f32], w: u32, h: u32) {
        let tile = shared::<[f32; 100]>();
        let tmp = shared::<[f32; 80]>();
        let tx = local_id().x;
        let ty = local_id().y;
        let lid = ty * T + tx;
        let ox = workgroup_id().x * T;
        let oy = workgroup_id().y * T;
        let mut i = lid;
        while i < TW * TW {
            let gx = (ox + i % TW) as i32 - 1;
            let gy = (oy + i / TW) as i32 - 1;
            let cx = gx.clamp(0, w as i32 - 1) as u32;
            let cy = gy.clamp(0, h as i32 - 1) as u32;
            tile[i] = img[cy * w + cx];
            i += T * T;
        }
        barrier();
        i = lid;
        while i < TW * T {
            let r = i / T;
            let c = i % T;
            tmp[i] = 0.25 * tile[r * TW + c] + 0.5 * tile[r * TW + c + 1] + 0.25 * tile[r * TW + c + 2];
            i += T * T;
        }
        barrier();
        let x = ox + tx;
        let y = oy + ty;
        if x < w && y < h {
            out[y * w + x] = 0.25 * tmp[ty * T + tx] + 0.5 * tmp[(ty + 1) * T + tx] + 0.25 * tmp[(ty + 2) * T + tx];
        }
    }

    /// RACY (rw, workgroup memory): the barrier between the two passes
    /// missing; rows 8 and 9 of `tmp` are written by invocations 0-15
    /// (warp 0) and read by rows 6 and 7 (warp 1).
    #[kernel(workgroup_size = (8, 8))]
    pub fn blur_separable_one_barrier(img: &[f32], out: &mut [f32], w: u32, h: u32) {
        let tile = shared::<[f32; 100]>();
        let tmp = shared::<[f32; 80]>();
        let tx = local_id().x;
        let ty = local_id().y;
        let lid = ty * T + tx;
        let ox = workgroup_id().x * T;
        let oy = workgroup_id().y * T;
        let mut i = lid;
        while i < TW * TW {
            let gx = (ox + i % TW) as i32 - 1;
            let gy = (oy + i / TW) as i32 - 1;
            let cx = gx.clamp(0, w as i32 - 1) as u32;
            let cy = gy.clamp(0, h as i32 - 1) as u32;
            tile[i] = img[cy * w + cx];
            i += T * T;
        }
        barrier();
        i = lid;
        while i < TW * T {
            let r = i / T;
            let c = i % T;
            tmp[i] = 0.25 * tile[r * TW + c] + 0.5 * tile[r * TW + c + 1] + 0.25 * tile[r * TW + c + 2];
            i += T * T;
        }
        let x = ox + tx;
        let y = oy + ty;
        if x < w && y < h {
            out[y * w + x] = 0.25 * tmp[ty * T + tx] + 0.5 * tmp[(ty + 1) * T + tx] + 0.25 * tmp[(ty + 2) * T + tx];
        }
    }

    /// RACY (rw, workgroup memory): the horizontal pass done in place in
    /// `tile` to save shared memory: a cell is overwritten while its
    /// neighbours still read it.
    #[kernel(workgroup_size = (8, 8))]
    pub fn blur_in_place(img: &[f32], out: &mut [f32], w: u32, h: u32) {
        let tile = shared::<[f32; 100]>();
        let tx = local_id().x;
        let ty = local_id().y;
        let lid = ty * T + tx;
        let ox = workgroup_id().x * T;
        let oy = workgroup_id().y * T;
        let mut i = lid;
        while i < TW * TW {
            let gx = (ox + i % TW) as i32 - 1;
            let gy = (oy + i / TW) as i32 - 1;
            let cx = gx.clamp(0, w as i32 - 1) as u32;
            let cy = gy.clamp(0, h as i32 - 1) as u32;
            tile[i] = img[cy * w + cx];
            i += T * T;
        }
        barrier();
        i = lid;
        while i < TW * T {
            let r = i / T;
            let c = i % T;
            tile[r * TW + c + 1] = 0.25 * tile[r * TW + c] + 0.5 * tile[r * TW + c + 1] + 0.25 * tile[r * TW + c + 2];
            i += T * T;
        }
        barrier();
        let x = ox + tx;
        let y = oy + ty;
        if x < w && y < h {
            out[y * w + x] = 0.25 * tile[ty * TW + tx + 1] + 0.5 * tile[(ty + 1) * TW + tx + 1] + 0.25 * tile[(ty + 2) * TW + tx + 1];
        }
    }
}

const BW: u32 = 20;
const BH: u32 = 12;

fn blur_input() -> Vec<f32> {
    iota((BW * BH) as usize, 8).iter().map(|&x| (x % 64) as f32).collect()
}

fn blur_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let ib = rt.upload(&blur_input()).unwrap();
        let mut o = rt.zeros::<f32>((BW * BH) as usize).unwrap();
        let grid = (BW.div_ceil(8), BH.div_ceil(8));
        let r = match k {
            "blur_separable" => go(blur::blur_separable.launch(rt, grid, &ib, &mut o, BW, BH), how),
            "blur_separable_one_barrier" => go(blur::blur_separable_one_barrier.launch(rt, grid, &ib, &mut o, BW, BH), how),
            "blur_in_place" => go(blur::blur_in_place.launch(rt, grid, &ib, &mut o, BW, BH), how),
            _ => unreachable!(),
        };
        (r, f32s(&o.to_vec().unwrap()))
    }
}

#[test]
fn separable_blur_through_shared_tiles_is_clean() {
    clean_all("blur_separable", &blur_case("blur_separable"));
    let img = blur_input();
    let at = |x: i32, y: i32| img[(y.clamp(0, BH as i32 - 1) * BW as i32 + x.clamp(0, BW as i32 - 1)) as usize];
    let mut want = vec![0.0f32; (BW * BH) as usize];
    for y in 0..BH as i32 {
        for x in 0..BW as i32 {
            let hrow = |yy: i32| 0.25 * at(x - 1, yy) + 0.5 * at(x, yy) + 0.25 * at(x + 1, yy);
            want[(y * BW as i32 + x) as usize] = 0.25 * hrow(y - 1) + 0.5 * hrow(y) + 0.25 * hrow(y + 1);
        }
    }
    for got in native_both(&blur_case("blur_separable")) {
        common::expect("blur_separable", &floats(&got), &want);
    }
}

#[test]
fn separable_blur_without_the_middle_barrier_races() {
    for w in [32, 1] {
        expect_race("blur_separable_one_barrier", w, &blur_case("blur_separable_one_barrier"), &[rw(WG, WARP, "tmp")]);
    }
}

#[test]
fn blur_pass_in_place_in_the_tile_races() {
    for w in [32, 1] {
        expect_race("blur_in_place", w, &blur_case("blur_in_place"), &[]);
    }
    expect_race("blur_in_place", 1, &blur_case("blur_in_place"), &[rw(WG, WARP, "tile")]);
}

// ===================================== 8. segmented reduction with head flags

#[ld::kernels]
pub mod seg {
    const B: u32 = 64;

    /// RACE-FREE: segmented inclusive scan (Hillis-Steele on (value, flag)
    /// pairs, double-buffered) of each workgroup's 64 values; the last
    /// element of each segment piece in the workgroup adds the piece's sum
    /// with `fetch_add` (segments cross workgroup boundaries).
    #[kernel(workgroup_size = 64)]
    pub fn seg_sum(vals: &[u32], seg: &[u32], sums: &[AtomicU32]) {
        let sv = shared::<[u32; 128]>();
        let sf = shared::<[u32; 128]>();
        let lid = local_index();
        let gid = global_id().x;
        let my = seg[gid];
        sv[lid] = vals[gid];
        sf[lid] = if lid == 0 || seg[gid - 1] != my { 1 } else { 0 };
        barrier();
        let mut pin = 0u32;
        let mut pout = B;
        let mut off = 1u32;
        while off < B {
            if lid >= off {
                let f = sf[pin + lid];
                sv[pout + lid] = if f != 0 { sv[pin + lid] } else { sv[pin + lid] + sv[pin + lid - off] };
                sf[pout + lid] = f | sf[pin + lid - off];
            } else {
                sv[pout + lid] = sv[pin + lid];
                sf[pout + lid] = sf[pin + lid];
            }
            barrier();
            let t = pin;
            pin = pout;
            pout = t;
            off *= 2;
        }
        if lid == B - 1 || seg[gid + 1] != my {
            sums[my].fetch_add(sv[pin + lid]);
        }
    }

    /// RACY (rw and ww, storage, between workgroups): the same with a
    /// plain `+=`: a segment that spans two workgroups gets two writers.
    #[kernel(workgroup_size = 64)]
    pub fn seg_sum_plain(vals: &[u32], seg: &[u32], sums: &mut [u32]) {
        let sv = shared::<[u32; 128]>();
        let sf = shared::<[u32; 128]>();
        let lid = local_index();
        let gid = global_id().x;
        let my = seg[gid];
        sv[lid] = vals[gid];
        sf[lid] = if lid == 0 || seg[gid - 1] != my { 1 } else { 0 };
        barrier();
        let mut pin = 0u32;
        let mut pout = B;
        let mut off = 1u32;
        while off < B {
            if lid >= off {
                let f = sf[pin + lid];
                sv[pout + lid] = if f != 0 { sv[pin + lid] } else { sv[pin + lid] + sv[pin + lid - off] };
                sf[pout + lid] = f | sf[pin + lid - off];
            } else {
                sv[pout + lid] = sv[pin + lid];
                sf[pout + lid] = sf[pin + lid];
            }
            barrier();
            let t = pin;
            pin = pout;
            pout = t;
            off *= 2;
        }
        if lid == B - 1 || seg[gid + 1] != my {
            sums[my] += sv[pin + lid];
        }
    }
}

const SN: usize = 256;

/// Sorted segment ids, segments 1 to 40 long; segments 2, 5 and more
/// cross workgroup boundaries.
fn segments() -> (Vec<u32>, Vec<u32>, usize) {
    let vals = iota(SN, 11);
    let mut ids = Vec::with_capacity(SN);
    let mut id = 0u32;
    let mut left = 0u32;
    let lens = iota(64, 12);
    while ids.len() < SN {
        if left == 0 {
            left = lens[id as usize] % 40 + 1;
            if !ids.is_empty() {
                id += 1;
            }
        }
        ids.push(id);
        left -= 1;
    }
    (vals, ids, id as usize + 1)
}

fn seg_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let (vals, ids, nseg) = segments();
        let (vb, ib) = (rt.upload(&vals).unwrap(), rt.upload(&ids).unwrap());
        let mut sums = rt.zeros::<u32>(nseg).unwrap();
        let grid = (SN / 64) as u32;
        let r = match k {
            "seg_sum" => go(seg::seg_sum.launch(rt, grid, &vb, &ib, &mut sums), how),
            "seg_sum_plain" => go(seg::seg_sum_plain.launch(rt, grid, &vb, &ib, &mut sums), how),
            _ => unreachable!(),
        };
        (r, sums.to_vec().unwrap())
    }
}

#[test]
fn segmented_reduction_with_atomic_pieces_is_clean() {
    clean_all("seg_sum", &seg_case("seg_sum"));
    let (vals, ids, nseg) = segments();
    let crossing = (1..SN / 64).filter(|&b| ids[b * 64] == ids[b * 64 - 1]).count();
    assert!(crossing >= 2, "the input must have segments across workgroups");
    let mut want = vec![0u32; nseg];
    for (v, &i) in vals.iter().zip(&ids) {
        want[i as usize] += v;
    }
    for got in native_both(&seg_case("seg_sum")) {
        common::expect("seg_sum", &got, &want);
    }
}

#[test]
fn segmented_reduction_with_plain_adds_races_between_workgroups() {
    for w in [32, 1] {
        expect_race("seg_sum_plain", w, &seg_case("seg_sum_plain"), &[ww(ST, WGS, "sums")]);
    }
}

// ===================================== 9. a radix sort's local pass

#[ld::kernels]
pub mod radix {
    /// RACE-FREE: one 4-bit digit of an LSD radix sort, 64 keys per
    /// workgroup: keys into shared memory; invocations 0-15 count their
    /// digit (and store the workgroup's histogram); invocation 0 scans the
    /// counts into offsets; every key goes to offset + its stable rank.
    #[kernel(workgroup_size = 64)]
    pub fn radix_local(keys: &[u32], out: &mut [u32], hist: &mut [u32], shift: u32) {
        let sk = shared::<[u32; 64]>();
        let cnt = shared::<[u32; 16]>();
        let off = shared::<[u32; 16]>();
        let lid = local_index();
        let wg = workgroup_id().x;
        let base = wg * 64;
        let k = keys[base + lid];
        sk[lid] = k;
        barrier();
        if lid < 16 {
            let mut c = 0u32;
            for j in 0..64u32 {
                if ((sk[j] >> shift) & 15) == lid {
                    c += 1;
                }
            }
            cnt[lid] = c;
            hist[wg * 16 + lid] = c;
        }
        barrier();
        if lid == 0 {
            let mut run = 0u32;
            for d in 0..16u32 {
                off[d] = run;
                run += cnt[d];
            }
        }
        barrier();
        let d = (k >> shift) & 15;
        let mut rank = off[d];
        for j in 0..lid {
            if ((sk[j] >> shift) & 15) == d {
                rank += 1;
            }
        }
        out[base + rank] = k;
    }

    /// RACY (rw, workgroup memory): no barrier after invocation 0's scan:
    /// the other warps read `off` while it is being written.
    #[kernel(workgroup_size = 64)]
    pub fn radix_local_scan_unsynced(keys: &[u32], out: &mut [u32], hist: &mut [u32], shift: u32) {
        let sk = shared::<[u32; 64]>();
        let cnt = shared::<[u32; 16]>();
        let off = shared::<[u32; 16]>();
        let lid = local_index();
        let wg = workgroup_id().x;
        let base = wg * 64;
        let k = keys[base + lid];
        sk[lid] = k;
        barrier();
        if lid < 16 {
            let mut c = 0u32;
            for j in 0..64u32 {
                if ((sk[j] >> shift) & 15) == lid {
                    c += 1;
                }
            }
            cnt[lid] = c;
            hist[wg * 16 + lid] = c;
        }
        barrier();
        if lid == 0 {
            let mut run = 0u32;
            for d in 0..16u32 {
                off[d] = run;
                run += cnt[d];
            }
        }
        let d = (k >> shift) & 15;
        let mut rank = off[d];
        for j in 0..lid {
            if ((sk[j] >> shift) & 15) == d {
                rank += 1;
            }
        }
        out[base + rank] = k;
    }
}

fn radix_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let kb = rt.upload(&iota(192, 13)).unwrap();
        let mut o = rt.zeros::<u32>(192).unwrap();
        let mut h = rt.zeros::<u32>(48).unwrap();
        let r = match k {
            "radix_local" => go(radix::radix_local.launch(rt, 3, &kb, &mut o, &mut h, 4u32), how),
            "radix_local_scan_unsynced" => go(radix::radix_local_scan_unsynced.launch(rt, 3, &kb, &mut o, &mut h, 4u32), how),
            _ => unreachable!(),
        };
        let mut v = o.to_vec().unwrap();
        v.extend(h.to_vec().unwrap());
        (r, v)
    }
}

#[test]
fn radix_local_pass_is_clean() {
    clean_all("radix_local", &radix_case("radix_local"));
    let keys = iota(192, 13);
    let mut want = Vec::new();
    let mut hist = Vec::new();
    for c in keys.chunks(64) {
        let mut s = c.to_vec();
        s.sort_by_key(|k| (k >> 4) & 15); // stable
        want.extend(s);
        for d in 0..16 {
            hist.push(c.iter().filter(|&&k| (k >> 4) & 15 == d).count() as u32);
        }
    }
    want.extend(hist);
    for got in native_both(&radix_case("radix_local")) {
        common::expect("radix_local", &got, &want);
    }
}

#[test]
fn radix_local_pass_without_barrier_after_the_scan_races() {
    racy_verdict(&[32, 1], "radix_local_scan_unsynced", &radix_case("radix_local_scan_unsynced"), &[rw(WG, WARP, "off")]);
}

#[ld::kernels]
pub mod cascade {
    /// RACY (rw, workgroup memory, inter-warp): invocation 0 publishes an
    /// offset in shared memory and the second warp reads it with no
    /// barrier, to index its store. Minimal form of
    /// `radix_local_scan_unsynced`.
    #[kernel(workgroup_size = 64)]
    pub fn racy_offset(out: &mut [u32]) {
        let s = shared::<[u32; 1]>();
        let lid = local_index();
        if lid == 0 {
            s[0] = 32;
        }
        if lid < 32 {
            out[lid] = 1;
        } else {
            out[lid - 32 + s[0]] = 2;
        }
    }
}

fn cascade_case(rt: &Runtime, how: How) -> (Option<Report>, Vec<u32>) {
    let mut o = rt.zeros::<u32>(64).unwrap();
    let r = go(cascade::racy_offset.launch(rt, 1, &mut o), how);
    (r, o.to_vec().unwrap())
}

#[test]
fn racy_index_read_is_found() {
    racy_verdict(&[32], "racy_offset", &cascade_case, &[rw(WG, WARP, "s")]);
}

// ===================================== 10. max-pool backward: scatter to the argmax

#[ld::kernels]
pub mod pool {
    /// Max-pool backward, 1-D, window `k`, stride `s`: each output
    /// gradient goes to the input position that held its window's max
    /// (first on ties). RACE-FREE when the windows do not overlap
    /// (`s >= k`); RACY (rw and ww, storage) when they do: two windows
    /// with the same argmax add to the same `gin` word.
    #[kernel(workgroup_size = 64)]
    pub fn maxpool_backward(x: &[f32], gout: &[f32], gin: &mut [f32], k: u32, s: u32, nout: u32) {
        let o = global_id().x;
        if o < nout {
            let start = o * s;
            let mut am = start;
            for i in start + 1..start + k {
                if x[i] > x[am] {
                    am = i;
                }
            }
            gin[am] += gout[o];
        }
    }
}

const PN: u32 = 260;

/// Values in 0..100, rising around index 64 so that overlapping windows
/// on both sides of the workgroup boundary (outputs 63 and 64, stride 1)
/// pick the same maximum.
fn pool_input() -> Vec<f32> {
    let mut v: Vec<f32> = iota(PN as usize, 14).iter().map(|&x| (x % 100) as f32).collect();
    v[63] = 1.0;
    v[64] = 500.0;
    v[65] = 2.0;
    v
}

fn pool_case(stride: u32) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let nout = (PN - 2) / stride + 1;
        let xb = rt.upload(&pool_input()).unwrap();
        let g: Vec<f32> = (0..nout).map(|o| (o % 5 + 1) as f32).collect();
        let gb = rt.upload(&g).unwrap();
        let mut gin = rt.zeros::<f32>(PN as usize).unwrap();
        let r = go(pool::maxpool_backward.launch(rt, nout.div_ceil(64), &xb, &gb, &mut gin, 2u32, stride, nout), how);
        (r, f32s(&gin.to_vec().unwrap()))
    }
}

#[test]
fn maxpool_backward_without_overlap_is_clean() {
    clean_all("maxpool_backward_s2", &pool_case(2));
    let x = pool_input();
    let mut want = vec![0.0f32; PN as usize];
    for o in 0..(PN as usize - 2) / 2 + 1 {
        let (a, b) = (2 * o, 2 * o + 1);
        let am = if x[b] > x[a] { b } else { a };
        want[am] += (o % 5 + 1) as f32;
    }
    for got in native_both(&pool_case(2)) {
        common::expect("maxpool_backward_s2", &floats(&got), &want);
    }
}

#[test]
fn maxpool_backward_with_overlapping_windows_races() {
    for w in [32, 1] {
        expect_race("maxpool_backward_s1", w, &pool_case(1), &[ww(ST, WGS, "gin")]);
    }
}

// ===================================== 11. power iteration in one workgroup

#[ld::kernels]
pub mod power {
    /// RACE-FREE: power iteration on a 64x64 matrix in one workgroup:
    /// each invocation one row of y = A x (x in shared memory), a shared
    /// max-|y| reduction, x = y / max. Barriers: after storing |y| (B1),
    /// in the reduction, after reading the max (B2), after storing x (B3).
    #[kernel(workgroup_size = 64)]
    pub fn power_iter(a: &[f32], v: &mut [f32], iters: u32) {
        let x = shared::<[f32; 64]>();
        let red = shared::<[f32; 64]>();
        let i = local_index();
        x[i] = 1.0;
        barrier();
        for _ in 0..iters {
            let mut y = 0.0f32;
            for j in 0..64u32 {
                y += a[i * 64 + j] * x[j];
            }
            red[i] = y.abs();
            barrier();
            let mut step = 32u32;
            while step > 0 {
                if i < step {
                    red[i] = red[i].max(red[i + step]);
                }
                barrier();
                step >>= 1;
            }
            let m = red[0];
            barrier();
            x[i] = y / m;
            barrier();
        }
        v[i] = x[i];
    }

    /// RACE-FREE: without B2: the reads of `x` come before B1 and the
    /// next write of red[0] after B3, so B2 orders nothing.
    #[kernel(workgroup_size = 64)]
    pub fn power_iter_lean(a: &[f32], v: &mut [f32], iters: u32) {
        let x = shared::<[f32; 64]>();
        let red = shared::<[f32; 64]>();
        let i = local_index();
        x[i] = 1.0;
        barrier();
        for _ in 0..iters {
            let mut y = 0.0f32;
            for j in 0..64u32 {
                y += a[i * 64 + j] * x[j];
            }
            red[i] = y.abs();
            barrier();
            let mut step = 32u32;
            while step > 0 {
                if i < step {
                    red[i] = red[i].max(red[i + step]);
                }
                barrier();
                step >>= 1;
            }
            let m = red[0];
            x[i] = y / m;
            barrier();
        }
        v[i] = x[i];
    }

    /// RACY (rw, workgroup memory): without B3: the next iteration's
    /// matrix-vector product reads `x` while other invocations still
    /// store the new x.
    #[kernel(workgroup_size = 64)]
    pub fn power_iter_no_store_barrier(a: &[f32], v: &mut [f32], iters: u32) {
        let x = shared::<[f32; 64]>();
        let red = shared::<[f32; 64]>();
        let i = local_index();
        x[i] = 1.0;
        barrier();
        for _ in 0..iters {
            let mut y = 0.0f32;
            for j in 0..64u32 {
                y += a[i * 64 + j] * x[j];
            }
            red[i] = y.abs();
            barrier();
            let mut step = 32u32;
            while step > 0 {
                if i < step {
                    red[i] = red[i].max(red[i + step]);
                }
                barrier();
                step >>= 1;
            }
            let m = red[0];
            barrier();
            x[i] = y / m;
        }
        barrier();
        v[i] = x[i];
    }
}

fn power_matrix() -> Vec<f32> {
    // Symmetric, small integers, a dominant diagonal.
    let mut a = vec![0.0f32; 64 * 64];
    for i in 0..64 {
        for j in 0..64 {
            a[i * 64 + j] = if i == j { 8.0 + (i % 3) as f32 } else { ((i * j + i + j) % 5) as f32 * 0.25 };
        }
    }
    a
}

fn power_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let ab = rt.upload(&power_matrix()).unwrap();
        let mut v = rt.zeros::<f32>(64).unwrap();
        let r = match k {
            "power_iter" => go(power::power_iter.launch(rt, 1, &ab, &mut v, 6u32), how),
            "power_iter_lean" => go(power::power_iter_lean.launch(rt, 1, &ab, &mut v, 6u32), how),
            "power_iter_no_store_barrier" => go(power::power_iter_no_store_barrier.launch(rt, 1, &ab, &mut v, 6u32), how),
            _ => unreachable!(),
        };
        (r, f32s(&v.to_vec().unwrap()))
    }
}

fn power_want() -> Vec<f32> {
    let a = power_matrix();
    let mut x = vec![1.0f32; 64];
    for _ in 0..6 {
        let y: Vec<f32> = (0..64).map(|i| (0..64).fold(0.0f32, |acc, j| acc + a[i * 64 + j] * x[j])).collect();
        let m = y.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        x = y.iter().map(|v| v / m).collect();
    }
    x
}

#[test]
fn power_iteration_in_one_workgroup_is_clean() {
    clean_all("power_iter", &power_case("power_iter"));
    let want = power_want();
    for got in native_both(&power_case("power_iter")) {
        common::assert_close(&floats(&got), &want, 4, 1e-6, "power_iter");
    }
}

#[test]
fn power_iteration_without_the_redundant_barrier_is_clean() {
    clean_all("power_iter_lean", &power_case("power_iter_lean"));
    let want = power_want();
    for got in native_both(&power_case("power_iter_lean")) {
        common::assert_close(&floats(&got), &want, 4, 1e-6, "power_iter_lean");
    }
}

#[test]
fn power_iteration_without_the_store_barrier_races() {
    for w in [32, 1] {
        expect_race("power_iter_no_store_barrier", w, &power_case("power_iter_no_store_barrier"), &[rw(WG, WARP, "x")]);
    }
}

// ===================================== 12. in-place softmax, partial dot products through storage

#[ld::kernels]
pub mod inplace {
    const B: u32 = 64;

    fn weight(d: f32) -> f32 {
        1.0 / (1.0 + d)
    }

    /// RACE-FREE: `softmax` in place: every invocation reads and finally
    /// overwrites only the columns j = lid (mod 64) of its row, so no
    /// other invocation touches a word it writes.
    #[kernel(workgroup_size = 64)]
    pub fn softmax_in_place(x: &mut [f32], cols: u32) {
        let s = shared::<[f32; 64]>();
        let lid = local_index();
        let base = workgroup_id().x * cols;
        let mut m = -f32::MAX;
        let mut j = lid;
        while j < cols {
            m = m.max(x[base + j]);
            j += B;
        }
        s[lid] = m;
        barrier();
        let mut step = B / 2;
        while step > 0 {
            if lid < step {
                s[lid] = s[lid].max(s[lid + step]);
            }
            barrier();
            step >>= 1;
        }
        let mx = s[0];
        barrier();
        let mut sum = 0.0f32;
        j = lid;
        while j < cols {
            sum += weight(mx - x[base + j]);
            j += B;
        }
        s[lid] = sum;
        barrier();
        step = B / 2;
        while step > 0 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        let inv = 1.0 / s[0];
        j = lid;
        while j < cols {
            x[base + j] = weight(mx - x[base + j]) * inv;
            j += B;
        }
    }

    /// RACY (rw, storage, inter-warp, across workgroup barriers that do
    /// not order storage): the final store "vectorised" to three
    /// consecutive columns per invocation; the columns an invocation
    /// overwrites were read by other invocations in the earlier passes.
    #[kernel(workgroup_size = 64)]
    pub fn softmax_in_place_remapped(x: &mut [f32], cols: u32) {
        let s = shared::<[f32; 64]>();
        let lid = local_index();
        let base = workgroup_id().x * cols;
        let mut m = -f32::MAX;
        let mut j = lid;
        while j < cols {
            m = m.max(x[base + j]);
            j += B;
        }
        s[lid] = m;
        barrier();
        let mut step = B / 2;
        while step > 0 {
            if lid < step {
                s[lid] = s[lid].max(s[lid + step]);
            }
            barrier();
            step >>= 1;
        }
        let mx = s[0];
        barrier();
        let mut sum = 0.0f32;
        j = lid;
        while j < cols {
            sum += weight(mx - x[base + j]);
            j += B;
        }
        s[lid] = sum;
        barrier();
        step = B / 2;
        while step > 0 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        let inv = 1.0 / s[0];
        for c in lid * 3..lid * 3 + 3 {
            if c < cols {
                x[base + c] = weight(mx - x[base + c]) * inv;
            }
        }
    }

    /// RACE-FREE: dot product of 64-element chunks: each invocation stores
    /// its product to storage, `storage_barrier()`, invocation 0 adds its
    /// own workgroup's 64 products (neighbouring workgroups write the
    /// other words of the same pages).
    #[kernel(workgroup_size = 64)]
    pub fn dot_storage_handoff(a: &[f32], b: &[f32], prod: &mut [f32], out: &mut [f32]) {
        let g = global_id().x;
        prod[g] = a[g] * b[g];
        storage_barrier();
        if local_index() == 0 {
            let mut acc = 0.0f32;
            for k in 0..64u32 {
                acc += prod[g + k];
            }
            out[workgroup_id().x] = acc;
        }
    }

    /// RACY (rw, storage, between workgroups): the loop bound off by one
    /// (`0..=64`): invocation 0 also reads the first product of the next
    /// workgroup.
    #[kernel(workgroup_size = 64)]
    pub fn dot_storage_off_by_one(a: &[f32], b: &[f32], prod: &mut [f32], out: &mut [f32]) {
        let g = global_id().x;
        prod[g] = a[g] * b[g];
        storage_barrier();
        if local_index() == 0 {
            let mut acc = 0.0f32;
            for k in 0..=64u32 {
                if g + k < prod.len() {
                    acc += prod[g + k];
                }
            }
            out[workgroup_id().x] = acc;
        }
    }
}

fn inplace_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| match k {
        "softmax_in_place" | "softmax_in_place_remapped" => {
            let mut xb = rt.upload(&row_input()).unwrap();
            let r = if k == "softmax_in_place" {
                go(inplace::softmax_in_place.launch(rt, ROWS, &mut xb, COLS), how)
            } else {
                go(inplace::softmax_in_place_remapped.launch(rt, ROWS, &mut xb, COLS), how)
            };
            (r, f32s(&xb.to_vec().unwrap()))
        }
        "dot_storage_handoff" | "dot_storage_off_by_one" => {
            let a = rt.upload(&small_floats(256, 15, 9)).unwrap();
            let b = rt.upload(&small_floats(256, 16, 7)).unwrap();
            let mut p = rt.zeros::<f32>(256).unwrap();
            let mut o = rt.zeros::<f32>(4).unwrap();
            let r = if k == "dot_storage_handoff" {
                go(inplace::dot_storage_handoff.launch(rt, 4, &a, &b, &mut p, &mut o), how)
            } else {
                go(inplace::dot_storage_off_by_one.launch(rt, 4, &a, &b, &mut p, &mut o), how)
            };
            let mut v = f32s(&p.to_vec().unwrap());
            v.extend(f32s(&o.to_vec().unwrap()));
            (r, v)
        }
        _ => unreachable!(),
    }
}

#[test]
fn softmax_in_place_is_clean() {
    clean_all("softmax_in_place", &inplace_case("softmax_in_place"));
    // The same bits as the out-of-place kernel.
    let want = native_both(&rows_case("softmax"));
    for (got, want) in native_both(&inplace_case("softmax_in_place")).iter().zip(&want) {
        common::expect("softmax_in_place", got, want);
    }
}

#[test]
fn softmax_in_place_with_remapped_store_races() {
    for w in [32, 1] {
        expect_race("softmax_in_place_remapped", w, &inplace_case("softmax_in_place_remapped"), &[]);
    }
    expect_race("softmax_in_place_remapped", 1, &inplace_case("softmax_in_place_remapped"), &[rw(ST, WARP, "x")]);
}

#[test]
fn dot_products_handed_off_through_storage_are_clean() {
    clean_all("dot_storage_handoff", &inplace_case("dot_storage_handoff"));
    let (a, b) = (small_floats(256, 15, 9), small_floats(256, 16, 7));
    let want: Vec<f32> = (0..4).map(|w| (0..64).map(|k| a[w * 64 + k] * b[w * 64 + k]).sum()).collect();
    for got in native_both(&inplace_case("dot_storage_handoff")) {
        common::expect("dot_storage_handoff", &floats(&got[256..]), &want);
    }
}

#[test]
fn dot_products_reading_one_past_the_workgroup_race() {
    for w in [32, 1] {
        expect_race("dot_storage_off_by_one", w, &inplace_case("dot_storage_off_by_one"), &[rw(ST, WGS, "prod")]);
    }
}

#[ld::kernels]
pub mod dot32 {
    /// RACY (rw, storage, between workgroups): `dot_storage_off_by_one`
    /// with workgroups of 32, so the word read past the workgroup's own
    /// products lies on a page (64 words) the reading workgroup also
    /// writes; the value read reaches `out` through `acc`.
    #[kernel(workgroup_size = 32)]
    pub fn dot32_off_by_one(a: &[f32], b: &[f32], prod: &mut [f32], out: &mut [f32]) {
        let g = global_id().x;
        prod[g] = a[g] * b[g];
        storage_barrier();
        if local_index() == 0 {
            let mut acc = 0.0f32;
            for k in 0..=32u32 {
                if g + k < prod.len() {
                    acc += prod[g + k];
                }
            }
            out[workgroup_id().x] = acc;
        }
    }

    /// RACY (rw, storage, between workgroups): the same, the word past the
    /// end only tested ("stop at a zero product"): its value decides
    /// which sum reaches `out`.
    #[kernel(workgroup_size = 32)]
    pub fn dot32_off_by_one_branch(a: &[f32], b: &[f32], prod: &mut [f32], out: &mut [f32]) {
        let g = global_id().x;
        prod[g] = a[g] * b[g];
        storage_barrier();
        if local_index() == 0 {
            let mut acc = 0.0f32;
            for k in 0..=32u32 {
                if g + k >= prod.len() || prod[g + k] == 0.0 {
                    break;
                }
                if k < 32 {
                    acc += prod[g + k];
                }
            }
            out[workgroup_id().x] = acc;
        }
    }
}

#[ld::kernels]
pub mod dot32_clean {
    /// RACE-FREE: `dot_storage_handoff` with workgroups of 32: two
    /// workgroups write the two halves of each 64-word page of `prod`, and
    /// each reads back only its own half after `storage_barrier()`.
    #[kernel(workgroup_size = 32)]
    pub fn dot32_handoff(a: &[f32], b: &[f32], prod: &mut [f32], out: &mut [f32]) {
        let g = global_id().x;
        prod[g] = a[g] * b[g];
        storage_barrier();
        if local_index() == 0 {
            let mut acc = 0.0f32;
            for k in 0..32u32 {
                acc += prod[g + k];
            }
            out[workgroup_id().x] = acc;
        }
    }

    /// RACE-FREE: the products stored interleaved (workgroup w owns words
    /// 8k + w), so all eight workgroups write every page; each reads back
    /// its own words.
    #[kernel(workgroup_size = 32)]
    pub fn dot32_interleaved(a: &[f32], b: &[f32], prod: &mut [f32], out: &mut [f32]) {
        let w = workgroup_id().x;
        let nw = num_workgroups().x;
        let lid = local_index();
        let g = global_id().x;
        prod[lid * nw + w] = a[g] * b[g];
        storage_barrier();
        if lid == 0 {
            let mut acc = 0.0f32;
            for k in 0..32u32 {
                acc += prod[k * nw + w];
            }
            out[w] = acc;
        }
    }
}

fn dot32_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        // No zero products: a[i] in 1..=9, b[i] in 1..=7.
        let a = rt.upload(&small_floats(256, 15, 9).iter().map(|x| x + 1.0).collect::<Vec<_>>()).unwrap();
        let b = rt.upload(&small_floats(256, 16, 7).iter().map(|x| x + 1.0).collect::<Vec<_>>()).unwrap();
        let mut p = rt.zeros::<f32>(256).unwrap();
        let mut o = rt.zeros::<f32>(8).unwrap();
        let r = match k {
            "dot32_off_by_one" => go(dot32::dot32_off_by_one.launch(rt, 8, &a, &b, &mut p, &mut o), how),
            "dot32_off_by_one_branch" => go(dot32::dot32_off_by_one_branch.launch(rt, 8, &a, &b, &mut p, &mut o), how),
            "dot32_handoff" => go(dot32_clean::dot32_handoff.launch(rt, 8, &a, &b, &mut p, &mut o), how),
            "dot32_interleaved" => go(dot32_clean::dot32_interleaved.launch(rt, 8, &a, &b, &mut p, &mut o), how),
            _ => unreachable!(),
        };
        let mut v = f32s(&p.to_vec().unwrap());
        v.extend(f32s(&o.to_vec().unwrap()));
        (r, v)
    }
}

#[test]
fn dot_products_reading_past_the_workgroup_on_a_shared_page_race() {
    for w in [32, 1] {
        expect_race("dot32_off_by_one", w, &dot32_case("dot32_off_by_one"), &[rw(ST, WGS, "prod")]);
    }
}

#[test]
fn dot_products_testing_past_the_workgroup_on_a_shared_page_race() {
    for w in [32, 1] {
        expect_race("dot32_off_by_one_branch", w, &dot32_case("dot32_off_by_one_branch"), &[rw(ST, WGS, "prod")]);
    }
}

// ===================================== 13. RMSNorm with 96 invocations, column means with (16, 4)

#[ld::kernels]
pub mod odd {
    /// RACE-FREE: RMSNorm, one workgroup of 96 (three warps of 32) per
    /// row: sum of squares folded 96 -> 64 by invocations 0-31, then a
    /// tree from step 32 with no barrier between the fold and the first
    /// step (the same invocations write s[0..32]; s[32..96] is only read).
    #[kernel(workgroup_size = 96)]
    pub fn rms_norm_96(x: &[f32], g: &[f32], y: &mut [f32], cols: u32) {
        let s = shared::<[f32; 96]>();
        let lid = local_index();
        let base = workgroup_id().x * cols;
        let mut acc = 0.0f32;
        let mut j = lid;
        while j < cols {
            acc += x[base + j] * x[base + j];
            j += 96;
        }
        s[lid] = acc;
        barrier();
        if lid < 32 {
            s[lid] += s[lid + 64];
        }
        let mut step = 32u32;
        while step > 0 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        let r = 1.0 / (s[0] / cols as f32 + 0.00001).sqrt();
        j = lid;
        while j < cols {
            y[base + j] = x[base + j] * r * g[j];
            j += 96;
        }
    }

    /// RACY (rw, workgroup memory, inter-warp): the barrier after the
    /// load missing: the fold reads s[64..96], which the third warp is
    /// storing.
    #[kernel(workgroup_size = 96)]
    pub fn rms_norm_96_load_unsynced(x: &[f32], g: &[f32], y: &mut [f32], cols: u32) {
        let s = shared::<[f32; 96]>();
        let lid = local_index();
        let base = workgroup_id().x * cols;
        let mut acc = 0.0f32;
        let mut j = lid;
        while j < cols {
            acc += x[base + j] * x[base + j];
            j += 96;
        }
        s[lid] = acc;
        if lid < 32 {
            s[lid] += s[lid + 64];
        }
        barrier();
        let mut step = 32u32;
        while step > 0 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        let r = 1.0 / (s[0] / cols as f32 + 0.00001).sqrt();
        j = lid;
        while j < cols {
            y[base + j] = x[base + j] * r * g[j];
            j += 96;
        }
    }

    /// RACE-FREE: column means of a rows x 32 matrix, workgroups of
    /// (16, 4), one per 16 columns: (tx, ty) sums rows ty, ty + 4, ... of
    /// its column into s[ty][tx]; barrier; row ty = 0 adds the four.
    #[kernel(workgroup_size = (16, 4))]
    pub fn column_mean(m: &[f32], out: &mut [f32], rows: u32) {
        let s = shared::<[f32; 64]>();
        let tx = local_id().x;
        let ty = local_id().y;
        let col = workgroup_id().x * 16 + tx;
        let ncols = num_workgroups().x * 16;
        let mut acc = 0.0f32;
        let mut r = ty;
        while r < rows {
            acc += m[r * ncols + col];
            r += 4;
        }
        s[ty * 16 + tx] = acc;
        barrier();
        if ty == 0 {
            out[col] = (s[tx] + s[16 + tx] + s[32 + tx] + s[48 + tx]) / rows as f32;
        }
    }

    /// RACY (rw, workgroup memory): `column_mean` without the barrier.
    #[kernel(workgroup_size = (16, 4))]
    pub fn column_mean_no_barrier(m: &[f32], out: &mut [f32], rows: u32) {
        let s = shared::<[f32; 64]>();
        let tx = local_id().x;
        let ty = local_id().y;
        let col = workgroup_id().x * 16 + tx;
        let ncols = num_workgroups().x * 16;
        let mut acc = 0.0f32;
        let mut r = ty;
        while r < rows {
            acc += m[r * ncols + col];
            r += 4;
        }
        s[ty * 16 + tx] = acc;
        if ty == 0 {
            out[col] = (s[tx] + s[16 + tx] + s[32 + tx] + s[48 + tx]) / rows as f32;
        }
    }
}

fn odd_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| match k {
        "rms_norm_96" | "rms_norm_96_load_unsynced" => {
            let xb = rt.upload(&row_input()).unwrap();
            let (g, _) = gamma_beta();
            let gb = rt.upload(&g).unwrap();
            let mut y = rt.zeros::<f32>((ROWS * COLS) as usize).unwrap();
            let r = if k == "rms_norm_96" {
                go(odd::rms_norm_96.launch(rt, ROWS, &xb, &gb, &mut y, COLS), how)
            } else {
                go(odd::rms_norm_96_load_unsynced.launch(rt, ROWS, &xb, &gb, &mut y, COLS), how)
            };
            (r, f32s(&y.to_vec().unwrap()))
        }
        "column_mean" | "column_mean_no_barrier" => {
            let mb = rt.upload(&small_floats(20 * 32, 17, 33)).unwrap();
            let mut o = rt.zeros::<f32>(32).unwrap();
            let r = if k == "column_mean" {
                go(odd::column_mean.launch(rt, 2, &mb, &mut o, 20u32), how)
            } else {
                go(odd::column_mean_no_barrier.launch(rt, 2, &mb, &mut o, 20u32), how)
            };
            (r, f32s(&o.to_vec().unwrap()))
        }
        _ => unreachable!(),
    }
}

#[test]
fn rms_norm_with_96_invocations_is_clean() {
    clean_all("rms_norm_96", &odd_case("rms_norm_96"));
    let x = row_input();
    let (g, _) = gamma_beta();
    for got in native_both(&odd_case("rms_norm_96")) {
        let got = floats(&got);
        for r in 0..ROWS as usize {
            let row = &x[r * COLS as usize..(r + 1) * COLS as usize];
            let ms = row.iter().map(|&v| (v as f64).powi(2)).sum::<f64>() / COLS as f64;
            let rs = 1.0 / (ms + 1e-5).sqrt();
            for j in 0..COLS as usize {
                let want = (row[j] as f64 * rs * g[j] as f64) as f32;
                let gv = got[r * COLS as usize + j];
                assert!((gv - want).abs() <= 1e-5, "rms_norm_96[{r}][{j}]: {gv} vs host {want}");
            }
        }
    }
}

#[test]
fn rms_norm_with_96_invocations_without_the_load_barrier_races() {
    for w in [32, 1] {
        expect_race("rms_norm_96_load_unsynced", w, &odd_case("rms_norm_96_load_unsynced"), &[rw(WG, WARP, "s")]);
    }
}

#[test]
fn column_means_in_a_16_by_4_workgroup_are_clean() {
    clean_all("column_mean", &odd_case("column_mean"));
    let m = small_floats(20 * 32, 17, 33);
    let want: Vec<f32> = (0..32)
        .map(|c| {
            let p: Vec<f32> = (0..4).map(|ty| (ty..20).step_by(4).map(|r| m[r * 32 + c]).sum::<f32>()).collect();
            (p[0] + p[1] + p[2] + p[3]) / 20.0
        })
        .collect();
    for got in native_both(&odd_case("column_mean")) {
        // A device's own `/` is within 2.5 ulp (NVIDIA's is not exact).
        common::assert_close(&floats(&got), &want, 3, 0.0, "column_mean");
    }
}

#[test]
fn column_means_without_the_barrier_race() {
    for w in [32, 4, 1] {
        expect_race("column_mean_no_barrier", w, &odd_case("column_mean_no_barrier"), &[rw(WG, WARP, "s")]);
    }
}

// ===================================== 14. storage epochs: in-place fixes, silent writes between workgroups

#[ld::kernels]
pub mod epochs {
    const B: u32 = 64;

    fn weight(d: f32) -> f32 {
        1.0 / (1.0 + d)
    }

    /// RACE-FREE: `softmax_in_place_remapped` fixed with a
    /// `storage_barrier()` before the remapped store: the other
    /// invocations' reads of `x` (in the max and sum passes) are ordered
    /// before it; the shared reductions stay ordered by `barrier()`.
    #[kernel(workgroup_size = 64)]
    pub fn softmax_in_place_remapped_fixed(x: &mut [f32], cols: u32) {
        let s = shared::<[f32; 64]>();
        let lid = local_index();
        let base = workgroup_id().x * cols;
        let mut m = -f32::MAX;
        let mut j = lid;
        while j < cols {
            m = m.max(x[base + j]);
            j += B;
        }
        s[lid] = m;
        barrier();
        let mut step = B / 2;
        while step > 0 {
            if lid < step {
                s[lid] = s[lid].max(s[lid + step]);
            }
            barrier();
            step >>= 1;
        }
        let mx = s[0];
        barrier();
        let mut sum = 0.0f32;
        j = lid;
        while j < cols {
            sum += weight(mx - x[base + j]);
            j += B;
        }
        s[lid] = sum;
        barrier();
        step = B / 2;
        while step > 0 {
            if lid < step {
                s[lid] += s[lid + step];
            }
            barrier();
            step >>= 1;
        }
        let inv = 1.0 / s[0];
        storage_barrier();
        for c in lid * 3..lid * 3 + 3 {
            if c < cols {
                x[base + c] = weight(mx - x[base + c]) * inv;
            }
        }
    }

    /// RACY (rw, storage, between workgroups): ReLU in place, then a
    /// 3-point average of the rectified values; `storage_barrier()` orders
    /// the workgroup's own words but not the neighbour workgroups' (the
    /// first and last invocation read a word another workgroup rewrites).
    /// Where the input is non-negative that rewrite stores the value
    /// already there.
    #[kernel(workgroup_size = 64)]
    pub fn relu_then_smooth(x: &mut [f32], y: &mut [f32]) {
        let g = global_id().x;
        let n = x.len();
        x[g] = x[g].max(0.0);
        storage_barrier();
        let l = if g > 0 { x[g - 1] } else { 0.0 };
        let r = if g + 1 < n { x[g + 1] } else { 0.0 };
        y[g] = (l + x[g] + r) * 0.25;
    }
}

fn epochs_case(k: &'static str, neg_edges: bool) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| match k {
        "softmax_in_place_remapped_fixed" => {
            let mut xb = rt.upload(&row_input()).unwrap();
            let r = go(epochs::softmax_in_place_remapped_fixed.launch(rt, ROWS, &mut xb, COLS), how);
            (r, f32s(&xb.to_vec().unwrap()))
        }
        "relu_then_smooth" => {
            let mut v: Vec<f32> = small_floats(256, 18, 9).iter().map(|x| x - 4.0).collect();
            for e in [63usize, 64, 127, 128, 191, 192] {
                v[e] = if neg_edges { -3.0 } else { 5.0 };
            }
            let mut xb = rt.upload(&v).unwrap();
            let mut y = rt.zeros::<f32>(256).unwrap();
            let r = go(epochs::relu_then_smooth.launch(rt, 4, &mut xb, &mut y), how);
            let mut out = f32s(&xb.to_vec().unwrap());
            out.extend(f32s(&y.to_vec().unwrap()));
            (r, out)
        }
        _ => unreachable!(),
    }
}

#[test]
fn softmax_in_place_remapped_behind_storage_barrier_is_clean() {
    clean_all("softmax_in_place_remapped_fixed", &epochs_case("softmax_in_place_remapped_fixed", false));
    let want = native_both(&rows_case("softmax"));
    for (got, want) in native_both(&epochs_case("softmax_in_place_remapped_fixed", false)).iter().zip(&want) {
        common::expect("softmax_in_place_remapped_fixed", got, want);
    }
}

#[test]
fn relu_then_smooth_reading_neighbour_workgroups_races() {
    for w in [32, 1] {
        expect_race("relu_then_smooth (edges change)", w, &epochs_case("relu_then_smooth", true), &[rw(ST, WGS, "x")]);
    }
}

#[test]
fn relu_then_smooth_with_silent_rewrites_at_the_edges_races() {
    for w in [32, 1] {
        expect_race("relu_then_smooth (edges silent)", w, &epochs_case("relu_then_smooth", false), &[rw(ST, WGS, "x")]);
    }
}

#[ld::kernels]
pub mod silent {
    /// RACY (rw, storage, between workgroups): workgroup 1 rewrites x[0]
    /// through a read-modify-write that leaves its value (x[0] = 5:
    /// `max(5, 1)`), while workgroup 0 reads it.
    #[kernel(workgroup_size = 64)]
    pub fn silent_rmw_wgs(x: &mut [u32], y: &mut [u32]) {
        let w = workgroup_id().x;
        if local_index() == 0 {
            if w == 0 {
                y[0] = x[0];
            } else {
                x[0] = x[0].max(1);
            }
        }
    }

    /// RACY (rw, storage, between workgroups): the same with a blind
    /// store of the value already there (README: found).
    #[kernel(workgroup_size = 64)]
    pub fn silent_store_wgs(x: &mut [u32], y: &mut [u32]) {
        let w = workgroup_id().x;
        if local_index() == 0 {
            if w == 0 {
                y[0] = x[0];
            } else {
                x[0] = 5;
            }
        }
    }

    /// RACY (rw, storage, inside a warp at warp size 32): lane 1 clamps
    /// x[0] (leaving it) while lane 0 reads it.
    #[kernel(workgroup_size = 64)]
    pub fn silent_rmw_lanes(x: &mut [u32], y: &mut [u32]) {
        let lid = local_index();
        if lid == 0 {
            y[0] = x[0];
        }
        if lid == 1 {
            x[0] = x[0].max(1);
        }
    }

    /// RACY (rw, storage, between warps): the read-modify-write that
    /// leaves the value in warp 1, the read in warp 0, one workgroup.
    #[kernel(workgroup_size = 64)]
    pub fn silent_rmw_warps(x: &mut [u32], y: &mut [u32]) {
        let lid = local_index();
        if lid == 0 {
            y[0] = x[0];
        }
        if lid == 32 {
            x[0] = x[0].max(1);
        }
    }
}

fn silent_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let mut x = rt.upload(&[5u32, 0, 0, 0]).unwrap();
        let mut y = rt.zeros::<u32>(1).unwrap();
        let r = match k {
            "silent_rmw_wgs" => go(silent::silent_rmw_wgs.launch(rt, 2, &mut x, &mut y), how),
            "silent_store_wgs" => go(silent::silent_store_wgs.launch(rt, 2, &mut x, &mut y), how),
            "silent_rmw_warps" => go(silent::silent_rmw_warps.launch(rt, 1, &mut x, &mut y), how),
            "silent_rmw_lanes" => go(silent::silent_rmw_lanes.launch(rt, 1, &mut x, &mut y), how),
            _ => unreachable!(),
        };
        let mut v = x.to_vec().unwrap();
        v.extend(y.to_vec().unwrap());
        (r, v)
    }
}

#[test]
fn silent_store_between_workgroups_races() {
    expect_race("silent_store_wgs", 32, &silent_case("silent_store_wgs"), &[rw(ST, WGS, "x")]);
}

/// Exact mode (the oracle) reports the race, on both sides of the
/// silent read-modify-write, at warp sizes 32 and 1.
fn exact_sees(name: &str, case: Case, variable: &str) {
    for w in [32, 1] {
        let (exact, _) = case(&common::cpu(), How::Exact(w));
        let exact = exact.unwrap();
        assert!(exact.races.iter().any(|r| r.variable == variable), "{name}: exact mode at warp size {w} misses the race on `{variable}`\n{exact}");
    }
}

#[test]
fn silent_read_modify_writes_race_in_exact_mode() {
    exact_sees("silent_rmw_warps", &silent_case("silent_rmw_warps"), "x");
    exact_sees("silent_rmw_wgs", &silent_case("silent_rmw_wgs"), "x");
    exact_sees("relu_then_smooth (edges silent)", &epochs_case("relu_then_smooth", false), "x");
}

/// Lanes of one warp: the lane tags see it whatever the values.
#[test]
fn silent_read_modify_write_between_lanes_races() {
    expect_race("silent_rmw_lanes", 32, &silent_case("silent_rmw_lanes"), &[rw(ST, INTRA, "x")]);
}

#[test]
fn silent_read_modify_write_between_warps_races() {
    for w in [32, 1] {
        expect_race("silent_rmw_warps", w, &silent_case("silent_rmw_warps"), &[rw(ST, WARP, "x")]);
    }
}

#[test]
fn silent_read_modify_write_between_workgroups_races() {
    for w in [32, 1] {
        expect_race("silent_rmw_wgs", w, &silent_case("silent_rmw_wgs"), &[rw(ST, WGS, "x")]);
    }
}

#[ld::kernels]
pub mod silent_wg {
    /// RACY (rw, workgroup memory, between warps): after a barrier, warp
    /// 1 clamps s[0] (5, so `max(5, 1)` leaves it) while warp 0 reads it.
    #[kernel(workgroup_size = 64)]
    pub fn silent_rmw_shared(out: &mut [u32]) {
        let s = shared::<[u32; 1]>();
        let lid = local_index();
        if lid == 0 {
            s[0] = 5;
        }
        barrier();
        if lid == 32 {
            s[0] = s[0].max(1);
        }
        if lid == 0 {
            out[0] = s[0];
        }
    }

    /// RACY (rw, workgroup memory, between warps): the same with a blind
    /// store of the value already there.
    #[kernel(workgroup_size = 64)]
    pub fn silent_store_shared(out: &mut [u32]) {
        let s = shared::<[u32; 1]>();
        let lid = local_index();
        if lid == 0 {
            s[0] = 5;
        }
        barrier();
        if lid == 32 {
            s[0] = 5;
        }
        if lid == 0 {
            out[0] = s[0];
        }
    }
}

fn silent_wg_case(rt: &Runtime, how: How) -> (Option<Report>, Vec<u32>) {
    let mut o = rt.zeros::<u32>(1).unwrap();
    let r = go(silent_wg::silent_rmw_shared.launch(rt, 1, &mut o), how);
    (r, o.to_vec().unwrap())
}

fn silent_wg_store_case(rt: &Runtime, how: How) -> (Option<Report>, Vec<u32>) {
    let mut o = rt.zeros::<u32>(1).unwrap();
    let r = go(silent_wg::silent_store_shared.launch(rt, 1, &mut o), how);
    (r, o.to_vec().unwrap())
}

#[test]
fn silent_store_in_shared_memory_races() {
    for w in [32, 1] {
        expect_race("silent_store_shared", w, &silent_wg_store_case, &[rw(WG, WARP, "s")]);
    }
}

#[test]
fn silent_read_modify_write_in_shared_memory_races_in_exact_mode() {
    exact_sees("silent_rmw_shared", &silent_wg_case, "s");
}

#[test]
fn silent_read_modify_write_in_shared_memory_races() {
    for w in [32, 1] {
        expect_race("silent_rmw_shared", w, &silent_wg_case, &[rw(WG, WARP, "s")]);
    }
}

fn dot32_want() -> Vec<f32> {
    let a: Vec<f32> = small_floats(256, 15, 9).iter().map(|x| x + 1.0).collect();
    let b: Vec<f32> = small_floats(256, 16, 7).iter().map(|x| x + 1.0).collect();
    (0..8).map(|w| (0..32).map(|k| a[w * 32 + k] * b[w * 32 + k]).sum()).collect()
}

#[test]
fn dot_products_on_half_pages_are_clean() {
    clean_all("dot32_handoff", &dot32_case("dot32_handoff"));
    for got in native_both(&dot32_case("dot32_handoff")) {
        common::expect("dot32_handoff", &floats(&got[256..]), &dot32_want());
    }
}

#[test]
fn dot_products_on_interleaved_words_are_clean() {
    clean_all("dot32_interleaved", &dot32_case("dot32_interleaved"));
    for got in native_both(&dot32_case("dot32_interleaved")) {
        common::expect("dot32_interleaved", &floats(&got[256..]), &dot32_want());
    }
}

// ===================================== 15. deterministic mode on the racy twins, run after run

#[test]
fn deterministic_mode_repeats_its_bits_on_racy_numerics() {
    let cases: Vec<(&str, BoxedCase)> = vec![
        ("float_sum_plain", Box::new(fsum_case("float_sum_plain"))),
        ("float_sum_shared_plain", Box::new(fsum_case("float_sum_shared_plain"))),
        ("softmax_reuse_no_barrier", Box::new(rows_case("softmax_reuse_no_barrier"))),
        ("blelloch_downsweep_no_barrier", Box::new(blelloch_case("blelloch_downsweep_no_barrier"))),
        ("power_iter_no_store_barrier", Box::new(power_case("power_iter_no_store_barrier"))),
        ("maxpool_backward_s1", Box::new(pool_case(1))),
        ("seg_sum_plain", Box::new(seg_case("seg_sum_plain"))),
        ("radix_local_scan_unsynced", Box::new(radix_case("radix_local_scan_unsynced"))),
    ];
    for (name, case) in &cases {
        let mut first: Option<Vec<u32>> = None;
        for rt in common::runtimes() {
            for run in 0..3 {
                let (_, got) = case(&rt, How::Deterministic);
                match &first {
                    None => first = Some(got),
                    Some(f) => assert!(f == &got, "{name}: deterministic run {run} on {:?} differs from the first", rt.backend()),
                }
            }
        }
    }
}

// ===================================== 16. level 1 across batches

fn long_segments(n: usize) -> (Vec<u32>, Vec<u32>, usize) {
    let vals = iota(n, 11);
    let lens = iota(n, 12);
    let mut ids = Vec::with_capacity(n);
    let (mut id, mut left) = (0u32, 0u32);
    while ids.len() < n {
        if left == 0 {
            left = lens[id as usize] % 90 + 1;
            if !ids.is_empty() {
                id += 1;
            }
        }
        ids.push(id);
        left -= 1;
    }
    (vals, ids, id as usize + 1)
}

/// The segmented reductions over 48 workgroups under budgets that split
/// them into batches: the verdicts, the racing words and (race-free) the
/// sums must not depend on the budget.
#[test]
fn segmented_reductions_keep_verdicts_across_batches() {
    let n = 64 * 48;
    let (vals, ids, nseg) = long_segments(n);
    let mut want = vec![0u32; nseg];
    for (v, &i) in vals.iter().zip(&ids) {
        want[i as usize] += v;
    }
    for rt in common::runtimes() {
        for racy in [false, true] {
            let mut seen: Vec<(RacingWords, Vec<u32>)> = vec![];
            let mut batches = vec![];
            for budget in [None, Some(400_000u64), Some(250_000u64), Some(150_000u64)] {
                let (vb, ib) = (rt.upload(&vals).unwrap(), rt.upload(&ids).unwrap());
                let mut sums = rt.zeros::<u32>(nseg).unwrap();
                let opts = ld::CheckOptions::default().memory_budget(budget);
                let l = if racy { seg::seg_sum_plain.launch(&rt, 48u32, &vb, &ib, &mut sums) } else { seg::seg_sum.launch(&rt, 48u32, &vb, &ib, &mut sums) };
                let l = l.mode(ld::Mode::Check).check_options(opts);
                let plan = l.plan().map(|p| p.batch);
                batches.push(*plan.as_ref().unwrap());
                let run = l.run().unwrap_or_else(|e| panic!("budget {budget:?}: {e}"));
                let rep = run.report.unwrap();
                eprintln!("seg racy={racy} budget {budget:?} batch {plan:?} on {:?}: {} races", rt.backend(), rep.races.len());
                assert_eq!(rep.has_races(), racy, "racy={racy} budget {budget:?} on {:?}:\n{rep}", rt.backend());
                let mut words: Vec<(u32, u32)> = rep.races.iter().filter(|r| r.variable == "sums").flat_map(|r| r.words.clone()).collect();
                words.sort();
                let got = sums.to_vec().unwrap();
                if !racy {
                    common::expect("seg_sum (batched)", &got, &want);
                }
                seen.push((words, got));
            }
            assert!(seen.windows(2).all(|w| w[0] == w[1]), "racy={racy} on {:?}: results depend on the budget", rt.backend());
            assert!(batches.iter().any(|&b| b < 48), "no budget split the workgroups into batches: {batches:?}");
        }
    }
}

#[ld::kernels]
pub mod silent_before {
    /// RACY (rw, storage, between warps, across a `barrier()` that does
    /// not order storage): warp 0 reads x[0]; after the barrier warp 1
    /// stores the value already there.
    #[kernel(workgroup_size = 64)]
    pub fn silent_store_after_read(x: &mut [u32], y: &mut [u32]) {
        let lid = local_index();
        if lid == 0 {
            y[0] = x[0];
        }
        barrier();
        if lid == 32 {
            x[0] = 5;
        }
    }

    /// RACY: the same, the store a read-modify-write that leaves it.
    #[kernel(workgroup_size = 64)]
    pub fn silent_rmw_after_read(x: &mut [u32], y: &mut [u32]) {
        let lid = local_index();
        if lid == 0 {
            y[0] = x[0];
        }
        barrier();
        if lid == 32 {
            x[0] = x[0].max(1);
        }
    }
}

fn silent_before_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let mut x = rt.upload(&[5u32, 0, 0, 0]).unwrap();
        let mut y = rt.zeros::<u32>(1).unwrap();
        let r = match k {
            "silent_store_after_read" => go(silent_before::silent_store_after_read.launch(rt, 1, &mut x, &mut y), how),
            "silent_rmw_after_read" => go(silent_before::silent_rmw_after_read.launch(rt, 1, &mut x, &mut y), how),
            _ => unreachable!(),
        };
        let mut v = x.to_vec().unwrap();
        v.extend(y.to_vec().unwrap());
        (r, v)
    }
}

#[test]
fn silent_store_after_another_warps_read_races() {
    for w in [32, 1] {
        expect_race("silent_store_after_read", w, &silent_before_case("silent_store_after_read"), &[rw(ST, WARP, "x")]);
    }
}

#[test]
fn silent_rmw_after_another_warps_read_races_in_exact_mode() {
    exact_sees("silent_rmw_after_read", &silent_before_case("silent_rmw_after_read"), "x");
}

#[test]
fn silent_rmw_after_another_warps_read_races() {
    for w in [32, 1] {
        expect_race("silent_rmw_after_read", w, &silent_before_case("silent_rmw_after_read"), &[rw(ST, WARP, "x")]);
    }
}

/// After a racy check the buffers hold what deterministic mode computes
/// (the report says so: "as deterministic mode would"), where no lanes of
/// a warp raced (deterministic mode then reruns one invocation per warp).
#[test]
fn racy_check_buffers_equal_deterministic_mode() {
    let cases: Vec<(&str, BoxedCase)> = vec![
        ("argmax_plain", Box::new(argmax_case("argmax_plain"))),
        ("seg_sum_plain", Box::new(seg_case("seg_sum_plain"))),
        ("normalize_fused", Box::new(vn_case("normalize_fused"))),
        ("dot_storage_off_by_one", Box::new(inplace_case("dot_storage_off_by_one"))),
        ("dot32_off_by_one_branch", Box::new(dot32_case("dot32_off_by_one_branch"))),
        ("relu_then_smooth", Box::new(epochs_case("relu_then_smooth", true))),
        ("softmax_in_place_remapped", Box::new(inplace_case("softmax_in_place_remapped"))),
        ("rms_norm_96_load_unsynced", Box::new(odd_case("rms_norm_96_load_unsynced"))),
        ("column_mean_no_barrier", Box::new(odd_case("column_mean_no_barrier"))),
        ("blur_separable_one_barrier", Box::new(blur_case("blur_separable_one_barrier"))),
        ("argmax_load_unsynced", Box::new(argmax_case("argmax_load_unsynced"))),
    ];
    let mut compared = 0;
    for (name, case) in &cases {
        for rt in common::runtimes() {
            let (rep, checked) = case(&rt, How::Check(32));
            let rep = rep.unwrap();
            assert!(rep.has_races(), "{name}: racy kernel");
            if rep.lane_order_dependent() {
                continue;
            }
            let (_, det) = case(&rt, How::Deterministic);
            assert!(checked == det, "{name} on {:?}: buffers after the racy check differ from deterministic mode's\n{rep}", rt.backend());
            compared += 1;
        }
    }
    assert!(compared >= 8, "only {compared} cases compared");
}

/// Many power iterations (each with 8 barriers) in every mode: either the
/// result, or on lavapipe an error that names the loop cap.
#[test]
fn long_power_iteration_runs_or_names_the_loop_cap() {
    let a = power_matrix();
    for rt in common::runtimes() {
        for mode in [ld::Mode::Native, ld::Mode::Check, ld::Mode::Deterministic] {
            let ab = rt.upload(&a).unwrap();
            let mut v = rt.zeros::<f32>(64).unwrap();
            match power::power_iter.launch(&rt, 1, &ab, &mut v, 150u32).mode(mode).run() {
                Ok(run) => {
                    if let Some(rep) = run.report {
                        assert!(!rep.has_races(), "{mode:?} on {:?}:\n{rep}", rt.backend());
                    }
                    eprintln!("power_iter x150 {mode:?} on {:?}: ok", rt.backend());
                }
                Err(e) => {
                    eprintln!("power_iter x150 {mode:?} on {:?}: {e}", rt.backend());
                    assert!(e.to_string().contains("65535") || e.to_string().to_lowercase().contains("loop"), "{e}");
                }
            }
        }
    }
}

#[ld::kernels]
pub mod fault_probe {
    /// RACY (rw, workgroup memory): invocation 0 counts the nonzero
    /// inputs into s[0]; every invocation then reads the count with no
    /// barrier and stores the last valid element at `count - 1` (a stale
    /// 0 makes the index wrap past the end).
    #[kernel(workgroup_size = 64)]
    pub fn last_of_count(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 1]>();
        let lid = local_index();
        if lid == 0 {
            let mut c = 0u32;
            for k in 0..64u32 {
                if input[k] != 0 {
                    c += 1;
                }
            }
            s[0] = c;
        }
        let count = s[0];
        if lid == 63 {
            out[count - 1] = input[lid];
        }
    }
}

/// A check of a kernel whose racy read leads to an index out of bounds
/// only in the check's schedule (every warp on its own copy sees the
/// stale count 0; a device can run warp 1 first and fault the same way):
/// natively it runs on lavapipe (and faults on an H200), exact mode reports the race on `s`, and the
/// check's fault says where to look (the same on both backends).
#[test]
fn racy_count_leading_out_of_bounds_points_to_exact_mode() {
    let mut messages = Vec::new();
    for rt in common::runtimes() {
        let inb = rt.upload(&iota(64, 3)).unwrap();
        let mut o = rt.zeros::<u32>(64).unwrap();
        // A GPU may run warp 1 before warp 0 stores the count (NVIDIA's does).
        match fault_probe::last_of_count.launch(&rt, 1, &inb, &mut o).run() {
            Ok(_) => {}
            Err(ld::Error::Fault { kind: ld::FaultKind::OutOfBounds { .. }, .. }) if rt.is_gpu() => {}
            Err(e) => panic!("natively on {:?}: {e}", rt.backend()),
        }
        let mut o = rt.zeros::<u32>(64).unwrap();
        let exact = fault_probe::last_of_count.launch(&rt, 1, &inb, &mut o).exact().unwrap();
        assert!(exact.races.iter().any(|r| matches(r, &rw(WG, WARP, "s"))), "exact:\n{exact}");
        for mode in [ld::Mode::Check, ld::Mode::Deterministic] {
            let mut o = rt.zeros::<u32>(64).unwrap();
            let r = fault_probe::last_of_count.launch(&rt, 1, &inb, &mut o).mode(mode).run();
            match r {
                Err(ld::Error::Fault { kind: ld::FaultKind::OutOfBounds { .. }, message, .. }) => {
                    assert!(message.contains("its own copy of memory") && message.contains("`Mode::Exact`"), "{mode:?} on {:?}: {message}", rt.backend());
                    messages.push(message);
                }
                other => panic!("{mode:?} on {:?}: expected the fault, got {:?}", rt.backend(), other.map(|r| r.report)),
            }
        }
    }
    // Two modes per backend: the GPU's, where one ran, after the CPU's.
    if messages.len() == 4 {
        assert_eq!(messages[..2], messages[2..], "the faults differ between backends");
    }
}
