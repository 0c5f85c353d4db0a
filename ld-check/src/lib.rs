//! Launch files: what to run when checking WGSL compute shaders with ld.
//!
//! A launch file (TOML) names buffers and their contents, then the
//! dispatches that bind them, in order: a radix sort's passes, a reduce
//! then a scan. [`LaunchFile::load`] reads one, and [`LaunchFile::resolve`]
//! checks it against the shaders it names (naga reads and validates them):
//! every entry point exists, every binding an entry point uses is bound to
//! a declared buffer of a size that fits, every override set exists and
//! every one without a default is set, and a uniform buffer's fields are
//! the struct's. [`Resolved::buffer_bytes`] then gives each buffer its
//! bytes (a uniform's fields laid out by the shader's own layout). Each
//! mistake is an error naming the field of the launch file and, where it
//! comes from the shader, the declaration.
//!
//! A launch file may carry a `[case]` table: what a test expects of it
//! (the verdict, the races), and which real shader it is modelled on. The
//! corpus in `tests/corpus/` is made of such files.
#![warn(missing_docs)]

mod contents;
mod error;
mod file;
pub mod npy;
mod run;
mod shader;

pub use error::LaunchError;
pub use file::{BufferSpec, Case, Contents, Dispatch, ExpectedRace, LaunchFile, RaceKind, ScalarType, Scope, Verdict};
pub use run::{DispatchRun, Outcome};
pub use shader::{Binding, Resolved, ResolvedDispatch, Shader};

#[cfg(test)]
mod tests;
