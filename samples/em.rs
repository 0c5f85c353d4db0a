//! EM: the M-step count of the paper's running example (LDetector, Fig. 2).
//!
//! For each cluster `j` (grid y) every invocation walks its share of the
//! points, and for each point `x_i` with membership weight `w_ij` forms
//! `dist = x_i - C_j`, `temp1 = dist * w_ij` and accumulates the 3x3
//! `Rp += temp1 ⊗ dist` and the weight. As in the paper, `dist`, `temp1` and
//! `Rp` are windows into one shared array `s_float` (CUDA pointers
//! `s_float + index`); after the barrier the workgroup reduces its `Rp`s and
//! weights, and the host divides to get each cluster's covariance.
//!
//! The racy variant (default, as in the paper) computes the scratch window
//! index with `lid & 127` in a 256-invocation workgroup: invocations `lid`
//! and `lid + 128` share their `temp1`/`dist` windows, a write-write race on
//! shared memory (Table VI: em, ww, shared). `--fixed` gives every
//! invocation its own window.
//!
//! `cargo run --release --example em -- [--fixed] [--cpu] [--points N]`

mod common;

use clap::Parser;
use common::{bits_checksum, median, ms, Rng};
use std::time::Instant;

const DIM: usize = 3;

#[path = "kernels/em.rs"]
mod kernels;

#[derive(Parser, Debug)]
#[command(about = "EM M-step (LDetector's running example) on ld")]
struct Args {
    /// Run the race-free variant instead of the paper's racy one.
    #[arg(long)]
    fixed: bool,
    /// Run on the CPU reference executor instead of the GPU.
    #[arg(long)]
    cpu: bool,
    /// Number of points.
    #[arg(long, default_value_t = 65536)]
    points: u32,
    /// Number of clusters.
    #[arg(long, default_value_t = 8)]
    clusters: u32,
    /// Workgroups per cluster.
    #[arg(long, default_value_t = 16)]
    blocks: u32,
    /// Timed repetitions (the median is reported).
    #[arg(long, default_value_t = 5)]
    runs: u32,
    /// Check for data races (exit status 3 when races are found).
    #[arg(long)]
    check: bool,
    /// Print the check report as JSON.
    #[arg(long)]
    json: bool,
    /// Invocations per warp in check mode (a power of two).
    #[arg(long, default_value_t = 32)]
    warp_size: u32,
}

struct Inputs {
    data: Vec<f32>,
    memb: Vec<f32>,
    centroids: Vec<f32>,
}

fn inputs(n: usize, k: usize) -> Inputs {
    let mut rng = Rng::new(2017);
    let centroids: Vec<f32> = (0..k * DIM).map(|_| rng.f32() * 20.0 - 10.0).collect();
    let mut data = Vec::with_capacity(n * DIM);
    for i in 0..n {
        let c = i % k;
        for d in 0..DIM {
            data.push(centroids[c * DIM + d] + rng.normal());
        }
    }
    let mut memb = vec![0.0f32; k * n];
    for i in 0..n {
        let raw: Vec<f32> = (0..k).map(|j| if j == i % k { 4.0 + rng.f32() } else { rng.f32() * 0.25 }).collect();
        let total: f32 = raw.iter().sum();
        for j in 0..k {
            memb[j * n + i] = raw[j] / total;
        }
    }
    Inputs { data, memb, centroids }
}

/// Per-cluster weighted scatter matrices and weights, in f64 on the host.
fn host_reference(inp: &Inputs, n: usize, k: usize) -> Vec<f64> {
    let mut out = vec![0.0f64; k * 10];
    for j in 0..k {
        for i in 0..n {
            let w = inp.memb[j * n + i] as f64;
            let d: Vec<f64> = (0..DIM).map(|c| inp.data[i * DIM + c] as f64 - inp.centroids[j * DIM + c] as f64).collect();
            for a in 0..DIM {
                for b in 0..DIM {
                    out[j * 10 + a * DIM + b] += w * d[a] * d[b];
                }
            }
            out[j * 10 + 9] += w;
        }
    }
    out
}

fn main() {
    let args = Args::parse();
    let code = if args.check { check(&args) } else { run(&args).map(|_| 0) };
    match code {
        Ok(c) => std::process::exit(c),
        Err(e) => {
            eprintln!("em: error: {e}");
            std::process::exit(1);
        }
    }
}

/// The device-side state of one em run.
struct Em {
    rt: ld::Runtime,
    inp: Inputs,
    data: ld::Buffer<f32>,
    memb: ld::Buffer<f32>,
    centroids: ld::Buffer<f32>,
    partial: ld::Buffer<f32>,
}

impl Em {
    fn new(args: &Args) -> ld::Result<Self> {
        let rt = common::runtime(args.cpu)?;
        let inp = inputs(args.points as usize, args.clusters as usize);
        let (data, memb, centroids) = (rt.upload(&inp.data)?, rt.upload(&inp.memb)?, rt.upload(&inp.centroids)?);
        let partial = rt.zeros::<f32>(args.clusters as usize * args.blocks as usize * 10)?;
        Ok(Em { rt, inp, data, memb, centroids, partial })
    }

    /// Runs `m_count` once in `mode`; returns its wall time and report.
    fn launch(&mut self, args: &Args, mode: ld::Mode) -> ld::Result<(std::time::Duration, Option<ld::Report>)> {
        let mask = if args.fixed { kernels::FIXED } else { kernels::RACY };
        let opts = ld::CheckOptions { warp_size: args.warp_size, ..Default::default() };
        let launch = self.rt.launch(kernels::m_count, (args.blocks, args.clusters), (&self.data, &self.memb, &self.centroids, &mut self.partial, args.points, mask));
        let t = Instant::now();
        let run = launch.mode(mode).check_options(opts).run()?;
        Ok((t.elapsed(), run.report))
    }

    /// Median wall time of `runs` launches, and the last report.
    fn timed(&mut self, args: &Args, mode: ld::Mode) -> ld::Result<(std::time::Duration, Option<ld::Report>)> {
        let mut times = Vec::new();
        let mut report = None;
        for _ in 0..args.runs.max(1) {
            let (t, r) = self.launch(args, mode)?;
            times.push(t);
            report = r;
        }
        Ok((median(times), report))
    }
}

/// Check mode: prints the report; exit status 0 without races, 3 with.
/// Native and checked runs go side by side: the slowdown is their ratio.
fn check(args: &Args) -> ld::Result<i32> {
    let mut em = Em::new(args)?;
    let (native, _) = em.timed(args, ld::Mode::Native)?;
    let (checked, report) = em.timed(args, ld::Mode::Check)?;
    let report = report.expect("check mode reports");
    if args.json {
        println!("{}", report.to_json());
    } else {
        println!("{report}");
        println!(
            "em: native {:.3} ms, checked {:.3} ms, slowdown {:.1}x (median of {} runs each, same device, same process)",
            ms(native),
            ms(checked),
            checked.as_secs_f64() / native.as_secs_f64(),
            args.runs.max(1)
        );
    }
    Ok(if report.has_races() { 3 } else { 0 })
}

fn run(args: &Args) -> ld::Result<()> {
    let (n, k) = (args.points as usize, args.clusters as usize);
    let mut em = Em::new(args)?;
    let (time, _) = em.timed(args, ld::Mode::Native)?;
    let (rt, inp, partial) = (&em.rt, &em.inp, &em.partial);
    let out = partial.to_vec()?;
    // Sum the per-workgroup partials of each cluster (host side of the M-step).
    let mut sums = vec![0.0f64; k * 10];
    for j in 0..k {
        for b in 0..args.blocks as usize {
            for e in 0..10 {
                sums[j * 10 + e] += out[(j * args.blocks as usize + b) * 10 + e] as f64;
            }
        }
    }
    let reference = host_reference(inp, n, k);
    let max_rel = sums.iter().zip(&reference).map(|(a, b)| (a - b).abs() / b.abs().max(1e-3)).fold(0.0, f64::max);
    let checksum: f64 = out.iter().map(|&x| x as f64).sum();
    println!(
        "em: backend={} | variant={} | points={} clusters={} workgroups={} | native {:.3} ms (median of {}) | checksum {:.6e} | bits {:016x} | max rel err vs host {:.1e}",
        rt.backend(),
        if args.fixed { "fixed" } else { "racy" },
        n,
        k,
        args.blocks * args.clusters,
        ms(time),
        args.runs.max(1),
        checksum,
        bits_checksum(out.iter().map(|x| x.to_bits())),
        max_rel
    );
    Ok(())
}
