//! Check and deterministic modes: the engine driven over the GPU or the
//! CPU reference, the report built from its records, and the sources of
//! its races found by re-running the racing workgroups.

use super::BufArg;
use super::{Arg, Launch, Mode, Run};
use crate::bounds::OutOfBounds;
use crate::buffer::Store;
use crate::check::{self, engine, layout::Limits, report::Report};
use crate::cpu::executor::CpuLaunch;
use crate::error::{Error, Result};
use crate::exact::{self, input::Input};
use crate::kernel::TargetPlace;
use std::time::Instant;

impl Launch<'_> {
    /// Words of each target (buffer lengths, shared array sizes).
    pub(super) fn target_words(&self) -> Vec<u64> {
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
    pub(super) fn limits(&self) -> Limits {
        match &self.rt.gpu {
            Some(ctx) => check::gpu::limits(ctx),
            None => Limits::on_cpu(128 << 20),
        }
    }

    /// The warp size this launch checks with; a chosen one must be a power
    /// of two that fits the workgroup.
    pub(super) fn warp_size(&self) -> Result<u32> {
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

    pub(super) fn run_check(self, uniforms: Vec<u32>) -> Result<Run> {
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
}

/// What a check or deterministic run gives: the check (none in
/// deterministic mode), its cost, and where indices were out of bounds.
struct Driven {
    checked: Option<engine::Checked>,
    stats: engine::Stats,
    out_of_bounds: Vec<OutOfBounds>,
}
