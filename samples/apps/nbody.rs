//! nbody as an `App` (see `samples/nbody.rs` for the program and its race).

use crate::common::app::{launch, App, Flags, PaperRow, Verified};
use crate::common::{bits_checksum, Rng};
use ld::{Buffer, Mode, Report, Runtime};

#[path = "../kernels/nbody.rs"]
pub mod kernels;

use kernels::Float4;

/// Bodies per workgroup and invocations per body (the kernel's P and Q).
const P: usize = 64;
const Q: usize = 4;
/// The SDK's defaults: time step, damping, softening, cluster and velocity scale.
const DT: f32 = 0.016;
const DAMPING: f32 = 0.995;
const SOFTENING_SQ: f64 = 0.00125;
const CLUSTER_SCALE: f32 = 1.54;
const VELOCITY_SCALE: f32 = 8.0;
/// Integration steps of one execution.
const STEPS: usize = 2;

/// A point uniformly in the unit ball (rejection sampling, as the SDK).
fn in_ball(rng: &mut Rng) -> [f32; 3] {
    loop {
        let p = [rng.f32() * 2.0 - 1.0, rng.f32() * 2.0 - 1.0, rng.f32() * 2.0 - 1.0];
        if p.iter().map(|x| x * x).sum::<f32>() <= 1.0 {
            return p;
        }
    }
}

/// The SDK's NBODY_CONFIG_RANDOM: positions in a ball, unit masses,
/// random velocities.
fn bodies(n: usize) -> (Vec<Float4>, Vec<Float4>) {
    let mut rng = Rng::new(2365);
    let scale = CLUSTER_SCALE * (n as f32 / 1024.0).max(1.0);
    let vscale = VELOCITY_SCALE * scale;
    let mut pos = Vec::with_capacity(n);
    let mut vel = Vec::with_capacity(n);
    for _ in 0..n {
        let p = in_ball(&mut rng);
        pos.push(Float4 { x: p[0] * scale, y: p[1] * scale, z: p[2] * scale, w: 1.0 });
        let v = in_ball(&mut rng);
        vel.push(Float4 { x: v[0] * vscale, y: v[1] * vscale, z: v[2] * vscale, w: 1.0 });
    }
    (pos, vel)
}

/// The same steps in f64 on the host (direct summation, same update rule).
fn host_reference(pos0: &[Float4], vel0: &[Float4]) -> (Vec<[f64; 4]>, Vec<[f64; 4]>) {
    let mut pos: Vec<[f64; 4]> = pos0.iter().map(|b| [b.x as f64, b.y as f64, b.z as f64, b.w as f64]).collect();
    let mut vel: Vec<[f64; 4]> = vel0.iter().map(|b| [b.x as f64, b.y as f64, b.z as f64, b.w as f64]).collect();
    let (dt, damping) = (DT as f64, DAMPING as f64);
    for _ in 0..STEPS {
        let acc: Vec<[f64; 3]> = pos
            .iter()
            .map(|bi| {
                let mut a = [0.0f64; 3];
                for bj in &pos {
                    let r = [bj[0] - bi[0], bj[1] - bi[1], bj[2] - bi[2]];
                    let d2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + SOFTENING_SQ;
                    let s = bj[3] / (d2 * d2.sqrt());
                    for c in 0..3 {
                        a[c] += r[c] * s;
                    }
                }
                a
            })
            .collect();
        for i in 0..pos.len() {
            for c in 0..3 {
                vel[i][c] = (vel[i][c] + acc[i][c] * dt) * damping;
                pos[i][c] += vel[i][c] * dt;
            }
        }
    }
    (pos, vel)
}

/// The SDK's double-buffered body system on the device.
pub struct Nbody {
    n: usize,
    pos0: Vec<Float4>,
    vel0: Vec<Float4>,
    pos: [Buffer<Float4>; 2],
    vel: [Buffer<Float4>; 2],
    /// Which buffer of `pos`/`vel` holds the current state.
    current: usize,
}

impl App for Nbody {
    const NAME: &'static str = "nbody";
    const ABOUT: &'static str = "CUDA SDK n-body: all-pairs gravitation, several invocations per body";
    const PAPER: PaperRow = PaperRow { race: true, injected: false, kind: "ww", scope: "global" };

    fn new(rt: &Runtime, flags: &Flags) -> ld::Result<Self> {
        // The paper's 60 workgroups of 64 x 4; the grid must be a multiple of Q.
        let blocks = flags.scaled(60, Q).div_ceil(Q) * Q;
        let n = blocks * P;
        let (pos0, vel0) = bodies(n);
        let pos = [rt.upload(&pos0)?, rt.zeros::<Float4>(n)?];
        let vel = [rt.upload(&vel0)?, rt.zeros::<Float4>(n)?];
        Ok(Nbody { n, pos0, vel0, pos, vel, current: 0 })
    }

    fn run(&mut self, rt: &Runtime, flags: &Flags, mode: Mode) -> ld::Result<Vec<Report>> {
        let all_rows_write = if flags.fixed { kernels::FIXED } else { kernels::RACY };
        // Every execution starts from the same state: the inputs in buffer
        // 0, zeros in buffer 1 (freshly allocated device memory).
        let zeros = vec![Float4::default(); self.n];
        self.pos[0].write(&self.pos0)?;
        self.vel[0].write(&self.vel0)?;
        self.pos[1].write(&zeros)?;
        self.vel[1].write(&zeros)?;
        self.current = 0;
        let blocks = (self.n / P) as u32;
        let mut reports = Vec::new();
        for _ in 0..STEPS {
            let [p0, p1] = &mut self.pos;
            let [v0, v1] = &mut self.vel;
            let (new_pos, new_vel, old_pos, old_vel) = if self.current == 0 { (p1, v1, &*p0, &*v0) } else { (p0, v0, &*p1, &*v1) };
            let l = kernels::integrate_bodies.launch(rt, blocks, new_pos, new_vel, old_pos, old_vel, DT, DAMPING, self.n as u32, all_rows_write);
            launch(l, flags, mode, &mut reports)?;
            self.current = 1 - self.current;
        }
        Ok(reports)
    }

    fn verify(&self) -> ld::Result<Verified> {
        let pos = self.pos[self.current].to_vec()?;
        let vel = self.vel[self.current].to_vec()?;
        let (hp, hv) = host_reference(&self.pos0, &self.vel0);
        // Largest deviation relative to the largest magnitude of the quantity.
        let err = |dev: &[Float4], host: &[[f64; 4]]| {
            let scale = host.iter().flat_map(|h| h[..3].iter()).fold(0.0f64, |m, x| m.max(x.abs()));
            let diff = dev.iter().zip(host).flat_map(|(d, h)| [d.x as f64 - h[0], d.y as f64 - h[1], d.z as f64 - h[2]]).fold(0.0f64, |m, x| m.max(x.abs()));
            diff / scale
        };
        let (ep, ev) = (err(&pos, &hp), err(&vel, &hv));
        const BOUND: f64 = 1e-4;
        Ok(Verified {
            ok: ep < BOUND && ev < BOUND,
            detail: format!(
                "{} bodies, {STEPS} steps; max error vs an f64 host simulation, relative to the largest magnitude: positions {ep:.1e}, velocities {ev:.1e} (bound {BOUND:.0e})",
                self.n
            ),
            checksum: bits_checksum(pos.iter().chain(&vel).flat_map(|b| [b.x.to_bits(), b.y.to_bits(), b.z.to_bits(), b.w.to_bits()])),
        })
    }
}
