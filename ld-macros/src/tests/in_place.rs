//! Which targets check and deterministic modes leave in place
//! (`analysis::in_place`): accepted and rejected index forms, and the grids
//! each form is unique on.

use super::{parse, show};
use ld_compiler::analysis::in_place;

/// `(row, plane)` bits of the one kernel of `src`.
fn bits(src: &str) -> (u32, u32) {
    let p = place(src);
    (p.row, p.plane)
}

fn place(src: &str) -> in_place::InPlace {
    match parse(src) {
        Ok(mut ms) => in_place::in_place(&ms.pop().unwrap().1),
        Err(d) => panic!("the kernel does not parse:\n{}", show(&d)),
    }
}

/// A kernel of workgroup size `wg` over `y` whose body is `body`.
fn kernel(wg: &str, body: &str) -> String {
    format!("#[ld::kernel(workgroup_size = {wg})]\nfn k(x: &[u32], y: &mut [u32], n: u32) {{\n{body}\n}}")
}

#[test]
fn own_elements_of_a_row_are_in_place_on_a_row() {
    let accepted = [
        "let i = global_id().x; if i < y.len() { y[i] = y[i] * 2 + x[i]; }",
        "y[global_id().x] += 1;",
        "let i = global_id().x as i32; y[i as u32] = 3;",
        "let g = global_id().x; let i = g; y[i] = 1;",
        "let i = workgroup_id().x * 64 + local_id().x; y[i] = y[i] + 1;",
        "let i = local_index() + 64 * workgroup_id().x; y[i] = 1;",
        "let i = workgroup_id().x * workgroup_size().x + local_index(); y[i] = 1;",
        // Through locals naming the builtins.
        "let gid = global_id(); y[gid.x] = y[gid.x] + 1;",
        "let w = workgroup_id(); let l = local_index(); let i = w.x * 64 + l; y[i] = 1;",
    ];
    for body in accepted {
        assert_eq!(bits(&kernel("64", body)), (1, 0), "{body}");
    }
}

#[test]
fn the_form_that_covers_a_plane_is_in_place_on_a_plane() {
    let plane = [
        "let i = global_id().x + global_id().y * num_workgroups().x * 256; if i < y.len() { y[i] = x[i] + y[i]; }",
        "let i = global_id().y * (256 * num_workgroups().x) + global_id().x; y[i] = 1;",
    ];
    for body in plane {
        assert_eq!(bits(&kernel("256", body)), (1, 1), "{body}");
    }
    // Mixed with the row form: unique on a row only (where both are global_id().x).
    let mixed = "let i = global_id().x + global_id().y * num_workgroups().x * 256; y[i] = 1; y[global_id().x] = 2;";
    assert_eq!(bits(&kernel("256", mixed)), (1, 0));
    // A plane workgroup: the plane form still tells invocations apart, the row form does not.
    let i = "let i = global_id().x + global_id().y * num_workgroups().x * 16; y[i] = 1;";
    assert_eq!(bits(&kernel("(16, 16)", i)), (1, 1));
}

#[test]
fn shared_neighbour_or_workgroup_local_indices_are_not() {
    let rejected = [
        // A neighbour's element.
        "let i = global_id().x; if i > 0 { y[i] = y[i - 1]; }",
        "let i = global_id().x; y[i + 1] = 1;",
        // Every workgroup's first elements.
        "y[local_index()] = 1;",
        "y[local_id().x] = 1;",
        // One word for all.
        "y[0] = 1;",
        // A local assigned again.
        "let mut i = global_id().x; i = i / 2; y[i] = 1;",
        "let mut gid = global_id(); gid.x = gid.x / 2; y[gid.x] = 1;",
        // Another component.
        "let gid = global_id(); y[gid.y] = 1;",
        // A stride other than the workgroup's width.
        "let i = workgroup_id().x * 32 + local_id().x; y[i] = 1;",
        "let i = global_id().x + global_id().y * num_workgroups().x * 128; y[i] = 1;",
        // An index read from memory.
        "let i = x[global_id().x]; y[i] = 1;",
        // Own element written, another read.
        "let i = global_id().x; y[i] = 1; let v = y[n]; y[i] = v;",
    ];
    for body in rejected {
        assert_eq!(bits(&kernel("256", body)), (0, 0), "{body}");
    }
    // global_id().x in a workgroup of two rows names one element per column.
    assert_eq!(bits(&kernel("(64, 4)", "y[global_id().x] = 1;")), (0, 0));
    assert_eq!(bits(&kernel("(64, 4)", "let i = workgroup_id().x * 64 + local_id().x; y[i] = 1;")), (0, 0));
}

#[test]
fn a_slice_handed_to_a_helper_or_a_workgroup_array_is_not() {
    let src = "#[ld::kernels]
mod m {
    fn set(v: &mut [u32], i: u32) {
        v[i] = 1;
    }
    #[kernel(workgroup_size = 64)]
    pub fn k(y: &mut [u32], z: &mut [u32]) {
        let s = shared::<[u32; 64]>();
        let i = global_id().x;
        y[i] = 1;
        set(z, i);
        s[local_index()] = 2;
    }
}";
    // Targets: y (0), z (1), s (2).
    assert_eq!(bits(src), (0b001, 0));
}

#[test]
fn strided_elements_of_one_stride_are_in_place() {
    let accepted = [
        ("let i = global_id().x; y[2 * i] = x[i]; y[2 * i + 1] = x[i] + 1;", 2),
        ("let i = global_id().x; let j = i * 4; y[j] = 1; y[j + 3] = y[j + 2];", 4),
        ("let i = global_id().x; y[(i + 0) * 3 + 2] = 1;", 3),
    ];
    for (body, stride) in accepted {
        let p = place(&kernel("64", body));
        assert_eq!((p.row, p.plane, p.stride), (1, 0, stride), "{body}");
    }
    let rejected = [
        // Two strides meet: 2 * 3 == 3 * 2.
        "let i = global_id().x; y[2 * i] = 1; y[3 * i] = 2;",
        // An offset past the stride reaches the next invocation's element.
        "let i = global_id().x; y[2 * i + 2] = 1;",
        "let i = global_id().x; y[2 * i] = 1; y[i] = 2;",
        // A stride of a loop variable.
        "let i = global_id().x; for k in 0..4u32 { y[4 * i + k] = 1; }",
    ];
    for body in rejected {
        assert_eq!(bits(&kernel("64", body)), (0, 0), "{body}");
    }
}

#[test]
fn a_target_the_body_never_accesses_is_in_place() {
    // Targets: y (0), unused (1).
    let src = "#[ld::kernel(workgroup_size = 64)]\nfn k(y: &mut [u32], unused: &mut [u32]) {\n    y[0] = 1;\n}";
    assert_eq!(bits(src), (0b10, 0b10));
}
