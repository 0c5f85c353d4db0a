//! EM: the M-step count of the paper's running example (LDetector, Fig. 2).
//!
//! For each cluster `j` (grid y) every invocation walks its share of the
//! points, and for each point `x_i` with membership weight `w_ij` forms
//! `dist = x_i - C_j`, `temp1 = dist * w_ij` and accumulates the 3x3
//! `Rp += temp1 ⊗ dist` and the weight. As in the paper, `dist`, `temp1` and
//! `Rp` are windows into one shared array `s_float` (CUDA pointers
//! `s_float + index`); after the barrier the workgroup reduces its `Rp`s and
//! weights, and the host divides to get each cluster's covariance.
//!
//! The racy variant (default, as in the paper) computes the scratch window
//! index with `lid & 127` in a 256-invocation workgroup: invocations `lid`
//! and `lid + 128` share their `temp1`/`dist` windows, a write-write race on
//! shared memory (Table VI: em, ww, shared). `--fixed` gives every
//! invocation its own window.
//!
//! `cargo run --release --example em -- [--fixed] [--cpu] [--check] [--json] [--warp-size N] [--size X]`

mod common;

#[path = "apps/em.rs"]
mod em;

fn main() {
    common::app::main::<em::Em>()
}
