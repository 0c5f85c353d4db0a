//! Launching a kernel: arguments are checked against the kernel's
//! signature (count, element types, writability, sizes, grid limits) before
//! anything runs, so a mistake is an error that names the parameter, not a
//! garbage result.

use crate::bounds::OutOfBounds;
use crate::buffer::{Buffer, Element, Store};
use crate::check::{self, engine, layout::Limits, plan::Plan, report::Report, CheckOptions};
use crate::cpu::executor::{self, CpuLaunch};
use crate::cpu::twin::StorageView;
use crate::error::{Error, FaultKind, Result};
use crate::exact::{
    self,
    input::{self, Input},
};
use crate::gpu::{self, GpuBinding};
use crate::guard::Found;
use crate::kernel::{KernelInfo, ParamKind, ScalarKind, TargetPlace};
use crate::runtime::{Backend, Runtime};
use crate::settings::Settings;
use std::any::TypeId;
use std::time::{Duration, Instant};

/// Number of workgroups along x, y and z.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid(pub [u32; 3]);

pub use ld_shaders::abi::MAX_WORKGROUPS_PER_DIMENSION;

impl Grid {
    /// Enough workgroups of `per_workgroup` invocations to cover `items`,
    /// along x (a launch fails with a clear error beyond 65535 workgroups:
    /// use [`Grid::cover_2d`] then).
    pub fn cover(items: u64, per_workgroup: u32) -> Grid {
        Grid([items.div_ceil(per_workgroup.max(1) as u64).max(1).min(u32::MAX as u64) as u32, 1, 1])
    }

    /// Enough workgroups to cover `items`, spread over y once x holds 65535:
    /// the kernel numbers its item `global_id().x + global_id().y *
    /// num_workgroups().x * W` (W: the workgroup's x size) and skips the
    /// items past the end (the last row may be partly past it).
    pub fn cover_2d(items: u64, per_workgroup: u32) -> Grid {
        let n = items.div_ceil(per_workgroup.max(1) as u64).max(1);
        let x = n.min(MAX_WORKGROUPS_PER_DIMENSION as u64);
        Grid([x as u32, n.div_ceil(x).min(u32::MAX as u64) as u32, 1])
    }

    /// The number of workgroups.
    pub fn workgroups(&self) -> u64 {
        self.0.iter().map(|&d| d as u64).product()
    }
}

impl From<u32> for Grid {
    fn from(x: u32) -> Self {
        Grid([x, 1, 1])
    }
}
impl From<(u32, u32)> for Grid {
    fn from((x, y): (u32, u32)) -> Self {
        Grid([x, y, 1])
    }
}
impl From<(u32, u32, u32)> for Grid {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Grid([x, y, z])
    }
}
impl From<[u32; 3]> for Grid {
    fn from(g: [u32; 3]) -> Self {
        Grid(g)
    }
}

/// One launch argument.
pub enum Arg<'a> {
    /// A buffer, borrowed shared (`&buf`) or exclusive (`&mut buf`).
    Buffer(BufArg<'a>),
    /// A `u32` scalar.
    U32(u32),
    /// An `i32` scalar.
    I32(i32),
    /// An `f32` scalar.
    F32(f32),
}

/// A buffer argument: the buffer, its element type and its borrow.
pub struct BufArg<'a> {
    pub(crate) store: &'a Store,
    pub(crate) id: u64,
    pub(crate) len: usize,
    pub(crate) elem: TypeId,
    pub(crate) elem_name: &'static str,
    pub(crate) elem_words: u32,
    /// Passed as `&mut`: the caller gave the kernel the right to write it.
    pub(crate) exclusive: bool,
}

impl<'a, T: Element> From<&'a Buffer<T>> for Arg<'a> {
    fn from(b: &'a Buffer<T>) -> Self {
        Arg::Buffer(BufArg {
            store: &b.store,
            id: b.id,
            len: b.len(),
            elem: TypeId::of::<T>(),
            elem_name: std::any::type_name::<T>(),
            elem_words: T::WORDS,
            exclusive: false,
        })
    }
}
impl<'a, T: Element> From<&'a mut Buffer<T>> for Arg<'a> {
    fn from(b: &'a mut Buffer<T>) -> Self {
        let len = b.len();
        Arg::Buffer(BufArg {
            store: &b.store,
            id: b.id,
            len,
            elem: TypeId::of::<T>(),
            elem_name: std::any::type_name::<T>(),
            elem_words: T::WORDS,
            exclusive: true,
        })
    }
}
impl From<u32> for Arg<'_> {
    fn from(x: u32) -> Self {
        Arg::U32(x)
    }
}
impl From<i32> for Arg<'_> {
    fn from(x: i32) -> Self {
        Arg::I32(x)
    }
}
impl From<f32> for Arg<'_> {
    fn from(x: f32) -> Self {
        Arg::F32(x)
    }
}

impl Arg<'_> {
    fn describe(&self) -> String {
        match self {
            Arg::Buffer(b) if b.exclusive => format!("`&mut Buffer<{}>`", b.elem_name),
            Arg::Buffer(b) => format!("`&Buffer<{}>`", b.elem_name),
            Arg::U32(_) => "a `u32`".into(),
            Arg::I32(_) => "an `i32`".into(),
            Arg::F32(_) => "an `f32`".into(),
        }
    }
}

/// Launch arguments: a tuple of buffers and scalars, or a `Vec<Arg>`.
pub trait IntoArgs<'a> {
    /// The arguments, in parameter order.
    fn into_args(self) -> Vec<Arg<'a>>;
}

impl<'a> IntoArgs<'a> for Vec<Arg<'a>> {
    fn into_args(self) -> Vec<Arg<'a>> {
        self
    }
}

impl<'a> IntoArgs<'a> for () {
    fn into_args(self) -> Vec<Arg<'a>> {
        vec![]
    }
}

macro_rules! tuple_args {
    ($($t:ident),+) => {
        impl<'a, $($t: Into<Arg<'a>>),+> IntoArgs<'a> for ($($t,)+) {
            #[allow(non_snake_case)]
            fn into_args(self) -> Vec<Arg<'a>> {
                let ($($t,)+) = self;
                vec![$($t.into()),+]
            }
        }
    };
}
tuple_args!(A);
tuple_args!(A, B);
tuple_args!(A, B, C);
tuple_args!(A, B, C, D);
tuple_args!(A, B, C, D, E);
tuple_args!(A, B, C, D, E, F);
tuple_args!(A, B, C, D, E, F, G);
tuple_args!(A, B, C, D, E, F, G, H);
tuple_args!(A, B, C, D, E, F, G, H, I);
tuple_args!(A, B, C, D, E, F, G, H, I, J);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P);

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
}

impl<'a> Launch<'a> {
    pub(crate) fn new(rt: &'a Runtime, info: &'static KernelInfo, grid: Grid, args: Vec<Arg<'a>>) -> Self {
        Launch { rt, info, grid, args, mode: Mode::Native, fuel: None, check: CheckOptions::default() }
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
        let run = self.run_in_mode()?;
        crate::session::finished(run.report.as_ref())?;
        Ok(run)
    }

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
        let start = Instant::now();
        let (elapsed, out_of_bounds) = match &self.rt.gpu {
            Some(ctx) => {
                let bindings: Vec<GpuBinding> = self
                    .args
                    .iter()
                    .enumerate()
                    .filter_map(|(i, a)| match a {
                        Arg::Buffer(b) => match b.store {
                            Store::Gpu { buf, .. } => Some(GpuBinding { param: i, buffer: buf }),
                            Store::Cpu(_) => None,
                        },
                        _ => None,
                    })
                    .collect();
                let (elapsed, guard) = gpu::dispatch(ctx, self.info, self.grid.0, &bindings, &uniforms, self.fuel()?)?;
                if let Some(e) = self.guarded(&guard) {
                    return Err(e);
                }
                (elapsed, crate::bounds::of_guard(self.info, &self.lens(), &guard))
            }
            None => {
                let oob = self.run_cpu(uniforms)?;
                (start.elapsed(), oob)
            }
        };
        Ok(Run { backend: self.rt.backend(), mode: self.mode, elapsed, report: None, stats: None, out_of_bounds })
    }

    /// Check mode's plan for this launch (copies, rounds, batches, bytes,
    /// and the chance of finding a race within each round), without running it.
    pub fn plan(&self) -> Result<Plan> {
        self.validate()?;
        self.warp_size()?;
        let deterministic = Settings::get()?.mode.unwrap_or(self.mode) == Mode::Deterministic;
        Ok(engine::plan(self.info, self.grid.0, &self.target_words(), &self.check, self.limits(), deterministic)?.plan)
    }

    /// Words of each target (buffer lengths, shared array sizes).
    fn target_words(&self) -> Vec<u64> {
        self.info
            .targets
            .iter()
            .map(|t| match *t {
                TargetPlace::Param(p) => match &self.args[p] {
                    Arg::Buffer(b) => b.len as u64 * b.elem_words as u64,
                    _ => 0,
                },
                TargetPlace::Shared(a) => self.info.shared[a].words(),
            })
            .collect()
    }

    /// The device's limits; the CPU reference plans as a CPU device with
    /// WebGPU's default binding limit (128 MiB), so that on lavapipe both
    /// backends plan alike.
    fn limits(&self) -> Limits {
        match &self.rt.gpu {
            Some(ctx) => check::gpu::limits(ctx),
            None => Limits::on_cpu(128 << 20),
        }
    }

    /// The warp size this launch checks with; a chosen one must be a power
    /// of two that fits the workgroup.
    fn warp_size(&self) -> Result<u32> {
        self.check.validate()?;
        let wg = self.info.invocations_per_workgroup();
        let w = self.check.warp_size_for(wg);
        if w == 0 || !w.is_power_of_two() || w > wg {
            return Err(Error::Unsupported(format!(
                "warp size {w}: it must be a power of two no larger than the workgroup ({wg} invocations of `{}`)",
                self.info.name
            )));
        }
        Ok(w)
    }

    fn run_check(self, uniforms: Vec<u32>) -> Result<Run> {
        let warp_size = self.warp_size()?;
        let start = Instant::now();
        let deterministic = self.mode == Mode::Deterministic;
        let words = self.target_words();
        let limits = self.limits();
        let layout = engine::plan(self.info, self.grid.0, &words, &self.check, limits, deterministic)?;
        // The input, and its scalars, for finding the sources of races.
        let input = (!deterministic && self.check.sources).then(|| (Input::keep(self.info, &self.args), uniforms.clone()));
        let Driven { checked, stats, out_of_bounds } = match &self.rt.gpu {
            Some(ctx) => {
                let buffers = self
                    .args
                    .iter()
                    .map(|a| match a {
                        Arg::Buffer(BufArg { store: Store::Gpu { buf, .. }, .. }) => Some(buf),
                        _ => None,
                    })
                    .collect();
                let mut b = check::gpu::GpuBackend::new(ctx, self.info, buffers, &uniforms, self.fuel()?);
                self.drive(&mut b, layout, &words, limits)?
            }
            None => {
                let l = self.cpu_launch(uniforms)?;
                let fault = |e| self.fault(e, l.fuel);
                let mut b = check::cpu::CpuBackend::new(&l, &fault);
                self.drive(&mut b, layout, &words, limits)?
            }
        };

        let elapsed = start.elapsed();
        let ran = Instant::now();
        let report = checked.map(|c| {
            let mut r = check::records::report(
                self.info,
                self.grid.0,
                &check::targets(self.info),
                &c.raw,
                Some(&c.plan),
                warp_size,
                self.check.max_records,
                self.rt.backend(),
                elapsed.as_secs_f64() * 1e3,
            );
            r.stats = Some(stats);
            r.out_of_bounds = out_of_bounds.clone();
            // The targets come first, in target order.
            for (c, w) in r.checked.iter_mut().zip(&words) {
                c.words = Some(*w);
            }
            r
        });
        let reported = ran.elapsed();
        let report = match (report, input) {
            (Some(mut r), Some((input, uniforms))) if r.has_races() => {
                self.locate(&mut r, input, uniforms, warp_size)?;
                Some(r)
            }
            (r, _) => r,
        };
        // Where a run's time went, for whoever tunes the engine
        // (`RUST_LOG=ld_runtime=debug`).
        log::debug!(
            "ld: {} of `{}`: {:.3} ms to run ({:.3} ms of it waiting for the device; {} dispatches, {} submissions, {} read-backs), then {:.3} ms for the report, {:.3} ms for its sources",
            self.mode,
            self.info.name,
            elapsed.as_secs_f64() * 1e3,
            stats.waited_us as f64 / 1e3,
            stats.dispatches,
            stats.submissions,
            stats.readbacks,
            reported.as_secs_f64() * 1e3,
            (ran.elapsed() - reported).as_secs_f64() * 1e3,
        );
        Ok(Run { backend: self.rt.backend(), mode: self.mode, elapsed, report, stats: Some(stats), out_of_bounds })
    }

    /// The source locations of a check's races: its racing workgroups run
    /// again on the CPU from the launch's input. A re-run that faults (its
    /// control flow differs without the other workgroups) leaves the
    /// report without them and says so in the log.
    fn locate(&self, r: &mut Report, input: Input, uniforms: Vec<u32>, warp_size: u32) -> Result<()> {
        let words = input.words(&self.args)?;
        let l = CpuLaunch::new(self.info, self.grid.0, self.views(&words), uniforms, self.fuel()?);
        if let Err(e) = exact::sources::locate(r, &l, &check::targets(self.info), warp_size) {
            log::warn!(
                "ld: the sources of `{}`'s races could not be found: re-running the racing workgroups on the CPU failed: {}",
                self.info.name,
                e.describe(self.info, l.fuel)
            );
        }
        Ok(())
    }

    /// Views of host words for the CPU executor, shaped as the arguments.
    fn views<'w>(&self, words: &'w input::Words) -> Vec<Option<StorageView<'w>>> {
        self.args
            .iter()
            .zip(words)
            .map(|(a, w)| match (a, w) {
                (Arg::Buffer(b), Some(w)) => Some(StorageView { words: w, elem_words: b.elem_words, len: b.len as u32 }),
                _ => None,
            })
            .collect()
    }

    /// Exact mode: every access monitored on the CPU, from the buffers'
    /// contents; the written buffers get the result once every workgroup
    /// has finished (a fault leaves them as they were).
    fn run_exact(self, uniforms: Vec<u32>) -> Result<Run> {
        let warp_size = self.warp_size()?;
        let start = Instant::now();
        let mut words: input::Words = vec![None; self.args.len()];
        for (p, a) in self.args.iter().enumerate() {
            if let Arg::Buffer(b) = a {
                words[p] = Some(input::copy(b.store)?);
            }
        }
        let l = CpuLaunch::new(self.info, self.grid.0, self.views(&words), uniforms, self.fuel()?);
        let seen = exact::run(&l, warp_size, None).map_err(|e| self.fault(e, l.fuel))?;
        for (p, a) in self.args.iter().enumerate() {
            if let (Arg::Buffer(b), Some(w), true) = (a, &words[p], self.writes(p)) {
                input::store(b.store, w)?;
            }
        }
        let elapsed = start.elapsed();
        let targets = check::targets(self.info);
        let mut r = check::records::report(
            self.info,
            self.grid.0,
            &targets,
            &seen.raw,
            None,
            warp_size,
            self.check.max_records,
            self.rt.backend(),
            elapsed.as_secs_f64() * 1e3,
        );
        exact::sources::attach(&mut r, &seen.pairs, self.info, self.grid.0, &targets, warp_size);
        r.mode = Mode::Exact;
        r.buffers = check::report::Buffers::AsNativeOnCpu;
        let out_of_bounds = l.oob.take();
        r.out_of_bounds = out_of_bounds.clone();
        Ok(Run { backend: self.rt.backend(), mode: self.mode, elapsed, report: Some(r), stats: None, out_of_bounds })
    }

    /// Whether the kernel may write parameter `p`.
    fn writes(&self, p: usize) -> bool {
        matches!(self.info.params[p].kind, ParamKind::Storage { writable: true, .. } | ParamKind::Atomic { .. })
    }

    /// Check or deterministic mode over a backend.
    fn drive(&self, b: &mut dyn engine::Backend, layout: check::layout::Layout, words: &[u64], limits: Limits) -> Result<Driven> {
        let on_fault = |words: &[u32]| self.guarded(words);
        let (checked, stats) = if self.mode == Mode::Deterministic {
            (None, engine::deterministic(b, layout, words, &self.check, limits, &on_fault)?)
        } else {
            let c = engine::check(b, layout, words, &self.check, limits, &on_fault)?;
            let stats = c.stats;
            (Some(c), stats)
        };
        Ok(Driven { checked, stats, out_of_bounds: b.out_of_bounds(&self.lens())? })
    }

    fn run_cpu(&self, uniforms: Vec<u32>) -> Result<Vec<OutOfBounds>> {
        let l = self.cpu_launch(uniforms)?;
        executor::run(&l).map_err(|e| self.fault(e, l.fuel))?;
        Ok(l.oob.take())
    }

    fn cpu_launch(&self, uniforms: Vec<u32>) -> Result<CpuLaunch<'a>> {
        let storage = self
            .args
            .iter()
            .map(|a| match a {
                Arg::Buffer(b) => match b.store {
                    Store::Cpu(words) => Some(StorageView { words, elem_words: b.elem_words, len: b.len as u32 }),
                    Store::Gpu { .. } => None,
                },
                _ => None,
            })
            .collect();
        Ok(CpuLaunch::new(self.info, self.grid.0, storage, uniforms, self.fuel()?))
    }

    /// Loop iterations each invocation may start, on either backend.
    fn fuel(&self) -> Result<u64> {
        Ok(match self.fuel {
            Some(n) => n,
            None => Settings::get()?.cpu_fuel,
        })
    }

    /// Each parameter's length in elements (0 for a scalar).
    fn lens(&self) -> Vec<u32> {
        self.args.iter().map(|a| if let Arg::Buffer(b) = a { b.len as u32 } else { 0 }).collect()
    }

    /// A fault the CPU executor found.
    fn fault(&self, e: executor::WorkgroupError, fuel: u64) -> Error {
        self.fault_error(e.invocation(self.info), e.kind(self.info, fuel), e.describe(self.info, fuel))
    }

    /// The fault the kernel's guard recorded on the GPU, if any.
    fn guarded(&self, words: &[u32]) -> Option<Error> {
        Some(match crate::guard::read(self.info, self.grid.0, &self.lens(), words)? {
            Found::Fault { invocation, kind, text } => self.fault_error(invocation, kind, text),
            Found::LoopLimit { line } => {
                let adapter = self.rt.gpu.as_ref().map_or_else(String::new, |g| g.describe());
                crate::guard::loop_limit(self.info, self.mode, adapter, Some(line))
            }
        })
    }

    /// `Error::Fault`, saying what the launch left in the buffers: the same
    /// words on both backends, for the same mode.
    fn fault_error(&self, invocation: String, kind: FaultKind, text: String) -> Error {
        let written: Vec<&str> = self
            .info
            .params
            .iter()
            .filter(|p| matches!(p.kind, ParamKind::Storage { writable: true, .. } | ParamKind::Atomic { .. }))
            .map(|p| p.name)
            .collect();
        let effects = if written.is_empty() {
            "no buffer was written".to_string()
        } else if self.mode != Mode::Native {
            format!(
                "the buffers this kernel writes ({}) are as they were before the launch: {} writes them only once every workgroup has finished, and puts back those it writes as it runs (atomic buffers, targets left in place) after a fault",
                written.join(", "),
                self.mode
            )
        } else {
            let faulting = match kind {
                FaultKind::OutOfBounds { .. } => "the faulting access was not performed",
                _ => "the faulting invocation stopped there",
            };
            format!(
                "the buffers this kernel writes ({}) may hold partial results: other invocations ran before and alongside the faulting one, and {faulting}",
                written.join(", ")
            )
        };
        Error::Fault { kernel: self.info.name, invocation, kind, message: format!("{text}\n  {effects}") }
    }

    /// Validates arguments and grid; returns the packed scalar words.
    fn validate(&self) -> Result<Vec<u32>> {
        let info = self.info;
        if self.args.len() != info.params.len() {
            return Err(Error::ArgCount { kernel: info.name, expected: info.params.len(), given: self.args.len(), signature: info.signature() });
        }
        self.check_grid()?;
        let mut uniforms = Vec::new();
        for (i, (p, a)) in info.params.iter().zip(&self.args).enumerate() {
            let err = |problem: String| Error::Arg { kernel: info.name, index: i, param: p.name, expected: p.kind.to_string(), problem };
            match (&p.kind, a) {
                (ParamKind::Storage { elem, writable }, Arg::Buffer(b)) => {
                    self.check_buffer(b, elem.type_id, elem.name, &err)?;
                    if *writable && !b.exclusive {
                        return Err(err(format!("the kernel writes `{}`: pass it as `&mut`", p.name)));
                    }
                }
                (ParamKind::Atomic { elem }, Arg::Buffer(b)) => {
                    self.check_buffer(b, elem.type_id, elem.name, &err)?;
                    if !b.exclusive {
                        return Err(err(format!("atomics write `{}`: pass it as `&mut`", p.name)));
                    }
                }
                (ParamKind::Uniform { scalar }, a) => uniforms.push(scalar_word(*scalar, a).map_err(err)?),
                (_, a) => return Err(err(format!("got {}; buffers are passed as `&buf` or `&mut buf`", a.describe()))),
            }
        }
        self.check_aliasing()?;
        Ok(uniforms)
    }

    fn check_buffer(&self, b: &BufArg, want: fn() -> TypeId, want_name: &str, err: &dyn Fn(String) -> Error) -> Result<()> {
        if b.elem != want() {
            return Err(err(format!("got a buffer of `{}`, the kernel reads `{want_name}`", b.elem_name)));
        }
        if b.len == 0 {
            return Err(err("the buffer is empty; bindings need at least one element (wgpu cannot bind zero bytes)".into()));
        }
        if b.len > u32::MAX as usize {
            return Err(err("more than 2^32 elements cannot be indexed by a kernel".into()));
        }
        match (b.store, &self.rt.gpu) {
            (Store::Gpu { ctx, .. }, Some(rt)) if std::sync::Arc::ptr_eq(ctx, rt) => Ok(()),
            (Store::Cpu(_), None) => Ok(()),
            _ => Err(err("the buffer belongs to another runtime; create buffers with the runtime that launches the kernel".into())),
        }
    }

    fn check_aliasing(&self) -> Result<()> {
        let bufs: Vec<(usize, &BufArg)> = self.args.iter().enumerate().filter_map(|(i, a)| if let Arg::Buffer(b) = a { Some((i, b)) } else { None }).collect();
        for (x, (i, a)) in bufs.iter().enumerate() {
            for (j, b) in &bufs[x + 1..] {
                if a.id == b.id && (a.exclusive || b.exclusive) {
                    let p = &self.info.params[*j];
                    return Err(Error::Arg {
                        kernel: self.info.name,
                        index: *j,
                        param: p.name,
                        expected: p.kind.to_string(),
                        problem: format!(
                            "the same buffer is also bound to `{}`, and one of them is written: WGSL forbids aliasing a writable binding",
                            self.info.params[*i].name
                        ),
                    });
                }
            }
        }
        Ok(())
    }

    fn check_grid(&self) -> Result<()> {
        let max = self.rt.gpu.as_ref().map(|g| g.limits.max_compute_workgroups_per_dimension).unwrap_or(MAX_WORKGROUPS_PER_DIMENSION);
        let g = self.grid.0;
        let problem = if g.contains(&0) {
            Some("every dimension needs at least one workgroup".to_string())
        } else if g.iter().any(|&d| d > max) {
            Some(format!(
                "the device allows at most {max} workgroups per dimension; spread the grid over y and z (`Grid::cover_2d`), or loop inside the kernel"
            ))
        } else {
            None
        };
        match problem {
            Some(problem) => Err(Error::Grid { kernel: self.info.name, grid: g, problem }),
            None => Ok(()),
        }
    }
}

/// What a check or deterministic run gives: the check (none in
/// deterministic mode), its cost, and where indices were out of bounds.
struct Driven {
    checked: Option<engine::Checked>,
    stats: engine::Stats,
    out_of_bounds: Vec<OutOfBounds>,
}

/// A scalar argument as the word the uniform block holds. A non-negative
/// `i32` is accepted for a `u32` parameter (Rust's integer literal default).
/// A scalar argument as its uniform word; a non-negative `i32` literal
/// passes for a `u32` (Rust's default integer type is `i32`).
fn scalar_word(want: ScalarKind, a: &Arg) -> std::result::Result<u32, String> {
    match (want, a) {
        (ScalarKind::U32, Arg::U32(x)) => Ok(*x),
        (ScalarKind::U32, Arg::I32(x)) if *x >= 0 => Ok(*x as u32),
        (ScalarKind::U32, Arg::I32(x)) => Err(format!("got {x}, a negative `i32`; a `u32` holds 0 to {}", u32::MAX)),
        (ScalarKind::I32, Arg::I32(x)) => Ok(*x as u32),
        (ScalarKind::F32, Arg::F32(x)) => Ok(x.to_bits()),
        (_, a) => Err(format!("got {}", a.describe())),
    }
}

#[cfg(test)]
mod tests {
    use super::Grid;

    #[test]
    fn cover_2d_spreads_over_y_only_past_the_limit() {
        assert_eq!(Grid::cover_2d(1000, 64).0, [16, 1, 1]);
        assert_eq!(Grid::cover_2d(65535 * 64, 64).0, [65535, 1, 1]);
        assert_eq!(Grid::cover_2d(65536 * 64, 64).0, [65535, 2, 1]);
        let g = Grid::cover_2d(1 << 32, 256);
        assert!(g.0[0] <= 65535 && g.0[1] <= 65535 && g.workgroups() * 256 >= 1 << 32, "{g:?}");
        assert_eq!(Grid::cover(0, 64).0, [1, 1, 1]);
    }
}
