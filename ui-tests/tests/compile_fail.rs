//! How `#[ld::kernel]` errors look to a user, through rustc: one trybuild
//! case per kind of diagnostic (an error at the attribute, an unsupported
//! type, unsupported syntax, a type error, an error in a helper, and a
//! non-uniform barrier with the chain of causes that explains it).
//!
//! Each case starts with `use ld_macros as ld;`: the attribute a user
//! writes as `#[ld::kernel]` is the compiler crate's, and its diagnostics
//! stop the build before anything of `ld`'s runtime is looked at.
//!
//! The same files are read by `ld-macros/src/tests/diagnostics.rs`
//! (`ui_case!`), which checks each diagnostic's message and position.
//! Every other compile error, and the kernels that must compile, are tested
//! in-process there only (message and
//! line:column of each diagnostic; `cargo test -p ld-macros`, well under a
//! second), together with unit tests of the uniformity analysis and the
//! lowering, and the native WGSL snapshots. Add new cases there; add one
//! here only for a new way an error renders.
//!
//! The typed launches' compile errors (a wrong argument type, mutability
//! or count) are the `compile_fail` examples in the `ld` crate's docs
//! (`src/lib.rs`): rustdoc compiles them against the `ld` the workspace has
//! built and checks each one's error code, where a trybuild case would
//! check wgpu and all of `ld`'s dependencies again in a project of its own.
//!
//! Regenerate the expected output with
//! `TRYBUILD=overwrite cargo test -q -p ld-ui-tests`.

#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
