//! The CPU reference executor: runs a kernel's generated twin with WGSL
//! semantics, checking every access, so its answers can judge the GPU's.

pub mod executor;
pub mod interp;
pub mod ops;
pub mod twin;
