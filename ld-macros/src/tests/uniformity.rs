//! The barrier-uniformity analysis on its own (`analysis::uniformity`):
//! shapes it must accept, and shapes it must reject with the barrier, the
//! cause and (for locals) the assignment that made them vary. The cases of
//! `diagnostics` are not repeated here.

use super::{assert_diags, parse, show, BARRIER};
use ld_compiler::analysis::uniformity;

/// The uniformity verdict on the one kernel of `src` (which must parse).
fn check(src: &str) -> Result<(), Vec<super::Diag>> {
    let src = src.strip_prefix('\n').unwrap_or(src);
    let m = match parse(src) {
        Ok(mut ms) => ms.pop().unwrap().1,
        Err(d) => panic!("the kernel does not parse:\n{}", show(&d)),
    };
    uniformity::check(&m).map_err(|e| super::diags(crate::spans::errors(&e), (0, 0)))
}

#[track_caller]
fn accepts(src: &str) {
    if let Err(d) = check(src) {
        panic!("rejected:\n{}", show(&d));
    }
}

#[track_caller]
fn rejects(src: &str, expected: &[(&str, &str)]) {
    match check(src) {
        Ok(()) => panic!("accepted; expected {} errors", expected.len()),
        Err(got) => assert_diags(&got, expected),
    }
}

#[test]
fn accepts_workgroup_id_condition() {
    accepts(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    if workgroup_id().x + num_workgroups().y > 2 {
        tile[local_index()] = 1;
        barrier();
        data[global_id().x] = tile[0];
    }
}
"#,
    );
}

#[test]
fn accepts_loop_bound_from_read_only_buffer_at_uniform_index() {
    accepts(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(cfg: &[u32], data: &mut [u32], n: u32) {
    for i in 0..cfg[workgroup_id().x + n] {
        data[global_id().x] += i;
        storage_barrier();
    }
}
"#,
    );
}

#[test]
fn accepts_locals_consts_and_helpers_of_uniform_values() {
    accepts(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    const SCALE: u32 = 3;
    fn twice(x: u32) -> u32 {
        x * 2
    }
    let mut m = n * SCALE;
    m += 1;
    let big = if m > 10 { m } else { 10 };
    if twice(big) as f32 > 4.5 {
        barrier();
    }
    data[global_id().x] = m;
}
"#,
    );
}

#[test]
fn accepts_uniform_early_return_before_barrier() {
    accepts(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    if n == 0 {
        return;
    }
    barrier();
    data[global_id().x] = n;
}
"#,
    );
}

#[test]
fn accepts_nonuniform_return_after_last_barrier() {
    accepts(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    tile[local_index()] = n;
    barrier();
    if global_id().x >= n {
        return;
    }
    data[global_id().x] = tile[0];
}
"#,
    );
}

#[test]
fn accepts_barrier_after_loop_left_by_nonuniform_break() {
    // Only the loop's own iterations diverge; every invocation reaches the
    // code after it.
    accepts(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let mut j = 0u32;
    loop {
        if j >= local_index() {
            break;
        }
        j += 1;
    }
    barrier();
    data[global_id().x] = 7;
}
"#,
    );
}

#[test]
fn accepts_nonuniform_branch_without_barrier_inside_uniform_loop() {
    accepts(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    for s in 0..n {
        if local_index() < s {
            tile[local_index()] += 1;
        }
        barrier();
    }
    data[global_id().x] = tile[0];
}
"#,
    );
}

#[test]
fn rejects_read_only_buffer_at_nonuniform_index() {
    rejects(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(cfg: &[u32], data: &mut [u32]) {
    if cfg[local_index()] > 0 {
        barrier();
    }
    data[0] = 1;
}
"#,
        &[("4:9", BARRIER), ("3:8", diverges!("this condition is not uniform: `local_index()` differs between invocations"))],
    );
}

#[test]
fn rejects_local_once_nonuniform_even_if_reassigned() {
    // The analysis is flow-insensitive for locals: a local that is ever
    // assigned a varying value is varying everywhere.
    rejects(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let mut x = local_index();
    data[x] = 1;
    x = 0;
    if x == 0 {
        barrier();
    }
}
"#,
        &[
            ("7:9", BARRIER),
            ("6:8", diverges!("this condition is not uniform: `x` may differ between invocations")),
            ("3:5", "`x` stops being uniform here: `local_index()` differs between invocations"),
        ],
    );
}

#[test]
fn accepts_nonuniform_continue_after_the_iterations_barriers() {
    // As a tiled rasterizer's loop (gausplat's backward pass): load a
    // tile, barrier, and invocations with nothing to do skip the rest of
    // the iteration. Every invocation still reaches every barrier, and
    // the counter `continuing` advances stays uniform.
    accepts(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    let mut acc = 0u32;
    for batch in 0..n {
        barrier();
        tile[lid] = data[batch * 64 + lid];
        barrier();
        if data[lid] == batch {
            continue;
        }
        acc += tile[63 - lid];
    }
    data[global_id().x] = acc;
}
"#,
    );
}

#[test]
fn accepts_loop_bound_from_writable_buffer_never_written() {
    // Generated shaders (burn's, cubecl's) declare every buffer
    // `read_write`: one the kernel never writes holds the same words
    // through the dispatch, so its word at a uniform index is uniform.
    let src = r#"
#[ld::kernel(workgroup_size = 64)]
fn k(ranges: &mut [u32], out: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    let n = ranges[workgroup_id().x];
    for i in 0..n {
        tile[lid] = i + out[global_id().x];
        barrier();
        out[global_id().x] = tile[63 - lid];
        barrier();
    }
}
"#;
    accepts(src);
    // Written anywhere, it may change under the loop: refused.
    rejects(
        &src.replace("        barrier();\n    }\n}", "        barrier();\n    }\n    ranges[global_id().x] = 0;\n}"),
        &[
            ("8:9", BARRIER),
            ("6:5", diverges!("this loop condition is not uniform: `ld_ctr` may differ between invocations")),
            ("5:5", "`n` stops being uniform here: it reads `ranges`, memory other invocations may write, so the value read may differ between them"),
            ("10:9", BARRIER),
            ("6:5", diverges!("this loop condition is not uniform: `ld_ctr` may differ between invocations")),
            ("5:5", "`n` stops being uniform here: it reads `ranges`, memory other invocations may write, so the value read may differ between them"),
        ],
    );
}

#[test]
fn accepts_local_read_before_a_later_varying_assignment() {
    // `count` varies only once the last invocations have set it, after
    // the loop: where the loop's bound reads it, it is uniform (WGSL's
    // analysis follows a variable's assignments in order too).
    let src = r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    let mut count = n;
    let batches = count / 2;
    for b in 0..batches {
        tile[lid] = b;
        barrier();
        data[global_id().x] += tile[63 - lid];
        barrier();
    }
    if lid == 0 {
        count = 5;
    }
    data[global_id().x] += count;
}
"#;
    accepts(src);
    // Set inside the loop, the bound's next evaluation may read it.
    let inside = src.replace("    let batches = count / 2;\n    for b in 0..batches {", "    let mut b = 0;\n    while b < count {").replace(
        "        barrier();\n    }\n    if lid == 0 {\n        count = 5;\n    }",
        "        barrier();\n        if lid == 0 {\n            count = 5;\n        }\n        b += 1;\n    }",
    );
    assert!(check(&inside).is_err(), "{inside}");
}

#[test]
fn rejects_nonuniform_continue_in_loop_with_barrier() {
    rejects(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    for i in 0..n {
        if local_index() == i {
            continue;
        }
        barrier();
    }
    data[0] = 1;
}
"#,
        &[("7:9", BARRIER), ("5:13", diverges!("this `continue` is taken by only some invocations, so they skip what follows it in the iteration"))],
    );
}

#[test]
fn rejects_at_outermost_divergent_condition() {
    // The barrier sits under a uniform `if` inside a varying one: the
    // error names the varying condition.
    rejects(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    if global_id().x < n {
        if n > 4 {
            barrier();
        }
    }
    data[0] = 1;
}
"#,
        &[("5:13", BARRIER), ("3:8", diverges!("this condition is not uniform: `global_id()` differs between invocations"))],
    );
}

#[test]
fn rejects_cast_and_math_of_invocation_id() {
    rejects(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) {
    if (local_id().y as f32).sqrt() > 2.0 {
        storage_barrier();
    }
    data[0] = 1.0;
}
"#,
        &[("4:9", super::STORAGE_BARRIER), ("3:8", diverges!("this condition is not uniform: `local_id()` differs between invocations"))],
    );
}

#[test]
fn rejects_window_over_read_only_buffer_at_nonuniform_offset() {
    rejects(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(cfg: &[u32], data: &mut [u32]) {
    let w = &cfg[global_id().x..];
    if w[0] > 0 {
        barrier();
    }
    data[0] = 1;
}
"#,
        &[
            ("5:9", BARRIER),
            ("4:8", diverges!("this condition is not uniform: `ld_w_offset` may differ between invocations")),
            ("3:13", "`ld_w_offset` stops being uniform here: `global_id()` differs between invocations"),
        ],
    );
}

#[test]
fn every_divergent_barrier_is_reported() {
    rejects(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    if local_index() == 0 {
        barrier();
    }
    if local_index() == 1 {
        barrier();
    }
    data[0] = 1;
}
"#,
        &[
            ("4:9", BARRIER),
            ("3:8", diverges!("this condition is not uniform: `local_index()` differs between invocations")),
            ("7:9", BARRIER),
            ("6:8", diverges!("this condition is not uniform: `local_index()` differs between invocations")),
        ],
    );
}

#[test]
fn a_loop_of_one_iteration_diverges_only_after_its_divergent_break() {
    accepts(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    loop {
        tile[local_index()] = 1;
        barrier();
        if local_index() > 3 {
            break;
        }
        data[global_id().x] = tile[0];
        break;
    }
    barrier();
}
"#,
    );
    rejects(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    loop {
        if n > 1 {
            if local_index() > 3 {
                break;
            }
            barrier();
        }
        break;
    }
}
"#,
        &[("8:13", BARRIER), ("6:17", diverges!("this `break` (or a helper's `return`) is taken by only some invocations, so they skip what follows it"))],
    );
}
