//! Every compile error of `#[ld::kernel]`, in-process: message and position
//! (line:column as rustc prints them) of each diagnostic the macro emits for
//! a kernel that must not compile. In-process, not trybuild cases (a rustc
//! build each); the handful in `ui-tests/` show how the errors render in
//! rustc.

use super::{assert_diags, expand, show, BARRIER, STORAGE_BARRIER};

/// `src` (one kernel, its first line being line 1) must fail to compile
/// with exactly these errors, in this order: `("line:column", message)`.
#[track_caller]
fn fails(src: &str, expected: &[(&str, &str)]) {
    let src = src.strip_prefix('\n').unwrap_or(src);
    match expand(src) {
        Ok(_) => panic!("the kernel compiled; expected {} errors", expected.len()),
        Err(got) => assert_diags(&got, expected),
    }
}

/// A case of `ui-tests/tests/ui/` (where trybuild shows how rustc renders
/// its errors), checked here too for each diagnostic's message and
/// position: one copy of each kernel. The file's `use ld_macros as ld;`
/// line and closing `fn main() {}` are cut off, so lines count from the
/// attribute, as in the cases written here.
macro_rules! ui_case {
    ($name:literal) => {
        ui_kernel(include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../ui-tests/tests/ui/", $name, ".rs")))
    };
}

fn ui_kernel(file: &'static str) -> &'static str {
    let kernel = file.strip_prefix("use ld_macros as ld;\n").expect("a ui case starts with `use ld_macros as ld;`");
    kernel.strip_suffix("\nfn main() {}\n").expect("a ui case ends with `fn main() {}`")
}

/// `src` must compile without error.
#[track_caller]
fn compiles(src: &str) {
    let src = src.strip_prefix('\n').unwrap_or(src);
    if let Err(d) = expand(src) {
        panic!("the kernel does not compile:\n{}", show(&d));
    }
}

// The attribute

#[test]
fn missing_workgroup_size() {
    fails(ui_case!("missing_workgroup_size"), &[("1:1", "missing `workgroup_size`: write `#[ld::kernel(workgroup_size = 64)]`")]);
}

#[test]
fn workgroup_size_zero() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 0)]
fn k(data: &mut [u32]) {
    data[global_id().x] = 0;
}
"#,
        &[("1:31", "workgroup_size dimensions must be at least 1")],
    );
}

#[test]
fn workgroup_size_too_large() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 2048)]
fn k(data: &mut [u32]) {
    data[global_id().x] = 0;
}
"#,
        &[("1:31", "workgroup_size has 2048 invocations; WGSL devices guarantee at most 256 (wgpu's default limit) and never more than 1024")],
    );
}

#[test]
fn workgroup_size_3d_too_large() {
    fails(
        r#"
#[ld::kernel(workgroup_size = (16, 16, 8))]
fn k(data: &mut [u32]) {
    data[global_id().x] = 0;
}
"#,
        &[("1:31", "workgroup_size has 2048 invocations; WGSL devices guarantee at most 256 (wgpu's default limit) and never more than 1024")],
    );
}

// Signatures and types

#[test]
fn generic_kernel() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k<T>(data: &mut [T]) {
    let _ = data;
}
"#,
        &[("2:5", "kernels and helpers cannot be generic")],
    );
}

#[test]
fn kernel_return_type() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) -> f32 {
    data[global_id().x] = 0.0;
    1.0
}
"#,
        &[("2:27", "kernels return nothing: write results to a `&mut [T]` parameter")],
    );
}

#[test]
fn scalar_reference_param() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(out: &mut f32) {
    *out = 1.0;
}
"#,
        &[("2:11", "kernel references must be slices: `&[T]`, `&mut [T]` or `&[AtomicU32]`")],
    );
}

#[test]
fn vec_param() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: Vec<f32>) {
    let _ = data;
}
"#,
        &[("2:12", "unknown type `Vec` in a kernel: structs must be declared inside the same `#[ld::kernels]` module")],
    );
}

#[test]
fn type_usize_param() {
    fails(ui_case!("type_usize_param"), &[("2:27", "`usize` is not a WGSL type: kernels use 32-bit `u32`, `i32`, `f32` and `bool`")]);
}

#[test]
fn type_u8_buffer() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u8]) {
    data[global_id().x] = 1;
}
"#,
        &[("2:18", "`u8` is not a WGSL type: kernels use 32-bit `u32`, `i32`, `f32` and `bool`")],
    );
}

#[test]
fn type_u64_buffer() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u64]) {
    data[global_id().x] = 0;
}
"#,
        &[("2:18", "`u64` is not a WGSL type: kernels use 32-bit `u32`, `i32`, `f32` and `bool`")],
    );
}

#[test]
fn type_f64() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) {
    let x: f64 = 1.0;
    data[global_id().x] = x as f32;
}
"#,
        &[("3:12", "`f64` is not supported by WGSL: use `f32`")],
    );
}

#[test]
fn type_i64_local() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [i32]) {
    let x = 1i64;
    data[global_id().x] = x as i32;
}
"#,
        &[("3:13", "`i64` literals are not supported: kernels use `u32`, `i32` and `f32`")],
    );
}

#[test]
fn mut_atomic_slice() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(bins: &mut [AtomicU32]) {
    bins[0].fetch_add(1);
}
"#,
        &[("2:12", "atomic slices are shared, not exclusive: write `&[AtomicU32]`, not `&mut [AtomicU32]`")],
    );
}

#[test]
fn tuple() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let pair = (1u32, 2u32);
    data[global_id().x] = pair.0 + pair.1;
}
"#,
        &[("3:16", "tuples are not supported in kernels: use a struct")],
    );
}

#[test]
fn field_of_scalar() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let i = local_index();
    data[i.x] = 1;
}
"#,
        &[("4:12", "type `u32` has no fields")],
    );
}

// Unsupported syntax

#[test]
fn closure() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) {
    let sq = |x: f32| x * x;
    let i = global_id().x;
    data[i] = sq(data[i]);
}
"#,
        &[("3:14", "closures are not supported in kernels: use a helper `fn`")],
    );
}

#[test]
fn match_expr() {
    fails(ui_case!("match_expr"), &[("4:15", "`match` is not supported in kernels yet: use `if`/`else if`")]);
}

#[test]
fn if_let() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let i = global_id().x;
    if let 0 = i {
        data[i] = 1;
    }
}
"#,
        &[("4:8", "`if let`/`while let` are not supported in kernels: compare with `==`")],
    );
}

#[test]
fn macro_call() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let i = global_id().x;
    println!("{}", i);
    data[i] = 0;
}
"#,
        &[("4:5", "macro `println!` is not supported in kernels")],
    );
}

#[test]
fn try_operator() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let i = global_id().x;
    data[i] = data.get(i)?;
}
"#,
        &[("4:26", "the `?` operator is not supported in kernels")],
    );
}

#[test]
fn unsafe_block() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    unsafe {
        data[global_id().x] = 1;
    }
}
"#,
        &[("3:5", "`unsafe` blocks are not supported (or needed) in kernels: remove `unsafe`")],
    );
}

#[test]
fn labeled_break() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let mut count = 0u32;
    'outer: for a in 0..n {
        for b in 0..n {
            if a * b > 100 {
                break 'outer;
            }
            count += 1;
        }
    }
    data[global_id().x] = count;
}
"#,
        &[("4:5", "loop labels are not supported in kernels")],
    );
}

#[test]
fn break_with_value() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let mut j = 0u32;
    let found = loop {
        if j > 10 {
            break j;
        }
        j += 1;
    };
    data[global_id().x] = found;
}
"#,
        &[("4:17", "loops are statements in kernels, not values: assign the result to a `let mut` variable before `break`")],
    );
}

#[test]
fn for_over_iterator() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], out: &mut [u32]) {
    let mut s = 0u32;
    for x in data.iter() {
        s += *x;
    }
    out[global_id().x] = s;
}
"#,
        &[("4:14", "`for` loops run over `a..b`, `a..=b`, `(a..b).step_by(s)` or `(a..b).rev()`")],
    );
}

#[test]
fn string_literal() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let s = "hello";
    data[global_id().x] = 0;
}
"#,
        &[("3:13", "only integer, float and bool literals are supported in kernels")],
    );
}

// Names and type checking

#[test]
fn unknown_variable() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    data[global_id().x] = count;
}
"#,
        &[("3:27", "cannot find `count` in this kernel")],
    );
}

#[test]
fn unknown_function() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) {
    let i = global_id().x;
    data[i] = fast_inverse_sqrt(data[i]);
}
"#,
        &[("4:15", "cannot find function `fast_inverse_sqrt`: helpers must be defined in the kernel body or the `#[ld::kernels]` module")],
    );
}

#[test]
fn unknown_method() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) {
    let i = global_id().x;
    data[i] = data[i].cbrt();
}
"#,
        &[("4:15", "method `cbrt` is not supported in kernels (see KERNELS.md for the list)")],
    );
}

#[test]
fn mismatched_types_u32_plus_f32() {
    fails(ui_case!("mismatched_types_u32_plus_f32"), &[("4:15", "mismatched types: `u32` and `f32` (kernels never convert implicitly: use `as`)")]);
}

#[test]
fn index_with_f32() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], x: f32) {
    data[x] = 1;
}
"#,
        &[("3:10", "index must be `u32` or `i32`, found `f32`")],
    );
}

#[test]
fn assign_to_immutable_local() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let x = 1u32;
    x = 2;
    data[global_id().x] = x;
}
"#,
        &[("4:5", "cannot assign to `x`: declare it `let mut x`")],
    );
}

#[test]
fn assign_to_for_variable() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    for i in 0..n {
        i += 1;
        data[i] = 0;
    }
}
"#,
        &[("4:9", "cannot assign to `i`: `i` is the loop variable; copy it into a `let mut` local to change it")],
    );
}

#[test]
fn write_to_readonly_slice() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &[f32]) {
    let i = global_id().x;
    data[i] = 1.0;
}
"#,
        &[("4:5", "cannot assign to `data`: declare it `&mut [..]` to write it")],
    );
}

// Literals

#[test]
fn u32_literal_out_of_range() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    data[global_id().x] = 5_000_000_000u32;
}
"#,
        &[("3:27", "integer literal does not fit in 32 bits")],
    );
}

#[test]
fn int_literal_out_of_range_i32() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [i32]) {
    let big = 3000000000;
    data[global_id().x] = big;
}
"#,
        &[("3:15", "literal out of range for `i32`")],
    );
}

#[test]
fn int_literal_out_of_range_default_i32_cast() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) {
    let big = 3000000000;
    data[global_id().x] = big as f32;
}
"#,
        &[("3:15", "literal out of range for `i32`; unsuffixed integer literals default to `i32`: write `3000000000u32`")],
    );
}

// Memory: shared arrays and atomics

#[test]
fn shared_scalar() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let s = shared::<u32>();
    data[global_id().x] = s;
}
"#,
        &[("3:22", "shared memory is declared as an array: `shared::<[T; N]>()`")],
    );
}

#[test]
fn shared_inside_if() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    if n > 4 {
        let tile = shared::<[u32; 64]>();
        tile[local_index()] = 1;
    }
    data[global_id().x] = 0;
}
"#,
        &[("4:9", "shared arrays must be declared at the top level of the kernel body (they live for the whole workgroup)")],
    );
}

#[test]
fn shared_too_large() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32]) {
    let small = shared::<[f32; 64]>();
    let big = shared::<[f32; 65536]>();
    big[local_index()] = small[0];
    data[0] = big[0];
}
"#,
        &[(
            "4:24",
            "the kernel's shared arrays need 262400 bytes of workgroup memory; WebGPU guarantees 16384 (`maxComputeWorkgroupStorageSize`): use fewer or smaller shared arrays",
        )],
    );
}

#[test]
fn atomic_method_on_plain_buffer() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    data[0].fetch_add(1);
}
"#,
        &[("3:5", "`.fetch_add()` applies to elements of atomic slices (`&[AtomicU32]`)")],
    );
}

#[test]
fn unknown_atomic_method_is_named() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(c: &[AtomicU32]) {
    let r = c[0].compare_exchange_weak(0, 1, Ordering::Relaxed, Ordering::Relaxed);
}
"#,
        &[(
            "3:18",
            "`.compare_exchange_weak()` is not an atomic operation kernels have: atomic elements take `.load()`, `.store(v)`, `.swap(v)`, `.compare_and_swap(current, new)` and `.fetch_add`, `_sub`, `_max`, `_min`, `_and`, `_or`, `_xor` (each with an optional `Ordering::Relaxed`) (a compare-exchange is `.compare_and_swap(current, new)`: it returns the value the element held and stores `new` where that was `current`, never failing spuriously)",
        )],
    );
}

#[test]
fn plain_store_to_atomic() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(bins: &[AtomicU32]) {
    bins[global_id().x] = 1;
}
"#,
        &[("3:5", "atomic elements are written with `.store(v)` or `.fetch_add(v)`")],
    );
}

// Helpers

#[test]
fn helper_wrong_arg_count() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    fn add(a: u32, b: u32) -> u32 {
        a + b
    }
    data[global_id().x] = add(1);
}
"#,
        &[("6:27", "`add` takes 2 arguments, 1 given")],
    );
}

#[test]
fn helper_mut_window_from_readonly() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(src: &[f32], dst: &mut [f32]) {
    fn zero(v: &mut [f32]) {
        v[0] = 0.0;
    }
    zero(&mut src[global_id().x..]);
    dst[0] = 1.0;
}
"#,
        &[("6:10", "parameter `v` writes its slice but `src` is read-only")],
    );
}

#[test]
fn builtin_in_helper() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    fn me() -> u32 {
        global_id().x
    }
    data[me()] = 1;
}
"#,
        &[("4:9", "`global_id()` is only available in the kernel body: pass it to the helper as an argument")],
    );
}

#[test]
fn barrier_in_helper() {
    fails(ui_case!("barrier_in_helper"), &[("4:9", "barriers are only allowed in the kernel body, not in helpers")]);
}

#[test]
fn mutual_recursion() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    fn even(n: u32) -> u32 {
        if n == 0 { 1 } else { odd(n - 1) }
    }
    fn odd(n: u32) -> u32 {
        if n == 0 { 0 } else { even(n - 1) }
    }
    let i = global_id().x;
    data[i] = even(data[i]);
}
"#,
        &[("3:8", "`even` is recursive: WGSL does not allow recursion")],
    );
}

// Barrier uniformity

#[test]
fn barrier_under_nonuniform_if() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    if global_id().x < n {
        barrier();
        data[global_id().x] = 1;
    }
}
"#,
        &[("4:9", BARRIER), ("3:8", diverges!("this condition is not uniform: `global_id()` differs between invocations"))],
    );
}

#[test]
fn storage_barrier_under_nonuniform_if() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let lid = local_index();
    if lid % 2 == 0 {
        data[global_id().x] = 1;
        storage_barrier();
    }
}
"#,
        &[
            ("6:9", STORAGE_BARRIER),
            ("4:8", diverges!("this condition is not uniform: `lid` may differ between invocations")),
            ("3:5", "`lid` stops being uniform here: `local_index()` differs between invocations"),
        ],
    );
}

#[test]
fn barrier_in_else_branch() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    if local_id().x == 0 {
        data[workgroup_id().x] = 0;
    } else {
        barrier();
    }
}
"#,
        &[("6:9", BARRIER), ("3:8", diverges!("this condition is not uniform: `local_id()` differs between invocations"))],
    );
}

#[test]
fn barrier_under_short_circuit() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    if n > 0 && global_id().x < n {
        barrier();
    }
    data[0] = 0;
}
"#,
        &[("4:9", BARRIER), ("3:8", diverges!("this condition is not uniform: `global_id()` differs between invocations"))],
    );
}

#[test]
fn barrier_under_if_expression_value() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let m = if local_index() < 3 { 1u32 } else { 2u32 };
    if m == 1 {
        barrier();
    }
    data[0] = m;
}
"#,
        &[
            ("5:9", BARRIER),
            ("4:8", diverges!("this condition is not uniform: `m` may differ between invocations")),
            ("3:36", "`m` stops being uniform here: this condition is not uniform: `local_index()` differs between invocations"),
        ],
    );
}

#[test]
fn barrier_under_local_assigned_in_divergent_branch() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let mut flag = 0u32;
    if local_index() < 32 {
        flag = 1;
    }
    if flag == 1 {
        barrier();
    }
    data[global_id().x] = flag;
}
"#,
        &[
            ("8:9", BARRIER),
            ("7:8", diverges!("this condition is not uniform: `flag` may differ between invocations")),
            ("5:9", "`flag` stops being uniform here: this condition is not uniform: `local_index()` differs between invocations"),
        ],
    );
}

#[test]
fn barrier_under_loop_carried_divergence() {
    fails(
        ui_case!("barrier_under_loop_carried_divergence"),
        &[
            ("6:13", BARRIER),
            ("5:12", diverges!("this condition is not uniform: `x` may differ between invocations")),
            ("8:9", "`x` stops being uniform here: `local_index()` differs between invocations"),
        ],
    );
}

#[test]
fn barrier_in_loop_over_local_index() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let mut j = 0u32;
    while j < local_index() {
        tile[j] = j;
        barrier();
        j += 1;
    }
    data[global_id().x] = tile[0];
}
"#,
        &[
            ("7:9", BARRIER),
            ("5:11", diverges!("this loop condition is not uniform: `j` may differ between invocations")),
            ("8:9", "`j` stops being uniform here: `local_index()` differs between invocations"),
        ],
    );
}

#[test]
fn barrier_under_window_len() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let w = &data[local_index()..];
    if w.len() > 8 {
        barrier();
    }
}
"#,
        &[
            ("5:9", BARRIER),
            ("4:8", diverges!("this condition is not uniform: `ld_w_offset` may differ between invocations")),
            ("3:13", "`ld_w_offset` stops being uniform here: `local_index()` differs between invocations"),
        ],
    );
}

#[test]
fn barrier_under_condition_on_shared_memory() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    tile[local_index()] = data[global_id().x];
    barrier();
    if tile[local_index()] > 0 {
        barrier();
    }
}
"#,
        &[
            ("7:9", BARRIER),
            ("6:8", diverges!("this condition is not uniform: it reads `tile`, memory other invocations may write, so the value read may differ between them")),
        ],
    );
}

#[test]
fn barrier_under_rw_buffer_value() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    if data[0] > 0 {
        barrier();
    }
    data[global_id().x] = 1;
}
"#,
        &[
            ("4:9", BARRIER),
            ("3:8", diverges!("this condition is not uniform: it reads `data`, memory other invocations may write, so the value read may differ between them")),
        ],
    );
}

#[test]
fn barrier_under_atomic_load() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(counter: &[AtomicU32]) {
    if counter[0].load() > 10 {
        barrier();
    }
}
"#,
        &[("4:9", BARRIER), ("3:8", diverges!("this condition is not uniform: an atomic operation's result differs between invocations"))],
    );
}

#[test]
fn barrier_under_helper_result() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    fn half(x: u32) -> u32 {
        x / 2
    }
    if half(local_index()) == 1 {
        barrier();
    }
    data[0] = 0;
}
"#,
        &[("7:9", BARRIER), ("6:8", diverges!("this condition is not uniform: `local_index()` differs between invocations"))],
    );
}

#[test]
fn barrier_after_nonuniform_return() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    let i = global_id().x;
    if i >= n {
        return;
    }
    tile[local_index()] = data[i];
    barrier();
    data[i] = tile[0];
}
"#,
        &[("9:5", BARRIER), ("6:9", diverges!("this `return` is taken by only some invocations, so they miss the barriers after it"))],
    );
}

#[test]
fn barrier_before_nonuniform_return_in_loop() {
    fails(
        r#"
// Invocations that return in iteration 1 miss the barrier in iteration 2.
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    for s in 0..n {
        tile[lid] = s;
        barrier();
        if lid < s {
            return;
        }
    }
    data[global_id().x] = tile[0];
}
"#,
        &[("8:9", BARRIER), ("10:13", diverges!("this `return` is taken by only some invocations, so the loop's later iterations diverge"))],
    );
}

#[test]
fn barrier_before_nonuniform_return_in_loop_top() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    loop {
        tile[lid] += 1;
        barrier();
        if tile[lid] > lid {
            return;
        }
    }
}
"#,
        &[("7:9", BARRIER), ("9:13", diverges!("this `return` is taken by only some invocations, so the loop's later iterations diverge"))],
    );
}

#[test]
fn barrier_before_nonuniform_return_in_while() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    let mut s = 0u32;
    while s < n {
        s += 1;
        tile[lid] = s;
        barrier();
        if lid < s {
            return;
        }
    }
    data[global_id().x] = tile[0];
}
"#,
        &[("9:9", BARRIER), ("11:13", diverges!("this `return` is taken by only some invocations, so the loop's later iterations diverge"))],
    );
}

#[test]
fn barrier_in_loop_with_nonuniform_break() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32], n: u32) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    for step in 0..n {
        if data[global_id().x] == step {
            break;
        }
        tile[lid] = step;
        barrier();
    }
}
"#,
        &[("10:9", BARRIER), ("7:13", diverges!("this `break` is taken by only some invocations, so the loop's later iterations diverge"))],
    );
}

#[test]
fn barrier_in_loop_nonuniform_break_loop() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    loop {
        barrier();
        if tile[lid] == lid {
            break;
        }
        tile[lid] += 1;
    }
    data[global_id().x] = tile[lid];
}
"#,
        &[("6:9", BARRIER), ("8:13", diverges!("this `break` is taken by only some invocations, so the loop's later iterations diverge"))],
    );
}

// Accepted: barriers the analysis must not reject

#[test]
fn barrier_after_divergent_loop() {
    compiles(
        r#"
// A loop whose condition depends on the invocation id but contains no
// barrier; the barrier after it is reached by every invocation.
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    let mut acc = 0u32;
    let mut j = 0u32;
    while j < lid {
        acc += j;
        j += 1;
    }
    tile[lid] = acc;
    barrier();
    data[global_id().x] = tile[63 - lid];
}
"#,
    );
}

#[test]
fn barrier_in_uniform_loop() {
    compiles(
        r#"
// A barrier inside a loop whose bound is a scalar parameter (uniform).
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32], n: u32) {
    let tile = shared::<[f32; 64]>();
    let lid = local_index();
    for step in 0..n {
        tile[lid] = step as f32;
        barrier();
        if lid == 0 {
            data[workgroup_id().x] += tile[63];
        }
        barrier();
    }
}
"#,
    );
}

#[test]
fn early_return_without_barrier() {
    compiles(
        r#"
// A non-uniform early return is fine in a kernel without barriers.
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [f32], n: u32) {
    let i = global_id().x;
    if i >= n {
        return;
    }
    data[i] = data[i] * 2.0;
}
"#,
    );
}

/// More memories than the engine holds configurations for.
#[test]
fn too_many_targets() {
    let arrays: String = (0..33).map(|i| format!("    let a{i} = shared::<[u32; 4]>();\n    a{i}[0] = 1;\n")).collect();
    let src = format!("#[ld::kernel(workgroup_size = 64)]\nfn k(data: &mut [u32]) {{\n{arrays}}}\n");
    fails(&src, &[("2:4", "this kernel writes 34 memories with plain stores (writable buffers and workgroup arrays); ld checks at most 32 per kernel: make some read-only or atomic, merge arrays, or split the kernel")]);
}

#[test]
fn slice_methods_other_than_len_suggest_indexing() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    data.swap(0, 1);
}
"#,
        &[("3:10", "slices have no `.swap()` in kernels: swap through a local (`let t = data[i]; data[i] = data[j]; data[j] = t;`)")],
    );
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    data.fill(0);
}
"#,
        &[("3:10", "slices have no `.fill()` in kernels: index them (`data[i]`) or ask their `.len()`")],
    );
}

#[test]
fn atomics_in_structs_are_named() {
    fails(
        r#"
#[ld::kernels]
mod m {
    pub struct Counter {
        pub n: AtomicU32,
    }
    #[kernel(workgroup_size = 64)]
    pub fn k(c: &mut [Counter]) {
        c[0].n = 0;
    }
}
"#,
        &[("4:16", "`AtomicU32` cannot be a struct field or a local in a kernel: atomics live in buffers, a parameter `&[AtomicU32]`")],
    );
}

#[test]
fn fences_point_to_barriers() {
    fails(
        r#"
#[ld::kernel(workgroup_size = 64)]
fn k(data: &mut [u32]) {
    core::sync::atomic::fence(Ordering::SeqCst);
}
"#,
        &[("3:5", "memory fences are not supported in kernels: order memory with `barrier()` (workgroup memory) or `storage_barrier()` (storage) between the accesses, or use atomics")],
    );
}
