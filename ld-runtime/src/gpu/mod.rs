//! The wgpu backend: device, pipelines, dispatch, transfers.

mod device;
mod dispatch;
mod pipeline;
mod transfer;

pub use device::{open, GpuContext};
pub use dispatch::{dispatch, GpuBinding};
pub use transfer::{read_words, upload, zeroed};
