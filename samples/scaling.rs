//! How check mode scales with the buffer: a race-free and a racy kernel over
//! buffers of 1, 4, 16 and 64 MiB, native and in check mode, same device,
//! same process, under the default memory budget.
//!
//! `cargo run --release --example scaling -- [--cpu] [--runs N] [--sizes 1,4,16,64]`
//!
//! Each workgroup of 256 invocations privatizes only the pages it accesses,
//! so the engine's memory and time grow with the buffer, and the slowdown
//! stays flat.

mod common;

use ld::{Buffer, Grid, Mode, Runtime};
use std::time::Instant;

#[ld::kernels]
mod kernels {
    /// `y = a x + y`, one element per invocation: race-free. (The grid
    /// spreads over y: a dimension holds at most 65535 workgroups.)
    #[kernel(workgroup_size = 256)]
    pub fn axpy(x: &[f32], y: &mut [f32], a: f32) {
        let i = global_id().x + global_id().y * num_workgroups().x * 256;
        if i < y.len() {
            y[i] = a * x[i] + y[i];
        }
    }

    /// A three-point smoothing written in place: every invocation reads its
    /// neighbours while they write theirs (read-write between warps and
    /// between workgroups, at every warp and workgroup boundary).
    #[kernel(workgroup_size = 256)]
    pub fn smooth_in_place(y: &mut [f32]) {
        let i = global_id().x + global_id().y * num_workgroups().x * 256;
        if i > 0 && i + 1 < y.len() {
            y[i] = (y[i - 1] + y[i] + y[i + 1]) / 3.0;
        }
    }
}

#[derive(clap::Parser)]
#[command(about = "Check mode's slowdown over buffers of growing size")]
struct Cli {
    /// Run on the CPU reference executor instead of the GPU.
    #[arg(long)]
    cpu: bool,
    /// Rounds per measurement at 16 MiB and up (more below: `runs_at`), each
    /// a check run after `NATIVE_RUNS_PER_RUN` native runs; medians are kept.
    #[arg(long, default_value_t = 3)]
    runs: u32,
    /// Buffer sizes in MiB.
    #[arg(long, value_delimiter = ',', default_value = "1,4,16,64")]
    sizes: Vec<u64>,
}

/// Native runs per run of a measurement: a native run of a small buffer
/// takes about a millisecond on lavapipe, and the median of three varies by
/// half of that, which would move the 1 MiB slowdown (and so the ratio of
/// the 64 MiB one to it) by as much; they are cheap, so take more.
const NATIVE_RUNS_PER_RUN: u32 = 10;

/// Median wall times, in ms, of `run(Mode::Native)` and `run(Mode::Check)`,
/// interleaved: each of `runs` rounds runs natively `NATIVE_RUNS_PER_RUN`
/// times, then checks once, so that both see the same machine (with all
/// the native runs first, a busy moment of the machine can fall on them
/// alone and halve the 1 MiB slowdown).
fn interleaved_ms(runs: u32, mut run: impl FnMut(Mode) -> ld::Result<()>) -> ld::Result<(f64, f64)> {
    // An untimed round first (pipelines compiled, the engine's buffers
    // allocated), as the samples' timing does (`timed_interleaved`).
    run(Mode::Native)?;
    run(Mode::Check)?;
    let (mut native, mut check) = (Vec::new(), Vec::new());
    for _ in 0..runs.max(1) {
        for i in 0..=NATIVE_RUNS_PER_RUN {
            let (mode, into) = if i < NATIVE_RUNS_PER_RUN { (Mode::Native, &mut native) } else { (Mode::Check, &mut check) };
            let s = Instant::now();
            run(mode)?;
            into.push(s.elapsed().as_secs_f64() * 1e3);
        }
    }
    Ok((median(native), median(check)))
}

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// Rounds at a size: a small buffer's check takes tens of milliseconds,
/// where a stray millisecond moves the slowdown most, so it runs more
/// (`runs` at 16 MiB and up, 16 times as many at 1 MiB).
fn runs_at(runs: u32, mib: u64) -> u32 {
    runs * (16 / mib.max(1)).clamp(1, 16) as u32
}

struct Row {
    kernel: &'static str,
    mib: u64,
    native: f64,
    check: f64,
    races: usize,
    /// The check's dispatches (kernel and engine; 1 where it runs the
    /// kernel as written).
    dispatches: u64,
}

fn measure(rt: &Runtime, mib: u64, runs: u32) -> ld::Result<Vec<Row>> {
    let n = (mib << 20) as usize / 4;
    let xs: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let x: Buffer<f32> = rt.upload(&xs)?;
    let mut y: Buffer<f32> = rt.upload(&xs)?;
    let groups = n.div_ceil(256) as u32;
    let grid = Grid([groups.min(1024), groups.div_ceil(1024), 1]);
    let mut rows = Vec::new();
    // Warm up both pipelines (compilation is not part of a run).
    kernels::axpy.launch(rt, grid, &x, &mut y, 2.0f32).run()?;
    kernels::axpy.launch(rt, grid, &x, &mut y, 2.0f32).check()?;
    let runs = runs_at(runs, mib);
    let mut report = None;
    let (native, check) = interleaved_ms(runs, |mode| {
        let run = kernels::axpy.launch(rt, grid, &x, &mut y, 2.0f32).mode(mode).run()?;
        report = run.report.or(report.take());
        Ok(())
    })?;
    let r = report.take().unwrap();
    rows.push(Row { kernel: "axpy", mib, native, check, races: r.races.len(), dispatches: r.stats.map_or(0, |s| s.dispatches) });
    kernels::smooth_in_place.launch(rt, grid, &mut y).run()?;
    kernels::smooth_in_place.launch(rt, grid, &mut y).check()?;
    let (native, check) = interleaved_ms(runs, |mode| {
        let run = kernels::smooth_in_place.launch(rt, grid, &mut y).mode(mode).run()?;
        report = run.report.or(report.take());
        Ok(())
    })?;
    let r = report.take().unwrap();
    rows.push(Row { kernel: "smooth_in_place", mib, native, check, races: r.races.len(), dispatches: r.stats.map_or(0, |s| s.dispatches) });
    Ok(rows)
}

fn main() {
    let cli = <Cli as clap::Parser>::parse();
    let rt = match common::runtime(cli.cpu) {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("scaling: error: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "check mode vs buffer size on {} (default budget; medians of {} check runs at 16 MiB and up, {} at 1 MiB, interleaved with {} native runs each)",
        rt.backend(),
        cli.runs,
        runs_at(cli.runs, 1),
        NATIVE_RUNS_PER_RUN
    );
    println!("{:<16} {:>8} {:>10} {:>10} {:>9} {:>10} {:>8}", "kernel", "MiB", "native ms", "check ms", "slowdown", "dispatches", "races");
    let mut all = Vec::new();
    for &mib in &cli.sizes {
        match measure(&rt, mib, cli.runs) {
            Ok(rows) => {
                for r in rows {
                    println!(
                        "{:<16} {:>8} {:>10.2} {:>10.2} {:>8.1}x {:>10} {:>8}",
                        r.kernel,
                        r.mib,
                        r.native,
                        r.check,
                        r.check / r.native,
                        r.dispatches,
                        r.races
                    );
                    all.push(r);
                }
            }
            Err(e) => {
                eprintln!("scaling: {mib} MiB: error: {e}");
                std::process::exit(1);
            }
        }
    }
    for kernel in ["axpy", "smooth_in_place"] {
        let rows: Vec<&Row> = all.iter().filter(|r| r.kernel == kernel).collect();
        if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
            let (a, b) = (first.check / first.native, last.check / last.native);
            println!("{kernel}: slowdown {a:.1}x at {} MiB, {b:.1}x at {} MiB ({:.2} times)", first.mib, last.mib, b / a);
        }
    }
}
