//! Errors say what happened and what to do about it.

use std::time::Duration;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no GPU adapter found{detail} and LD_REQUIRE_GPU=1 forbids falling back to the CPU executor; install a Vulkan driver (on Debian: `apt-get install mesa-vulkan-drivers` for lavapipe) or unset LD_REQUIRE_GPU")]
    NoAdapter { detail: String },

    #[error("could not open the GPU device on {adapter}: {reason}")]
    DeviceOpen { adapter: String, reason: String },

    #[error("{var}={value:?} is not valid: expected {expected}; fix or unset it")]
    Env { var: &'static str, value: String, expected: &'static str },

    #[error("LD_ADAPTER={want:?} matches none of the GPU adapters found ({}); use part of one of these names, or unset LD_ADAPTER", if found.is_empty() { "none".to_string() } else { found.join("; ") })]
    NoMatchingAdapter { want: String, found: Vec<String> },

    #[error("kernel `{kernel}` takes {expected} arguments, {given} given; its signature is {signature}")]
    ArgCount { kernel: &'static str, expected: usize, given: usize, signature: String },

    #[error("argument {index} of `{kernel}` (`{param}: {expected}`): {problem}")]
    Arg { kernel: &'static str, index: usize, param: &'static str, expected: String, problem: String },

    #[error("grid {grid:?} for `{kernel}`: {problem}")]
    Grid { kernel: &'static str, grid: [u32; 3], problem: String },

    #[error("buffer of {len} elements of `{elem}` ({bytes} bytes) exceeds the device's limit of {limit} bytes per storage binding; split the data or use a device with a larger `max_storage_buffer_binding_size`")]
    BufferTooLarge { elem: &'static str, len: usize, bytes: u64, limit: u64 },

    #[error("{what} has {got} elements but {expected} were given; buffers keep their length, create a new one to resize")]
    LengthMismatch { what: String, got: usize, expected: usize },

    #[error("kernel `{kernel}` faulted in invocation {invocation}: {message}")]
    Fault {
        kernel: &'static str,
        /// Global, workgroup and local id, in words.
        invocation: String,
        /// What went wrong, for a caller to match on.
        kind: FaultKind,
        /// What went wrong and what it left in the user's buffers, in words.
        message: String,
    },

    #[error("kernel `{kernel}` did not finish within {timeout:?} on {adapter}: the launch is more work than the device does in that time (raise LD_GPU_TIMEOUT_SECS, or launch fewer workgroups at a time; a loop that never ends is reported as such once it spends its fuel, see Launch::max_loop_iterations). The device may still be running it, so this runtime's GPU is unusable now: every later call on it fails; create a new Runtime")]
    Timeout { kernel: &'static str, timeout: Duration, adapter: String },

    #[error("the GPU device is lost{during}: {reason}. Its buffers cannot be used any more; create a new Runtime (or use LD_BACKEND=cpu)")]
    DeviceLost { during: String, reason: String },

    #[error("wgpu rejected {what}: {source}")]
    Wgpu {
        what: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },

    #[error("{mode} of `{kernel}` needs {needed} bytes for {what}, more than the {limit_name} of {limit} bytes: {advice}")]
    CheckMemory {
        kernel: &'static str,
        /// `check mode` or `deterministic mode`.
        mode: &'static str,
        what: String,
        needed: u64,
        limit: u64,
        limit_name: &'static str,
        advice: String,
    },

    #[error("{}", loop_limit(kernel, mode, adapter, *line))]
    LoopLimit {
        kernel: &'static str,
        /// `native mode`, `check mode` or `deterministic mode`.
        mode: &'static str,
        adapter: String,
        /// The source line of the kernel's loop the device ended, when it
        /// was one of the kernel's (else one of the engine's).
        line: Option<u32>,
    },

    #[error("CheckOptions::{option} = {value}: {problem}")]
    BadOption { option: &'static str, value: String, problem: &'static str },

    #[error("{0}")]
    Unsupported(String),

    #[error("could not write the check report LD_REPORT={path:?}: {source}; set LD_REPORT to a path in a writable directory, or unset it")]
    Report {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Why a kernel faulted (on either backend: the generated WGSL checks
/// itself as the CPU executor does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// An index past the end of `array` (a parameter or a shared array) at
    /// the kernel's source line and column.
    OutOfBounds { array: String, index: i64, len: u32, line: u32, column: u32 },
    /// An invocation ran `fuel` loop iterations without finishing: the
    /// loop at `line` and `column` of the kernel's source was to start one
    /// more.
    NonTermination { fuel: u64, line: u32, column: u32 },
    /// Invocations of one workgroup stopped at different barriers (`None`:
    /// finished); each side is (local index, barrier).
    BarrierDivergence { first: (u32, Option<u32>), other: (u32, Option<u32>) },
}

/// `Error::LoopLimit`'s message.
fn loop_limit(kernel: &str, mode: &str, adapter: &str, line: Option<u32>) -> String {
    let engine = if mode == "check mode" { "checks each region at its barrier" } else { "folds each region" };
    let which = match line {
        // The kernel's own loop: long, or never ending (a spin lock).
        Some(l) if mode == "native mode" => format!("ended the kernel's loop at line {l} before it finished: lavapipe ends the loops of an invocation once they have run 65535 iterations in all (a loop that never ends gets there too)"),
        // The engine's loops at every barrier count too: a loop with a
        // barrier in it gets there after far fewer iterations.
        Some(l) => format!(
            "ended the kernel's loop at line {l} before it finished: lavapipe ends the loops of an invocation once they have run 65535 iterations in all, and these count the loops {mode} runs at every barrier the kernel passes ({mode} {engine} with loops of its own), so a loop with barriers in it stops after far fewer iterations than natively (a loop that never ends gets there too)"
        ),
        None => format!("cut loops short: lavapipe ends the loops of an invocation once they have run 65535 iterations in all, and {mode} {engine} with loops of its own"),
    };
    format!(
        "kernel `{kernel}` in {mode}: the device ({adapter}) {which}; the results would be wrong, so none are given. Run it on the CPU reference (LD_BACKEND=cpu), on a GPU, or with fewer loop iterations (and barriers) per invocation, e.g. by splitting the launch"
    )
}

impl Error {
    /// A wgpu error (validation, mapping, polling) about `what`.
    pub(crate) fn wgpu(what: impl Into<String>, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        Error::Wgpu { what: what.into(), source: Box::new(source) }
    }
}
