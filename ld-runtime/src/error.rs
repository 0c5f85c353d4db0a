//! Errors say what happened and what to do about it.

use crate::launch::Mode;
use std::time::Duration;

/// The result of everything in ld that can fail.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, and (in its message) what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No GPU adapter, and `LD_REQUIRE_GPU=1` forbids the CPU executor.
    #[error("no GPU adapter found{detail} and LD_REQUIRE_GPU=1 forbids falling back to the CPU executor; install a Vulkan driver (on Debian: `apt-get install mesa-vulkan-drivers` for lavapipe) or unset LD_REQUIRE_GPU")]
    NoAdapter {
        /// What the adapter search saw.
        detail: String,
    },

    /// The adapter was found but its device could not be opened.
    #[error("could not open the GPU device on {adapter}: {reason}")]
    DeviceOpen {
        /// The adapter.
        adapter: String,
        /// wgpu's reason.
        reason: String,
    },

    /// An environment variable of ld's has a value it cannot use.
    #[error("{var}={value:?} is not valid: expected {expected}; fix or unset it")]
    Env {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
        /// What it may be.
        expected: String,
    },

    /// `LD_ADAPTER` names no adapter that was found.
    #[error("LD_ADAPTER={want:?} matches none of the GPU adapters found ({}); use part of one of these names, or unset LD_ADAPTER", if found.is_empty() { "none".to_string() } else { found.join("; ") })]
    NoMatchingAdapter {
        /// What `LD_ADAPTER` asked for.
        want: String,
        /// The adapters found.
        found: Vec<String>,
    },

    /// An untyped launch got the wrong number of arguments.
    #[error("kernel `{kernel}` takes {expected} arguments, {given} given; its signature is {signature}")]
    ArgCount {
        /// The kernel.
        kernel: &'static str,
        /// Its parameters.
        expected: usize,
        /// The arguments given.
        given: usize,
        /// Its signature, as Rust writes it.
        signature: String,
    },

    /// An argument does not fit its parameter.
    #[error("argument {index} of `{kernel}` (`{param}: {expected}`): {problem}")]
    Arg {
        /// The kernel.
        kernel: &'static str,
        /// The argument's position.
        index: usize,
        /// The parameter's name.
        param: &'static str,
        /// The parameter's type, as the kernel declares it.
        expected: String,
        /// What is wrong with the argument.
        problem: String,
    },

    /// A shader cannot be read, naga rejects it, or it uses a construct
    /// ld cannot check: the message shows each problem at its line.
    #[error("{0}")]
    Shader(#[from] ld_compiler::front::ShaderError),

    /// A loaded shader's binding does not fit what the shader declares.
    #[error("`{kernel}`'s @group({group}) @binding({binding}) (`{variable}`): {problem}")]
    Binding {
        /// The entry point.
        kernel: &'static str,
        /// The bind group.
        group: u32,
        /// The binding.
        binding: u32,
        /// The shader's variable there (empty if it declares none).
        variable: String,
        /// What is wrong, with both sides.
        problem: String,
    },

    /// The grid cannot be dispatched.
    #[error("grid {grid:?} for `{kernel}`: {problem}")]
    Grid {
        /// The kernel.
        kernel: &'static str,
        /// The grid asked for.
        grid: [u32; 3],
        /// What is wrong with it.
        problem: String,
    },

    /// A buffer is larger than the device can bind.
    #[error("buffer of {len} elements of `{elem}` ({bytes} bytes) exceeds the device's limit of {limit} bytes per storage binding; split the data or use a device with a larger `max_storage_buffer_binding_size`")]
    BufferTooLarge {
        /// The element type.
        elem: &'static str,
        /// Elements asked for.
        len: usize,
        /// Their bytes.
        bytes: u64,
        /// The device's limit per binding.
        limit: u64,
    },

    /// Data of the wrong length for a buffer.
    #[error("{what} has {got} elements but {expected} were given; buffers keep their length, create a new one to resize")]
    LengthMismatch {
        /// The buffer.
        what: String,
        /// Its length.
        got: usize,
        /// The length given.
        expected: usize,
    },

    /// The kernel faulted (out of bounds, not terminating, barrier
    /// divergence) on either backend.
    #[error("kernel `{kernel}` faulted in invocation {invocation}: {message}")]
    Fault {
        /// The kernel.
        kernel: &'static str,
        /// Global, workgroup and local id, in words.
        invocation: String,
        /// What went wrong, for a caller to match on.
        kind: FaultKind,
        /// What went wrong and what it left in the user's buffers, in words.
        message: String,
    },

    /// `LD_ROUND_TRIP=1`: the kernel's plain WGSL, read back through the
    /// shader front-end, did not do what the Rust kernel did.
    #[error("round trip of kernel `{kernel}` in {mode}: its plain WGSL, read back through the shader front-end, {difference}")]
    RoundTrip {
        /// The Rust kernel.
        kernel: &'static str,
        /// The mode both ran in.
        mode: Mode,
        /// What differed, in words.
        difference: String,
    },

    /// The device did not finish in time.
    #[error("kernel `{kernel}` did not finish within {timeout:?} on {adapter}: the launch is more work than the device does in that time (raise LD_GPU_TIMEOUT_SECS, or launch fewer workgroups at a time; a loop that never ends is reported as such once it spends its fuel, see Launch::max_loop_iterations). The device may still be running it, so this runtime's GPU is unusable now: every later call on it fails; create a new Runtime")]
    Timeout {
        /// The kernel.
        kernel: &'static str,
        /// How long ld waited (`LD_GPU_TIMEOUT_SECS`).
        timeout: Duration,
        /// The adapter.
        adapter: String,
    },

    /// The device was lost.
    #[error("the GPU device is lost{during}: {reason}. Its buffers cannot be used any more; create a new Runtime (or use LD_BACKEND=cpu)")]
    DeviceLost {
        /// What ld was doing, in words (may be empty).
        during: String,
        /// wgpu's reason.
        reason: String,
    },

    /// wgpu rejected something ld asked of it.
    #[error("wgpu rejected {what}: {source}")]
    Wgpu {
        /// What ld asked for.
        what: String,
        /// wgpu's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },

    /// Check or deterministic mode needs more memory than allowed.
    #[error("{mode} of `{kernel}` needs {needed} bytes for {what}, more than the {limit_name} of {limit} bytes: {advice}")]
    CheckMemory {
        /// The kernel.
        kernel: &'static str,
        /// [`Mode::Check`] or [`Mode::Deterministic`].
        mode: Mode,
        /// What needs the memory.
        what: String,
        /// Bytes needed.
        needed: u64,
        /// Bytes allowed.
        limit: u64,
        /// Which limit: the memory budget or a device limit, in words.
        limit_name: &'static str,
        /// What to do.
        advice: String,
    },

    /// The device ended the kernel's loops early (lavapipe's limit).
    #[error("{}", loop_limit(kernel, mode, adapter, *line))]
    LoopLimit {
        /// The kernel.
        kernel: &'static str,
        /// The mode it ran in.
        mode: Mode,
        /// The adapter.
        adapter: String,
        /// The source line of the kernel's loop the device ended, when it
        /// was one of the kernel's (else one of the engine's).
        line: Option<u32>,
    },

    /// A `CheckOptions` value that would make a check do something else
    /// than asked.
    #[error("CheckOptions::{option} = {value}: {problem}")]
    BadOption {
        /// The option's name.
        option: &'static str,
        /// Its value.
        value: String,
        /// Why it cannot be used.
        problem: &'static str,
    },

    /// Something ld does not support, said in words.
    #[error("{0}")]
    Unsupported(String),

    /// `LD_REPORT` could not be written.
    #[error("could not write the check report LD_REPORT={path:?}: {source}; set LD_REPORT to a path in a writable directory, or unset it")]
    Report {
        /// The path.
        path: std::path::PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// Why a kernel faulted (on either backend: the generated WGSL checks
/// itself as the CPU executor does).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FaultKind {
    /// An index past the end of `array` (a parameter or a shared array) at
    /// the kernel's source line and column.
    OutOfBounds {
        /// The parameter or shared array.
        array: String,
        /// The index.
        index: i64,
        /// The array's length.
        len: u32,
        /// The access's source line.
        line: u32,
        /// Its column.
        column: u32,
    },
    /// An invocation ran `fuel` loop iterations without finishing: the
    /// loop at `line` and `column` of the kernel's source was to start one
    /// more.
    NonTermination {
        /// Loop iterations the invocation had.
        fuel: u64,
        /// The loop's source line.
        line: u32,
        /// Its column.
        column: u32,
    },
    /// Invocations of one workgroup stopped at different barriers (`None`:
    /// finished); each side is (local index, barrier).
    BarrierDivergence {
        /// One invocation's local index and barrier.
        first: (u32, Option<u32>),
        /// Another's, at a different barrier.
        other: (u32, Option<u32>),
    },
}

/// `Error::LoopLimit`'s message.
fn loop_limit(kernel: &str, mode: &Mode, adapter: &str, line: Option<u32>) -> String {
    let engine = if *mode == Mode::Check { "checks each region at its barrier" } else { "folds each region" };
    let which = match line {
        // The kernel's own loop: long, or never ending (a spin lock).
        Some(l) if *mode == Mode::Native => format!("ended the kernel's loop at line {l} before it finished: lavapipe ends the loops of an invocation once they have run 65535 iterations in all (a loop that never ends gets there too)"),
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
