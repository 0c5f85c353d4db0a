//! Kmeans as an `App` (see `samples/kmeans.rs` for the program and its race).

use crate::common::app::{launch, App, Flags, PaperRow, Verified};
use crate::common::{bits_checksum, Rng};
use ld::{Buffer, Mode, Report, Runtime};

#[path = "../kernels/kmeans.rs"]
pub mod kernels;

use kernels::{DIM, K, THREADS};

/// Squared distance, in f32 and in the kernel's order.
fn dist2(p: &[f32], c: &[f32]) -> f32 {
    let mut acc = 0.0f32;
    for d in 0..DIM {
        let diff = p[d] - c[d];
        acc += diff * diff;
    }
    acc
}

/// The nearest centroid (lowest index on ties, as the kernel).
fn nearest(p: &[f32], cent: &[f32]) -> usize {
    let ds: Vec<f32> = (0..K).map(|c| dist2(p, &cent[c * DIM..(c + 1) * DIM])).collect();
    let mut best = 0;
    for c in 1..K {
        if ds[c] < ds[best] {
            best = c;
        }
    }
    best
}

/// One kmeans iteration on the device: assignments and per-workgroup
/// partial sums; the host combines them into the new centroids.
pub struct Kmeans {
    n: usize,
    blocks: u32,
    points_host: Vec<f32>,
    centroids_host: Vec<f32>,
    points: Buffer<f32>,
    centroids: Buffer<f32>,
    assign: Buffer<u32>,
    partial: Buffer<f32>,
}

impl App for Kmeans {
    const NAME: &'static str = "kmeans";
    const ABOUT: &'static str = "kmeans iteration (nearest-centroid assignment, per-workgroup centroid sums reduced in workgroup memory)";
    const PAPER: PaperRow = PaperRow { race: true, injected: true, kind: "rw", scope: "shared" };

    fn new(rt: &Runtime, flags: &Flags) -> ld::Result<Self> {
        // The paper's 139 blocks of 128 threads, one point each.
        let n = flags.scaled(139 * THREADS, 1);
        let blocks = n.div_ceil(THREADS) as u32;
        let mut rng = Rng::new(2013);
        // K true centres in [-10, 10)^DIM, points around them, and initial
        // centroids that are perturbed true centres (as after a first pass).
        let centres: Vec<f32> = (0..K * DIM).map(|_| rng.f32() * 20.0 - 10.0).collect();
        let mut points_host = Vec::with_capacity(n * DIM);
        for _ in 0..n {
            let c = (rng.next_u64() % K as u64) as usize;
            for d in 0..DIM {
                points_host.push(centres[c * DIM + d] + 2.0 * rng.normal());
            }
        }
        let centroids_host: Vec<f32> = centres.iter().map(|&x| x + rng.normal()).collect();
        let points = rt.upload(&points_host)?;
        let centroids = rt.upload(&centroids_host)?;
        let assign = rt.zeros::<u32>(n)?;
        let partial = rt.zeros::<f32>(blocks as usize * K * (DIM + 1))?;
        Ok(Kmeans { n, blocks, points_host, centroids_host, points, centroids, assign, partial })
    }

    fn run(&mut self, rt: &Runtime, flags: &Flags, mode: Mode) -> ld::Result<Vec<Report>> {
        let sync = if flags.fixed { kernels::FIXED } else { kernels::RACY };
        let mut reports = Vec::new();
        let l = kernels::kmeans_step.launch(rt, self.blocks, &self.points, &self.centroids, &mut self.assign, &mut self.partial, self.n as u32, sync);
        launch(l, flags, mode, &mut reports)?;
        Ok(reports)
    }

    fn verify(&self) -> ld::Result<Verified> {
        let assign = self.assign.to_vec()?;
        let partial = self.partial.to_vec()?;
        // Assignments: exactly the host's (same f32 arithmetic, same order).
        let mut wrong = 0usize;
        let mut first = None;
        let mut sums = vec![0.0f64; K * (DIM + 1)];
        for (i, &a) in assign.iter().enumerate().take(self.n) {
            let p = &self.points_host[i * DIM..(i + 1) * DIM];
            let best = nearest(p, &self.centroids_host);
            if a as usize != best {
                wrong += 1;
                first.get_or_insert(i);
            }
            for d in 0..DIM {
                sums[best * (DIM + 1) + d] += p[d] as f64;
            }
            sums[best * (DIM + 1) + DIM] += 1.0;
        }
        // The host's combine: the workgroups' partial sums and counts.
        let mut dev = vec![0.0f64; K * (DIM + 1)];
        for b in 0..self.blocks as usize {
            for e in 0..K * (DIM + 1) {
                dev[e] += partial[b * K * (DIM + 1) + e] as f64;
            }
        }
        // Sums of up to n coordinates of magnitude ~10: bound the error
        // relative to the sum of magnitudes (f32 tree sums per workgroup).
        let scale = self.n as f64 * 10.0 / K as f64;
        let max_err = dev.iter().zip(&sums).map(|(a, b)| (a - b).abs() / scale.max(b.abs())).fold(0.0, f64::max);
        let counts_ok = (0..K).all(|c| dev[c * (DIM + 1) + DIM] == sums[c * (DIM + 1) + DIM]);
        let counts: Vec<String> = (0..K).map(|c| format!("{}", sums[c * (DIM + 1) + DIM])).collect();
        let new_centroids: Vec<f64> = (0..K * DIM).map(|e| dev[(e / DIM) * (DIM + 1) + e % DIM] / dev[(e / DIM) * (DIM + 1) + DIM].max(1.0)).collect();
        let moved = (0..K * DIM).map(|e| (new_centroids[e] - self.centroids_host[e] as f64).abs()).fold(0.0, f64::max);
        let ok = wrong == 0 && counts_ok && max_err < 1e-5;
        let detail = match first {
            None => format!(
                "{} points x {DIM} features, {K} clusters ({} per cluster); assignments equal the host's; centroid sums max error {max_err:.1e} of their scale (bound 1e-5), counts {}; new centroids moved up to {moved:.3}",
                self.n,
                counts.join("/"),
                if counts_ok { "exact" } else { "WRONG" }
            ),
            Some(i) => format!("{wrong} of {} assignments differ from the host's, first at point {i}; centroid sums max error {max_err:.1e}", self.n),
        };
        Ok(Verified { ok, detail, checksum: bits_checksum(assign.iter().copied().chain(partial.iter().map(|x| x.to_bits()))) })
    }
}
