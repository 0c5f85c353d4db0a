//! The target analysis on its own (`analysis::targets`): which targets
//! deterministic mode may leave untagged because the kernel only ever
//! stores one literal value to them (`one_value`).

use super::{parse, show};
use crate::analysis::targets;

/// `one_value`'s bits for the one kernel of `src` (which must parse).
fn one_value(src: &str) -> u32 {
    let m = match parse(src) {
        Ok(mut ms) => ms.pop().unwrap().1,
        Err(d) => panic!("the kernel does not parse:\n{}", show(&d)),
    };
    targets::one_value(&m)
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
