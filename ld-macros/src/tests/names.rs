//! User names that are WGSL words, or that ld's own declarations could meet,
//! reach every WGSL ld emits renamed: each kernel here must compile, which
//! means naga accepts its native, instrumented and folded WGSL (`expand`
//! validates all three). `tests/suite/lang_names.rs` runs such kernels on both
//! backends with every WGSL word.

use super::{expand, show};

#[track_caller]
fn compiles(src: &str) {
    if let Err(d) = expand(src) {
        panic!("the kernel does not compile:\n{}", show(&d));
    }
}

/// A local named `read` must not make check mode's `var<storage, read>`
/// resolve to it.
#[test]
fn local_named_like_an_access_mode() {
    compiles(
        "#[ld::kernel(workgroup_size = 64)]
        fn k(out: &mut [u32]) {
            let i = global_id().x;
            let read = i * 2;
            let storage = read + 1;
            let vec3 = storage;
            out[i] = vec3;
        }",
    );
}

/// A local named like a helper it is then called beside, one instance per
/// window binding: helpers are named before locals.
#[test]
fn locals_named_like_helpers() {
    compiles(
        "#[ld::kernel(workgroup_size = 64)]
        fn k(a: &[u32], b: &[u32], out: &mut [u32]) {
            fn tally(w: &[u32], j: u32) -> u32 {
                w[j] + 1
            }
            fn square(x: u32) -> u32 {
                x * x
            }
            let i = global_id().x;
            let tally_1 = tally(&b[..], i);
            let tally = tally(&a[..], i);
            let square = square(tally + tally_1);
            out[i] = square;
        }",
    );
}

/// Struct and field names that are WGSL words, in a check-mode target:
/// its accessors name their parameters `ld_a` and `ld_v`, not `a` and `v`.
#[test]
fn structs_and_fields_named_like_wgsl_words() {
    compiles(
        "#[ld::kernels]
        mod m {
            pub struct a {
                pub target: u32,
                pub read: [f32; 2],
                pub v: i32,
            }
            pub struct vec2 {
                pub alias: a,
                pub atomicAdd: u32,
            }
            #[kernel(workgroup_size = 64)]
            pub fn k(data: &mut [vec2]) {
                let i = global_id().x;
                let mut x = data[i];
                x.alias.target += x.atomicAdd;
                x.alias.read[1] = x.alias.read[0];
                data[i] = x;
            }
        }",
    );
}

/// Buffers named like WGSL words, and `t` and `k`: the parameters of check
/// mode's `ld_user`, which reads a target's words from its buffer.
#[test]
fn buffers_named_like_wgsl_words_and_ld_parameters() {
    compiles(
        "#[ld::kernel(workgroup_size = 64)]
        fn k(t: &mut [u32], k: &mut [u32], atomicAdd: &[AtomicU32], uniform: u32) {
            let private = shared::<[u32; 64]>();
            let i = global_id().x;
            private[local_index()] = i;
            barrier();
            t[i] = private[local_index()] + uniform;
            k[i] = t[i];
            atomicAdd[0].fetch_add(1);
        }",
    );
}
