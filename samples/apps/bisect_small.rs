//! Bisect_small as an `App` (see `samples/bisect_small.rs` for the program).

use crate::common::app::{launch, App, Flags, PaperRow, Verified};
use crate::common::{bits_checksum, Rng};
use ld::{Arg, Buffer, Mode, Report, Runtime};

#[path = "../kernels/bisect_small.rs"]
pub mod kernels;

use kernels::MAX_N;

/// Relative accuracy asked of every eigenvalue (the SDK's default).
const PRECISION: f32 = 0.00001;

/// The SDK's `computeGerschgorin`: an interval holding every eigenvalue,
/// widened for rounding.
fn gerschgorin(d: &[f32], s: &[f32]) -> (f32, f32) {
    let n = d.len();
    let (mut lg, mut ug) = (f32::MAX, f32::MIN);
    for i in 0..n {
        let r = s[i].abs() + if i + 1 < n { s[i + 1].abs() } else { 0.0 };
        lg = lg.min(d[i] - r);
        ug = ug.max(d[i] + r);
    }
    let bnorm = lg.abs().max(ug.abs());
    let psi = 11.0 * f32::EPSILON * bnorm;
    let widen = bnorm * 2.0 * n as f32 * f32::EPSILON;
    let (lg, ug) = (lg - widen - psi, ug + widen + psi);
    (lg, ug.max(lg))
}

/// Eigenvalues below `x` of the tridiagonal matrix (Sturm count, f64).
fn count_below(d: &[f32], s: &[f32], x: f64) -> usize {
    let mut delta = 1.0f64;
    let mut count = 0;
    for k in 0..d.len() {
        let sk = s[k] as f64;
        delta = d[k] as f64 - x - sk * sk / delta;
        if delta == 0.0 {
            delta = -f64::EPSILON * (d[k].abs() as f64 + sk.abs() + x.abs()).max(1e-300);
        }
        if delta < 0.0 {
            count += 1;
        }
    }
    count
}

/// Every eigenvalue by plain bisection in f64, one eigenvalue at a time.
fn host_eigenvalues(d: &[f32], s: &[f32], lg: f32, ug: f32) -> Vec<f64> {
    (0..d.len())
        .map(|k| {
            let (mut lo, mut hi) = (lg as f64, ug as f64);
            for _ in 0..100 {
                let mid = 0.5 * (lo + hi);
                if count_below(d, s, mid) > k {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            0.5 * (lo + hi)
        })
        .collect()
}

/// All eigenvalues of one symmetric tridiagonal matrix, on the device.
pub struct BisectSmall {
    d: Vec<f32>,
    s: Vec<f32>,
    lg: f32,
    ug: f32,
    min_abs: f32,
    levels: u32,
    g_d: Buffer<f32>,
    g_s: Buffer<f32>,
    g_left: Buffer<f32>,
    g_left_count: Buffer<u32>,
}

impl App for BisectSmall {
    const NAME: &'static str = "bisect_small";
    const ABOUT: &'static str = "CUDA SDK eigenvalues, bisect_small (all eigenvalues of a tridiagonal matrix in one workgroup)";
    const PAPER: PaperRow = PaperRow { race: false, injected: false, kind: "", scope: "" };

    fn new(rt: &Runtime, flags: &Flags) -> ld::Result<Self> {
        let n = flags.scaled(MAX_N, 2).min(MAX_N);
        let mut rng = Rng::new(278217421);
        // Diagonal and superdiagonal uniform in [-1, 1) (as the SDK's
        // sample); s[0] is the SDK's leading zero (s[k] couples k - 1, k).
        let d: Vec<f32> = (0..n).map(|_| 2.0 * rng.f32() - 1.0).collect();
        let s: Vec<f32> = (0..n).map(|k| if k == 0 { 0.0 } else { 2.0 * rng.f32() - 1.0 }).collect();
        let (lg, ug) = gerschgorin(&d, &s);
        // Absolute floor of the convergence test (the SDK's 5e-37 would not
        // bound the levels) and the levels that guarantee convergence: level
        // k leaves intervals of (ug - lg) / 2^(k+1), so ceil(log2((ug - lg) /
        // min_abs)) levels converge every interval; a multiple eigenvalue
        // needs one more per halving of its multiplicity; one for rounding.
        let min_abs = PRECISION * lg.abs().max(ug.abs());
        let levels = ((ug - lg) / min_abs).log2().ceil() as u32 + (n as f32).log2().ceil() as u32 + 1;
        let (g_d, g_s) = (rt.upload(&d)?, rt.upload(&s)?);
        let (g_left, g_left_count) = (rt.zeros::<f32>(n)?, rt.zeros::<u32>(n)?);
        Ok(BisectSmall { d, s, lg, ug, min_abs, levels, g_d, g_s, g_left, g_left_count })
    }

    fn run(&mut self, rt: &Runtime, flags: &Flags, mode: Mode) -> ld::Result<Vec<Report>> {
        // No race in either variant: `--fixed` runs the same program.
        let n = self.d.len() as u32;
        let mut reports = Vec::new();
        // More arguments than launch tuples take: a `Vec<Arg>`.
        let args: Vec<Arg> = vec![
            (&self.g_d).into(),
            (&self.g_s).into(),
            (&mut self.g_left).into(),
            (&mut self.g_left_count).into(),
            n.into(),
            self.lg.into(),
            self.ug.into(),
            0u32.into(),
            n.into(),
            PRECISION.into(),
            self.min_abs.into(),
            self.levels.into(),
            n.next_power_of_two().into(),
        ];
        launch(rt.launch(kernels::bisect_kernel, 1, args), flags, mode, &mut reports)?;
        Ok(reports)
    }

    fn verify(&self) -> ld::Result<Verified> {
        let vals = self.g_left.to_vec()?;
        let counts = self.g_left_count.to_vec()?;
        let n = vals.len();
        let mut ranks = counts.clone();
        ranks.sort_unstable();
        let ranks_ok = ranks.iter().enumerate().all(|(i, &c)| c as usize == i);
        let mut got: Vec<f64> = vals.iter().map(|&x| x as f64).collect();
        got.sort_by(f64::total_cmp);
        let host = host_eigenvalues(&self.d, &self.s, self.lg, self.ug);
        // Convergence leaves half an interval of max(min_abs, |x| 1e-5); the
        // f32 Sturm counts add a few ulps of the matrix norm.
        let scale = self.lg.abs().max(self.ug.abs()) as f64;
        let tol = 1.5 * self.min_abs as f64 + 64.0 * f32::EPSILON as f64 * scale;
        let max_err = got.iter().zip(&host).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        let ok = ranks_ok && max_err <= tol;
        let detail = format!(
            "order {n}, {} bisection levels; ranks {}; max |error| vs an f64 host bisection {max_err:.2e} (bound {tol:.2e})",
            self.levels,
            if ranks_ok { "0..n" } else { "NOT a permutation of 0..n" }
        );
        Ok(Verified { ok, detail, checksum: bits_checksum(vals.iter().map(|x| x.to_bits()).chain(counts.iter().copied())) })
    }
}
