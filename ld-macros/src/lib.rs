//! `#[ld::kernel]`: compiles a Rust function into a GPU kernel.
//!
//! This crate is the Rust dialect's front-end to `ld-compiler`:
//! `parse` (syn → the compiler's typed IR, its spans interned in `spans`)
//! → the compiler's `analysis` and `wgsl` (every variant's WGSL, validated
//! by naga) → `cpu` (the CPU twin, Rust code over the compiler's `lower`ed
//! blocks) → `expand` (the `ld::Kernel` impl tying them together).
#![warn(missing_docs)]

mod cpu;
mod expand;
mod parse;
mod spans;
#[cfg(test)]
mod tests;

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
