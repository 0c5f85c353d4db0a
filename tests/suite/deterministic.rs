//! Deterministic mode: racy kernels give one bit pattern on every run and
//! on both backends, equal to the documented merge semantics computed here by
//! a plain sequential model; race-free kernels give exactly their native
//! result.
//!
//! The model: each unit (warp of `W` invocations) runs each region on its own
//! copy of memory, seeing the state committed at the last barrier plus its own
//! writes; at a barrier the units' writes are merged in warp order, at the
//! end of the dispatch in workgroup order, a later unit winning a word that
//! several wrote.

use crate::support as common;

#[path = "../../samples/kernels/em.rs"]
#[allow(dead_code)]
mod em;

use ld::{CheckOptions, Mode, Runtime};

use common::runtimes;

fn det(w: u32) -> CheckOptions {
    CheckOptions::default().warp_size(w)
}

/// Runs `f` three times on every backend; all outputs must be bit-identical.
fn one_pattern(what: &str, f: impl Fn(&Runtime) -> Vec<u32>) -> Vec<u32> {
    let mut outs = Vec::new();
    for rt in runtimes() {
        for _ in 0..3 {
            outs.push((rt.backend().to_string(), f(&rt)));
        }
    }
    for (b, o) in &outs[1..] {
        assert_eq!(o, &outs[0].1, "{what}: {b} differs from {}", outs[0].0);
    }
    outs.swap_remove(0).1
}

/// A histogram without atomics: every invocation increments its bin.
#[ld::kernel(workgroup_size = 64)]
fn histogram_racy(values: &[u32], hist: &mut [u32]) {
    let i = global_id().x;
    if i < values.len() {
        let b = values[i] % hist.len();
        hist[b] += 1;
    }
}

#[test]
fn racy_histogram_is_deterministic_and_matches_the_merge_model() {
    // Races inside a warp are resolved by the hardware's lane order, so a
    // kernel racing between invocations of one warp is made deterministic
    // with one invocation per unit (W = 1).
    let values: Vec<u32> = (0..512u32).map(|i| i.wrapping_mul(2654435761) >> 7).collect();
    let bins = 16usize;
    let got = one_pattern("histogram", |rt| {
        let v = rt.upload(&values).unwrap();
        let mut h = rt.upload(&vec![100u32; bins]).unwrap();
        histogram_racy.launch(rt, 8u32, &v, &mut h).mode(Mode::Deterministic).check_options(det(1)).run().unwrap();
        h.to_vec().unwrap()
    });
    // Every unit adds 1 to its own copy; the merge keeps one unit's value.
    let want: Vec<u32> = (0..bins).map(|b| if values.iter().any(|v| (*v as usize) % bins == b) { 101 } else { 100 }).collect();
    assert_eq!(got, want);
}

/// Every workgroup writes its id to the same word: the last workgroup wins.
#[ld::kernel(workgroup_size = 32)]
fn last_writer(out: &mut [u32]) {
    if local_index() == 0 {
        out[0] = workgroup_id().x + 1;
    }
}

#[test]
fn last_workgroup_wins() {
    let got = one_pattern("last writer", |rt| {
        let mut out = rt.zeros::<u32>(1).unwrap();
        last_writer.launch(rt, 7u32, &mut out).mode(Mode::Deterministic).run().unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(got, vec![7]);
}

/// Warp 1 reads what warp 0 writes in the same region (a race): in
/// deterministic mode it never sees the concurrent write.
#[ld::kernel(workgroup_size = 64)]
fn read_after_racy_write(data: &mut [u32], seen: &mut [u32]) {
    let lid = local_index();
    let tile = shared::<[u32; 64]>();
    if lid < 32 {
        data[lid] = 1000 + lid;
        tile[lid] = 7;
    } else {
        seen[lid - 32] = data[lid - 32] + tile[lid - 32];
    }
    barrier();
    // After the barrier everyone sees the merged shared memory.
    if lid >= 32 {
        seen[lid] = tile[lid - 32];
    }
}

#[test]
fn a_read_never_sees_a_concurrent_units_write() {
    let got = one_pattern("read after racy write", |rt| {
        let mut d = rt.upload(&[5u32; 32]).unwrap();
        let mut s = rt.zeros::<u32>(64).unwrap();
        read_after_racy_write.launch(rt, 1u32, &mut d, &mut s).mode(Mode::Deterministic).run().unwrap();
        let mut out = d.to_vec().unwrap();
        out.extend(s.to_vec().unwrap());
        out
    });
    let mut want: Vec<u32> = (0..32).map(|i| 1000 + i).collect();
    want.extend(vec![5u32; 32]); // seen[0..32]: old data + old (zero) tile
    want.extend(vec![7u32; 32]); // seen[32..64]: the committed tile
    assert_eq!(got, want);
}

/// A race-free reduction with barriers in a loop, on workgroup and storage memory.
#[ld::kernel(workgroup_size = 64)]
fn block_sums(input: &[u32], out: &mut [u32], scratch: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    let g = global_id().x;
    tile[lid] = input[g];
    scratch[g] = input[g] * 2;
    storage_barrier();
    barrier();
    let mut s = 32u32;
    while s > 0 {
        if lid < s {
            tile[lid] += tile[lid + s];
        }
        barrier();
        s >>= 1;
    }
    if lid == 0 {
        out[workgroup_id().x] = tile[0] + scratch[g + 63];
    }
}

#[test]
fn race_free_kernels_give_their_native_result() {
    let input: Vec<u32> = (0..256u32).map(|i| i * 3 + 1).collect();
    for rt in runtimes() {
        let run = |mode: Mode| {
            let i = rt.upload(&input).unwrap();
            let mut o = rt.zeros::<u32>(4).unwrap();
            let mut s = rt.zeros::<u32>(256).unwrap();
            block_sums.launch(&rt, 4u32, &i, &mut o, &mut s).mode(mode).run().unwrap();
            (o.to_vec().unwrap(), s.to_vec().unwrap())
        };
        assert_eq!(run(Mode::Deterministic), run(Mode::Native), "{}", rt.backend());
    }
}

#[test]
fn em_is_bit_identical_on_every_run_and_backend() {
    let n = 2048u32;
    let data: Vec<f32> = (0..n * 3).map(|i| ((i * 7919) % 1009) as f32 / 50.0 - 10.0).collect();
    let memb: Vec<f32> = (0..4 * n).map(|i| ((i * 31) % 97) as f32 / 97.0).collect();
    let cent: Vec<f32> = (0..12).map(|i| i as f32 - 6.0).collect();
    one_pattern("em", |rt| {
        let (d, m, c) = (rt.upload(&data).unwrap(), rt.upload(&memb).unwrap(), rt.upload(&cent).unwrap());
        let mut out = rt.zeros::<f32>(4 * 2 * 10).unwrap();
        em::m_count.launch(rt, (2u32, 4u32), &d, &m, &c, &mut out, n, em::RACY).mode(Mode::Deterministic).run().unwrap();
        out.words().unwrap()
    });
}

/// At one invocation per warp the fold starts at each word's last writer
/// in copy order and walks down to the last copy whose word differs from
/// the base: invocation 20 writes shared word 0 and puts its old value
/// back, invocation 63 writes `out[1]`'s input value back over nothing,
/// and neither is a writer (values, not accesses, decide). The fold at the
/// barrier leaves every copy at its result for the second region.
#[ld::kernel(workgroup_size = 64)]
fn written_back(out: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let l = local_index();
    if l == 3 {
        tile[0] = 7;
    }
    if l == 9 {
        tile[0] = 8;
    }
    if l == 20 {
        tile[0] = 5;
        tile[0] = 0;
    }
    barrier();
    out[l] = tile[0] + l;
    if l == 63 {
        out[1] = 1000;
    }
}

#[test]
fn a_value_written_back_is_no_write_in_the_fold() {
    let got = one_pattern("written back", |rt| {
        let mut out = rt.upload(&vec![1000u32; 64]).unwrap();
        written_back.launch(rt, 1u32, &mut out).mode(Mode::Deterministic).check_options(det(1)).run().unwrap();
        out.to_vec().unwrap()
    });
    // Invocation 9 is shared word 0's last writer (8); every invocation
    // reads it after the barrier; invocation 1's 9 stays in `out[1]`.
    assert_eq!(got, (0..64).map(|l| 8 + l).collect::<Vec<u32>>());
}

/// At one invocation per warp each invocation's storage pages are blocks
/// of a pool: it reads back its own writes, never another invocation's of
/// the same epoch; storage barriers in a loop end the epochs (the blocks
/// are given back and taken anew). Every invocation writes 20 pages a
/// round, more than the pool holds at first, so the run grows it.
#[ld::kernel(workgroup_size = 64)]
fn pooled_rounds(data: &mut [u32], seen: &mut [u32]) {
    let l = local_index();
    let mut r = 0u32;
    while r < 3 {
        let mut p = 0u32;
        while p < 20 {
            // Page (l + 7p + r) % 64, word l % 8: invocations eight apart
            // share words (a race each round).
            let k = ((l + p * 7 + r) % 64) * 64 + l % 8;
            data[k] = data[k] + l + 1;
            data[k] = data[k] ^ r;
            p += 1;
        }
        storage_barrier();
        r += 1;
    }
    seen[l] = data[l * 64 + l % 8];
}

/// The merge model of `pooled_rounds`: per round every invocation works on
/// the round's input plus its own writes; the last invocation whose word
/// differs from the input wins it.
fn pooled_rounds_model(mut data: Vec<u32>) -> Vec<u32> {
    for r in 0..3u32 {
        let base = data.clone();
        for l in 0..64u32 {
            let mut own = std::collections::HashMap::new();
            for p in 0..20u32 {
                let k = (((l + p * 7 + r) % 64) * 64 + l % 8) as usize;
                let v = (own.get(&k).copied().unwrap_or(base[k]) + l + 1) ^ r;
                own.insert(k, v);
            }
            for (k, v) in own {
                if v != base[k] {
                    data[k] = v;
                }
            }
        }
    }
    let seen = (0..64usize).map(|l| data[l * 64 + l % 8]);
    data.iter().copied().chain(seen).collect()
}

#[test]
fn one_invocation_per_warp_keeps_its_pages_in_a_pool_that_grows() {
    let input: Vec<u32> = (0..64 * 64u32).map(|i| i % 251).collect();
    let got = one_pattern("pooled rounds", |rt| {
        let mut d = rt.upload(&input).unwrap();
        let mut s = rt.zeros::<u32>(64).unwrap();
        let run = pooled_rounds.launch(rt, 1u32, &mut d, &mut s).mode(Mode::Deterministic).check_options(det(1)).run().unwrap();
        if rt.is_gpu() {
            assert!(run.stats.unwrap().retries >= 1, "64 x 20 pages a round outgrow the first pool: {:?}", run.stats);
        }
        let mut out = d.to_vec().unwrap();
        out.extend(s.to_vec().unwrap());
        out
    });
    assert_eq!(got, pooled_rounds_model(input));
}

/// Lane `lanes[0]` writes a storage word and a workgroup word; lane
/// `lanes[1]` of the same warp reads both later in the region (a race
/// between lanes, which one copy per warp cannot order): deterministic
/// mode finds it in the region's lane tags and runs at one invocation per
/// warp, where the reader sees the words as they were.
#[ld::kernel(workgroup_size = 32)]
fn lane_pair(lanes: &[u32], data: &mut [u32], seen: &mut [u32]) {
    let lid = local_index();
    let tile = shared::<[u32; 4]>();
    if lid == lanes[0] {
        data[0] = 7;
        tile[1] = 9;
    }
    if lid == lanes[1] {
        seen[0] = data[0];
        seen[1] = tile[1];
    }
}

#[test]
fn lanes_of_a_warp_sharing_a_word_run_one_per_warp() {
    // Same tag group, across the two groups of 16 lanes, either way round.
    for pair in [[3u32, 9], [3, 17], [17, 3], [20, 28], [31, 0]] {
        let got = one_pattern(&format!("lanes {pair:?}"), |rt| {
            let l = rt.upload(&pair).unwrap();
            let mut d = rt.upload(&[5u32]).unwrap();
            let mut s = rt.zeros::<u32>(2).unwrap();
            lane_pair.launch(rt, 1u32, &l, &mut d, &mut s).mode(Mode::Deterministic).run().unwrap();
            let mut out = d.to_vec().unwrap();
            out.extend(s.to_vec().unwrap());
            out
        });
        assert_eq!(got, vec![7, 5, 0], "lanes {pair:?}: the reader saw the writer's lane");
    }
}

/// Every invocation that finds an even value sets the flag, as bfs's
/// `over[0] = 1`: lanes of one warp store the same literal to one word,
/// in any order the same memory, so deterministic mode runs once at its
/// warp size (`KernelInfo::one_value`).
#[ld::kernel(workgroup_size = 64)]
fn found_flag(values: &[u32], doubled: &mut [u32], found: &mut [u32]) {
    let i = global_id().x;
    if i < values.len() {
        doubled[i] = values[i] * 2;
        if values[i] % 2 == 0 {
            found[0] = 1;
        }
    }
}

/// The same flag, set only where it is still clear: the read makes the
/// lanes' order matter (a lane may read the flag before or after another
/// lane of its warp set it).
#[ld::kernel(workgroup_size = 64)]
fn found_flag_read_first(values: &[u32], found: &mut [u32], first: &mut [u32]) {
    let i = global_id().x;
    if i < values.len() && values[i] % 2 == 0 {
        if found[0] == 0 {
            first[i] = 1;
        }
        found[0] = 1;
    }
}

#[test]
fn a_flag_lanes_store_one_value_to_runs_once_at_the_warp_size() {
    let values: Vec<u32> = (0..256u32).map(|i| i.wrapping_mul(2654435761) >> 9).collect();
    let got = one_pattern("found flag", |rt| {
        let v = rt.upload(&values).unwrap();
        let mut d = rt.zeros::<u32>(values.len()).unwrap();
        let mut f = rt.zeros::<u32>(1).unwrap();
        let run = found_flag.launch(rt, 4u32, &v, &mut d, &mut f).mode(Mode::Deterministic).run().unwrap();
        assert_eq!(run.stats.unwrap().retries, 0, "{}: no lane-order conflict, no second run: {:?}", rt.backend(), run.stats);
        let mut out = d.to_vec().unwrap();
        out.extend(f.to_vec().unwrap());
        out
    });
    let mut want: Vec<u32> = values.iter().map(|v| v * 2).collect();
    want.push(values.iter().any(|v| v % 2 == 0) as u32);
    assert_eq!(got, want);

    // With a read of the flag, lanes of a warp conflict: one invocation
    // per warp decides (or the probe, deferring the flag's writes), and
    // every backend gives the same bits.
    for probe in [false, true] {
        let got = one_pattern("found flag, read first", |rt| {
            let v = rt.upload(&values).unwrap();
            let mut f = rt.zeros::<u32>(1).unwrap();
            let mut first = rt.zeros::<u32>(values.len()).unwrap();
            let opts = CheckOptions::default().probe(probe);
            let run = found_flag_read_first.launch(rt, 4u32, &v, &mut f, &mut first).mode(Mode::Deterministic).check_options(opts).run().unwrap();
            let st = run.stats.unwrap();
            assert!(st.retries >= 1 || (probe && st.probed), "{}: lanes read and wrote the flag: {st:?}", rt.backend());
            let mut out = f.to_vec().unwrap();
            out.extend(first.to_vec().unwrap());
            out
        });
        assert_eq!(got[0], 1);
        // Each invocation ran on its own copy from the region's start, where
        // the flag was clear: every even value saw it so.
        let evens: Vec<u32> = values.iter().map(|v| (v % 2 == 0) as u32).collect();
        assert_eq!(got[1..], evens[..]);
    }
}

/// Each invocation updates its own element in place, and the workgroup
/// sums its tile into a word every invocation of the warp then reads:
/// `x` is accessed only at the invocation's own element
/// (`KernelInfo::lane_safe`), so deterministic mode leaves its accesses
/// untagged; the tile and the sums stay tagged.
#[ld::kernel(workgroup_size = 64)]
fn own_elements(x: &mut [u32], sums: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let i = global_id().x;
    let v = x[i] * 3 + 1;
    x[i] = v;
    tile[local_index()] = v;
    barrier();
    if local_index() == 0 {
        let mut s = 0u32;
        for j in 0..64u32 {
            s += tile[j];
        }
        sums[workgroup_id().x] = s;
    }
    storage_barrier();
    x[i] += sums[workgroup_id().x] & 1;
}

/// As `own_elements`, but each invocation also adds its neighbour's
/// element: lanes of a warp read words others write, a lane-order
/// conflict deterministic mode must find in `x`'s tags.
#[ld::kernel(workgroup_size = 64)]
fn neighbour_elements(x: &mut [u32]) {
    let i = global_id().x;
    x[i] += x[(i + 1) % x.len()];
}

#[test]
fn own_elements_run_once_untagged_and_neighbours_run_again() {
    let input: Vec<u32> = (0..256u32).map(|i| i.wrapping_mul(2654435761) >> 12).collect();
    let got = one_pattern("own elements", |rt| {
        let mut x = rt.upload(&input).unwrap();
        let mut sums = rt.zeros::<u32>(4).unwrap();
        let run = own_elements.launch(rt, 4u32, &mut x, &mut sums).mode(Mode::Deterministic).run().unwrap();
        assert_eq!(run.stats.unwrap().retries, 0, "{}: no lane-order conflict, no second run: {:?}", rt.backend(), run.stats);
        let mut out = x.to_vec().unwrap();
        out.extend(sums.to_vec().unwrap());
        out
    });
    let v: Vec<u32> = input.iter().map(|x| x.wrapping_mul(3).wrapping_add(1)).collect();
    let sums: Vec<u32> = v.chunks(64).map(|c| c.iter().fold(0u32, |a, b| a.wrapping_add(*b))).collect();
    let mut want: Vec<u32> = v.iter().enumerate().map(|(i, x)| x + (sums[i / 64] & 1)).collect();
    want.extend(&sums);
    assert_eq!(got, want);

    // Reading the neighbour's element makes the lanes' order matter: one
    // invocation per warp decides, each reading its neighbour's element as
    // the region (the launch) found it.
    // (Or the probe, deferring the elements' writes.)
    for probe in [false, true] {
        let got = one_pattern("neighbour elements", |rt| {
            let mut x = rt.upload(&input).unwrap();
            let opts = CheckOptions::default().probe(probe);
            let run = neighbour_elements.launch(rt, 4u32, &mut x).mode(Mode::Deterministic).check_options(opts).run().unwrap();
            let st = run.stats.unwrap();
            assert!(st.retries >= 1 || (probe && st.probed), "{}: lanes read what others wrote: {st:?}", rt.backend());
            x.to_vec().unwrap()
        });
        let want: Vec<u32> = (0..input.len()).map(|i| input[i].wrapping_add(input[(i + 1) % input.len()])).collect();
        assert_eq!(got, want);
    }
}

/// Float `/`, `%`, `sqrt` and a product feeding a sum, in one kernel.
#[ld::kernel(workgroup_size = 64)]
fn float_ops(a: &[f32], b: &[f32], out: &mut [f32]) {
    let i = global_id().x;
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        out[4 * i] = x / y;
        out[4 * i + 1] = x.sqrt();
        out[4 * i + 2] = x % y;
        let mut acc = y;
        acc += x * y;
        out[4 * i + 3] = acc;
    }
}

/// Operands that reach every path of an IEEE division and square root:
/// random bit patterns (NaNs, infinities, subnormals, every exponent),
/// significands at moderate exponents (ties and near-ties to round), and
/// quotients that overflow, underflow into subnormals or round to zero.
fn float_operands() -> (Vec<f32>, Vec<f32>) {
    let mut s = 0x9e3779b9u32;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..4096 {
        a.push(f32::from_bits(next()));
        b.push(f32::from_bits(next()));
    }
    for _ in 0..4096 {
        let moderate = |r: u32| f32::from_bits((r & 0x807fffff) | ((100 + r % 55) << 23));
        a.push(moderate(next()));
        b.push(moderate(next()));
    }
    for _ in 0..1024 {
        // Small integers: exact quotients, exact remainders, perfect squares.
        a.push((next() % 4096) as f32);
        b.push((next() % 64 + 1) as f32);
    }
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        3.0,
        1e-38,
        f32::from_bits(0x7fffff),
        1e-45,
        3e38,
        f32::MAX,
        f32::MIN_POSITIVE,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        0.1,
        7.0,
        1e-3,
        4294967296.0,
    ];
    for &x in &specials {
        for &y in &specials {
            a.push(x);
            b.push(y);
        }
    }
    (a, b)
}

/// Whether `%` or the mul-add of `x` and `y` meets a subnormal in the
/// `+ - *` they take: a device may flush those (WGSL allows it, NVIDIA's
/// does), which deterministic mode leaves to it (README).
fn through_subnormals(x: f32, y: f32) -> bool {
    let q = (x / y).trunc();
    [x, y, x * y, y + x * y, y * q, x - y * q].iter().any(|v| v.is_subnormal())
}

/// Deterministic mode computes float `/`, `%` and `sqrt` correctly rounded
/// and rounds a product before the sum it feeds, on every device: a GPU
/// that fuses products into sums or divides approximately (NVIDIA's) would
/// otherwise differ from the CPU's bits in the last place. `/` and `sqrt`
/// are exact for subnormals too (integer operations).
#[test]
fn float_division_square_root_and_products_are_the_cpu_s_bits() {
    let (a, b) = float_operands();
    let want: Vec<u32> =
        a.iter().zip(&b).flat_map(|(&x, &y)| [x / y, x.sqrt(), x - y * (x / y).trunc(), y + x * y]).map(|v| common::canonical_nan(v.to_bits())).collect();
    for rt in runtimes() {
        let (ab, bb) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
        let mut o = rt.zeros::<f32>(4 * a.len()).unwrap();
        float_ops.launch(&rt, ld::Grid::cover(a.len() as u64, 64), &ab, &bb, &mut o).mode(Mode::Deterministic).run().unwrap();
        let got: Vec<u32> = o.to_vec().unwrap().iter().map(|v| common::canonical_nan(v.to_bits())).collect();
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            let (i, op) = (k / 4, ["/", "sqrt", "%", "mul-add"][k % 4]);
            if k % 4 >= 2 && through_subnormals(a[i], b[i]) {
                continue;
            }
            assert_eq!(
                g,
                w,
                "{}: {op} of {:e} ({:#x}) and {:e} ({:#x}): got {:e}, IEEE gives {:e}",
                rt.backend(),
                a[i],
                a[i].to_bits(),
                b[i],
                b[i].to_bits(),
                f32::from_bits(*g),
                f32::from_bits(*w)
            );
        }
    }
}

/// A race-free tiled kernel: a tile in workgroup memory, neighbours read
/// after a barrier, the tile rewritten after another, each invocation's
/// own element out.
#[ld::kernel(workgroup_size = 64)]
fn probe_blur(input: &[u32], out: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    let g = global_id().x;
    tile[lid] = input[g];
    barrier();
    let s = tile[(lid + 63) % 64] + tile[lid] + tile[(lid + 1) % 64];
    barrier();
    tile[lid] = s;
    barrier();
    out[g] = tile[(lid + 1) % 64] * 2;
}

/// Race-free inside each workgroup; every workgroup's first invocation
/// writes word 0 (a write-write race between workgroups).
#[ld::kernel(workgroup_size = 64)]
fn probe_shared_word(out: &mut [u32]) {
    let lid = local_index();
    out[1 + global_id().x] = lid;
    if lid == 0 {
        out[0] = workgroup_id().x + 1;
    }
}

fn blur(rt: &Runtime, input: &[u32], mode: Mode, probe: bool) -> (Vec<u32>, Option<ld::Report>, Option<ld::Stats>) {
    let i = rt.upload(input).unwrap();
    let mut o = rt.zeros::<u32>(input.len()).unwrap();
    let opts = CheckOptions::default().probe(probe);
    let run = probe_blur.launch(rt, (input.len() / 64) as u32, &i, &mut o).mode(mode).check_options(opts).run().unwrap();
    (o.to_vec().unwrap(), run.report, run.stats)
}

fn shared_word(rt: &Runtime, groups: u32) -> (Vec<u32>, ld::Stats) {
    let mut o = rt.zeros::<u32>(1 + groups as usize * 64).unwrap();
    let run = probe_shared_word.launch(rt, groups, &mut o).mode(Mode::Deterministic).run().unwrap();
    (o.to_vec().unwrap(), run.stats.unwrap())
}

/// The probe (`CheckOptions::probe`) answers a launch in which no two
/// invocations share a word, in one dispatch, with deterministic mode's
/// result and check mode's report; where two do, check mode's engine runs
/// and deterministic mode's probe runs again with the shared target
/// deferred (the result still the CPU reference's).
#[test]
fn the_probe_answers_race_free_launches_and_steps_aside_for_shared_words() {
    let Some(gpu) = common::gpu() else { return };
    let cpu = common::cpu();
    let input: Vec<u32> = (0..512u32).map(|i| i.wrapping_mul(2654435761) >> 9).collect();
    let (native, ..) = blur(&gpu, &input, Mode::Native, true);
    let (cpu_det, ..) = blur(&cpu, &input, Mode::Deterministic, true);
    let (det, _, st) = blur(&gpu, &input, Mode::Deterministic, true);
    assert_eq!(det, cpu_det);
    assert_eq!(det, native, "a race-free kernel's deterministic result is its native one");
    assert!(st.unwrap().probed && st.unwrap().dispatches == 1, "the probe answers: {st:?}");
    let (engine, _, st) = blur(&gpu, &input, Mode::Deterministic, false);
    assert_eq!(engine, det);
    assert!(!st.unwrap().probed, "without the probe the folded kernel runs: {st:?}");
    let (_, cpu_rep, _) = blur(&cpu, &input, Mode::Check, true);
    for probe in [true, false] {
        let (out, rep, st) = blur(&gpu, &input, Mode::Check, probe);
        let (rep, cpu_rep) = (rep.unwrap(), cpu_rep.clone().unwrap());
        assert_eq!(out, native);
        assert!(!rep.has_races(), "{rep}");
        assert_eq!(rep.regions_analyzed, cpu_rep.regions_analyzed, "probe {probe}: the regions that ran:\n{rep}\n{cpu_rep}");
        assert_eq!(rep.regions_analyzed, 4, "{rep}");
        assert_eq!(st.unwrap().probed, probe, "{st:?}");
    }
    let groups = 9;
    let (want, _) = shared_word(&cpu, groups);
    assert_eq!(want[0], groups, "the last workgroup wins");
    let (first, a) = shared_word(&gpu, groups);
    let (second, b) = shared_word(&gpu, groups);
    assert_eq!((&first, &second), (&want, &want));
    // A storage word the workgroups share: the probe runs again with its
    // target deferred, and the kernel's later launches start so (the
    // probe and its fold).
    assert!(a.probed && b.probed, "{a:?} {b:?}");
    assert_eq!((a.dispatches, b.dispatches), (3, 2), "the first launch probed twice, the second once: {a:?} {b:?}");
}

#[ld::kernels]
mod columns {
    fn bump_column(s: &mut [u32], tid: u32, v: u32) {
        s[(v & 3) * 192 + tid] += 1;
    }

    /// histogram64's layout: each invocation counts into its own column of
    /// a workgroup array (`k * 192 + tid`, through a helper), then four
    /// invocations sum the columns after a barrier.
    #[kernel(workgroup_size = 192)]
    pub fn probe_columns(data: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 768]>();
        let tid = local_index();
        for i in 0..4u32 {
            s[tid + i * 192] = 0;
        }
        barrier();
        let base = workgroup_id().x * 1536;
        for j in 0..8u32 {
            bump_column(&mut s, tid, data[base + j * 192 + tid]);
        }
        barrier();
        if tid < 4 {
            let mut sum = 0u32;
            for c in 0..192u32 {
                sum += s[tid * 192 + c];
            }
            out[workgroup_id().x * 4 + tid] = sum;
        }
    }

    /// An index of the same form that wraps: `k[0] * 192` overflows to
    /// 128, so invocation 0 writes invocation 128's word, a write-write race
    /// that the macro's prediction of the residue misses.
    #[kernel(workgroup_size = 192)]
    pub fn probe_wrapped_column(k: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 384]>();
        let tid = local_index();
        s[k[tid] * 192 + tid] = tid + 1;
        barrier();
        out[tid] = s[tid] + s[tid + 192];
    }
}

use columns::{probe_columns, probe_wrapped_column};

fn columns(rt: &Runtime, data: &[u32], mode: Mode) -> (Vec<u32>, Option<ld::Report>, ld::Stats) {
    let d = rt.upload(data).unwrap();
    let mut out = rt.zeros::<u32>(data.len() / 1536 * 4).unwrap();
    let run = probe_columns.launch(rt, (data.len() / 1536) as u32, &d, &mut out).mode(mode).run().unwrap();
    (out.to_vec().unwrap(), run.report, run.stats.unwrap())
}

fn wrapped_column(rt: &Runtime, k: &[u32], mode: Mode) -> (Vec<u32>, Option<ld::Report>, ld::Stats) {
    let k = rt.upload(k).unwrap();
    let mut out = rt.zeros::<u32>(192).unwrap();
    let run = probe_wrapped_column.launch(rt, 1u32, &k, &mut out).mode(mode).run().unwrap();
    (out.to_vec().unwrap(), run.report, run.stats.unwrap())
}

/// Accesses of a workgroup array at the invocation's own residue (its
/// local index plus a multiple of the workgroup's invocations) cannot meet:
/// the probe leaves them untagged and answers the launch. It checks each
/// one's residue as it runs: where an index wrapped and two invocations
/// did meet, the engine runs instead and finds the race.
#[test]
fn the_probe_leaves_own_columns_untagged_and_checks_their_residue() {
    let Some(gpu) = common::gpu() else { return };
    let cpu = common::cpu();
    let data: Vec<u32> = (0..5 * 1536u32).map(|i| i.wrapping_mul(2654435761) >> 7).collect();
    let want: Vec<u32> = (0..20).map(|o| data[o / 4 * 1536..][..1536].iter().filter(|v| (*v & 3) as usize == o % 4).count() as u32).collect();
    for mode in [Mode::Check, Mode::Deterministic] {
        let (cpu_out, ..) = columns(&cpu, &data, mode);
        let (out, rep, st) = columns(&gpu, &data, mode);
        assert_eq!((&out, &cpu_out), (&want, &want), "{mode:?}");
        assert!(rep.is_none_or(|r| !r.has_races()), "{mode:?}");
        assert!(st.probed && st.dispatches == 1, "{mode:?}: the probe answers: {st:?}");
    }
    let mut k = vec![0u32; 192];
    k[0] = 22369622;
    assert_eq!(k[0].wrapping_mul(192), 128);
    let (_, cpu_rep, _) = wrapped_column(&cpu, &k, Mode::Check);
    let (_, rep, st) = wrapped_column(&gpu, &k, Mode::Check);
    assert!(!st.probed, "the residue differed: the engine ran: {st:?}");
    for r in [rep.unwrap(), cpu_rep.unwrap()] {
        assert!(r.races.iter().any(|x| x.variable == "s" && x.kind == ld::RaceKind::WriteWrite), "{r}");
    }
    let (cpu_det, ..) = wrapped_column(&cpu, &k, Mode::Deterministic);
    let (det, _, st) = wrapped_column(&gpu, &k, Mode::Deterministic);
    assert_eq!(det, cpu_det, "{st:?}");
}

/// Racy in workgroup memory alone (its storage words each have one
/// writer): in one region each invocation adds its neighbour's word (a lane
/// of its own warp) and the word a warp away, and two invocations write
/// each word of `pair`. With `spill` 1, each invocation also writes twenty
/// words that its neighbour reads in the same region: more than a log of
/// deferred writes holds. With `spill` 2, twenty words that it alone
/// reads, and every invocation one word of the same array: deferring that
/// array whole overflows the log, deferring its one shared word does not.
#[ld::kernel(workgroup_size = 64)]
fn defer_tree(input: &[u32], out: &mut [u32], spill: u32) {
    let t = shared::<[u32; 64]>();
    let pair = shared::<[u32; 32]>();
    let many = shared::<[u32; 1281]>();
    let lid = local_index();
    let g = global_id().x;
    t[lid] = input[g];
    barrier();
    t[lid] += t[lid ^ 1];
    t[lid] = t[lid] * 3 + t[(lid + 32) % 64];
    pair[lid / 2] = input[g] ^ lid;
    if spill != 0 {
        for k in 0..20u32 {
            many[lid * 20 + k] = lid + k;
        }
        let next = if spill == 1 { (lid + 1) % 64 } else { lid };
        for k in 0..20u32 {
            t[lid] += many[next * 20 + k];
        }
    }
    if spill == 2 {
        many[1280] = input[g];
    }
    barrier();
    out[g] = t[lid] + pair[(lid + 5) % 32] + many[1280];
}

/// A deterministic launch (`run(runtime, probe)`: its output and
/// statistics) on the CPU, on the GPU without the probe (the folded
/// kernel), and twice on the GPU with it: all four the CPU's bits. The two
/// probing launches' statistics.
fn probed_twice<T: PartialEq + std::fmt::Debug>(what: &str, run: impl Fn(&Runtime, bool) -> (T, ld::Stats)) -> Option<(ld::Stats, ld::Stats)> {
    let gpu = common::gpu()?;
    let (want, _) = run(&common::cpu(), true);
    let (engine, st) = run(&gpu, false);
    assert_eq!(engine, want, "{what}: the folded kernel");
    assert!(!st.probed, "{st:?}");
    let (first, a) = run(&gpu, true);
    let (second, b) = run(&gpu, true);
    assert_eq!((&first, &second), (&want, &want), "{what}");
    Some((a, b))
}

fn defer_tree_run(rt: &Runtime, input: &[u32], spill: u32, probe: bool) -> (Vec<u32>, ld::Stats) {
    let i = rt.upload(input).unwrap();
    let mut o = rt.zeros::<u32>(input.len()).unwrap();
    let opts = CheckOptions::default().probe(probe);
    let run = defer_tree.launch(rt, (input.len() / 64) as u32, &i, &mut o, spill).mode(Mode::Deterministic).check_options(opts).run().unwrap();
    (o.to_vec().unwrap(), run.stats.unwrap())
}

/// Deterministic mode's probe defers the workgroup arrays whose words
/// invocations share (their writes held to the next barrier, the highest
/// invocation that changed a word winning there): the folded kernel's
/// result, bit for bit, without the engine, on a GPU; the kernel's later
/// launches start with those arrays deferred (one dispatch). Where an
/// invocation defers more writes of them in a region than its log holds,
/// the probe finds the shared words and defers those alone; where even
/// those overflow the log, the engine runs, with the same result.
#[test]
fn the_deterministic_probe_defers_shared_words_of_workgroup_arrays() {
    let input: Vec<u32> = (0..256u32).map(|i| i.wrapping_mul(2654435761) >> 7).collect();
    // The words of `t` and `pair`, which every run shares; `many` too.
    let (words, all) = (64 + 32, 64 + 32 + 1281);
    // (The kernel's memory holds for the process: the launch that leaves it
    // to the engine comes last.)
    for spill in [0, 2, 1] {
        let Some((a, b)) = probed_twice(&format!("spill {spill}"), |rt, probe| defer_tree_run(rt, &input, spill, probe)) else { return };
        match spill {
            0 => {
                assert!(a.probed && b.probed && a.deferred == words && b.deferred == words, "the probe answers, the arrays deferred whole: {a:?} {b:?}");
                assert_eq!((a.dispatches, b.dispatches), (2, 1), "the second launch starts with the arrays deferred: {a:?} {b:?}");
            }
            1 => assert!(!a.probed && !b.probed, "a log too small leaves it to the engine: {a:?} {b:?}"),
            _ => {
                // (Whole arrays, their words found, then deferred.)
                assert!(
                    a.probed && b.probed && a.deferred > 0 && a.deferred < all && b.deferred == a.deferred,
                    "the probe answers, words deferred: {a:?} {b:?}"
                );
                assert_eq!((a.dispatches, b.dispatches), (4, 1), "the second launch starts with the words deferred: {a:?} {b:?}");
            }
        }
    }
}

/// Racy in storage: every invocation adds into one of eight bins that the
/// workgroup's invocations and every workgroup share (`bins[lid % 8] +=`),
/// reads a word of `ring` that the next workgroup writes and writes a word
/// its neighbour reads, and sets a flag (one value). With `spill`, each
/// invocation also writes twenty words of `ring`: more than the log of
/// deferred storage writes holds.
#[ld::kernel(workgroup_size = 64)]
fn defer_storage(input: &[u32], bins: &mut [u32], ring: &mut [u32], out: &mut [u32], flag: &mut [u32], spill: u32) {
    let lid = local_index();
    let g = global_id().x;
    let wg = workgroup_id().x;
    let n = num_workgroups().x;
    bins[lid % 8] += input[g];
    let seen = ring[((wg + 1) % n) * 64 + lid];
    ring[wg * 64 + (lid + 1) % 64] = input[g] ^ seen;
    if spill != 0 {
        for k in 0..20u32 {
            ring[(g + k) % (n * 64)] = k * lid;
        }
    }
    out[g] = bins[(lid + 3) % 8] + ring[wg * 64 + lid] * 7 + seen;
    flag[0] = 1;
}

/// Racy in storage across a storage barrier: the bins the invocations
/// add into are read after it, where the folded kernel has folded them.
#[ld::kernel(workgroup_size = 64)]
fn defer_ordered(input: &[u32], bins: &mut [u32], out: &mut [u32]) {
    let lid = local_index();
    let g = global_id().x;
    bins[lid % 8] += input[g];
    storage_barrier();
    out[g] = bins[(lid + 3) % 8] * 5 + input[g];
}

/// The buffers after a deterministic launch of `defer_storage` (`ordered`:
/// of `defer_ordered`), and its statistics.
fn defer_storage_run(rt: &Runtime, input: &[u32], spill: u32, ordered: bool, probe: bool) -> (Vec<Vec<u32>>, ld::Stats) {
    let n = input.len();
    let i = rt.upload(input).unwrap();
    let mut bins = rt.upload(&[3u32, 1, 4, 1, 5, 9, 2, 6]).unwrap();
    let mut ring = rt.upload(&input.iter().map(|v| v.rotate_left(5)).collect::<Vec<u32>>()).unwrap();
    let mut out = rt.zeros::<u32>(n).unwrap();
    let mut flag = rt.zeros::<u32>(1).unwrap();
    let opts = CheckOptions::default().probe(probe);
    let grid = (n / 64) as u32;
    let run = if ordered {
        defer_ordered.launch(rt, grid, &i, &mut bins, &mut out).mode(Mode::Deterministic).check_options(opts).run().unwrap()
    } else {
        defer_storage.launch(rt, grid, &i, &mut bins, &mut ring, &mut out, &mut flag, spill).mode(Mode::Deterministic).check_options(opts).run().unwrap()
    };
    let bufs = [bins.to_vec(), ring.to_vec(), out.to_vec(), flag.to_vec()];
    (bufs.into_iter().map(|b| b.unwrap()).collect(), run.stats.unwrap())
}

/// Deterministic mode's probe defers the storage targets that invocations
/// share (their writes held to the invocation's end, then the highest
/// invocation in workgroup order that changed a word winning it): the
/// folded kernel's result, bit for bit, without the engine, on a GPU; the
/// kernel's later launches start with those targets deferred (the probe and
/// its fold: two dispatches). Where an invocation defers more writes than
/// its log holds, or reaches a storage barrier with writes deferred, the
/// engine runs, with the same result.
#[test]
fn the_deterministic_probe_defers_shared_storage_targets() {
    let input: Vec<u32> = (0..256u32).map(|i| i.wrapping_mul(2654435761) >> 7).collect();
    for (spill, ordered) in [(0, false), (1, false), (0, true)] {
        let what = format!("spill {spill}, ordered {ordered}");
        let Some((a, b)) = probed_twice(&what, |rt, probe| defer_storage_run(rt, &input, spill, ordered, probe)) else { return };
        if spill == 0 && !ordered {
            assert!(a.probed && a.deferred > 0 && b.probed && b.deferred == a.deferred, "the probe answers: {a:?} {b:?}");
            assert_eq!(b.dispatches, 2, "the second launch starts with the targets deferred: {b:?}");
        } else {
            assert!(!a.probed && !b.probed, "{what}: the engine runs: {a:?} {b:?}");
        }
    }
}
