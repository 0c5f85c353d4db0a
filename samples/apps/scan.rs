//! Scan as an `App` (see `samples/scan.rs` for the program and its race).

use crate::common::app::{launch, App, Flags, PaperRow, Verified};
use crate::common::{bits_checksum, Rng};
use ld::{Buffer, Mode, Report, Runtime};

#[path = "../kernels/scan.rs"]
pub mod kernels;

use kernels::BLOCK;

/// One level of the recursive scan: `n` elements scanned in blocks of 512
/// into `out`, the block totals in `sums` (the next level's input).
struct Level {
    n: usize,
    out: Buffer<u32>,
    sums: Buffer<u32>,
}

/// An exclusive prefix sum of `n` `u32`s (wrapping), on the device.
pub struct Scan {
    input_host: Vec<u32>,
    input: Buffer<u32>,
    levels: Vec<Level>,
}

impl App for Scan {
    const NAME: &'static str = "scan";
    const ABOUT: &'static str = "CUDA SDK work-efficient scan (Blelloch prefix sum, block sums scanned recursively)";
    const PAPER: PaperRow = PaperRow { race: true, injected: true, kind: "rw", scope: "shared" };
    const OURS: Option<PaperRow> = Some(PaperRow { race: true, injected: true, kind: "rw,ww", scope: "shared" });
    const DIFFERS: &'static str = "the injected race is a read-modify-write: where both warps change a word, value comparison sees two writers (ww); the paper's rw shows where the reader's add leaves the word unchanged";

    fn new(rt: &Runtime, flags: &Flags) -> ld::Result<Self> {
        // The paper's 256 blocks, of 512 elements each here.
        let n = flags.scaled(256 * BLOCK, 1);
        let mut rng = Rng::new(2011);
        let input_host: Vec<u32> = (0..n).map(|_| (rng.next_u64() >> 44) as u32).collect();
        let input = rt.upload(&input_host)?;
        let mut levels = Vec::new();
        let mut len = n;
        loop {
            let blocks = len.div_ceil(BLOCK);
            levels.push(Level { n: len, out: rt.zeros::<u32>(len)?, sums: rt.zeros::<u32>(blocks)? });
            if blocks == 1 {
                break;
            }
            len = blocks;
        }
        Ok(Scan { input_host, input, levels })
    }

    fn run(&mut self, rt: &Runtime, flags: &Flags, mode: Mode) -> ld::Result<Vec<Report>> {
        let sync_down = if flags.fixed { kernels::FIXED } else { kernels::RACY };
        let mut reports = Vec::new();
        // Scan every level's blocks; level l + 1 scans level l's block sums.
        for l in 0..self.levels.len() {
            let (done, rest) = self.levels.split_at_mut(l);
            let input = if l == 0 { &self.input } else { &done[l - 1].sums };
            let lv = &mut rest[0];
            let blocks = lv.n.div_ceil(BLOCK) as u32;
            let k = kernels::prescan.launch(rt, blocks, input, &mut lv.out, &mut lv.sums, lv.n as u32, sync_down);
            launch(k, flags, mode, &mut reports)?;
        }
        // Add the scanned sums of each level to the blocks of the level below.
        for l in (1..self.levels.len()).rev() {
            let (lower, upper) = self.levels.split_at_mut(l);
            let lv = &mut lower[l - 1];
            let blocks = lv.n.div_ceil(BLOCK) as u32;
            let k = kernels::uniform_add.launch(rt, blocks, &mut lv.out, &upper[0].out, lv.n as u32);
            launch(k, flags, mode, &mut reports)?;
        }
        Ok(reports)
    }

    fn verify(&self) -> ld::Result<Verified> {
        let out = self.levels[0].out.to_vec()?;
        let mut acc = 0u32;
        let mut wrong = 0usize;
        let mut first = None;
        for (i, (&x, &o)) in self.input_host.iter().zip(&out).enumerate() {
            if o != acc {
                wrong += 1;
                first.get_or_insert(i);
            }
            acc = acc.wrapping_add(x);
        }
        let detail = match first {
            None => format!("{} elements, {} levels of 512-element blocks; exclusive prefix sums equal the host's", out.len(), self.levels.len()),
            Some(i) => format!("{wrong} of {} prefix sums differ from the host's, first at {i}", out.len()),
        };
        Ok(Verified { ok: wrong == 0, detail, checksum: bits_checksum(out.iter().copied()) })
    }
}
