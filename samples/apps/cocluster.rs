//! Cocluster as an `App` (see `samples/cocluster.rs` for the program and its race).

use crate::common::app::{launch, App, Flags, PaperRow, Verified};
use crate::common::{bits_checksum, Rng};
use ld::{Buffer, Mode, Report, Runtime};

#[path = "../kernels/cocluster.rs"]
pub mod kernels;

use kernels::{KC, KR, THREADS};

const CELLS: usize = KR * KC;
/// The paper's 8 blocks, of 256 rows each.
const BLOCKS: usize = 8;

/// The co-clustering statistics of one iteration on the device: each
/// workgroup's row-cluster x column-cluster sums; the host combines them
/// into the co-cluster means.
pub struct Cocluster {
    rows: usize,
    cols: usize,
    data_host: Vec<f32>,
    row_host: Vec<u32>,
    col_host: Vec<u32>,
    /// The co-cluster means the data was generated from.
    mu: Vec<f32>,
    data: Buffer<f32>,
    row_label: Buffer<u32>,
    col_order: Buffer<u32>,
    col_start: Buffer<u32>,
    sums: Buffer<f32>,
}

impl App for Cocluster {
    const NAME: &'static str = "cocluster";
    const ABOUT: &'static str = "co-clustering statistics (row-cluster x column-cluster sums from per-warp partial matrices in workgroup memory)";
    const PAPER: PaperRow = PaperRow { race: true, injected: false, kind: "rw", scope: "shared" };

    fn new(rt: &Runtime, flags: &Flags) -> ld::Result<Self> {
        let rows = BLOCKS * THREADS;
        let cols = flags.scaled(4096, 64);
        let mut rng = Rng::new(2011);
        let mu: Vec<f32> = (0..CELLS).map(|_| rng.f32() * 5.0).collect();
        let row_host: Vec<u32> = (0..rows).map(|_| (rng.next_u64() % KR as u64) as u32).collect();
        let col_host: Vec<u32> = (0..cols).map(|_| (rng.next_u64() % KC as u64) as u32).collect();
        let mut data_host = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            for j in 0..cols {
                data_host.push(mu[row_host[i] as usize * KC + col_host[j] as usize] + 0.5 * rng.normal());
            }
        }
        // The column clusters' member lists (columns sorted by cluster).
        let mut order: Vec<u32> = (0..cols as u32).collect();
        order.sort_by_key(|&j| col_host[j as usize]);
        let mut start = vec![0u32; KC + 1];
        for &c in &col_host {
            start[c as usize + 1] += 1;
        }
        for b in 0..KC {
            start[b + 1] += start[b];
        }
        let data = rt.upload(&data_host)?;
        let row_label = rt.upload(&row_host)?;
        let col_order = rt.upload(&order)?;
        let col_start = rt.upload(&start)?;
        let sums = rt.zeros::<f32>(BLOCKS * CELLS)?;
        Ok(Cocluster { rows, cols, data_host, row_host, col_host, mu, data, row_label, col_order, col_start, sums })
    }

    fn run(&mut self, rt: &Runtime, flags: &Flags, mode: Mode) -> ld::Result<Vec<Report>> {
        let chained = if flags.fixed { kernels::FIXED } else { kernels::RACY };
        let mut reports = Vec::new();
        let l = kernels::cocluster_stats.launch(
            rt,
            BLOCKS as u32,
            &self.data,
            &self.row_label,
            &self.col_order,
            &self.col_start,
            &mut self.sums,
            self.cols as u32,
            chained,
        );
        launch(l, flags, mode, &mut reports)?;
        Ok(reports)
    }

    fn verify(&self) -> ld::Result<Verified> {
        let out = self.sums.to_vec()?;
        // Each workgroup's sums (and sums of magnitudes, for the bound) in f64.
        let mut host = vec![0.0f64; BLOCKS * CELLS];
        let mut mag = vec![0.0f64; BLOCKS * CELLS];
        for i in 0..self.rows {
            let g = i / THREADS;
            let a = self.row_host[i] as usize;
            for j in 0..self.cols {
                let x = self.data_host[i * self.cols + j] as f64;
                let cell = g * CELLS + a * KC + self.col_host[j] as usize;
                host[cell] += x;
                mag[cell] += x.abs();
            }
        }
        let max_err = out.iter().zip(host.iter().zip(&mag)).map(|(&o, (&h, &m))| (o as f64 - h).abs() / m.max(1.0)).fold(0.0, f64::max);
        // The host's combine: co-cluster means from the workgroups' sums and
        // the cluster sizes.
        let mut row_n = [0usize; KR];
        let mut col_n = [0usize; KC];
        self.row_host.iter().for_each(|&a| row_n[a as usize] += 1);
        self.col_host.iter().for_each(|&b| col_n[b as usize] += 1);
        let mut dev_mu = 0.0f64;
        for cell in 0..CELLS {
            let total: f64 = (0..BLOCKS).map(|g| out[g * CELLS + cell] as f64).sum();
            let count = row_n[cell / KC] * col_n[cell % KC];
            if count > 0 {
                dev_mu = dev_mu.max((total / count as f64 - self.mu[cell] as f64).abs());
            }
        }
        let ok = max_err < 1e-5;
        Ok(Verified {
            ok,
            detail: format!(
                "{} x {} matrix, {KR} x {KC} co-clusters, {BLOCKS} workgroups; per-workgroup sums max error {max_err:.1e} of their magnitude vs an f64 host computation (bound 1e-5); co-cluster means within {dev_mu:.3} of the generating ones",
                self.rows, self.cols
            ),
            checksum: bits_checksum(out.iter().map(|x| x.to_bits())),
        })
    }
}
