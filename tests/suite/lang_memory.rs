//! Differential tests of memory and the execution model: workgroup (shared)
//! memory with barriers (tree reductions, barriers inside for loops,
//! ping-pong stencils, windows into shared arrays), storage_barrier, 2D/3D
//! workgroups and grids with every id builtin, `.len()`, storage and shared
//! atomics, kernel structs in an `#[ld::kernels]` module with a shared
//! helper, and uniform parameters of all three types.
//!
//! Each test runs the kernel on the GPU runtime and on the CPU executor,
//! asserts identical output, and checks it against plain Rust on the host.
//! Nothing compared depends on scheduling: atomics are only checked through
//! order-independent totals.
use crate::support as common;

use common::{both, expect};

fn pseudo(n: usize, seed: u32) -> Vec<u32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s
        })
        .collect()
}

// ------------------------------------------------------ shared reductions

/// Per-workgroup sum (u32) and min (i32) by tree reduction, the barrier in
/// the while loop.
#[ld::kernel(workgroup_size = 256)]
fn tree_reduce(a: &[u32], b: &[i32], sums: &mut [u32], mins: &mut [i32]) {
    let ts = shared::<[u32; 256]>();
    let tm = shared::<[i32; 256]>();
    let lid = local_index();
    let g = global_id().x;
    ts[lid] = a[g];
    tm[lid] = b[g];
    barrier();
    let mut s = 128u32;
    while s > 0 {
        if lid < s {
            ts[lid] += ts[lid + s];
            tm[lid] = tm[lid].min(tm[lid + s]);
        }
        barrier();
        s >>= 1;
    }
    if lid == 0 {
        sums[workgroup_id().x] = ts[0];
        mins[workgroup_id().x] = tm[0];
    }
}

#[test]
fn shared_tree_reduction_sum_and_min() {
    let groups = 16usize;
    let n = groups * 256;
    let a = pseudo(n, 3);
    let b: Vec<i32> = pseudo(n, 5).into_iter().map(|x| x as i32).collect();
    let got = both("tree_reduce", |rt| {
        let (da, db) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
        let mut s = rt.zeros::<u32>(groups).unwrap();
        let mut m = rt.zeros::<i32>(groups).unwrap();
        tree_reduce.launch(rt, groups as u32, &da, &db, &mut s, &mut m).run().unwrap();
        let mut w = s.to_vec().unwrap();
        w.extend(m.to_vec().unwrap().into_iter().map(|x| x as u32));
        w
    });
    let mut want: Vec<u32> = a.chunks(256).map(|c| c.iter().fold(0u32, |s, x| s.wrapping_add(*x))).collect();
    want.extend(b.chunks(256).map(|c| *c.iter().min().unwrap() as u32));
    expect("tree_reduce", &got, &want);
}

/// Float tree reduction: the summation order is fixed by the tree, so the
/// host can reproduce it exactly and both backends must match bit for bit.
#[ld::kernel(workgroup_size = 128)]
fn tree_reduce_f32(a: &[f32], out: &mut [f32]) {
    let t = shared::<[f32; 128]>();
    let lid = local_index();
    t[lid] = a[global_id().x];
    barrier();
    let mut s = t.len() / 2;
    while s > 0 {
        if lid < s {
            t[lid] = t[lid] + t[lid + s];
        }
        barrier();
        s = s / 2;
    }
    if lid == 0 {
        out[workgroup_id().x] = t[0];
    }
}

#[test]
fn shared_tree_reduction_f32_exact_order() {
    let groups = 8usize;
    let a: Vec<f32> = pseudo(groups * 128, 9).into_iter().map(|x| (x >> 8) as f32 * 1e-3 - 8000.0).collect();
    let got = both("tree_reduce_f32", |rt| {
        let d = rt.upload(&a).unwrap();
        let mut o = rt.zeros::<f32>(groups).unwrap();
        tree_reduce_f32.launch(rt, groups as u32, &d, &mut o).run().unwrap();
        o.to_vec().unwrap().into_iter().map(f32::to_bits).collect()
    });
    let want: Vec<u32> = a
        .chunks(128)
        .map(|c| {
            let mut t = c.to_vec();
            let mut s = 64;
            while s > 0 {
                for l in 0..s {
                    t[l] += t[l + s];
                }
                s /= 2;
            }
            t[0].to_bits()
        })
        .collect();
    expect("tree_reduce_f32", &got, &want);
}

// ----------------------------------------- barriers in for loops, windows

/// A 1D 3-point integer stencil iterated `steps` times over a 128-element
/// tile with a one-element halo on each side, ping-ponging between two
/// shared arrays. The barriers sit inside a `for` over a uniform count. The
/// interior of each tile is addressed through windows `&mut tile[1..]`.
#[ld::kernel(workgroup_size = 128)]
fn stencil(a: &[u32], out: &mut [u32], steps: u32) {
    let ping = shared::<[u32; 130]>();
    let pong = shared::<[u32; 130]>();
    let lid = local_index();
    let base = workgroup_id().x * 128;
    // the halo is fixed at the tile edges: zero (shared memory starts zeroed)
    let inner = &mut ping[1..];
    inner[lid] = a[base + lid];
    barrier();
    for step in 0..steps {
        if step % 2 == 0 {
            let dst = &mut pong[1..];
            dst[lid] = (ping[lid] + 2 * ping[lid + 1] + ping[lid + 2]) / 4 + step;
        } else {
            let dst = &mut ping[1..];
            dst[lid] = (pong[lid] + 2 * pong[lid + 1] + pong[lid + 2]) / 4 + step;
        }
        barrier();
    }
    if steps % 2 == 0 {
        out[base + lid] = ping[lid + 1];
    } else {
        let src = &pong[1..];
        out[base + lid] = src[lid];
    }
}

fn host_stencil(a: &[u32], steps: u32) -> Vec<u32> {
    a.chunks(128)
        .flat_map(|c| {
            let mut cur = vec![0u32; 130];
            cur[1..129].copy_from_slice(c);
            for step in 0..steps {
                let mut next = vec![0u32; 130];
                for l in 0..128 {
                    next[l + 1] = (cur[l] + 2 * cur[l + 1] + cur[l + 2]) / 4 + step;
                }
                cur = next;
            }
            cur[1..129].to_vec()
        })
        .collect()
}

#[test]
fn barriers_inside_for_ping_pong_stencil() {
    let groups = 4usize;
    let a: Vec<u32> = pseudo(groups * 128, 11).into_iter().map(|x| x % 100_000).collect();
    for steps in [0u32, 1, 6, 7] {
        let got = both("stencil", |rt| {
            let d = rt.upload(&a).unwrap();
            let mut o = rt.zeros::<u32>(a.len()).unwrap();
            stencil.launch(rt, groups as u32, &d, &mut o, steps).run().unwrap();
            o.to_vec().unwrap()
        });
        expect(&format!("stencil(steps={steps})"), &got, &host_stencil(&a, steps));
    }
}

/// Windows into a shared array: `&mut tile[16..]`, `.len()` of a window and
/// of a shared array, a window passed to a helper, and a window of a window.
#[ld::kernel(workgroup_size = 64)]
fn shared_windows(a: &[u32], out: &mut [u32]) {
    fn sum4(v: &[u32]) -> u32 {
        v[0] + v[1] + v[2] + v[3]
    }
    let tile = shared::<[u32; 80]>();
    let lid = local_index();
    let g = global_id().x;
    let w = &mut tile[16..];
    w[lid] = a[g];
    if lid < 16 {
        tile[lid] = 1000 + lid;
    }
    barrier();
    let ww = &tile[16..];
    let w2 = &ww[lid..];
    let mut r = tile[lid] + tile.len() * 100000 + ww.len() * 1000;
    if lid + 4 <= ww.len() {
        r += sum4(w2);
    }
    out[g] = r;
}

#[test]
fn windows_into_shared_arrays() {
    let groups = 4usize;
    let a: Vec<u32> = (0..groups as u32 * 64).map(|i| i * 3 + 1).collect();
    let got = both("shared_windows", |rt| {
        let d = rt.upload(&a).unwrap();
        let mut o = rt.zeros::<u32>(a.len()).unwrap();
        shared_windows.launch(rt, groups as u32, &d, &mut o).run().unwrap();
        o.to_vec().unwrap()
    });
    let want: Vec<u32> = a
        .chunks(64)
        .flat_map(|c| {
            let mut tile = vec![0u32; 80];
            tile[16..].copy_from_slice(c);
            for (l, t) in tile.iter_mut().enumerate().take(16) {
                *t = 1000 + l as u32;
            }
            let tile2 = tile.clone();
            (0..64usize).map(move |l| {
                let mut r = tile2[l] + 80 * 100000 + 64 * 1000;
                if l + 4 <= 64 {
                    r += tile2[16 + l..16 + l + 4].iter().sum::<u32>();
                }
                r
            })
        })
        .collect();
    expect("shared_windows", &got, &want);
}

// -------------------------------------------------------- storage_barrier

/// Each invocation writes a storage buffer, `storage_barrier()` orders it
/// within the workgroup, then each reads a neighbour's word from the same
/// workgroup.
#[ld::kernel(workgroup_size = 64)]
fn storage_neighbours(a: &[u32], scratch: &mut [u32], out: &mut [u32]) {
    let g = global_id().x;
    let lid = local_index();
    let base = workgroup_id().x * 64;
    scratch[g] = a[g] * 3 + 1;
    storage_barrier();
    out[g] = scratch[base + (lid + 1) % 64] + scratch[base + (lid + 63) % 64];
}

#[test]
fn storage_barrier_orders_within_workgroup() {
    let groups = 8usize;
    let a = pseudo(groups * 64, 13);
    let got = both("storage_neighbours", |rt| {
        let d = rt.upload(&a).unwrap();
        let mut s = rt.zeros::<u32>(a.len()).unwrap();
        let mut o = rt.zeros::<u32>(a.len()).unwrap();
        storage_neighbours.launch(rt, groups as u32, &d, &mut s, &mut o).run().unwrap();
        o.to_vec().unwrap()
    });
    let f = |x: u32| x.wrapping_mul(3).wrapping_add(1);
    let want: Vec<u32> = (0..a.len())
        .map(|g| {
            let (base, l) = (g / 64 * 64, g % 64);
            f(a[base + (l + 1) % 64]).wrapping_add(f(a[base + (l + 63) % 64]))
        })
        .collect();
    expect("storage_neighbours", &got, &want);
}

// ---------------------------------------------------- 2D / 3D ids and grids

#[ld::kernel(workgroup_size = (8, 4))]
fn ids_2d(out: &mut [u32]) {
    let zero = shared::<[u32; 32]>();
    let g = global_id();
    let l = local_id();
    let w = workgroup_id();
    let n = num_workgroups();
    let width = n.x * 8;
    let flat = g.y * width + g.x;
    let o = flat * 8;
    out[o] = g.x;
    out[o + 1] = g.y;
    out[o + 2] = g.z;
    out[o + 3] = l.x + 100 * l.y + 10000 * l.z;
    out[o + 4] = w.x + 100 * w.y + 10000 * w.z;
    out[o + 5] = n.x + 100 * n.y + 10000 * n.z;
    out[o + 6] = local_index();
    // workgroup memory starts zeroed
    out[o + 7] = zero[local_index()] + out.len() / 8;
}

#[test]
fn ids_in_2d_workgroups_and_grid() {
    let (gx, gy) = (3u32, 5u32);
    let (w, h) = (gx * 8, gy * 4);
    let n = (w * h) as usize;
    let got = both("ids_2d", |rt| {
        let mut o = rt.zeros::<u32>(n * 8).unwrap();
        ids_2d.launch(rt, (gx, gy), &mut o).run().unwrap();
        o.to_vec().unwrap()
    });
    let mut want = vec![0u32; n * 8];
    for y in 0..h {
        for x in 0..w {
            let o = ((y * w + x) * 8) as usize;
            let (lx, ly) = (x % 8, y % 4);
            want[o..o + 8].copy_from_slice(&[x, y, 0, lx + 100 * ly, x / 8 + 100 * (y / 4), gx + 100 * gy + 10000, ly * 8 + lx, n as u32]);
        }
    }
    expect("ids_2d", &got, &want);
}

#[ld::kernel(workgroup_size = (4, 2, 2))]
fn ids_3d(out: &mut [u32]) {
    let g = global_id();
    let l = local_id();
    let w = workgroup_id();
    let n = num_workgroups();
    let sx = n.x * 4;
    let sy = n.y * 2;
    let flat = (g.z * sy + g.y) * sx + g.x;
    let o = flat * 5;
    out[o] = g.x + 100 * g.y + 10000 * g.z;
    out[o + 1] = l.x + 100 * l.y + 10000 * l.z;
    out[o + 2] = w.x + 100 * w.y + 10000 * w.z;
    out[o + 3] = n.x + 100 * n.y + 10000 * n.z;
    out[o + 4] = local_index();
}

#[test]
fn ids_in_3d_workgroups_and_grid() {
    let grid = (2u32, 3u32, 2u32);
    let (sx, sy, sz) = (grid.0 * 4, grid.1 * 2, grid.2 * 2);
    let n = (sx * sy * sz) as usize;
    let got = both("ids_3d", |rt| {
        let mut o = rt.zeros::<u32>(n * 5).unwrap();
        ids_3d.launch(rt, grid, &mut o).run().unwrap();
        o.to_vec().unwrap()
    });
    let mut want = vec![0u32; n * 5];
    for z in 0..sz {
        for y in 0..sy {
            for x in 0..sx {
                let o = (((z * sy + y) * sx + x) * 5) as usize;
                let (lx, ly, lz) = (x % 4, y % 2, z % 2);
                want[o..o + 5].copy_from_slice(&[
                    x + 100 * y + 10000 * z,
                    lx + 100 * ly + 10000 * lz,
                    x / 4 + 100 * (y / 2) + 10000 * (z / 2),
                    grid.0 + 100 * grid.1 + 10000 * grid.2,
                    lz * 8 + ly * 4 + lx,
                ]);
            }
        }
    }
    expect("ids_3d", &got, &want);
}

/// A 2D grid of 1D workgroups with a per-workgroup shared reduction keyed
/// by `workgroup_id().y`.
#[ld::kernel(workgroup_size = 32)]
fn rows_2d(a: &[u32], out: &mut [u32]) {
    let t = shared::<[u32; 32]>();
    let lid = local_index();
    let row = workgroup_id().y;
    let width = num_workgroups().x * 32;
    let g = global_id();
    t[lid] = a[row * width + g.x];
    barrier();
    for k in (0..5u32).rev() {
        let s = 1u32 << k;
        if lid < s {
            t[lid] = t[lid].max(t[lid + s]);
        }
        barrier();
    }
    if lid == 0 {
        out[row * num_workgroups().x + workgroup_id().x] = t[0];
    }
}

#[test]
fn per_row_max_on_2d_grid() {
    let (gx, gy) = (4u32, 6u32);
    let a = pseudo((gx * gy * 32) as usize, 17);
    let got = both("rows_2d", |rt| {
        let d = rt.upload(&a).unwrap();
        let mut o = rt.zeros::<u32>((gx * gy) as usize).unwrap();
        rows_2d.launch(rt, (gx, gy), &d, &mut o).run().unwrap();
        o.to_vec().unwrap()
    });
    let want: Vec<u32> = a.chunks(32).map(|c| *c.iter().max().unwrap()).collect();
    expect("rows_2d", &got, &want);
}

// ------------------------------------------------------------ atomics

#[ld::kernel(workgroup_size = 64)]
fn histogram(values: &[u32], bins: &[AtomicU32], nbins: u32) {
    let i = global_id().x;
    if i < values.len() {
        bins[values[i] % nbins].fetch_add(1);
    }
}

#[test]
fn atomic_fetch_add_histogram() {
    let n = 4096usize;
    let v = pseudo(n, 19);
    let nb = 37u32;
    let got = both("histogram", |rt| {
        let d = rt.upload(&v).unwrap();
        let mut bins = rt.zeros::<u32>(nb as usize).unwrap();
        histogram.launch(rt, ld::Grid::cover(n as u64, 64), &d, &mut bins, nb).run().unwrap();
        bins.to_vec().unwrap()
    });
    let mut want = vec![0u32; nb as usize];
    for x in &v {
        want[(x % nb) as usize] += 1;
    }
    expect("histogram", &got, &want);
}

/// Every read-modify-write atomic on i32 and u32 storage. Results are
/// reduced to order-independent values: final cell contents, and sums/xors
/// of returned old values where the set of returned values is determined.
#[ld::kernel(workgroup_size = 64)]
fn atomic_ops(v: &[i32], imax: &[AtomicI32], umix: &[AtomicU32], olds: &[AtomicU32]) {
    let i = global_id().x;
    if i < v.len() {
        let x = v[i];
        let u = x as u32;
        imax[0].fetch_max(x);
        imax[1].fetch_min(x);
        imax[2].fetch_add(x);
        imax[3].fetch_sub(x);
        umix[0].fetch_max(u);
        umix[1].fetch_min(u);
        umix[2].fetch_and(u | 0x0f0f_0000);
        umix[3].fetch_or(u & 0x00ff_00ff);
        umix[4].fetch_xor(u);
        // swap: the olds returned plus the final value are exactly the
        // initial value and every swapped-in value, in some order
        let old = umix[5].swap(i + 1);
        olds[0].fetch_add(old);
        olds[1].fetch_xor(old);
        // fetch_sub on u32 wraps
        umix[6].fetch_sub(i);
        // load / store: every invocation stores the same value
        umix[7].store(12345);
        let seen = umix[7].load();
        olds[2].fetch_add((seen == 12345) as u32);
    }
}

#[test]
fn atomic_min_max_and_or_xor_swap_on_storage() {
    let n = 2048usize;
    let v: Vec<i32> = pseudo(n, 23).into_iter().map(|x| (x as i32) >> 3).collect();
    let init_i = vec![i32::MIN, i32::MAX, 0, 0];
    let init_u = vec![0u32, u32::MAX, u32::MAX, 0, 0xabcd, 7777, 0, 0];
    let got = both("atomic_ops", |rt| {
        let d = rt.upload(&v).unwrap();
        let mut im = rt.upload(&init_i).unwrap();
        let mut um = rt.upload(&init_u).unwrap();
        let mut olds = rt.zeros::<u32>(3).unwrap();
        atomic_ops.launch(rt, ld::Grid::cover(n as u64, 64), &d, &mut im, &mut um, &mut olds).run().unwrap();
        let mut w: Vec<u32> = im.to_vec().unwrap().into_iter().map(|x| x as u32).collect();
        let um = um.to_vec().unwrap();
        let olds = olds.to_vec().unwrap();
        // swap: fold final value into the totals, so the result is order-free
        w.extend(&um[..5]);
        w.push(olds[0].wrapping_add(um[5]));
        w.push(olds[1] ^ um[5]);
        w.push(um[6]);
        w.push(um[7]);
        w.push(olds[2]);
        w
    });
    let u: Vec<u32> = v.iter().map(|&x| x as u32).collect();
    let swapped = (1..=n as u32).chain([7777]);
    let want: Vec<u32> = vec![
        *v.iter().max().unwrap() as u32,
        *v.iter().min().unwrap() as u32,
        v.iter().fold(0i32, |s, x| s.wrapping_add(*x)) as u32,
        v.iter().fold(0i32, |s, x| s.wrapping_sub(*x)) as u32,
        *u.iter().max().unwrap(),
        *u.iter().min().unwrap(),
        u.iter().fold(u32::MAX, |s, x| s & (x | 0x0f0f_0000)),
        u.iter().fold(0, |s, x| s | (x & 0x00ff_00ff)),
        u.iter().fold(0xabcd, |s, x| s ^ x),
        swapped.clone().fold(0u32, |s, x| s.wrapping_add(x)),
        swapped.fold(0, |s, x| s ^ x),
        (0..n as u32).fold(0u32, |s, x| s.wrapping_sub(x)),
        12345,
        n as u32,
    ];
    // the inputs do have negatives, so fetch_max/min on i32 is signed
    assert!(v.iter().any(|x| *x < 0) && v.iter().any(|x| *x > 0));
    expect("atomic_ops", &got, &want);
}

/// Single-winner election with compare_and_swap (strong on every backend:
/// ld retries WGSL's weak compare-exchange): each invocation tries until
/// the flag is non-zero; then exactly one invocation finds its own id in
/// the flag.
#[ld::kernel(workgroup_size = 64)]
fn elect(flag: &[AtomicU32], winners: &[AtomicU32], n: u32) {
    let i = global_id().x;
    if i < n {
        let me = i + 1;
        let mut tries = 0u32;
        loop {
            let old = flag[0].compare_and_swap(0, me);
            tries += 1;
            if old != 0 || tries > 1000 {
                break;
            }
        }
        if flag[0].load() == me {
            winners[0].fetch_add(1);
            winners[1].fetch_add(me);
        }
        // a CAS that cannot succeed returns the current value and changes nothing
        let cur = flag[0].load();
        let seen = flag[0].compare_and_swap(cur + 1, 0);
        winners[2].fetch_add((seen == cur) as u32);
    }
}

#[test]
fn compare_and_swap_single_winner() {
    let n = 1000u32;
    let got = both("elect", |rt| {
        let mut f = rt.zeros::<u32>(1).unwrap();
        let mut w = rt.zeros::<u32>(3).unwrap();
        elect.launch(rt, ld::Grid::cover(n as u64, 64), &mut f, &mut w, n).run().unwrap();
        let f = f.to_vec().unwrap()[0];
        let w = w.to_vec().unwrap();
        // the winner's id is scheduling-dependent: report whether it is consistent
        vec![w[0], (w[1] == f) as u32, (1..=n).contains(&f) as u32, w[2]]
    });
    expect("elect", &got, &[1, 1, 1, n]);
}

/// Shared atomics with only commutative updates (order-free): add, max, or.
#[ld::kernel(workgroup_size = 64)]
fn shared_atomic_mix(values: &[u32], out: &[AtomicU32]) {
    let counts = shared::<[AtomicU32; 16]>();
    let maxes = shared::<[AtomicU32; 16]>();
    let ors = shared::<[AtomicI32; 4]>();
    let lid = local_index();
    let g = global_id().x;
    if g < values.len() {
        let x = values[g];
        counts[x % 16].fetch_add(1);
        maxes[x % 16].fetch_max(x >> 4);
        ors[x % 4].fetch_or((x >> 3) as i32);
    }
    barrier();
    if lid < 16 {
        let c = counts[lid].load();
        out[lid].fetch_add(c);
        let m = maxes[lid].load();
        out[16 + lid].fetch_max(m);
    }
    if lid < 4 {
        let o = ors[lid].load();
        out[32 + lid].fetch_or(o as u32);
    }
}

#[ld::kernel(workgroup_size = 1)]
fn atomic_arg_is_atomic(a: &[AtomicU32], out: &[AtomicU32]) {
    out[0].fetch_add(a[0].load());
}

#[test]
fn atomic_op_with_atomic_argument() {
    {
        let got = both("atomic_arg_is_atomic", |rt| {
            let mut a = rt.upload(&[5u32]).unwrap();
            let mut o = rt.upload(&[10u32]).unwrap();
            atomic_arg_is_atomic.launch(rt, 1u32, &mut a, &mut o).run().unwrap();
            o.to_vec().unwrap()
        });
        expect("atomic_arg_is_atomic", &got, &[15]);
    }
}

#[test]
fn shared_atomics_add_max_or() {
    let n = 4000usize;
    let v = pseudo(n, 31);
    let got = both("shared_atomic_mix", |rt| {
        let d = rt.upload(&v).unwrap();
        let mut o = rt.zeros::<u32>(36).unwrap();
        shared_atomic_mix.launch(rt, ld::Grid::cover(n as u64, 64), &d, &mut o).run().unwrap();
        o.to_vec().unwrap()
    });
    let mut want = vec![0u32; 36];
    for &x in &v {
        let k = (x % 16) as usize;
        want[k] += 1;
        want[16 + k] = want[16 + k].max(x >> 4);
        want[32 + (x % 4) as usize] |= x >> 3;
    }
    expect("shared_atomic_mix", &got, &want);
}

// ---------------------------------------------- structs in a kernels module

#[ld::kernels]
mod particles {
    pub struct Particle {
        pub pos: [f32; 2],
        pub vel: [f32; 2],
        pub mass: f32,
        pub id: u32,
    }

    const GRAVITY: f32 = -2.0;

    /// Shared by both kernels.
    fn kinetic(p: Particle) -> f32 {
        0.5 * p.mass * (p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1])
    }

    #[kernel(workgroup_size = 64)]
    pub fn step(ps: &mut [Particle], energy: &mut [f32], dt: f32) {
        let i = global_id().x;
        if i < ps.len() {
            let mut p = ps[i];
            p.vel[1] = p.vel[1] + GRAVITY * dt;
            for k in 0..2u32 {
                p.pos[k] = p.pos[k] + p.vel[k] * dt;
            }
            p.id = p.id * 2 + 1;
            ps[i] = p;
            energy[i] = kinetic(p);
        }
    }

    /// A struct literal with an array literal field.
    fn mirrored(p: Particle) -> Particle {
        Particle { pos: [-p.pos[0], p.pos[1]], vel: [p.vel[1], p.vel[0]], mass: p.mass, id: p.id + 1000 }
    }

    /// In-place updates of fields of storage elements, a struct array in
    /// shared memory, and the struct-literal helper.
    #[kernel(workgroup_size = 64)]
    pub fn nudge(ps: &mut [Particle], out: &mut [Particle]) {
        let tile = shared::<[Particle; 64]>();
        let lid = local_index();
        let i = global_id().x;
        ps[i].pos[0] += 1.0;
        ps[i].vel[1] -= 0.5;
        ps[i].id += 1;
        ps[i].mass = ps[i].mass * 2.0;
        tile[lid] = ps[i];
        barrier();
        let nb = tile[(lid + 1) % 64];
        out[i] = mirrored(nb);
        out[i].vel[0] = out[i].vel[0] + kinetic(tile[lid]);
    }

    #[kernel(workgroup_size = 64)]
    pub fn measure(ps: &[Particle], out: &mut [f32]) {
        let i = global_id().x;
        if i < ps.len() {
            out[i * 2] = kinetic(ps[i]);
            out[i * 2 + 1] = ps[i].pos[0] + ps[i].pos[1] + ps[i].id as f32;
        }
    }
}

#[test]
fn struct_elements_and_shared_helper_in_module() {
    use particles::Particle;
    let n = 300usize;
    // dyadic values with few bits: every product and sum below is exact
    let ps: Vec<Particle> = (0..n)
        .map(|i| Particle {
            pos: [i as f32 * 0.5, -(i as f32) * 0.25],
            vel: [(i % 7) as f32 * 0.25 - 0.75, (i % 5) as f32 * 0.5],
            mass: (1 + i % 3) as f32,
            id: i as u32,
        })
        .collect();
    let dt = 0.5f32;
    let kinetic = |p: &Particle| 0.5 * p.mass * (p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1]);
    let stepped: Vec<Particle> = ps
        .iter()
        .map(|p| {
            let mut q = *p;
            q.vel[1] += -2.0 * dt;
            q.pos[0] += q.vel[0] * dt;
            q.pos[1] += q.vel[1] * dt;
            q.id = q.id * 2 + 1;
            q
        })
        .collect();
    let got = both("particles", |rt| {
        let mut d = rt.upload(&ps).unwrap();
        let mut e = rt.zeros::<f32>(n).unwrap();
        particles::step.launch(rt, ld::Grid::cover(n as u64, 64), &mut d, &mut e, dt).run().unwrap();
        let mut m = rt.zeros::<f32>(2 * n).unwrap();
        particles::measure.launch(rt, ld::Grid::cover(n as u64, 64), &d, &mut m).run().unwrap();
        let back = d.to_vec().unwrap();
        assert_eq!(back.len(), n);
        // everything as words: the structs' fields, then both f32 outputs
        let mut w: Vec<u32> =
            back.iter().flat_map(|p| [p.pos[0].to_bits(), p.pos[1].to_bits(), p.vel[0].to_bits(), p.vel[1].to_bits(), p.mass.to_bits(), p.id]).collect();
        w.extend(e.to_vec().unwrap().into_iter().map(f32::to_bits));
        w.extend(m.to_vec().unwrap().into_iter().map(f32::to_bits));
        w
    });
    let mut want: Vec<u32> =
        stepped.iter().flat_map(|p| [p.pos[0].to_bits(), p.pos[1].to_bits(), p.vel[0].to_bits(), p.vel[1].to_bits(), p.mass.to_bits(), p.id]).collect();
    want.extend(stepped.iter().map(|p| kinetic(p).to_bits()));
    want.extend(stepped.iter().flat_map(|p| [kinetic(p).to_bits(), (p.pos[0] + p.pos[1] + p.id as f32).to_bits()]));
    expect("particles", &got, &want);
}

#[test]
fn struct_field_updates_shared_structs_and_literals() {
    use particles::Particle;
    let n = 256usize; // a multiple of 64: nudge has no bounds check
    let ps: Vec<Particle> = (0..n).map(|i| Particle { pos: [i as f32, 0.5], vel: [0.25 * (i % 4) as f32, -1.0], mass: 1.5, id: i as u32 * 3 }).collect();
    let got = both("nudge", |rt| {
        let mut d = rt.upload(&ps).unwrap();
        let mut o = rt.zeros::<Particle>(n).unwrap();
        particles::nudge.launch(rt, (n / 64) as u32, &mut d, &mut o).run().unwrap();
        let words = |v: Vec<Particle>| -> Vec<u32> {
            v.iter().flat_map(|p| [p.pos[0].to_bits(), p.pos[1].to_bits(), p.vel[0].to_bits(), p.vel[1].to_bits(), p.mass.to_bits(), p.id]).collect()
        };
        let mut w = words(d.to_vec().unwrap());
        w.extend(words(o.to_vec().unwrap()));
        w
    });
    let kinetic = |p: &Particle| 0.5 * p.mass * (p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1]);
    let nudged: Vec<Particle> =
        ps.iter().map(|p| Particle { pos: [p.pos[0] + 1.0, p.pos[1]], vel: [p.vel[0], p.vel[1] - 0.5], mass: p.mass * 2.0, id: p.id + 1 }).collect();
    let outs: Vec<Particle> = (0..n)
        .map(|i| {
            let nb = nudged[i / 64 * 64 + (i % 64 + 1) % 64];
            let mut m = Particle { pos: [-nb.pos[0], nb.pos[1]], vel: [nb.vel[1], nb.vel[0]], mass: nb.mass, id: nb.id + 1000 };
            m.vel[0] += kinetic(&nudged[i]);
            m
        })
        .collect();
    let words = |v: &[Particle]| -> Vec<u32> {
        v.iter().flat_map(|p| [p.pos[0].to_bits(), p.pos[1].to_bits(), p.vel[0].to_bits(), p.vel[1].to_bits(), p.mass.to_bits(), p.id]).collect()
    };
    let mut want = words(&nudged);
    want.extend(words(&outs));
    expect("nudge", &got, &want);
}

// ------------------------------------------------------------- uniforms

#[ld::kernel(workgroup_size = 64)]
fn uniforms(out: &mut [u32], a: u32, b: i32, c: f32, n: u32) {
    let i = global_id().x;
    if i < n {
        out[i * 3] = a * i + 7;
        out[i * 3 + 1] = (b * (i as i32) - 3) as u32;
        out[i * 3 + 2] = (c * i as f32 + 0.25).to_bits();
    }
}

#[test]
fn uniform_params_of_all_three_types() {
    let n = 500usize;
    for (a, b, c) in [(3u32, -5i32, 1.5f32), (u32::MAX, i32::MIN, -0.125), (0, 0, 0.0)] {
        let got = both("uniforms", |rt| {
            let mut o = rt.zeros::<u32>(n * 3 + 9).unwrap();
            uniforms.launch(rt, ld::Grid::cover(n as u64, 64), &mut o, a, b, c, n as u32).run().unwrap();
            o.to_vec().unwrap()
        });
        let mut want: Vec<u32> = (0..n as u32)
            .flat_map(|i| [a.wrapping_mul(i).wrapping_add(7), b.wrapping_mul(i as i32).wrapping_sub(3) as u32, (c * i as f32 + 0.25).to_bits()])
            .collect();
        want.extend([0; 9]);
        expect(&format!("uniforms({a}, {b}, {c})"), &got, &want);
    }
}

#[ld::kernels]
mod wide {
    /// Arrays longer than 32 elements inside a kernel struct.
    pub struct Wide {
        pub a: [u32; 40],
    }

    #[kernel(workgroup_size = 1)]
    pub fn fill(w: &mut [Wide]) {
        for i in 0..40u32 {
            w[0].a[i] = i * 3;
        }
    }
}

#[test]
fn struct_with_a_long_array_field() {
    let got = both("wide struct", |rt| {
        let mut b = rt.upload(&[wide::Wide::default()]).unwrap();
        wide::fill.launch(rt, 1u32, &mut b).run().unwrap();
        b.to_vec().unwrap()[0].a.to_vec()
    });
    expect("wide struct", &got, &(0..40).map(|i| i * 3).collect::<Vec<u32>>());
}
