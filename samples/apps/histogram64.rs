//! Histogram64 as an `App` (see `samples/histogram64.rs` for the program).

use crate::common::app::{launch, App, Flags, PaperRow, Verified};
use crate::common::{bits_checksum, Rng};
use ld::{Buffer, Mode, Report, Runtime};

#[path = "../kernels/histogram64.rs"]
pub mod kernels;

use kernels::{BIN_COUNT, MAX_WORDS_PER_THREAD, THREAD_N};

/// A 64-bin histogram of random bytes, on the device.
pub struct Histogram64 {
    words: Vec<u32>,
    blocks: u32,
    data: Buffer<u32>,
    partial: Buffer<u32>,
    result: Buffer<u32>,
}

impl App for Histogram64 {
    const NAME: &'static str = "histogram64";
    const ABOUT: &'static str = "CUDA SDK histogram64 (per-invocation byte sub-histograms in workgroup memory)";
    const PAPER: PaperRow = PaperRow { race: false, injected: false, kind: "", scope: "" };

    fn new(rt: &Runtime, flags: &Flags) -> ld::Result<Self> {
        // 16 MiB of bytes, 4 to a word (the SDK's default is 100 MB).
        let n = flags.scaled(1 << 22, 1);
        let mut rng = Rng::new(64);
        let words: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        // The SDK's grid: as few workgroups as keep every invocation at no
        // more than 63 words (100 MB gives the paper's 2067).
        let blocks = n.div_ceil(THREAD_N * MAX_WORDS_PER_THREAD) as u32;
        let data = rt.upload(&words)?;
        let partial = rt.zeros::<u32>(blocks as usize * BIN_COUNT)?;
        let result = rt.zeros::<u32>(BIN_COUNT)?;
        Ok(Histogram64 { words, blocks, data, partial, result })
    }

    fn run(&mut self, rt: &Runtime, flags: &Flags, mode: Mode) -> ld::Result<Vec<Report>> {
        // No race in either variant: `--fixed` runs the same program.
        let mut reports = Vec::new();
        let k = kernels::histogram64_kernel.launch(rt, self.blocks, &mut self.partial, &self.data, self.words.len() as u32);
        launch(k, flags, mode, &mut reports)?;
        let k = kernels::merge_histogram64.launch(rt, BIN_COUNT as u32, &mut self.result, &self.partial, self.blocks);
        launch(k, flags, mode, &mut reports)?;
        Ok(reports)
    }

    fn verify(&self) -> ld::Result<Verified> {
        let out = self.result.to_vec()?;
        let mut host = [0u32; BIN_COUNT];
        for w in &self.words {
            for b in w.to_le_bytes() {
                host[(b >> 2) as usize] += 1;
            }
        }
        let wrong = out.iter().zip(&host).filter(|(a, b)| a != b).count();
        let detail = if wrong == 0 {
            format!("{} bytes in {} workgroups x {THREAD_N}; all 64 bins equal the host's count", self.words.len() * 4, self.blocks)
        } else {
            format!("{wrong} of 64 bins differ from the host's count (device {:?}, host {:?})", &out[..8], &host[..8])
        };
        Ok(Verified { ok: wrong == 0, detail, checksum: bits_checksum(out.iter().copied()) })
    }
}
