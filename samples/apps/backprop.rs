//! Rodinia backprop as an `App` (see `samples/backprop.rs` for the program and its race).

use crate::common::app::{launch, App, Flags, PaperRow, Verified};
use crate::common::{bits_checksum, Rng};
use ld::{Buffer, Mode, Report, Runtime};

#[path = "../kernels/backprop.rs"]
pub mod kernels;

const HID: usize = 16;
const ETA: f32 = 0.3;
const MOMENTUM: f32 = 0.3;
const TARGET: f32 = 0.1;

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// One training step of a `in`-16-1 network (Rodinia's `bpnn_train_cuda`):
/// layerforward and adjust_weights on the device, the rest on the host.
pub struct Backprop {
    n_in: usize,
    blocks: u32,
    /// Input units `0..=in` (unit 0 is the bias, 1.0).
    input: Vec<f32>,
    /// Input->hidden weights, `(in + 1) x (hid + 1)` row-major.
    w0: Vec<f32>,
    oldw0: Vec<f32>,
    /// Hidden->output weights `(hid + 1)`.
    hidden_w: Vec<f32>,
    input_buf: Buffer<f32>,
    w: Buffer<f32>,
    oldw: Buffer<f32>,
    partial: Buffer<f32>,
    delta: Buffer<f32>,
    /// What the last run read back and computed on the host.
    sums: Vec<f32>,
    hidden_delta: Vec<f32>,
}

impl App for Backprop {
    const NAME: &'static str = "backprop";
    const ABOUT: &'static str = "Rodinia back-propagation (layerforward + adjust_weights)";
    const PAPER: PaperRow = PaperRow { race: true, injected: false, kind: "ww", scope: "global" };

    fn new(rt: &Runtime, flags: &Flags) -> ld::Result<Self> {
        let n_in = flags.scaled(8192, 128) / 16 * 16;
        let blocks = (n_in / 16) as u32;
        let mut rng = Rng::new(1990);
        let mut input: Vec<f32> = (0..=n_in).map(|_| rng.f32()).collect();
        input[0] = 1.0;
        let scale = 2.0 / (n_in as f32).sqrt();
        let w0: Vec<f32> = (0..(n_in + 1) * (HID + 1)).map(|_| (rng.f32() - 0.5) * scale).collect();
        let oldw0: Vec<f32> = (0..(n_in + 1) * (HID + 1)).map(|_| (rng.f32() - 0.5) * 0.01).collect();
        let hidden_w: Vec<f32> = (0..=HID).map(|_| rng.f32() - 0.5).collect();
        let input_buf = rt.upload(&input)?;
        let w = rt.upload(&w0)?;
        let oldw = rt.upload(&oldw0)?;
        let partial = rt.zeros::<f32>(blocks as usize * HID)?;
        let delta = rt.zeros::<f32>(HID + 1)?;
        Ok(Backprop { n_in, blocks, input, w0, oldw0, hidden_w, input_buf, w, oldw, partial, delta, sums: vec![], hidden_delta: vec![] })
    }

    fn run(&mut self, rt: &Runtime, flags: &Flags, mode: Mode) -> ld::Result<Vec<Report>> {
        let racy = if flags.fixed { 0u32 } else { 1u32 };
        let hid = HID as u32;
        let mut reports = Vec::new();
        // bpnn_train_cuda: weights to the device, layerforward.
        self.w.write(&self.w0)?;
        self.oldw.write(&self.oldw0)?;
        let l = kernels::layerforward.launch(rt, (1u32, self.blocks), &self.input_buf, &mut self.w, &mut self.partial, hid, racy);
        launch(l, flags, mode, &mut reports)?;
        // Host: hidden layer from the partial sums, output layer, errors.
        let partial = self.partial.to_vec()?;
        let mut sums = vec![0.0f32; HID + 1];
        let mut hidden = [1.0f32; HID + 1];
        for j in 1..=HID {
            let mut sum = 0.0f32;
            for k in 0..self.blocks as usize {
                sum += partial[k * HID + j - 1];
            }
            sum += self.w0[j];
            sums[j] = sum;
            hidden[j] = sigmoid(sum);
        }
        let out = sigmoid((0..=HID).map(|j| self.hidden_w[j] * hidden[j]).sum());
        let out_delta = out * (1.0 - out) * (TARGET - out);
        let mut hidden_delta = vec![0.0f32; HID + 1];
        for j in 1..=HID {
            hidden_delta[j] = hidden[j] * (1.0 - hidden[j]) * out_delta * self.hidden_w[j];
        }
        // The weights go to the device again (Rodinia re-uploads them: the
        // write-back of layerforward is dead), then adjust_weights.
        self.delta.write(&hidden_delta)?;
        self.w.write(&self.w0)?;
        let l = kernels::adjust_weights.launch(rt, (1u32, self.blocks), &self.delta, &self.input_buf, &mut self.w, &mut self.oldw, hid);
        launch(l, flags, mode, &mut reports)?;
        self.sums = sums;
        self.hidden_delta = hidden_delta;
        Ok(reports)
    }

    fn verify(&self) -> ld::Result<Verified> {
        let (w, oldw) = (self.w.to_vec()?, self.oldw.to_vec()?);
        // Hidden-layer sums against f64.
        let mut max_sum_err = 0.0f64;
        for j in 1..=HID {
            let (mut s, mut mag) = (self.w0[j] as f64, self.w0[j].abs() as f64);
            for i in 1..=self.n_in {
                let t = self.input[i] as f64 * self.w0[i * (HID + 1) + j] as f64;
                s += t;
                mag += t.abs();
            }
            max_sum_err = max_sum_err.max((self.sums[j] as f64 - s).abs() / mag.max(1e-6));
        }
        // Updated weights and momenta against the same f32 formula.
        let mut max_w_err = 0.0f64;
        for i in 0..=self.n_in {
            for j in 1..=HID {
                let k = i * (HID + 1) + j;
                let ly = if i == 0 { 1.0 } else { self.input[i] };
                let dw = ETA * self.hidden_delta[j] * ly + MOMENTUM * self.oldw0[k];
                let (ew, eo) = (self.w0[k] + dw, dw);
                let e = ((w[k] - ew).abs() / ew.abs().max(1e-3)).max((oldw[k] - eo).abs() / eo.abs().max(1e-3)) as f64;
                max_w_err = max_w_err.max(e);
            }
            // Column 0 (hidden bias unit) is never touched.
            if w[i * (HID + 1)] != self.w0[i * (HID + 1)] {
                max_w_err = f64::INFINITY;
            }
        }
        let ok = max_sum_err < 1e-5 && max_w_err < 1e-5;
        Ok(Verified {
            ok,
            detail: format!(
                "{} inputs x {HID} hidden, {} workgroups; hidden sums: max error {max_sum_err:.1e} of sum |terms| vs f64 (bound 1e-5); weights/momenta: max relative error {max_w_err:.1e} (bound 1e-5)",
                self.n_in, self.blocks
            ),
            checksum: bits_checksum(self.sums.iter().chain(&w).chain(&oldw).map(|x| x.to_bits())),
        })
    }
}
