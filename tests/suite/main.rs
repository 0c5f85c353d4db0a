//! The integration tests, one binary (as wgpu's `tests/` is): every
//! module below links wgpu once, shares one device per set of settings,
//! and lavapipe compiles each distinct pipeline once per run.

// The paper's EM kernels are the samples' app and, as a module of their
// own, three test modules' subject: one file, loaded where each uses it.
#![allow(clippy::duplicate_mod)]

/// The tests' helpers: runtimes, GPU-vs-CPU comparison, verdict tables.
mod support;

#[path = "../../samples/apps/all.rs"]
#[allow(dead_code)]
mod apps;
/// The samples' helpers and apps, which `samples.rs` runs (the apps name
/// their helpers `crate::common`, as in the examples).
#[path = "../../samples/common/mod.rs"]
mod common;

mod check_catalogue;
mod classics;
mod corpus;
mod deterministic;
mod em_check;
mod guards;
mod html_report;
mod idioms;
mod in_place;
mod lang_arith;
mod lang_consts;
mod lang_control;
mod lang_float;
mod lang_memory;
mod lang_names;
mod numerics;
mod patterns;
mod places;
mod probes;
mod rounds;
mod runtime_errors;
mod samples;
mod semantics;
mod session;
mod shader_control;
mod shader_memory;
mod shader_types;
mod smoke;
mod stats;
