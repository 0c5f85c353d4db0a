//! The wgpu backend: device, pipelines, dispatch, transfers.

mod device;
mod dispatch;
pub(crate) mod pipeline;
pub(crate) mod transfer;

pub(crate) use device::Contents;
pub use device::{open, GpuContext};
pub use dispatch::{dispatch, GpuBinding};
pub use transfer::{read_words, upload, zeroed};
