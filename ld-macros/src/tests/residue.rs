//! `analysis::residue` through `analysis::settled::mark`: which accesses of
//! a workgroup array no other invocation meets (`Root::Mem::own`), and which
//! arrays each barrier's probe clears (`analysis::settled::clears`).

use super::{parse, show};
use ld_compiler::analysis::settled;
use ld_compiler::ir::*;

fn marked(src: &str) -> Module {
    let mut m = match parse(src) {
        Ok(mut ms) => ms.pop().unwrap().1,
        Err(d) => panic!("the kernel does not parse:\n{}", show(&d)),
    };
    settled::mark(&mut m);
    m
}

/// The own flag of every store, then every load, of a workgroup array or
/// a helper's slice: the body's, then each helper's, in order.
fn own(src: &str) -> (Vec<bool>, Vec<bool>) {
    let m = marked(src);
    let (mut stores, mut loads) = (Vec::new(), Vec::new());
    let shared = |p: &Place| matches!(p.root, Root::Mem { mem: MemRef::Shared(_) | MemRef::FnSlice(_), .. });
    let flag = |p: &Place| matches!(p.root, Root::Mem { own: true, .. });
    let blocks = std::iter::once(&m.kernel.body.block).chain(m.functions.iter().map(|f| &f.body.block));
    for b in blocks {
        walk_stmts(b, &mut |s| {
            if let StmtKind::Assign(p, _, _) = &s.kind {
                if shared(p) {
                    stores.push(flag(p));
                }
            }
        });
        visit::exprs(b, &mut |e| {
            if let ExprKind::Load(p) = &e.kind {
                if shared(p) {
                    loads.push(flag(p));
                }
            }
        });
    }
    (stores, loads)
}

fn kernel(size: u32, body: &str) -> String {
    format!(
        "#[ld::kernel(workgroup_size = {size})]\nfn k(input: &[u32], out: &mut [u32], n: u32) {{\n    let s = shared::<[u32; 1024]>();\n    let tid = local_index();\n    let gid = global_id().x;\n{body}\n}}"
    )
}

#[test]
fn per_invocation_columns_are_own() {
    // histogram64's layout: each invocation's column, k * W + tid.
    let body = "    for i in 0..4u32 {
        s[tid + i * 192] = 0;
    }
    barrier();
    let mut p = gid;
    while p < n {
        s[(input[p] & 3) * 192 + tid] += 1;
        p += 192;
    }
    barrier();
    if tid < 4 {
        let mut sum = 0u32;
        for j in 0..192u32 {
            sum += s[tid * 192 + j];
        }
        out[gid] = sum;
    }";
    // (The column sums are settled reads: no write meets them.)
    assert_eq!(own(&kernel(192, body)), (vec![true, true], vec![false]));
}

#[test]
fn a_helper_sees_its_callers_residues() {
    let src = "#[ld::kernels]
mod m {
    fn bump(h: &mut [u32], me: u32, v: u32) {
        h[(v & 1) * 128 + me] += 1;
    }
    #[kernel(workgroup_size = 64)]
    pub fn k(input: &[u32], out: &mut [u32]) {
        let s = shared::<[u32; 256]>();
        let tid = local_index();
        bump(&mut s, tid, input[global_id().x]);
        bump(&mut s[64..], tid, 1);
        bump(&mut s, 3, 1);
        barrier();
        out[global_id().x] = s[tid];
    }
}";
    // The third call's index is no residue: the helper's store is tagged
    // at every call (one mark per place).
    assert_eq!(own(src).0, [false]);
    let ok = src.replace("        bump(&mut s, 3, 1);\n", "");
    assert_ne!(ok, src);
    assert_eq!(own(&ok).0, [true]);
}

#[test]
fn one_access_elsewhere_in_the_epoch_tags_them_all() {
    let cases = [
        // A neighbour's word in the same epoch.
        "    s[tid] = input[gid];\n    out[gid] = s[tid + 1];",
        // One invocation's extra word.
        "    s[tid] = input[gid];\n    if tid == 0 { s[1023] = 7; }",
        // Not a multiple of the 64 invocations.
        "    s[tid + 32] = input[gid];\n    s[tid] = 1;",
    ];
    for body in cases {
        let (stores, loads) = own(&kernel(64, body));
        assert!(stores.iter().chain(&loads).all(|o| !o), "{body}: {stores:?} {loads:?}");
    }
    // A store that may run in two epochs, one of them with a neighbour's
    // word, is tagged, its own residue unchecked: the other epoch's own
    // store is tagged too (it could meet the first one unseen).
    let spanning = "    s[tid] = 0;\n    if n > 0 { barrier(); s[tid + 1] = 2; }\n    s[tid] = 1;\n    barrier();\n    out[gid] = s[tid];";
    assert_eq!(own(&kernel(64, spanning)).0, [false, false, false]);
    let alone = spanning.replace("s[tid + 1] = 2;", "s[tid + 64] = 2;");
    assert_eq!(own(&kernel(64, &alone)).0, [true, true, true]);
    // Epochs apart, the own stores are untagged again.
    let apart = "    s[tid] = input[gid];\n    barrier();\n    s[tid + 1] = 2;\n    barrier();\n    s[tid + 64] = 3;";
    assert_eq!(own(&kernel(64, apart)), (vec![true, false, true], vec![]));
}

#[test]
fn a_barrier_clears_the_arrays_tagged_since_the_last() {
    let src = "#[ld::kernel(workgroup_size = 64)]
fn k(input: &[u32], out: &mut [u32]) {
    let a = shared::<[u32; 64]>();
    let b = shared::<[u32; 65]>();
    let tid = local_index();
    a[tid] = input[tid];
    b[tid + 1] = 1;
    barrier();
    out[tid] = a[63 - tid] + b[tid];
    barrier();
    a[63 - tid] = 2;
}";
    let m = marked(src);
    let c = settled::clears(&m);
    let mut barriers = Vec::new();
    walk_stmts(&m.kernel.body.block, &mut |s| {
        if matches!(s.kind, StmtKind::Barrier(_)) {
            barriers.push(c.at[&(s as *const Stmt as usize)].clone());
        }
    });
    // `a`'s first store is own, `b`'s is not; the reads between the
    // barriers are settled; `a`'s last store is tagged, after the last
    // barrier.
    let (a, b) = (MemRef::Shared(0), MemRef::Shared(1));
    assert_eq!(barriers, [vec![b], vec![]]);
    assert_eq!(c.tagged.len(), 2);
    assert!(c.tagged.contains(&a) && c.tagged.contains(&b));
}
