//! `analysis::settled`: which reads of a workgroup array no write of it can
//! meet in their epoch.

use super::{parse, show};
use ld_compiler::analysis::settled;
use ld_compiler::ir::*;

/// The settled flag of every read of a workgroup array or a helper's slice
/// in the one kernel of `src`: the body's, then each helper's, in order.
fn settled(src: &str) -> Vec<bool> {
    let mut m = match parse(src) {
        Ok(mut ms) => ms.pop().unwrap().1,
        Err(d) => panic!("the kernel does not parse:\n{}", show(&d)),
    };
    settled::mark(&mut m);
    let mut out = Vec::new();
    let blocks = std::iter::once(&m.kernel.body.block).chain(m.functions.iter().map(|f| &f.body.block));
    for b in blocks {
        visit::exprs(b, &mut |e| {
            if let ExprKind::Load(Place { root: Root::Mem { mem: MemRef::Shared(_) | MemRef::FnSlice(_), settled, .. }, .. }) = &e.kind {
                out.push(*settled);
            }
        });
    }
    out
}

fn kernel(body: &str) -> String {
    format!(
        "#[ld::kernel(workgroup_size = 64)]\nfn k(input: &[f32], out: &mut [f32], n: u32) {{\n    let tile = shared::<[f32; 64]>();\n    let lid = local_index();\n    let gid = global_id().x;\n{body}\n}}"
    )
}

#[test]
fn a_tile_read_between_barriers_is_settled() {
    // Load, barrier, read many times, barrier: the classic tiled loop.
    let src = kernel(
        "    let mut acc = 0.0f32;
    for t in 0..n {
        tile[lid] = input[t * 64 + lid];
        barrier();
        for j in 0..64u32 {
            acc += tile[j];
        }
        barrier();
    }
    out[gid] = acc;",
    );
    assert_eq!(settled(&src), [true]);
}

#[test]
fn a_read_in_an_epoch_that_writes_is_not() {
    // Read and written between the same barriers (a reduction step); the
    // read after the next barrier is settled.
    let reduction = "tile[lid] = input[gid];
    barrier();
    if lid < 32 { tile[lid] += tile[lid + 32]; }
    barrier();
    out[gid] = tile[0];";
    assert_eq!(settled(&kernel(reduction)), [false, true]);
    let cases = [
        // A storage barrier does not end a workgroup array's epoch.
        "tile[lid] = input[gid];
    storage_barrier();
    out[gid] = tile[63 - lid];",
        // The loop's next iteration writes in the epoch the read opened.
        "let mut acc = 0.0f32;
    for t in 0..n {
        acc += tile[(lid + 1) % 64];
        barrier();
        tile[lid] = input[t * 64 + lid];
    }
    out[gid] = acc;",
        // A write after a `return` of some invocations, in the same epoch.
        "barrier();
    if lid == 3 { out[gid] = tile[5]; return; }
    tile[lid] = 1.0;",
    ];
    for body in cases {
        assert_eq!(settled(&kernel(body)), [false], "{body}");
    }
}

#[test]
fn a_helper_handed_the_array_writes_it() {
    let src = "#[ld::kernels]
mod m {
    fn fill(s: &mut [f32], i: u32, v: f32) {
        s[i] = v;
    }
    #[kernel(workgroup_size = 64)]
    pub fn k(input: &[f32], out: &mut [f32]) {
        let tile = shared::<[f32; 64]>();
        let lid = local_index();
        fill(&mut tile, lid, input[global_id().x]);
        out[global_id().x] = tile[63 - lid];
        barrier();
        out[global_id().x] += tile[lid];
    }
}";
    assert_eq!(settled(src), [false, true]);
}

#[test]
fn a_barrier_in_one_arm_leaves_the_other_arm_open() {
    // `if c { barrier() } else { storage_barrier() }` (Rodinia's b+tree):
    // after it the epoch may still be the one that wrote.
    let src = kernel(
        "tile[lid] = input[gid];
    if n > 4 { barrier(); } else { storage_barrier(); }
    out[gid] = tile[63 - lid];
    barrier();
    out[gid] += tile[lid];",
    );
    assert_eq!(settled(&src), [false, true]);
}

#[test]
fn a_helper_that_reads_the_array_reads_it_settled() {
    // kmeans' `dist2(p, &cent[c * DIM..])` after the centroids' barrier;
    // the same helper on `out` (storage) is no write of `tile`.
    let src = "#[ld::kernels]
mod m {
    fn dot(c: &[f32], n: u32) -> f32 {
        let mut acc = 0.0f32;
        for d in 0..n {
            acc += c[d] * c[d];
        }
        acc
    }
    #[kernel(workgroup_size = 64)]
    pub fn k(input: &[f32], out: &mut [f32]) {
        let tile = shared::<[f32; 64]>();
        let lid = local_index();
        tile[lid] = input[global_id().x];
        barrier();
        out[global_id().x] = dot(&tile[lid / 8 * 8..], 8) + dot(&out[0..], 1);
    }
}";
    assert_eq!(settled(src), [true, true]);
    // Called before the barrier too, where the epoch writes: not settled.
    let early = src.replace("tile[lid] = input[global_id().x];", "tile[lid] = input[global_id().x];\n        out[0] = dot(&tile[0..], 1);");
    assert_eq!(settled(&early), [false, false]);
}
