//! EM as an `App` (see `samples/em.rs` for the program and its race).

use crate::common::app::{launch, App, Flags, PaperRow, Verified};
use crate::common::{bits_checksum, Rng};
use ld::{Buffer, Mode, Report, Runtime};

#[path = "../kernels/em.rs"]
pub mod kernels;

const DIM: usize = 3;

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

/// The M-step on the device: inputs uploaded, partial sums written.
pub struct Em {
    n: usize,
    k: usize,
    blocks: u32,
    inp: Inputs,
    data: Buffer<f32>,
    memb: Buffer<f32>,
    centroids: Buffer<f32>,
    partial: Buffer<f32>,
}

impl App for Em {
    const NAME: &'static str = "em";
    const ABOUT: &'static str = "EM M-step count (the paper's running example)";
    const PAPER: PaperRow = PaperRow { race: true, injected: false, kind: "ww", scope: "shared" };

    fn new(rt: &Runtime, flags: &Flags) -> ld::Result<Self> {
        let (n, k, blocks) = (flags.scaled(65536, 256), 8, 16);
        let inp = inputs(n, k);
        let (data, memb, centroids) = (rt.upload(&inp.data)?, rt.upload(&inp.memb)?, rt.upload(&inp.centroids)?);
        let partial = rt.zeros::<f32>(k * blocks as usize * 10)?;
        Ok(Em { n, k, blocks, inp, data, memb, centroids, partial })
    }

    fn run(&mut self, rt: &Runtime, flags: &Flags, mode: Mode) -> ld::Result<Vec<Report>> {
        let mask = if flags.fixed { kernels::FIXED } else { kernels::RACY };
        let mut reports = Vec::new();
        let l = kernels::m_count.launch(rt, (self.blocks, self.k as u32), &self.data, &self.memb, &self.centroids, &mut self.partial, self.n as u32, mask);
        launch(l, flags, mode, &mut reports)?;
        Ok(reports)
    }

    fn verify(&self) -> ld::Result<Verified> {
        let out = self.partial.to_vec()?;
        // Sum the per-workgroup partials of each cluster (host side of the M-step).
        let mut sums = vec![0.0f64; self.k * 10];
        for j in 0..self.k {
            for b in 0..self.blocks as usize {
                for e in 0..10 {
                    sums[j * 10 + e] += out[(j * self.blocks as usize + b) * 10 + e] as f64;
                }
            }
        }
        let reference = host_reference(&self.inp, self.n, self.k);
        let max_rel = sums.iter().zip(&reference).map(|(a, b)| (a - b).abs() / b.abs().max(1e-3)).fold(0.0, f64::max);
        Ok(Verified {
            ok: max_rel < 1e-4,
            detail: format!("{} points, {} clusters; max relative error vs an f64 host computation {max_rel:.1e} (bound 1e-4)", self.n, self.k),
            checksum: bits_checksum(out.iter().map(|x| x.to_bits())),
        })
    }
}
