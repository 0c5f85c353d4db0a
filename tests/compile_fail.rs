//! Compile-fail tests: unsupported Rust and non-uniform barriers in
//! `#[ld::kernel]` functions must be compile errors that point at the
//! offending user code and say what is wrong.
//!
//! Regenerate the expected output with
//! `TRYBUILD=overwrite cargo test -q --test compile_fail`.

#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui-pass/*.rs");
}
