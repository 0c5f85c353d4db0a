//! The target analysis on its own (`analysis::targets`): which targets
//! deterministic mode may leave untagged because the kernel only ever
//! stores one literal value to them (`one_value`) or only accesses the
//! invocation's own element (`own_element`).

use super::{parse, show};
use ld_compiler::analysis::targets;

/// The one kernel of `src` (which must parse).
fn module(src: &str) -> ld_compiler::ir::Module {
    match parse(src) {
        Ok(mut ms) => ms.pop().unwrap().1,
        Err(d) => panic!("the kernel does not parse:\n{}", show(&d)),
    }
}

/// `one_value`'s bits for the one kernel of `src`.
fn one_value(src: &str) -> u32 {
    targets::one_value(&module(src))
}

/// `own_element`'s bits for the one kernel of `src`.
fn own_element(src: &str) -> u32 {
    targets::own_element(&module(src))
}

#[test]
fn a_flag_every_finder_sets_is_one_value() {
    // Targets: hits (0), found (1). Only `found` is stored one literal.
    let src = "#[ld::kernel(workgroup_size = 64)]
fn k(values: &[u32], hits: &mut [u32], found: &mut [u32]) {
    let i = global_id().x;
    if values[i] % 2 == 0 {
        hits[i] = values[i] * 2;
        found[0] = 1;
    }
    if values[i] == 7 {
        found[0] = 1;
    }
}";
    assert_eq!(one_value(src), 0b10);
}

#[test]
fn a_read_a_second_value_or_a_compound_store_is_not() {
    let cases = [
        // Read before it is set (lanes' order decides what the read sees).
        "if found[0] == 0 { found[0] = 1; }",
        // Two values.
        "found[0] = 1; if i == 3 { found[0] = 2; }",
        // A value computed per invocation.
        "found[0] = i;",
        // A read-modify-write.
        "found[0] += 1;",
        // Read through an index.
        "found[found[1]] = 1;",
    ];
    for body in cases {
        let src = format!("#[ld::kernel(workgroup_size = 64)]\nfn k(found: &mut [u32]) {{\n    let i = global_id().x;\n    {body}\n}}");
        assert_eq!(one_value(&src), 0, "{body}");
    }
}

#[test]
fn a_workgroup_array_stored_one_value_is_one_too() {
    // Targets: out (0), then the workgroup array (1).
    let src = "#[ld::kernel(workgroup_size = 64)]
fn k(out: &mut [u32]) {
    let seen = shared::<[u32; 4]>();
    seen[local_index() % 4] = 1;
    barrier();
    out[global_id().x] = 5;
}";
    assert_eq!(one_value(src), 0b11);
}

#[test]
fn zero_and_minus_zero_are_two_values() {
    let src = "#[ld::kernel(workgroup_size = 64)]
fn k(out: &mut [f32]) {
    out[0] = 0.0;
    if global_id().x == 3 {
        out[0] = -0.0;
    }
}";
    assert_eq!(one_value(src), 0);
}

#[test]
fn accesses_at_the_invocations_own_element_are_lane_safe() {
    // Targets: out (0), mask (1), hist (2), then the workgroup array (3).
    // `hist` is also read at another invocation's element.
    let src = "#[ld::kernel(workgroup_size = 64)]
fn k(input: &[u32], out: &mut [u32], mask: &mut [u32], hist: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let i = global_id().x;
    let j = i;
    if mask[j] == 1 {
        mask[i] = 0;
        out[i as u32] += input[i];
    }
    tile[local_index()] = out[global_id().x];
    hist[local_id().x] = 1;
    hist[i] += hist[(i + 1) % 64];
}";
    assert_eq!(own_element(src), 0b1011);
    assert_eq!(targets::lane_safe(&module(src)), 0b1011);
}

#[test]
fn an_index_shared_by_invocations_is_not_their_own() {
    let cases = [
        // Another invocation's element.
        "out[i + 1] = 1;",
        // A local assigned again.
        "let mut k = i; k += 1; out[k] = 1;",
        // A local declared first and assigned later.
        "let k: u32; k = i; out[k] = 1;",
        // Every invocation's element, in a loop.
        "for j in 0..64u32 { out[j] = i; }",
        // The workgroup's index, shared by its invocations.
        "out[workgroup_id().x] = i;",
        // Handed to a helper, which may touch any element.
        "touch(out, i);",
    ];
    for body in cases {
        let src = format!(
            "#[ld::kernels]\nmod m {{\n    fn touch(out: &mut [u32], i: u32) {{\n        out[i] = 1;\n    }}\n    #[kernel(workgroup_size = 64)]\n    pub fn k(out: &mut [u32]) {{\n        let i = global_id().x;\n        {body}\n    }}\n}}"
        );
        assert_eq!(own_element(&src), 0, "{body}");
    }
}

#[test]
fn global_id_x_is_not_own_in_a_workgroup_of_two_dimensions() {
    // Invocations (x, 0) and (x, 1) of one workgroup share `global_id().x`;
    // `local_index()` stays theirs alone.
    let src = "#[ld::kernel(workgroup_size = (8, 8))]
fn k(out: &mut [u32], rows: &mut [u32]) {
    out[global_id().x] = 1;
    rows[local_index()] = 2;
}";
    assert_eq!(own_element(src), 0b10);
}
