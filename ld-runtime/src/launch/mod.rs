//! Launching a kernel. `Launch` is the builder a kernel's typed `launch`
//! (or `ShaderKernel::launch`) makes; each stage of a launch is a file:
//! the arguments (`args`) and the grid (`grid`), the checks before
//! anything runs (`validate`), then one of native (`native`), check and
//! deterministic (`check`) or exact (`exact`) modes, and the faults a
//! kernel's run reports (`faults`).

mod args;
mod check;
mod exact;
mod faults;
mod grid;
mod native;
mod round_trip;
mod validate;

pub use args::{Arg, BufArg, IntoArgs};
pub use grid::Grid;
pub use ld_shaders::abi::MAX_WORKGROUPS_PER_DIMENSION;

use crate::bounds::OutOfBounds;
use crate::check::{engine, plan::Plan, report::Report, CheckOptions};
use crate::error::Result;
use crate::kernel::KernelInfo;
use crate::runtime::{Backend, Runtime};
use crate::settings::Settings;
use std::time::Duration;

/// How a launch executes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Mode {
    /// One plain dispatch: the kernel as written, no overhead.
    #[default]
    Native,
    /// Two-pass value-based race detection (LDetector); the run carries a report.
    Check,
    /// Racy or not, the same inputs give bit-identical outputs on every run
    /// and every backend: each warp runs each region on private copies, and
    /// writes are merged in warp order at barriers, workgroup order at the
    /// end (later units win). See README.
    Deterministic,
    /// Access monitoring on the CPU executor (on any runtime): every access
    /// to a written memory is logged with its invocation and source line,
    /// and every pair of unordered conflicting accesses is reported,
    /// whatever the values. Slow (every access is watched), and exact: the
    /// oracle value-based checks are measured against. The buffers end as
    /// after a native run on the CPU.
    Exact,
}

impl Mode {
    /// Every mode, in the order `LD_MODE`'s error message lists them.
    pub const ALL: [Mode; 4] = [Mode::Check, Mode::Exact, Mode::Deterministic, Mode::Native];

    /// The mode's name as `LD_MODE` spells it and the JSON report writes it:
    /// `native`, `check`, `deterministic` or `exact`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Native => "native",
            Mode::Check => "check",
            Mode::Deterministic => "deterministic",
            Mode::Exact => "exact",
        }
    }
}

impl std::fmt::Display for Mode {
    /// `native mode`, `check mode`, `deterministic mode` or `exact mode`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} mode", self.name())
    }
}

/// What a finished launch reports.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Run {
    /// Where it ran.
    pub backend: Backend,
    /// The mode it ran in (`LD_MODE` may have chosen it).
    pub mode: Mode,
    /// Time from submission to completion (GPU) or of the execution (CPU).
    pub elapsed: Duration,
    /// The report, where the mode checks (check and exact modes); see
    /// [`Launch::check`] for a check that returns its report.
    pub report: Option<Report>,
    /// What check or deterministic mode cost (dispatches, submissions,
    /// read-backs, bytes allocated).
    pub stats: Option<engine::Stats>,
    /// Where invocations indexed out of bounds and the run went on: a
    /// loaded shader follows WGSL's rule (a read gives the array's last
    /// element, a write or an atomic is skipped), on both backends alike,
    /// in every mode; one entry per source place, in source order. (In a
    /// Rust kernel such an index is `Error::Fault`.) Also in the report.
    pub out_of_bounds: Vec<OutOfBounds>,
}

/// A kernel with its grid and arguments, ready to run: made by a kernel's
/// typed `launch` (or [`Runtime::launch`]), configured by its builder
/// methods, and run by [`Launch::run`], [`Launch::check`] or
/// [`Launch::exact`].
#[must_use = "a launch does nothing until `.run()`, `.check()` or `.exact()`"]
pub struct Launch<'a> {
    rt: &'a Runtime,
    info: &'static KernelInfo,
    grid: Grid,
    args: Vec<Arg<'a>>,
    mode: Mode,
    fuel: Option<u64>,
    check: CheckOptions,
    /// Checked against its round trip where `LD_ROUND_TRIP` asks (not
    /// the round trip's own launch).
    round_trip: bool,
}

impl<'a> Launch<'a> {
    pub(crate) fn new(rt: &'a Runtime, info: &'static KernelInfo, grid: Grid, args: Vec<Arg<'a>>) -> Self {
        Launch { rt, info, grid, args, mode: Mode::Native, fuel: None, check: CheckOptions::default(), round_trip: true }
    }

    /// The mode to run in (default [`Mode::Native`]). `LD_MODE` overrides
    /// it for every launch of the process: the user's run-time request, as
    /// when a program runs under a sanitizer.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Options of check mode (warp size, record limits).
    pub fn check_options(mut self, opts: CheckOptions) -> Self {
        self.check = opts;
        self
    }

    /// Loop iterations one invocation may start before the kernel is
    /// reported as not terminating (`FaultKind::NonTermination`, naming the
    /// loop), on either backend. Default 2^28, or `LD_CPU_FUEL`; the GPU
    /// counts at most `u32::MAX`.
    pub fn max_loop_iterations(mut self, n: u64) -> Self {
        self.fuel = Some(n);
        self
    }

    /// Checks the arguments and runs the kernel, in the mode `LD_MODE`
    /// forces if it is set, else in the one asked for. With `LD_MODE=check`
    /// or `LD_REPORT` the report also goes where they say (README, "Checking
    /// a whole program unchanged").
    pub fn run(self) -> Result<Run> {
        let mode = crate::session::mode(self.mode)?;
        self.run_as(mode)
    }

    /// Checks the arguments and runs the kernel in check mode, whatever
    /// `LD_MODE` says, and returns the report (also written where
    /// `LD_REPORT` says).
    pub fn check(self) -> Result<Report> {
        self.reporting(Mode::Check)
    }

    /// Checks the arguments and runs the kernel in exact mode (every access
    /// monitored on the CPU executor, whatever `LD_MODE` says), and returns
    /// the report (also written where `LD_REPORT` says).
    pub fn exact(self) -> Result<Report> {
        self.reporting(Mode::Exact)
    }

    /// Runs in a mode that reports, and hands the report over.
    fn reporting(self, mode: Mode) -> Result<Report> {
        Ok(self.run_as(mode)?.report.expect("check and exact modes report"))
    }

    /// Runs in `mode` and hands any report to the process's session
    /// (`LD_MODE=check`, `LD_REPORT`).
    fn run_as(mut self, mode: Mode) -> Result<Run> {
        self.mode = mode;
        let run = if self.round_trips()? { self.run_round_trip()? } else { self.run_in_mode()? };
        crate::session::finished(run.report.as_ref())?;
        Ok(run)
    }

    /// Validates, then hands the launch to its mode's stage.
    fn run_in_mode(self) -> Result<Run> {
        let uniforms = self.validate()?;
        // A lost device fails every mode before anything is compiled or
        // planned (a check's pipelines take lavapipe hundreds of ms).
        if let Some(ctx) = &self.rt.gpu {
            ctx.check_alive(&format!("before launching `{}`", self.info.name))?;
        }
        if matches!(self.mode, Mode::Check | Mode::Deterministic) {
            return self.run_check(uniforms);
        }
        if self.mode == Mode::Exact {
            return self.run_exact(uniforms);
        }
        self.run_native(uniforms)
    }

    /// Check mode's plan for this launch (copies, rounds, batches, bytes,
    /// and the chance of finding a race within each round), without running it.
    pub fn plan(&self) -> Result<Plan> {
        self.validate()?;
        self.warp_size()?;
        let deterministic = Settings::get()?.mode.unwrap_or(self.mode) == Mode::Deterministic;
        Ok(engine::plan(self.info, self.grid.0, &self.target_words(), &self.check, self.limits(), deterministic)?.plan)
    }
}
