//! `#[ld::kernel]`: compiles a Rust function into a GPU kernel.
//!
//! The pipeline, one module per stage:
//! `parse` (syn → typed IR) → `analysis` (barrier uniformity) →
//! `wgsl` (native WGSL, validated by naga) and `lower` + `cpu` (the CPU twin)
//! → `expand` (the `ld::Kernel` impl tying them together).
#![warn(missing_docs)]

mod analysis;
mod cpu;
mod expand;
mod ir;
mod lower;
mod parse;
#[cfg(test)]
mod tests;
mod wgsl;

use proc_macro::TokenStream;

/// Turns a function into a kernel: `#[ld::kernel(workgroup_size = 64)]`.
///
/// The function becomes a unit struct of the same name implementing
/// `ld::Kernel`, with a typed `launch` method taking the kernel's own
/// parameters: `name.launch(&runtime, grid, args...)`. See
/// KERNELS.md for the supported Rust subset.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::kernel(attr.into(), item.into()).unwrap_or_else(|e| e.to_compile_error()).into()
}

/// A module of kernels sharing helpers, structs and consts: kernels inside
/// are marked `#[kernel(workgroup_size = N)]`.
#[proc_macro_attribute]
pub fn kernels(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::kernels(attr.into(), item.into()).unwrap_or_else(|e| e.to_compile_error()).into()
}
