//! The wgpu backend: device, pipelines, dispatch, transfers.

mod device;
mod dispatch;
#[cfg(test)]
mod exact_fix;
pub(crate) mod pipeline;
mod scratch;
pub(crate) mod transfer;

pub use device::{open, GpuContext};
pub use dispatch::{dispatch, GpuBinding};
pub(crate) use scratch::Contents;
pub use transfer::{read_words, upload, zeroed};
