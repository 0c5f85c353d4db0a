//! Kernels written the way GPU programmers write them, with race verdicts
//! decided by hand under the WGSL memory model, checked on both backends at
//! warp sizes 1, 4 and 32, natively, in deterministic and in exact mode.
//! The harness is tests/suite/support/verdicts.rs, as the catalogue's.
use crate::support as common;

use common::verdicts::*;
use ld::{Report, Runtime};

// ===================================== 1. warp-synchronous reduction tail

#[ld::kernels]
pub mod red {
    /// The CUDA "warpReduce" tail, as a helper over the shared array.
    fn warp_reduce(s: &mut [u32], tid: u32) {
        s[tid] += s[tid + 32];
        s[tid] += s[tid + 16];
        s[tid] += s[tid + 8];
        s[tid] += s[tid + 4];
        s[tid] += s[tid + 2];
        s[tid] += s[tid + 1];
    }

    /// RACY (rw/ww, workgroup memory): the barrier loop stops at 64 and
    /// warp 0 finishes without barriers. Lane t reads s[t + 16] while lane
    /// t + 16 writes it: intra-warp at warp size 32, inter-warp at 1 and 4.
    #[kernel(workgroup_size = 128)]
    pub fn warp_sync_reduce(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 128]>();
        let tid = local_index();
        s[tid] = input[global_id().x];
        barrier();
        let mut step = 64u32;
        while step > 32 {
            if tid < step {
                s[tid] += s[tid + step];
            }
            barrier();
            step >>= 1;
        }
        if tid < 32 {
            warp_reduce(s, tid);
        }
        if tid == 0 {
            out[workgroup_id().x] = s[0];
        }
    }

    /// RACE-FREE twin: the last 64 partial sums are added by invocation 0
    /// alone, after the barrier.
    #[kernel(workgroup_size = 128)]
    pub fn serial_tail_reduce(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 128]>();
        let tid = local_index();
        s[tid] = input[global_id().x];
        barrier();
        if tid < 64 {
            s[tid] += s[tid + 64];
        }
        barrier();
        if tid == 0 {
            let mut acc = 0u32;
            for k in 0..64u32 {
                acc += s[k];
            }
            out[workgroup_id().x] = acc;
        }
    }

    /// RACY (rw and ww, storage, inter-workgroup only): a correct
    /// workgroup reduction, then invocation 0 of every workgroup does a
    /// plain read-modify-write of `total[0]`.
    #[kernel(workgroup_size = 64)]
    pub fn accumulate_across_workgroups(input: &[u32], total: &mut [u32]) {
        let s = shared::<[u32; 64]>();
        let tid = local_index();
        s[tid] = input[global_id().x];
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
            total[0] = total[0] + s[0];
        }
    }

    /// RACE-FREE twin: the same with `fetch_add`.
    #[kernel(workgroup_size = 64)]
    pub fn accumulate_atomic(input: &[u32], total: &[AtomicU32]) {
        let s = shared::<[u32; 64]>();
        let tid = local_index();
        s[tid] = input[global_id().x];
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
            total[0].fetch_add(s[0]);
        }
    }

    /// RACY (rw, storage, inter-workgroup): CUDA's threadFenceReduction.
    /// Each workgroup writes its partial sum, `storage_barrier()`, takes a
    /// ticket; the last workgroup sums every partial. WGSL atomics are
    /// relaxed and `storageBarrier` does not order workgroups, so the last
    /// workgroup's plain reads of other workgroups' partials race.
    #[kernel(workgroup_size = 64)]
    pub fn last_block_reduce(input: &[u32], partial: &mut [u32], ticket: &[AtomicU32], out: &mut [u32]) {
        let s = shared::<[u32; 64]>();
        let last = shared::<[u32; 1]>();
        let tid = local_index();
        let wg = workgroup_id().x;
        s[tid] = input[global_id().x];
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
            partial[wg] = s[0];
        }
        storage_barrier();
        if tid == 0 {
            let t = ticket[0].fetch_add(1);
            last[0] = if t == num_workgroups().x - 1 { 1 } else { 0 };
        }
        barrier();
        if last[0] == 1 && tid == 0 {
            let mut acc = 0u32;
            for k in 0..num_workgroups().x {
                acc += partial[k];
            }
            out[0] = acc;
        }
    }
}

fn reduce_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let input = iota(512, 3);
        let inb = rt.upload(&input).unwrap();
        match k {
            "warp_sync_reduce" | "serial_tail_reduce" => {
                let mut o = rt.zeros::<u32>(4).unwrap();
                let r = if k == "warp_sync_reduce" {
                    go(red::warp_sync_reduce.launch(rt, 4, &inb, &mut o), how)
                } else {
                    go(red::serial_tail_reduce.launch(rt, 4, &inb, &mut o), how)
                };
                (r, o.to_vec().unwrap())
            }
            "accumulate_across_workgroups" => {
                let mut t = rt.upload(&[7u32]).unwrap();
                let r = go(red::accumulate_across_workgroups.launch(rt, 8, &inb, &mut t), how);
                (r, t.to_vec().unwrap())
            }
            "accumulate_atomic" => {
                let mut t = rt.upload(&[7u32]).unwrap();
                let r = go(red::accumulate_atomic.launch(rt, 8, &inb, &mut t), how);
                (r, t.to_vec().unwrap())
            }
            "last_block_reduce" => {
                let mut p = rt.zeros::<u32>(8).unwrap();
                let mut t = rt.zeros::<u32>(1).unwrap();
                let mut o = rt.zeros::<u32>(1).unwrap();
                let r = go(red::last_block_reduce.launch(rt, 8, &inb, &mut p, &mut t, &mut o), how);
                let mut v = p.to_vec().unwrap();
                v.extend(t.to_vec().unwrap());
                v.extend(o.to_vec().unwrap());
                (r, v)
            }
            _ => unreachable!(),
        }
    }
}

#[test]
fn warp_synchronous_reduction_tail_races() {
    for w in [32, 4, 1] {
        expect_race("warp_sync_reduce", w, &reduce_case("warp_sync_reduce"), &[]);
    }
    expect_race("warp_sync_reduce", 4, &reduce_case("warp_sync_reduce"), &[rw(WG, WARP, "s")]);
}

#[test]
fn serial_tail_reduction_is_clean() {
    clean_all("serial_tail_reduce", &reduce_case("serial_tail_reduce"));
    let input = iota(512, 3);
    let want: Vec<u32> = input.chunks(128).map(|c| c.iter().sum()).collect();
    for got in native_both(&reduce_case("serial_tail_reduce")) {
        common::expect("serial_tail_reduce", &got, &want);
    }
}

#[test]
fn plain_accumulation_across_workgroups_races() {
    for w in [32, 1] {
        expect_race("accumulate_across_workgroups", w, &reduce_case("accumulate_across_workgroups"), &[ww(ST, WGS, "total")]);
    }
}

#[test]
fn atomic_accumulation_across_workgroups_is_clean() {
    clean_all("accumulate_atomic", &reduce_case("accumulate_atomic"));
    let want = 7 + iota(512, 3).iter().sum::<u32>();
    for got in native_both(&reduce_case("accumulate_atomic")) {
        assert_eq!(got, vec![want]);
    }
}

/// Which workgroup is last depends on the order the atomics are served in,
/// so exact mode (one schedule) and a check (another) name different
/// words: only the verdicts are compared here.
#[test]
fn last_block_reduction_behind_relaxed_ticket_races() {
    let case = reduce_case("last_block_reduce");
    for w in [32, 1] {
        let (exact, _) = case(&common::cpu(), How::Exact(w));
        assert!(exact.unwrap().has_races());
        for rt in common::runtimes() {
            let (rep, _) = case(&rt, How::Check(w));
            let rep = rep.unwrap();
            assert!(rep.races.iter().any(|r| matches(r, &rw(ST, WGS, "partial"))), "on {:?}:\n{rep}", rt.backend());
        }
    }
}

// ===================================== 2. transpose through a padded tile

#[ld::kernels]
pub mod tr {
    /// RACE-FREE: 16 x 16 tile padded to 17 columns; one barrier between
    /// the coalesced load and the transposed store. Partial tiles at the
    /// edges (w = 40).
    #[kernel(workgroup_size = (16, 16))]
    pub fn transpose_padded(input: &[f32], out: &mut [f32], w: u32, h: u32) {
        let tile = shared::<[f32; 272]>();
        let tx = local_id().x;
        let ty = local_id().y;
        let bx = workgroup_id().x * 16;
        let by = workgroup_id().y * 16;
        let x = bx + tx;
        let y = by + ty;
        if x < w && y < h {
            tile[ty * 17 + tx] = input[y * w + x];
        }
        barrier();
        let ox = by + tx;
        let oy = bx + ty;
        if ox < h && oy < w {
            out[oy * h + ox] = tile[tx * 17 + ty];
        }
    }

    /// RACY (rw, workgroup memory, inter-warp): the barrier is missing;
    /// invocation (tx, ty) reads the word (ty, tx) wrote.
    #[kernel(workgroup_size = (16, 16))]
    pub fn transpose_no_barrier(input: &[f32], out: &mut [f32], w: u32, h: u32) {
        let tile = shared::<[f32; 272]>();
        let tx = local_id().x;
        let ty = local_id().y;
        let bx = workgroup_id().x * 16;
        let by = workgroup_id().y * 16;
        let x = bx + tx;
        let y = by + ty;
        if x < w && y < h {
            tile[ty * 17 + tx] = input[y * w + x];
        }
        let ox = by + tx;
        let oy = bx + ty;
        if ox < h && oy < w {
            out[oy * h + ox] = tile[tx * 17 + ty];
        }
    }
}

const TW: u32 = 40;
const TH: u32 = 32;

fn transpose_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let input: Vec<f32> = (0..TW * TH).map(|i| (i % 251) as f32 + 0.5).collect();
        let inb = rt.upload(&input).unwrap();
        let mut o = rt.zeros::<f32>((TW * TH) as usize).unwrap();
        let grid = (TW.div_ceil(16), TH.div_ceil(16));
        let r = match k {
            "transpose_padded" => go(tr::transpose_padded.launch(rt, grid, &inb, &mut o, TW, TH), how),
            "transpose_no_barrier" => go(tr::transpose_no_barrier.launch(rt, grid, &inb, &mut o, TW, TH), how),
            _ => unreachable!(),
        };
        (r, f32s(&o.to_vec().unwrap()))
    }
}

#[test]
fn padded_tile_transpose_is_clean() {
    clean_all("transpose_padded", &transpose_case("transpose_padded"));
    let input: Vec<f32> = (0..TW * TH).map(|i| (i % 251) as f32 + 0.5).collect();
    let mut want = vec![0.0f32; (TW * TH) as usize];
    for y in 0..TH {
        for x in 0..TW {
            want[(x * TH + y) as usize] = input[(y * TW + x) as usize];
        }
    }
    for got in native_both(&transpose_case("transpose_padded")) {
        common::expect("transpose_padded", &got, &f32s(&want));
    }
}

#[test]
fn transpose_without_barrier_races() {
    for w in [32, 1] {
        expect_race("transpose_no_barrier", w, &transpose_case("transpose_no_barrier"), &[rw(WG, WARP, "tile")]);
    }
}

// ===================================== 3. stencils with halos

#[ld::kernels]
pub mod st {
    const R: u32 = 2;
    const B: u32 = 64;

    fn weight(k: u32) -> f32 {
        if k == R {
            2.0
        } else if k == R - 1 || k == R + 1 {
            1.0
        } else {
            0.5
        }
    }

    /// RACE-FREE: 1-D 5-point stencil; the first R invocations also load
    /// the left and right halos, then one barrier. Invocations past `n`
    /// return after the barrier.
    #[kernel(workgroup_size = 64)]
    pub fn stencil_1d(input: &[f32], out: &mut [f32], n: u32) {
        let tile = shared::<[f32; 68]>();
        let lid = local_index();
        let gid = global_id().x;
        let base = workgroup_id().x * B;
        tile[lid + R] = if gid < n { input[gid] } else { 0.0 };
        if lid < R {
            tile[lid] = if base + lid >= R { input[base + lid - R] } else { 0.0 };
            let r = base + B + lid;
            tile[lid + B + R] = if r < n { input[r] } else { 0.0 };
        }
        barrier();
        if gid >= n {
            return;
        }
        let mut acc = 0.0f32;
        for k in 0..(2 * R + 1) {
            acc += tile[lid + k] * weight(k);
        }
        out[gid] = acc;
    }

    /// RACY (rw, workgroup memory, inter-warp): the halo is loaded after
    /// the barrier; invocations 62 and 63 (warp 1) read the right halo
    /// invocations 0 and 1 (warp 0) write.
    #[kernel(workgroup_size = 64)]
    pub fn stencil_1d_late_halo(input: &[f32], out: &mut [f32], n: u32) {
        let tile = shared::<[f32; 68]>();
        let lid = local_index();
        let gid = global_id().x;
        let base = workgroup_id().x * B;
        tile[lid + R] = if gid < n { input[gid] } else { 0.0 };
        barrier();
        if lid < R {
            tile[lid] = if base + lid >= R { input[base + lid - R] } else { 0.0 };
            let r = base + B + lid;
            tile[lid + B + R] = if r < n { input[r] } else { 0.0 };
        }
        if gid >= n {
            return;
        }
        let mut acc = 0.0f32;
        for k in 0..(2 * R + 1) {
            acc += tile[lid + k] * weight(k);
        }
        out[gid] = acc;
    }

    /// RACE-FREE: 2-D Laplacian on an 8 x 8 workgroup with a 10 x 10 tile
    /// loaded cooperatively by a strided loop (i32 math, signed coordinates).
    #[kernel(workgroup_size = (8, 8))]
    pub fn laplace_2d(input: &[i32], out: &mut [i32], w: u32, h: u32) {
        let tile = shared::<[i32; 100]>();
        let lid = local_index();
        let ox = (workgroup_id().x * 8) as i32 - 1;
        let oy = (workgroup_id().y * 8) as i32 - 1;
        let mut idx = lid;
        while idx < 100 {
            let gx = ox + (idx % 10) as i32;
            let gy = oy + (idx / 10) as i32;
            let inside = gx >= 0 && gy >= 0 && gx < w as i32 && gy < h as i32;
            tile[idx] = if inside { input[(gy * w as i32 + gx) as u32] } else { 0 };
            idx += 64;
        }
        barrier();
        let x = local_id().x + 1;
        let y = local_id().y + 1;
        let c = y * 10 + x;
        let v = 4 * tile[c] - tile[c - 1] - tile[c + 1] - tile[c - 10] - tile[c + 10];
        let g = global_id();
        if g.x < w && g.y < h {
            out[g.y * w + g.x] = v;
        }
    }

    /// RACY (rw, workgroup memory, inter-warp): the 2-D stencil where the
    /// halo ring is written after the barrier by the invocations that
    /// loaded the interior (the strided loop's second round), so warp 1
    /// (rows 4-7) reads the bottom halo invocations of warp 0 write.
    #[kernel(workgroup_size = (8, 8))]
    pub fn laplace_2d_late_halo(input: &[i32], out: &mut [i32], w: u32, h: u32) {
        let tile = shared::<[i32; 100]>();
        let lid = local_index();
        let ox = (workgroup_id().x * 8) as i32 - 1;
        let oy = (workgroup_id().y * 8) as i32 - 1;
        let mut idx = lid;
        while idx < 64 {
            let gx = ox + (idx % 10) as i32;
            let gy = oy + (idx / 10) as i32;
            let inside = gx >= 0 && gy >= 0 && gx < w as i32 && gy < h as i32;
            tile[idx] = if inside { input[(gy * w as i32 + gx) as u32] } else { 0 };
            idx += 64;
        }
        barrier();
        idx = lid + 64;
        while idx < 100 {
            let gx = ox + (idx % 10) as i32;
            let gy = oy + (idx / 10) as i32;
            let inside = gx >= 0 && gy >= 0 && gx < w as i32 && gy < h as i32;
            tile[idx] = if inside { input[(gy * w as i32 + gx) as u32] } else { 0 };
            idx += 64;
        }
        let x = local_id().x + 1;
        let y = local_id().y + 1;
        let c = y * 10 + x;
        let v = 4 * tile[c] - tile[c - 1] - tile[c + 1] - tile[c - 10] - tile[c + 10];
        let g = global_id();
        if g.x < w && g.y < h {
            out[g.y * w + g.x] = v;
        }
    }
}

const SN: u32 = 250;

fn stencil_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| match k {
        "stencil_1d" | "stencil_1d_late_halo" => {
            let input: Vec<f32> = (0..SN).map(|i| ((i * 7) % 23) as f32 + 1.0).collect();
            let inb = rt.upload(&input).unwrap();
            let mut o = rt.zeros::<f32>(SN as usize).unwrap();
            let r = if k == "stencil_1d" {
                go(st::stencil_1d.launch(rt, 4, &inb, &mut o, SN), how)
            } else {
                go(st::stencil_1d_late_halo.launch(rt, 4, &inb, &mut o, SN), how)
            };
            (r, f32s(&o.to_vec().unwrap()))
        }
        _ => {
            let (w, h) = (20u32, 12u32);
            let input: Vec<i32> = (0..w * h).map(|i| ((i * 37) % 19) as i32 - 9).collect();
            let inb = rt.upload(&input).unwrap();
            let mut o = rt.zeros::<i32>((w * h) as usize).unwrap();
            let grid = (w.div_ceil(8), h.div_ceil(8));
            let r = if k == "laplace_2d" {
                go(st::laplace_2d.launch(rt, grid, &inb, &mut o, w, h), how)
            } else {
                go(st::laplace_2d_late_halo.launch(rt, grid, &inb, &mut o, w, h), how)
            };
            (r, o.to_vec().unwrap().iter().map(|&x| x as u32).collect())
        }
    }
}

#[test]
fn stencil_1d_with_halo_is_clean() {
    clean_all("stencil_1d", &stencil_case("stencil_1d"));
    let input: Vec<f32> = (0..SN).map(|i| ((i * 7) % 23) as f32 + 1.0).collect();
    let at = |i: i64| if i < 0 || i >= SN as i64 { 0.0 } else { input[i as usize] };
    let wt = [0.5f32, 1.0, 2.0, 1.0, 0.5];
    let want: Vec<f32> = (0..SN as i64).map(|i| (0..5).fold(0.0f32, |a, k| a + at(i + k - 2) * wt[k as usize])).collect();
    for got in native_both(&stencil_case("stencil_1d")) {
        common::expect("stencil_1d", &got, &f32s(&want));
    }
}

#[test]
fn stencil_1d_with_late_halo_races() {
    for w in [32, 1] {
        expect_race("stencil_1d_late_halo", w, &stencil_case("stencil_1d_late_halo"), &[rw(WG, WARP, "tile")]);
    }
}

#[test]
fn laplace_2d_with_halo_is_clean() {
    clean_all("laplace_2d", &stencil_case("laplace_2d"));
    let (w, h) = (20i32, 12i32);
    let input: Vec<i32> = (0..w * h).map(|i| ((i * 37) % 19) - 9).collect();
    let at = |x: i32, y: i32| if x < 0 || y < 0 || x >= w || y >= h { 0 } else { input[(y * w + x) as usize] };
    let want: Vec<u32> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .map(|(x, y)| (4 * at(x, y) - at(x - 1, y) - at(x + 1, y) - at(x, y - 1) - at(x, y + 1)) as u32)
        .collect();
    for got in native_both(&stencil_case("laplace_2d")) {
        common::expect("laplace_2d", &got, &want);
    }
}

#[test]
fn laplace_2d_with_late_halo_races() {
    expect_race("laplace_2d_late_halo", 32, &stencil_case("laplace_2d_late_halo"), &[rw(WG, WARP, "tile")]);
}

// ===================================== 4. Hillis-Steele scans

#[ld::kernels]
pub mod scan {
    const N: u32 = 128;

    /// RACE-FREE: inclusive Hillis-Steele scan, double-buffered (`pin`,
    /// `pout` swap after each step's barrier).
    #[kernel(workgroup_size = 128)]
    pub fn hs_double(input: &[u32], out: &mut [u32]) {
        let buf = shared::<[u32; 256]>();
        let lid = local_index();
        let gid = global_id().x;
        buf[lid] = input[gid];
        barrier();
        let mut pin = 0u32;
        let mut pout = N;
        let mut off = 1u32;
        while off < N {
            if lid >= off {
                buf[pout + lid] = buf[pin + lid] + buf[pin + lid - off];
            } else {
                buf[pout + lid] = buf[pin + lid];
            }
            barrier();
            let t = pin;
            pin = pout;
            pout = t;
            off *= 2;
        }
        out[gid] = buf[pin + lid];
    }

    /// RACE-FREE: single buffer, read into a register, barrier, write,
    /// barrier.
    #[kernel(workgroup_size = 128)]
    pub fn hs_two_barriers(input: &[u32], out: &mut [u32]) {
        let buf = shared::<[u32; 128]>();
        let lid = local_index();
        let gid = global_id().x;
        buf[lid] = input[gid];
        barrier();
        let mut off = 1u32;
        while off < N {
            let mut t = 0u32;
            if lid >= off {
                t = buf[lid - off];
            }
            barrier();
            buf[lid] += t;
            barrier();
            off *= 2;
        }
        out[gid] = buf[lid];
    }

    /// RACY (rw, workgroup memory): single buffer without the barrier
    /// between the read and the write.
    #[kernel(workgroup_size = 128)]
    pub fn hs_one_barrier(input: &[u32], out: &mut [u32]) {
        let buf = shared::<[u32; 128]>();
        let lid = local_index();
        let gid = global_id().x;
        buf[lid] = input[gid];
        barrier();
        let mut off = 1u32;
        while off < N {
            if lid >= off {
                buf[lid] += buf[lid - off];
            }
            barrier();
            off *= 2;
        }
        out[gid] = buf[lid];
    }
}

fn scan_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&iota(384, 2)).unwrap();
        let mut o = rt.zeros::<u32>(384).unwrap();
        let r = match k {
            "hs_double" => go(scan::hs_double.launch(rt, 3, &inb, &mut o), how),
            "hs_two_barriers" => go(scan::hs_two_barriers.launch(rt, 3, &inb, &mut o), how),
            "hs_one_barrier" => go(scan::hs_one_barrier.launch(rt, 3, &inb, &mut o), how),
            _ => unreachable!(),
        };
        (r, o.to_vec().unwrap())
    }
}

fn scan_want() -> Vec<u32> {
    iota(384, 2)
        .chunks(128)
        .flat_map(|c| {
            c.iter()
                .scan(0u32, |a, &x| {
                    *a += x;
                    Some(*a)
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn double_buffered_scan_is_clean() {
    clean_all("hs_double", &scan_case("hs_double"));
    for got in native_both(&scan_case("hs_double")) {
        common::expect("hs_double", &got, &scan_want());
    }
}

#[test]
fn two_barrier_scan_is_clean() {
    clean_all("hs_two_barriers", &scan_case("hs_two_barriers"));
    for got in native_both(&scan_case("hs_two_barriers")) {
        common::expect("hs_two_barriers", &got, &scan_want());
    }
}

#[test]
fn one_barrier_scan_races() {
    for w in [32, 1] {
        expect_race("hs_one_barrier", w, &scan_case("hs_one_barrier"), &[rw(WG, WARP, "buf")]);
    }
}

// ===================================== 5. shared histogram flushed with atomics

#[ld::kernels]
pub mod hist {
    const BINS: u32 = 16;

    /// RACE-FREE: privatised histogram: shared atomics, barrier, flush of
    /// every nonzero bin to storage with `fetch_add`; a grid-stride loop
    /// over the input (`num_workgroups()`).
    #[kernel(workgroup_size = 64)]
    pub fn shared_histogram(values: &[u32], bins: &[AtomicU32], n: u32) {
        let local = shared::<[AtomicU32; 16]>();
        let lid = local_index();
        let stride = num_workgroups().x * workgroup_size().x;
        let mut i = global_id().x;
        while i < n {
            local[values[i] % BINS].fetch_add(1);
            i += stride;
        }
        barrier();
        if lid < BINS {
            let c = local[lid].load();
            if c != 0 {
                bins[lid].fetch_add(c);
            }
        }
    }
}

fn hist_case(rt: &Runtime, how: How) -> (Option<Report>, Vec<u32>) {
    let v = iota(1000, 4);
    let vb = rt.upload(&v).unwrap();
    let mut bins = rt.zeros::<u32>(16).unwrap();
    let r = go(hist::shared_histogram.launch(rt, 3, &vb, &mut bins, 1000u32), how);
    (r, bins.to_vec().unwrap())
}

#[test]
fn shared_histogram_flushed_with_atomics_is_clean() {
    clean_all("shared_histogram", &hist_case);
    let mut want = vec![0u32; 16];
    for x in iota(1000, 4) {
        want[(x % 16) as usize] += 1;
    }
    for got in native_both(&hist_case) {
        common::expect("shared_histogram", &got, &want);
    }
}

// ===================================== 6. bitonic sort

#[ld::kernels]
pub mod bit {
    /// RACE-FREE: one global bitonic compare-exchange step (one launch per
    /// (k, j)); the invocation with the lower index of a pair does the
    /// exchange, so every word has one writer and no other reader.
    #[kernel(workgroup_size = 64)]
    pub fn bitonic_step(data: &mut [u32], j: u32, k: u32) {
        let i = global_id().x;
        let ixj = i ^ j;
        if ixj > i && ixj < data.len() {
            let a = data[i];
            let b = data[ixj];
            let up = (i & k) == 0;
            if (up && a > b) || (!up && a < b) {
                data[i] = b;
                data[ixj] = a;
            }
        }
    }

    /// RACE-FREE: a whole bitonic sort of 128 keys per workgroup in shared
    /// memory, a barrier after every step.
    #[kernel(workgroup_size = 128)]
    pub fn bitonic_shared(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 128]>();
        let lid = local_index();
        let gid = global_id().x;
        s[lid] = input[gid];
        barrier();
        let mut k = 2u32;
        while k <= 128 {
            let mut j = k / 2;
            while j > 0 {
                let ixj = lid ^ j;
                if ixj > lid {
                    let a = s[lid];
                    let b = s[ixj];
                    let up = (lid & k) == 0;
                    if (up && a > b) || (!up && a < b) {
                        s[lid] = b;
                        s[ixj] = a;
                    }
                }
                barrier();
                j >>= 1;
            }
            k <<= 1;
        }
        out[gid] = s[lid];
    }

    /// RACY (rw/ww, workgroup memory, inter-warp): the shared bitonic sort
    /// with the barrier only after each outer stage, not after each step.
    #[kernel(workgroup_size = 128)]
    pub fn bitonic_shared_stage_barrier(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 128]>();
        let lid = local_index();
        let gid = global_id().x;
        s[lid] = input[gid];
        barrier();
        let mut k = 2u32;
        while k <= 128 {
            let mut j = k / 2;
            while j > 0 {
                let ixj = lid ^ j;
                if ixj > lid {
                    let a = s[lid];
                    let b = s[ixj];
                    let up = (lid & k) == 0;
                    if (up && a > b) || (!up && a < b) {
                        s[lid] = b;
                        s[ixj] = a;
                    }
                }
                j >>= 1;
            }
            barrier();
            k <<= 1;
        }
        out[gid] = s[lid];
    }
}

const BN: usize = 256;

fn bitonic_input() -> Vec<u32> {
    iota(BN, 7).iter().enumerate().map(|(i, x)| x * 1000 + i as u32).collect()
}

/// The steps (k, j) of a bitonic sort of `BN` keys.
fn bitonic_steps() -> Vec<(u32, u32)> {
    let mut v = vec![];
    let mut k = 2;
    while k <= BN as u32 {
        let mut j = k / 2;
        while j > 0 {
            v.push((k, j));
            j /= 2;
        }
        k *= 2;
    }
    v
}

/// Runs the sort's steps natively up to step `s`, then step `s` as `how`.
fn bitonic_case(s: usize) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let mut d = rt.upload(&bitonic_input()).unwrap();
        let steps = bitonic_steps();
        for &(k, j) in &steps[..s] {
            bit::bitonic_step.launch(rt, 4, &mut d, j, k).run().unwrap();
        }
        let (k, j) = steps[s];
        let r = go(bit::bitonic_step.launch(rt, 4, &mut d, j, k), how);
        (r, d.to_vec().unwrap())
    }
}

#[test]
fn global_bitonic_steps_are_clean() {
    let steps = bitonic_steps();
    // j = 1 (inside a warp), 16, 32 (across warps), 64 and 128 (across workgroups).
    for (s, &(k, j)) in steps.iter().enumerate() {
        if [1, 16, 32, 64, 128].contains(&j) && (k == 256 || k == 2 * j) {
            clean_all(&format!("bitonic_step k={k} j={j}"), &bitonic_case(s));
        }
    }
}

#[test]
fn global_bitonic_sort_sorts_in_every_mode() {
    let mut want = bitonic_input();
    want.sort();
    let mut dets = vec![];
    for rt in common::runtimes() {
        for mode in [ld::Mode::Native, ld::Mode::Check, ld::Mode::Deterministic] {
            let mut d = rt.upload(&bitonic_input()).unwrap();
            for &(k, j) in &bitonic_steps() {
                let run = bit::bitonic_step.launch(&rt, 4, &mut d, j, k).mode(mode).run().unwrap();
                if let Some(rep) = run.report {
                    assert!(!rep.has_races(), "bitonic k={k} j={j} on {:?}: FALSE POSITIVE\n{rep}", rt.backend());
                }
            }
            let got = d.to_vec().unwrap();
            common::expect(&format!("bitonic {mode:?} on {:?}", rt.backend()), &got, &want);
            if mode == ld::Mode::Deterministic {
                dets.push(got);
            }
        }
    }
    assert!(dets.windows(2).all(|w| w[0] == w[1]));
}

fn bitonic_shared_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&bitonic_input()).unwrap();
        let mut o = rt.zeros::<u32>(BN).unwrap();
        let r = if k == "bitonic_shared" {
            go(bit::bitonic_shared.launch(rt, 2, &inb, &mut o), how)
        } else {
            go(bit::bitonic_shared_stage_barrier.launch(rt, 2, &inb, &mut o), how)
        };
        (r, o.to_vec().unwrap())
    }
}

#[test]
fn shared_bitonic_sort_is_clean() {
    clean_all("bitonic_shared", &bitonic_shared_case("bitonic_shared"));
    let want = sorted_chunks(&bitonic_input(), 128);
    for got in native_both(&bitonic_shared_case("bitonic_shared")) {
        common::expect("bitonic_shared", &got, &want);
    }
}

#[test]
fn shared_bitonic_sort_with_stage_barriers_only_races() {
    for w in [32, 1] {
        expect_race("bitonic_shared_stage_barrier", w, &bitonic_shared_case("bitonic_shared_stage_barrier"), &[]);
    }
}

// ===================================== 7. CSR sparse matrix-vector product

#[ld::kernels]
pub mod csr {
    fn dot_row(vals: &[f32], cols: &[u32], x: &[f32], start: u32, end: u32) -> f32 {
        let mut acc = 0.0f32;
        for p in start..end {
            acc += vals[p] * x[cols[p]];
        }
        acc
    }

    /// RACE-FREE: one row per invocation.
    #[kernel(workgroup_size = 64)]
    pub fn spmv(row_ptr: &[u32], cols: &[u32], vals: &[f32], x: &[f32], y: &mut [f32], rows: u32) {
        let r = global_id().x;
        if r >= rows {
            return;
        }
        y[r] = dot_row(vals, cols, x, row_ptr[r], row_ptr[r + 1]);
    }

    /// RACY (rw and ww, storage, inter-workgroup): rows r and r + 64 (in
    /// different workgroups) accumulate into the same slot `y[r % 64]`.
    #[kernel(workgroup_size = 64)]
    pub fn spmv_folded(row_ptr: &[u32], cols: &[u32], vals: &[f32], x: &[f32], y: &mut [f32], rows: u32) {
        let r = global_id().x;
        if r >= rows {
            return;
        }
        y[r % 64] += dot_row(vals, cols, x, row_ptr[r], row_ptr[r + 1]);
    }
}

struct Csr {
    row_ptr: Vec<u32>,
    cols: Vec<u32>,
    vals: Vec<f32>,
    x: Vec<f32>,
}

fn csr_matrix(rows: u32) -> Csr {
    let mut row_ptr = vec![0u32];
    let (mut cols, mut vals) = (vec![], vec![]);
    for r in 0..rows {
        let nnz = (r * 7 + 3) % 6;
        for q in 0..nnz {
            cols.push((r * 13 + q * 29) % rows);
            vals.push(((r + q) % 5) as f32 - 2.0);
        }
        row_ptr.push(cols.len() as u32);
    }
    let x = (0..rows).map(|i| (i % 9) as f32).collect();
    Csr { row_ptr, cols, vals, x }
}

const ROWS: u32 = 200;

fn csr_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let m = csr_matrix(ROWS);
        let (rp, c, v, x) = (rt.upload(&m.row_ptr).unwrap(), rt.upload(&m.cols).unwrap(), rt.upload(&m.vals).unwrap(), rt.upload(&m.x).unwrap());
        let mut y = rt.upload(&vec![1.0f32; ROWS as usize]).unwrap();
        let r = if k == "spmv" {
            go(csr::spmv.launch(rt, 4, &rp, &c, &v, &x, &mut y, ROWS), how)
        } else {
            go(csr::spmv_folded.launch(rt, 4, &rp, &c, &v, &x, &mut y, ROWS), how)
        };
        (r, f32s(&y.to_vec().unwrap()))
    }
}

#[test]
fn csr_spmv_is_clean() {
    clean_all("spmv", &csr_case("spmv"));
    let m = csr_matrix(ROWS);
    let want: Vec<f32> =
        (0..ROWS as usize).map(|r| (m.row_ptr[r]..m.row_ptr[r + 1]).fold(0.0f32, |a, p| a + m.vals[p as usize] * m.x[m.cols[p as usize] as usize])).collect();
    for got in native_both(&csr_case("spmv")) {
        common::expect("spmv", &got, &f32s(&want));
    }
}

#[test]
fn csr_spmv_into_shared_slots_races() {
    for w in [32, 1] {
        expect_race("spmv_folded", w, &csr_case("spmv_folded"), &[ww(ST, WGS, "y")]);
    }
}

// ===================================== 8. two-level stream compaction

#[ld::kernels]
pub mod comp {
    /// RACE-FREE: each invocation takes a slot in its workgroup with a
    /// shared atomic; invocation 0 reserves the workgroup's range in the
    /// output with one global `fetch_add` and publishes its base through
    /// shared memory; every kept element goes to `base + slot`.
    #[kernel(workgroup_size = 64)]
    pub fn compact_two_level(input: &[u32], counter: &[AtomicU32], out: &mut [u32], n: u32) {
        let count = shared::<[AtomicU32; 1]>();
        let base = shared::<[u32; 1]>();
        let lid = local_index();
        let i = global_id().x;
        let mut keep = false;
        let mut v = 0u32;
        if i < n {
            v = input[i];
            keep = v % 3 == 0;
        }
        let mut slot = 0u32;
        if keep {
            slot = count[0].fetch_add(1);
        }
        barrier();
        if lid == 0 {
            base[0] = counter[0].fetch_add(count[0].load());
        }
        barrier();
        if keep {
            out[base[0] + slot] = v;
        }
    }
}

fn compact_case(rt: &Runtime, how: How) -> (Option<Report>, Vec<u32>) {
    let inb = rt.upload(&iota(300, 6)).unwrap();
    let mut c = rt.zeros::<u32>(1).unwrap();
    let mut o = rt.zeros::<u32>(300).unwrap();
    let r = go(comp::compact_two_level.launch(rt, 5, &inb, &mut c, &mut o, 300u32), how);
    let mut v = c.to_vec().unwrap();
    v.extend(o.to_vec().unwrap());
    (r, v)
}

/// The order of the kept elements depends on the order of the atomics
/// (a `normalize`, hence the `Vec`).
#[allow(clippy::ptr_arg)]
fn sort_tail(v: &mut Vec<u32>) {
    v[1..].sort();
}

#[test]
fn two_level_stream_compaction_is_clean() {
    clean_all_by("compact_two_level", &compact_case, sort_tail);
    let mut want: Vec<u32> = iota(300, 6).into_iter().filter(|x| x % 3 == 0).collect();
    let kept = want.len() as u32;
    want.resize(300, 0);
    let mut want = [vec![kept], want].concat();
    sort_tail(&mut want);
    for mut got in native_both(&compact_case) {
        sort_tail(&mut got);
        common::expect("compact_two_level", &got, &want);
    }
}

// ===================================== 9. control flow, helpers, mixed math

#[ld::kernels]
pub mod ctl {
    fn collatz(x: u32, limit: u32) -> u32 {
        let mut v = x;
        let mut s = 0u32;
        while v != 1 && s < limit {
            if v % 2 == 0 {
                v /= 2;
            } else {
                v = 3 * v + 1;
            }
            s += 1;
        }
        s
    }

    fn mix(a: i32, b: i32) -> i32 {
        if a > b {
            a - b
        } else if a == b {
            a * 3
        } else {
            (b - a) * -2
        }
    }

    /// RACE-FREE: early return, `for` with `continue` and `break`, nested
    /// ifs, helpers, i32/u32/f32 math; every invocation writes only its own
    /// words of two buffers.
    #[kernel(workgroup_size = 64)]
    pub fn control(input: &[i32], out_i: &mut [i32], out_f: &mut [f32], n: u32) {
        let i = global_id().x;
        if i >= n {
            return;
        }
        let x = input[i];
        let mut acc = 0i32;
        for k in 0..16i32 {
            if k % 3 == 0 {
                continue;
            }
            if acc > 1000 || acc < -1000 {
                break;
            }
            if x < 0 {
                if k > 4 {
                    acc -= x * k;
                } else {
                    acc += 1;
                }
            } else if x == 0 {
                acc ^= k;
            } else {
                acc += mix(collatz(x as u32, 50) as i32, k);
            }
        }
        let mut j = 0u32;
        loop {
            j += 1;
            if j * j > (i % 17) {
                break;
            }
        }
        out_i[i] = acc.wrapping_mul(3) + (j as i32) - (x >> 2);
        let f = acc as f32 * 0.25 - (x as f32).abs() + (i & 7) as f32;
        out_f[i] = f.max(-100.0).min(100.0).floor();
    }

    /// RACE-FREE: a persistent-workgroup loop over tiles whose trip count
    /// depends on `workgroup_id()` (uniform in the workgroup), with
    /// barriers inside; each tile is reversed through shared memory.
    #[kernel(workgroup_size = 32)]
    pub fn persistent_reverse(data: &[u32], out: &mut [u32], tiles: u32) {
        let s = shared::<[u32; 32]>();
        let lid = local_index();
        let mut t = workgroup_id().x;
        while t < tiles {
            s[lid] = data[t * 32 + lid];
            barrier();
            out[t * 32 + lid] = s[31 - lid];
            barrier();
            t += num_workgroups().x;
        }
    }

    /// RACE-FREE: a 3-D workgroup (4, 4, 4) sums its z column through
    /// shared memory after a barrier.
    #[kernel(workgroup_size = (4, 4, 4))]
    pub fn column_sum_3d(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 64]>();
        let l = local_id();
        let idx = l.z * 16 + l.y * 4 + l.x;
        let wg = workgroup_id().x;
        s[idx] = input[wg * 64 + idx];
        barrier();
        if l.z == 0 {
            let mut acc = 0u32;
            for z in 0..4u32 {
                acc += s[z * 16 + l.y * 4 + l.x];
            }
            out[wg * 16 + l.y * 4 + l.x] = acc;
        }
    }
}

fn control_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| match k {
        "control" => {
            let n = 250u32;
            let input: Vec<i32> = (0..n as i32).map(|i| (i * 37) % 41 - 20).collect();
            let inb = rt.upload(&input).unwrap();
            let mut oi = rt.zeros::<i32>(256).unwrap();
            let mut of = rt.zeros::<f32>(256).unwrap();
            let r = go(ctl::control.launch(rt, 4, &inb, &mut oi, &mut of, n), how);
            let mut v: Vec<u32> = oi.to_vec().unwrap().iter().map(|&x| x as u32).collect();
            v.extend(f32s(&of.to_vec().unwrap()));
            (r, v)
        }
        "persistent_reverse" => {
            let inb = rt.upload(&iota(320, 9)).unwrap();
            let mut o = rt.zeros::<u32>(320).unwrap();
            let r = go(ctl::persistent_reverse.launch(rt, 3, &inb, &mut o, 10u32), how);
            (r, o.to_vec().unwrap())
        }
        "column_sum_3d" => {
            let inb = rt.upload(&iota(192, 10)).unwrap();
            let mut o = rt.zeros::<u32>(48).unwrap();
            let r = go(ctl::column_sum_3d.launch(rt, 3, &inb, &mut o), how);
            (r, o.to_vec().unwrap())
        }
        _ => unreachable!(),
    }
}

fn host_control() -> Vec<u32> {
    fn collatz(x: u32, limit: u32) -> u32 {
        let (mut v, mut s) = (x, 0);
        while v != 1 && s < limit {
            v = if v % 2 == 0 { v / 2 } else { v.wrapping_mul(3).wrapping_add(1) };
            s += 1;
        }
        s
    }
    fn mix(a: i32, b: i32) -> i32 {
        if a > b {
            a - b
        } else if a == b {
            a * 3
        } else {
            (b - a) * -2
        }
    }
    let n = 250u32;
    let mut oi = vec![0u32; 256];
    let mut of = vec![0u32; 256];
    for i in 0..n {
        let x = (i as i32 * 37) % 41 - 20;
        let mut acc = 0i32;
        for k in 0..16i32 {
            if k % 3 == 0 {
                continue;
            }
            if !(-1000..=1000).contains(&acc) {
                break;
            }
            if x < 0 {
                if k > 4 {
                    acc -= x * k;
                } else {
                    acc += 1;
                }
            } else if x == 0 {
                acc ^= k;
            } else {
                acc += mix(collatz(x as u32, 50) as i32, k);
            }
        }
        let mut j = 0u32;
        loop {
            j += 1;
            if j * j > i % 17 {
                break;
            }
        }
        oi[i as usize] = (acc.wrapping_mul(3) + j as i32 - (x >> 2)) as u32;
        let f = acc as f32 * 0.25 - (x as f32).abs() + (i & 7) as f32;
        of[i as usize] = f.clamp(-100.0, 100.0).floor().to_bits();
    }
    [oi, of].concat()
}

#[test]
fn control_flow_and_helpers_are_clean() {
    clean_all("control", &control_case("control"));
    for got in native_both(&control_case("control")) {
        common::expect("control", &got, &host_control());
    }
}

#[test]
fn persistent_workgroup_loop_is_clean() {
    clean_all("persistent_reverse", &control_case("persistent_reverse"));
    let d = iota(320, 9);
    let want: Vec<u32> = (0..320).map(|i| d[(i / 32) * 32 + 31 - i % 32]).collect();
    for got in native_both(&control_case("persistent_reverse")) {
        common::expect("persistent_reverse", &got, &want);
    }
}

#[test]
fn three_d_workgroup_is_clean() {
    clean_all("column_sum_3d", &control_case("column_sum_3d"));
    let d = iota(192, 10);
    let want: Vec<u32> = (0..48).map(|o| (0..4).map(|z| d[(o / 16) * 64 + z * 16 + o % 16]).sum()).collect();
    for got in native_both(&control_case("column_sum_3d")) {
        common::expect("column_sum_3d", &got, &want);
    }
}

// ===================================== 10. benign flag race

#[ld::kernels]
pub mod flag {
    /// RACY by the memory model (ww, storage, inter-warp and
    /// inter-workgroup): every invocation that finds `target` stores 1
    /// into `found[0]` (which starts at 0). "Benign", but a data race.
    #[kernel(workgroup_size = 64)]
    pub fn find_any(data: &[u32], target: u32, found: &mut [u32]) {
        let i = global_id().x;
        if i < data.len() && data[i] == target {
            found[0] = 1;
        }
    }

    /// RACE-FREE twin: an atomic max of the index (the last match wins,
    /// whatever the order).
    #[kernel(workgroup_size = 64)]
    pub fn find_last(data: &[u32], target: u32, found: &[AtomicU32]) {
        let i = global_id().x;
        if i < data.len() && data[i] == target {
            found[0].fetch_max(i + 1);
        }
    }
}

fn flag_case(k: &'static str, target: u32) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let data: Vec<u32> = (0..256u32).map(|i| i % 50).collect();
        let db = rt.upload(&data).unwrap();
        let mut f = rt.zeros::<u32>(1).unwrap();
        let r = if k == "find_any" {
            go(flag::find_any.launch(rt, 4, &db, target, &mut f), how)
        } else {
            go(flag::find_last.launch(rt, 4, &db, target, &mut f), how)
        };
        (r, f.to_vec().unwrap())
    }
}

#[test]
fn benign_flag_race_is_a_race() {
    // target 7 is at 7, 57, 107, 157, 207: warps 0, 1 of wg 0, wg 1, wg 2, wg 3.
    for w in [32, 1] {
        expect_race("find_any", w, &flag_case("find_any", 7), &[ww(ST, WGS, "found")]);
    }
    // No match: nobody writes, clean.
    for w in [32, 1] {
        expect_clean("find_any single match", w, &flag_case("find_any", 1000));
    }
}

#[test]
fn atomic_flag_is_clean() {
    clean_all("find_last", &flag_case("find_last", 7));
    for got in native_both(&flag_case("find_last", 7)) {
        assert_eq!(got, vec![208]);
    }
}

// ===================================== 11. probes of value comparison

#[ld::kernels]
pub mod probe {
    /// RACE-FREE: each invocation scales its own element of a buffer that
    /// holds NaNs, infinities and negative zeros (pages every warp copies
    /// contain other warps' NaNs).
    #[kernel(workgroup_size = 64)]
    pub fn scale_specials(data: &mut [f32]) {
        let i = global_id().x;
        if i < data.len() {
            data[i] = data[i] * -1.0;
        }
    }

    /// RACE-FREE: the same in workgroup memory: every invocation writes its
    /// own word of a shared array (a negated special), then after a barrier
    /// reads its neighbour's.
    #[kernel(workgroup_size = 64)]
    pub fn shared_specials(data: &[f32], out: &mut [f32]) {
        let s = shared::<[f32; 64]>();
        let lid = local_index();
        s[lid] = -data[global_id().x];
        barrier();
        out[global_id().x] = s[(lid + 33) % 64];
    }

    /// RACE-FREE: invocation g writes word 2g and reads odd words (never
    /// written) from another workgroup's range, on pages every unit writes.
    #[kernel(workgroup_size = 64)]
    pub fn interleaved(data: &mut [u32]) {
        let g = global_id().x;
        let other = (2 * g + 129) % data.len();
        data[2 * g] = data[other] + data[2 * g + 1];
    }

    /// RACE-FREE: odd-even transposition sort of each workgroup's 64
    /// storage words, `storage_barrier()` after every phase.
    #[kernel(workgroup_size = 32)]
    pub fn odd_even_storage(data: &mut [u32]) {
        let lid = local_index();
        let base = workgroup_id().x * 64;
        for phase in 0..64u32 {
            let i = base + 2 * lid + (phase & 1);
            if i + 1 < base + 64 {
                let a = data[i];
                let b = data[i + 1];
                if a > b {
                    data[i] = b;
                    data[i + 1] = a;
                }
            }
            storage_barrier();
        }
    }

    pub struct Particle {
        pub x: f32,
        pub v: f32,
        pub id: u32,
        pub hits: [u32; 2],
    }

    /// RACE-FREE: particles staged in a shared array of structs, each
    /// invocation reads its mirror's after the barrier and writes its own.
    #[kernel(workgroup_size = 64)]
    pub fn particles_shared(ps: &[Particle], out: &mut [Particle]) {
        let s = shared::<[Particle; 64]>();
        let lid = local_index();
        let g = global_id().x;
        s[lid] = ps[g];
        barrier();
        let mut p = s[63 - lid];
        p.x = p.x + p.v;
        p.hits[lid % 2] += 1;
        out[g] = p;
    }

    /// RACY (ww, workgroup memory, inter-warp): particles of warp 0 and
    /// warp 1 both update field `hits[0]` of a shared slot they share.
    #[kernel(workgroup_size = 64)]
    pub fn particles_shared_racy(ps: &[Particle], out: &mut [Particle]) {
        let s = shared::<[Particle; 64]>();
        let lid = local_index();
        let g = global_id().x;
        s[lid] = ps[g];
        barrier();
        s[lid % 32].hits[0] = lid;
        barrier();
        out[g] = s[lid];
    }
}

fn specials() -> Vec<f32> {
    let sp = [f32::NAN, -0.0, 0.0, f32::INFINITY, f32::NEG_INFINITY, f32::from_bits(0x7fc0_0001), 1.5, f32::MIN_POSITIVE / 4.0];
    (0..256).map(|i| sp[i % sp.len()]).collect()
}

fn probe_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| match k {
        "scale_specials" => {
            let mut d = rt.upload(&specials()).unwrap();
            let r = go(probe::scale_specials.launch(rt, 4, &mut d), how);
            (r, f32s(&d.to_vec().unwrap()))
        }
        "shared_specials" => {
            let d = rt.upload(&specials()).unwrap();
            let mut o = rt.upload(&specials()).unwrap();
            let r = go(probe::shared_specials.launch(rt, 4, &d, &mut o), how);
            (r, f32s(&o.to_vec().unwrap()))
        }
        "interleaved" => {
            let mut d = rt.upload(&iota(512, 11)).unwrap();
            let r = go(probe::interleaved.launch(rt, 4, &mut d), how);
            (r, d.to_vec().unwrap())
        }
        "odd_even_storage" => {
            let mut d = rt.upload(&iota(256, 12)).unwrap();
            let r = go(probe::odd_even_storage.launch(rt, 4, &mut d), how);
            (r, d.to_vec().unwrap())
        }
        _ => {
            let ps: Vec<probe::Particle> = (0..128u32).map(|i| probe::Particle { x: i as f32, v: 0.5 * (i % 3) as f32, id: i, hits: [i % 5, 7] }).collect();
            let pb = rt.upload(&ps).unwrap();
            let mut o = rt.zeros::<probe::Particle>(128).unwrap();
            let r = if k == "particles_shared" {
                go(probe::particles_shared.launch(rt, 2, &pb, &mut o), how)
            } else {
                go(probe::particles_shared_racy.launch(rt, 2, &pb, &mut o), how)
            };
            (r, o.to_vec().unwrap().iter().flat_map(|p| [p.x.to_bits(), p.v.to_bits(), p.id, p.hits[0], p.hits[1]]).collect())
        }
    }
}

#[test]
fn nan_and_negative_zero_words_are_clean() {
    clean_all_by("scale_specials", &probe_case("scale_specials"), common::canonical_specials);
    let mut want: Vec<u32> = specials().iter().map(|x| (x * -1.0).to_bits()).collect();
    common::canonical_specials(&mut want);
    for mut got in native_both(&probe_case("scale_specials")) {
        // NaN payloads may change under arithmetic, and a device may flush
        // subnormals; the rest is exact.
        common::canonical_specials(&mut got);
        common::expect("scale_specials", &got, &want);
    }
}

#[test]
fn nan_and_negative_zero_in_shared_memory_are_clean() {
    clean_all_by("shared_specials", &probe_case("shared_specials"), common::canonical_specials);
}

#[test]
fn interleaved_words_on_shared_pages_are_clean() {
    clean_all("interleaved", &probe_case("interleaved"));
    let d = iota(512, 11);
    let mut want = d.clone();
    for g in 0..256 {
        want[2 * g] = d[(2 * g + 129) % 512] + d[2 * g + 1];
    }
    for got in native_both(&probe_case("interleaved")) {
        common::expect("interleaved", &got, &want);
    }
}

#[test]
fn odd_even_sort_in_storage_is_clean() {
    clean_all("odd_even_storage", &probe_case("odd_even_storage"));
    let want = sorted_chunks(&iota(256, 12), 64);
    for got in native_both(&probe_case("odd_even_storage")) {
        common::expect("odd_even_storage", &got, &want);
    }
}

#[test]
fn shared_array_of_structs_is_clean() {
    clean_all("particles_shared", &probe_case("particles_shared"));
}

#[test]
fn shared_array_of_structs_field_race() {
    for w in [32, 1] {
        expect_race("particles_shared_racy", w, &probe_case("particles_shared_racy"), &[ww(WG, WARP, "s")]);
    }
}

// ===================================== 12. more shapes: uniform exits, mixed epochs, fields

#[ld::kernels]
pub mod more {
    pub struct Cell {
        pub a: u32,
        pub b: u32,
        pub pair: [u32; 2],
    }

    /// RACE-FREE: workgroups past `active` return at once (uniform); the
    /// others rotate through shared memory in a `loop` whose `break`
    /// depends only on a uniform parameter, two barriers per round.
    #[kernel(workgroup_size = 64)]
    pub fn uniform_exit(data: &[u32], out: &mut [u32], active: u32, iters: u32) {
        let s = shared::<[u32; 64]>();
        let lid = local_index();
        if workgroup_id().x >= active {
            return;
        }
        let mut acc = data[global_id().x];
        let mut it = 0u32;
        loop {
            s[lid] = acc;
            barrier();
            acc = s[(lid + 1) % 64] + it;
            barrier();
            it += 1;
            if it >= iters {
                break;
            }
        }
        out[global_id().x] = acc;
    }

    /// RACE-FREE: each round reads the other warp's storage words into
    /// shared memory, then (after both kinds of barrier) overwrites its own
    /// storage words from shared memory; a `storage_barrier()` then a
    /// `barrier()` close the round.
    #[kernel(workgroup_size = 64)]
    pub fn mixed_epochs(data: &mut [u32], out: &mut [u32]) {
        let s = shared::<[u32; 64]>();
        let lid = local_index();
        let base = workgroup_id().x * 64;
        for round in 0..4u32 {
            s[lid] = data[base + (lid + 32) % 64] + round;
            barrier();
            storage_barrier();
            data[base + lid] = s[63 - lid];
            storage_barrier();
            barrier();
        }
        out[base + lid] = data[base + lid];
    }

    /// RACY (rw, workgroup memory, inter-warp): `mixed_epochs` without the
    /// closing `barrier()`: round r + 1's `s[lid]` write races with round
    /// r's read of `s[63 - lid]` by the other warp; only storage barriers
    /// lie between.
    #[kernel(workgroup_size = 64)]
    pub fn mixed_epochs_racy(data: &mut [u32], out: &mut [u32]) {
        let s = shared::<[u32; 64]>();
        let lid = local_index();
        let base = workgroup_id().x * 64;
        for round in 0..4u32 {
            s[lid] = data[base + (lid + 32) % 64] + round;
            barrier();
            storage_barrier();
            data[base + lid] = s[63 - lid];
            storage_barrier();
        }
        out[base + lid] = data[base + lid];
    }

    /// RACE-FREE: different fields of one struct element written by
    /// different lanes, warps and workgroups: word-disjoint.
    #[kernel(workgroup_size = 32)]
    pub fn fields_disjoint(cells: &mut [Cell]) {
        let g = global_id().x;
        let c = g / 4;
        let f = g % 4;
        if f == 0 {
            cells[c].a = g;
        } else if f == 1 {
            cells[c].b = g * 2;
        } else {
            cells[c].pair[f - 2] = g * 3;
        }
    }

    /// RACY (ww, storage, inter-workgroup): workgroup 0 and the last one
    /// (far apart, in different batches under a small budget) both write
    /// `data[0]`; everyone else writes its own `out` word.
    #[kernel(workgroup_size = 64)]
    pub fn far_apart(data: &mut [u32], out: &mut [u32]) {
        let g = global_id().x;
        out[g] = g * 2 + 1;
        let wg = workgroup_id().x;
        if local_index() == 0 && (wg == 0 || wg == num_workgroups().x - 1) {
            data[0] = wg + 5;
        }
    }

    /// RACE-FREE twin of `far_apart` for the batching test.
    #[kernel(workgroup_size = 64)]
    pub fn far_apart_fixed(data: &mut [u32], out: &mut [u32]) {
        let g = global_id().x;
        out[g] = g * 2 + 1;
        let wg = workgroup_id().x;
        if local_index() == 0 && (wg == 0 || wg == num_workgroups().x - 1) {
            data[wg] = wg + 5;
        }
    }

    /// RACY (ww, storage, inter-workgroup) on a 2-D grid: workgroup (x, y)
    /// writes `out[x + y]`, so (1, 0) and (0, 1) collide.
    #[kernel(workgroup_size = (8, 8))]
    pub fn diag_2d(out: &mut [u32]) {
        let w = workgroup_id();
        if local_index() == 0 {
            out[w.x + w.y] = w.x * 10 + w.y + 1;
        }
    }
}

fn more_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| match k {
        "uniform_exit" => {
            let d = rt.upload(&iota(256, 13)).unwrap();
            let mut o = rt.zeros::<u32>(256).unwrap();
            let r = go(more::uniform_exit.launch(rt, 4, &d, &mut o, 3u32, 5u32), how);
            (r, o.to_vec().unwrap())
        }
        "mixed_epochs" | "mixed_epochs_racy" => {
            let mut d = rt.upload(&iota(256, 14)).unwrap();
            let mut o = rt.zeros::<u32>(256).unwrap();
            let r = if k == "mixed_epochs" {
                go(more::mixed_epochs.launch(rt, 4, &mut d, &mut o), how)
            } else {
                go(more::mixed_epochs_racy.launch(rt, 4, &mut d, &mut o), how)
            };
            let mut v = d.to_vec().unwrap();
            v.extend(o.to_vec().unwrap());
            (r, v)
        }
        "fields_disjoint" => {
            let mut c = rt.zeros::<more::Cell>(64).unwrap();
            let r = go(more::fields_disjoint.launch(rt, 8, &mut c), how);
            (r, c.to_vec().unwrap().iter().flat_map(|c| [c.a, c.b, c.pair[0], c.pair[1]]).collect())
        }
        "diag_2d" => {
            let mut o = rt.zeros::<u32>(8).unwrap();
            let r = go(more::diag_2d.launch(rt, (3u32, 3u32), &mut o), how);
            (r, o.to_vec().unwrap())
        }
        _ => unreachable!(),
    }
}

#[test]
fn uniform_early_return_and_break_are_clean() {
    clean_all("uniform_exit", &more_case("uniform_exit"));
    let d = iota(256, 13);
    let mut want = vec![0u32; 256];
    for wg in 0..3 {
        let mut acc: Vec<u32> = d[wg * 64..wg * 64 + 64].to_vec();
        for it in 0..5 {
            acc = (0..64).map(|l| acc[(l + 1) % 64] + it).collect();
        }
        want[wg * 64..wg * 64 + 64].copy_from_slice(&acc);
    }
    for got in native_both(&more_case("uniform_exit")) {
        common::expect("uniform_exit", &got, &want);
    }
}

#[test]
fn mixed_memory_epochs_are_clean() {
    clean_all("mixed_epochs", &more_case("mixed_epochs"));
}

#[test]
fn mixed_memory_epochs_without_closing_barrier_race() {
    for w in [32, 1] {
        expect_race("mixed_epochs_racy", w, &more_case("mixed_epochs_racy"), &[rw(WG, WARP, "s")]);
    }
}

#[test]
fn disjoint_struct_fields_are_clean() {
    clean_all("fields_disjoint", &more_case("fields_disjoint"));
}

#[test]
fn two_d_grid_workgroups_collide() {
    expect_race("diag_2d", 32, &more_case("diag_2d"), &[ww(ST, WGS, "out")]);
}

/// Many workgroups under small budgets (batches): the verdict and the
/// buffers must not depend on the budget.
#[test]
fn batching_keeps_verdicts() {
    let wgs = 600u32;
    for rt in common::runtimes() {
        for (racy, name) in [(true, "far_apart"), (false, "far_apart_fixed")] {
            let mut results = vec![];
            for budget in [None, Some(4u64 << 20), Some(1u64 << 20), Some(600_000u64)] {
                let mut d = rt.zeros::<u32>(wgs as usize).unwrap();
                let mut o = rt.zeros::<u32>((wgs * 64) as usize).unwrap();
                let opts = ld::CheckOptions::default().memory_budget(budget);
                let l = if racy { more::far_apart.launch(&rt, wgs, &mut d, &mut o) } else { more::far_apart_fixed.launch(&rt, wgs, &mut d, &mut o) };
                let plan = l.plan();
                let run = match l.mode(ld::Mode::Check).check_options(opts).run() {
                    Ok(r) => r,
                    Err(e) => panic!("{name} budget {budget:?} on {:?}: {e}\nplan: {plan:?}", rt.backend()),
                };
                let rep = run.report.unwrap();
                assert_eq!(rep.has_races(), racy, "{name} budget {budget:?} on {:?}:\n{rep}", rt.backend());
                let mut v = d.to_vec().unwrap();
                v.extend(o.to_vec().unwrap());
                results.push(v);
            }
            assert!(results.windows(2).all(|w| w[0] == w[1]), "{name} on {:?}: buffers depend on the budget", rt.backend());
        }
    }
}

/// The error for a budget too small names the bytes needed; a budget of
/// exactly that many bytes must then be enough.
#[test]
fn budget_error_names_enough_bytes() {
    for rt in common::runtimes() {
        let mut budget = 20_000u64;
        let mut seen = vec![];
        for _ in 0..6 {
            let mut d = rt.zeros::<u32>(600).unwrap();
            let mut o = rt.zeros::<u32>(600 * 64).unwrap();
            let opts = ld::CheckOptions::default().memory_budget(budget);
            match more::far_apart_fixed.launch(&rt, 600u32, &mut d, &mut o).mode(ld::Mode::Check).check_options(opts).run() {
                Ok(_) => break,
                Err(e) => {
                    let msg = e.to_string();
                    let needs: u64 = msg.split("needs ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
                    seen.push((budget, needs));
                    budget = needs;
                }
            }
        }
        // 20,000 bytes are too few (`out` is left in place; `data` is
        // checked); the number the error names is enough.
        assert_eq!(seen.len(), 1, "on {:?}: (budget, bytes the error says are needed): {seen:?}", rt.backend());
    }
}

// ===================================== 13. odd workgroup sizes, sparse pages

#[ld::kernels]
pub mod odd {
    /// RACE-FREE: a 10 x 10 workgroup (100 invocations: warps of 32, 32,
    /// 32 and 4) rotates a 100-word shared tile by 37 and sums a row.
    #[kernel(workgroup_size = (10, 10))]
    pub fn rotate_100(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 100]>();
        let lid = local_index();
        let base = workgroup_id().x * 100;
        s[lid] = input[base + lid];
        barrier();
        let v = s[(lid + 37) % 100];
        barrier();
        s[lid] = v * 2;
        barrier();
        if local_id().x == 0 {
            let mut acc = 0u32;
            for k in 0..10u32 {
                acc += s[local_id().y * 10 + k];
            }
            out[base + lid] = acc;
        } else {
            out[base + lid] = s[lid];
        }
    }

    /// RACY (rw, workgroup memory, inter-warp): the same without the
    /// middle barrier: invocation i writes `s[i]` while i - 37 reads it.
    #[kernel(workgroup_size = (10, 10))]
    pub fn rotate_100_racy(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 100]>();
        let lid = local_index();
        let base = workgroup_id().x * 100;
        s[lid] = input[base + lid];
        barrier();
        let v = s[(lid + 37) % 100];
        s[lid] = v * 2;
        barrier();
        out[base + lid] = s[lid];
    }

    /// RACE-FREE: workgroup w writes only `out[w * stride + j]`, far
    /// apart (pages touched by one workgroup each), and reads a word of a
    /// page no one writes.
    #[kernel(workgroup_size = 48)]
    pub fn sparse(out: &mut [u32], stride: u32) {
        let w = workgroup_id().x;
        let lid = local_index();
        let g = global_id();
        let flat = g.x + g.y * num_workgroups().x * workgroup_size().x;
        let wg = w + workgroup_id().y * num_workgroups().x;
        out[wg * stride + lid] = flat + out[out.len() - 1 - lid];
    }
}

fn odd_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| match k {
        "rotate_100" | "rotate_100_racy" => {
            let inb = rt.upload(&iota(300, 15)).unwrap();
            let mut o = rt.zeros::<u32>(300).unwrap();
            let r = if k == "rotate_100" {
                go(odd::rotate_100.launch(rt, 3, &inb, &mut o), how)
            } else {
                go(odd::rotate_100_racy.launch(rt, 3, &inb, &mut o), how)
            };
            (r, o.to_vec().unwrap())
        }
        "sparse" => {
            let stride = 4099u32;
            let n = 6 * 2 * stride + 64;
            let mut o = rt.upload(&iota(n as usize, 16)).unwrap();
            let r = go(odd::sparse.launch(rt, (6u32, 2u32), &mut o, stride), how);
            (r, o.to_vec().unwrap())
        }
        _ => unreachable!(),
    }
}

#[test]
fn hundred_invocation_workgroup_is_clean() {
    clean_all("rotate_100", &odd_case("rotate_100"));
    let d = iota(300, 15);
    let mut want = vec![0u32; 300];
    for w in 0..3 {
        let s: Vec<u32> = (0..100).map(|l| d[w * 100 + (l + 37) % 100] * 2).collect();
        for l in 0..100 {
            want[w * 100 + l] = if l % 10 == 0 { (0..10).map(|k| s[(l / 10) * 10 + k]).sum() } else { s[l] };
        }
    }
    for got in native_both(&odd_case("rotate_100")) {
        common::expect("rotate_100", &got, &want);
    }
}

#[test]
fn hundred_invocation_workgroup_race() {
    for w in [32, 4, 1] {
        expect_race("rotate_100_racy", w, &odd_case("rotate_100_racy"), &[rw(WG, WARP, "s")]);
    }
}

#[test]
fn sparse_far_pages_are_clean() {
    clean_all("sparse", &odd_case("sparse"));
}

// ===================================== 14. long loops on lavapipe

#[ld::kernels]
pub mod longl {
    /// RACE-FREE: a long per-invocation loop (no barriers).
    #[kernel(workgroup_size = 64)]
    pub fn long_loop(out: &mut [u32], iters: u32) {
        let g = global_id().x;
        let mut x = g;
        for _k in 0..iters {
            x = x * 1664525 + 1013904223;
        }
        out[g] = x;
    }

    /// RACE-FREE: many barrier rounds: an iterated rotation through a
    /// 256-word shared array.
    #[kernel(workgroup_size = 64)]
    pub fn many_barriers(out: &mut [u32], rounds: u32) {
        let s = shared::<[u32; 256]>();
        let lid = local_index();
        let mut v = global_id().x;
        for r in 0..rounds {
            s[lid * 4] = v;
            barrier();
            v = s[((lid + 1) % 64) * 4] + r;
            barrier();
        }
        out[global_id().x] = v;
    }
}

fn long_case(k: &'static str, n: u32) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let mut o = rt.zeros::<u32>(128).unwrap();
        let r = if k == "long_loop" { go(longl::long_loop.launch(rt, 2, &mut o, n), how) } else { go(longl::many_barriers.launch(rt, 2, &mut o, n), how) };
        (r, o.to_vec().unwrap())
    }
}

#[test]
fn long_loop_runs_in_every_mode() {
    // 60000 iterations: under lavapipe's 65535 per invocation natively.
    expect_clean("long_loop", 32, &long_case("long_loop", 60000));
}

#[test]
fn many_barrier_rounds_run_in_every_mode() {
    expect_clean("many_barriers", 32, &long_case("many_barriers", 500));
}

/// At 2000 barrier rounds lavapipe's cap of 65535 loop iterations per
/// invocation, which counts the engine's loops at every barrier, stops
/// check and deterministic mode (natively it runs 60000 rounds). The CPU
/// reference checks it; lavapipe says why it gives no result and what to
/// do, naming the barriers, not only the kernel's loop.
#[test]
fn many_barrier_rounds_past_lavapipes_loop_cap_say_why() {
    let cpu = common::cpu();
    let mut o = cpu.zeros::<u32>(128).unwrap();
    let run = longl::many_barriers.launch(&cpu, 2u32, &mut o, 2000u32).mode(ld::Mode::Check).run().unwrap();
    assert!(!run.report.unwrap().has_races());
    let Some(gpu) = common::gpu() else { return };
    for mode in [ld::Mode::Check, ld::Mode::Deterministic] {
        let mut o = gpu.zeros::<u32>(128).unwrap();
        match longl::many_barriers.launch(&gpu, 2u32, &mut o, 2000u32).mode(mode).run() {
            Ok(run) => assert!(run.report.is_none_or(|r| !r.has_races())),
            Err(e @ ld::Error::LoopLimit { .. }) => {
                let msg = e.to_string();
                eprintln!("{mode:?}: {msg}");
                assert!(msg.contains("at every barrier") && msg.contains("LD_BACKEND=cpu"), "{msg}");
            }
            Err(e) => panic!("{mode:?}: {e}"),
        }
    }
}

// ===================================== 15. uniform control flow around barriers

#[ld::kernels]
pub mod uni {
    /// RACE-FREE: even workgroups take a path with one barrier, odd ones a
    /// path with two; a uniform `continue` skips odd rounds of a loop with
    /// barriers; workgroup 0 returns (uniformly) after its own barriers.
    #[kernel(workgroup_size = 64)]
    pub fn paths(input: &[u32], out: &mut [u32], rounds: u32) {
        let s = shared::<[u32; 64]>();
        let lid = local_index();
        let wg = workgroup_id().x;
        let g = global_id().x;
        let mut v = input[g];
        if wg % 2 == 0 {
            s[lid] = v;
            barrier();
            v = s[63 - lid];
        } else {
            s[lid] = v + 1;
            barrier();
            v = s[(lid + 32) % 64];
            barrier();
            s[lid] = v * 3;
            barrier();
            v = s[(lid + 1) % 64];
        }
        barrier();
        if wg == 0 {
            s[lid] = v;
            barrier();
            out[g] = s[(lid + 5) % 64];
            return;
        }
        for r in 0..rounds {
            if r % 2 == 1 {
                continue;
            }
            s[lid] = v + r;
            barrier();
            v = s[(lid + 33) % 64];
            barrier();
        }
        out[g] = v;
    }

    /// RACY only in odd workgroups (rw, workgroup memory, inter-warp): the
    /// odd path misses its second barrier.
    #[kernel(workgroup_size = 64)]
    pub fn paths_racy(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 64]>();
        let lid = local_index();
        let wg = workgroup_id().x;
        let g = global_id().x;
        let mut v = input[g];
        if wg % 2 == 0 {
            s[lid] = v;
            barrier();
            v = s[63 - lid];
        } else {
            s[lid] = v + 1;
            barrier();
            v = s[(lid + 32) % 64];
            s[lid] = v * 3;
            barrier();
            v = s[(lid + 1) % 64];
        }
        out[g] = v;
    }
}

fn uni_case(k: &'static str) -> impl Fn(&Runtime, How) -> (Option<Report>, Vec<u32>) {
    move |rt, how| {
        let inb = rt.upload(&iota(256, 17)).unwrap();
        let mut o = rt.zeros::<u32>(256).unwrap();
        let r = if k == "paths" { go(uni::paths.launch(rt, 4, &inb, &mut o, 5u32), how) } else { go(uni::paths_racy.launch(rt, 4, &inb, &mut o), how) };
        (r, o.to_vec().unwrap())
    }
}

#[test]
fn uniform_paths_with_different_barrier_counts_are_clean() {
    clean_all("paths", &uni_case("paths"));
    let d = iota(256, 17);
    let mut want = vec![0u32; 256];
    for wg in 0..4usize {
        let inp = &d[wg * 64..wg * 64 + 64];
        let mut v: Vec<u32> = if wg % 2 == 0 {
            (0..64).map(|l| inp[63 - l]).collect()
        } else {
            let a: Vec<u32> = (0..64).map(|l| inp[(l + 32) % 64] + 1).collect();
            (0..64).map(|l| a[(l + 1) % 64] * 3).collect()
        };
        if wg == 0 {
            v = (0..64).map(|l| v[(l + 5) % 64]).collect();
        } else {
            for r in (0..5u32).step_by(2) {
                v = (0..64).map(|l| v[(l + 33) % 64] + r).collect();
            }
        }
        want[wg * 64..wg * 64 + 64].copy_from_slice(&v);
    }
    for got in native_both(&uni_case("paths")) {
        common::expect("paths", &got, &want);
    }
}

#[test]
fn race_on_one_uniform_path_only() {
    for w in [32, 1] {
        let outs = expect_race("paths_racy", w, &uni_case("paths_racy"), &[rw(WG, WARP, "s")]);
        for o in outs {
            for r in &o.report.races {
                assert!(r.units.iter().all(|u| u.workgroup[0] % 2 == 1), "paths_racy on {}: a race in an even workgroup: {r:?}", o.backend);
            }
        }
    }
}

// ===================================== 16. GPU vs CPU bits of conversions and `%`

#[ld::kernel(workgroup_size = 64)]
fn float_rem(a: &[f32], b: &[f32], out: &mut [f32]) {
    let i = global_id().x;
    if i < a.len() {
        out[i] = a[i] % b[i];
    }
}

#[ld::kernel(workgroup_size = 64)]
fn to_int(a: &[f32], out: &mut [i32]) {
    let i = global_id().x;
    if i < a.len() {
        out[i] = a[i] as i32;
    }
}

/// Float `%` is WGSL's `a - b * trunc(a / b)`: `-6.0 % 3.0` is +0.0
/// (Rust's `%` gives -0.0), `4294967296.0 % 3.0` is 0 (Rust: 1). Natively
/// the device computes it (naga emits SPIR-V's `OpFRem`, whose zero takes
/// the dividend's sign on NVIDIA: -0.0, and it may round once where WGSL
/// rounds twice), so the values of exact quotients agree and the sign of a
/// zero may not; deterministic mode gives WGSL's bits on every device.
#[test]
fn float_rem_zero_sign_same_on_both_backends() {
    let a = [-6.0f32, -4.0, -0.0, -3.0, 6.0, -7.5, 4294967296.0];
    let b = [3.0f32, 2.0, 3.0, 1.5, 3.0, 2.5, 3.0];
    let want: Vec<u32> = a.iter().zip(&b).map(|(x, y)| (x - y * (x / y).trunc()).to_bits()).collect();
    for mode in [ld::Mode::Native, ld::Mode::Deterministic] {
        for rt in common::runtimes() {
            let (ab, bb) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
            let mut o = rt.zeros::<f32>(7).unwrap();
            float_rem.launch(&rt, 1u32, &ab, &bb, &mut o).mode(mode).run().unwrap();
            let got = f32s(&o.to_vec().unwrap());
            if mode == ld::Mode::Native && rt.is_gpu() {
                // The quotients that f32 holds exactly; NVIDIA computes
                // 4294967296 % 3 with one rounding (-128).
                let same = got[..6].iter().zip(&want).all(|(g, w)| f32::from_bits(*g) == f32::from_bits(*w));
                assert!(same, "float_rem natively on {}: {got:x?}, WGSL gives {want:x?}", rt.backend());
            } else {
                common::expect(&format!("float_rem ({mode:?} on {})", rt.backend()), &got, &want);
            }
        }
    }
    assert_eq!(want[0], 0.0f32.to_bits(), "-6 % 3 is +0.0");
}

/// `NaN as i32` is 0 on both backends, as in Rust (lavapipe's own
/// conversion gives i32::MIN).
#[test]
fn nan_to_int_same_on_both_backends() {
    let a = [f32::NAN, 1.5, -f32::NAN, -2.5, 1e20];
    let got = common::both("to_int", |rt| {
        let ab = rt.upload(&a).unwrap();
        let mut o = rt.zeros::<i32>(5).unwrap();
        to_int.launch(rt, 1u32, &ab, &mut o).run().unwrap();
        o.to_vec().unwrap()
    });
    common::expect("to_int", &got, &[0, 1, 0, -2, 2147483520]);
}
