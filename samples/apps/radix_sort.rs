//! radix_sort as an `App` (see `samples/radix_sort.rs` for the program).

use crate::common::app::{launch, App, Flags, PaperRow, Verified};
use crate::common::{bits_checksum, Rng};
use ld::{Buffer, Mode, Report, Runtime};

#[path = "../kernels/radix_sort.rs"]
pub mod kernels;

use kernels::{BITS, BLOCK, RADIX};

/// Sorts u32 keys on the device, 4 bits per pass.
pub struct RadixSort {
    input: Vec<u32>,
    /// The keys: input, then sorted after each pass.
    keys: Buffer<u32>,
    /// Each pass's block-sorted keys.
    temp: Buffer<u32>,
    counters: Buffer<u32>,
    block_offsets: Buffer<u32>,
}

impl App for RadixSort {
    const NAME: &'static str = "radix_sort";
    const ABOUT: &'static str = "CUDA SDK radix sort of u32 keys (block split sorts, digit offsets, scan, scatter)";
    const PAPER: PaperRow = PaperRow { race: false, injected: false, kind: "", scope: "" };

    fn new(rt: &Runtime, flags: &Flags) -> ld::Result<Self> {
        // A multiple of the block size, as the SDK requires.
        let n = flags.scaled(1 << 18, BLOCK).div_ceil(BLOCK) * BLOCK;
        let mut rng = Rng::new(2368);
        let input: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        let blocks = n / BLOCK;
        Ok(RadixSort {
            keys: rt.upload(&input)?,
            temp: rt.zeros::<u32>(n)?,
            counters: rt.zeros::<u32>(blocks * RADIX)?,
            block_offsets: rt.zeros::<u32>(blocks * RADIX)?,
            input,
        })
    }

    fn run(&mut self, rt: &Runtime, flags: &Flags, mode: Mode) -> ld::Result<Vec<Report>> {
        // `--fixed` changes nothing: the program has no race.
        self.keys.write(&self.input)?;
        let blocks = (self.input.len() / BLOCK) as u32;
        let mut reports = Vec::new();
        for pass in 0..32 / BITS {
            let start_bit = pass * BITS;
            let l = kernels::radix_sort_blocks.launch(rt, blocks, &self.keys, &mut self.temp, start_bit);
            launch(l, flags, mode, &mut reports)?;
            let l = kernels::find_radix_offsets.launch(rt, blocks, &self.temp, &mut self.counters, &mut self.block_offsets, start_bit);
            launch(l, flags, mode, &mut reports)?;
            let l = kernels::scan_counters.launch(rt, 1, &mut self.counters);
            launch(l, flags, mode, &mut reports)?;
            let l = kernels::reorder_data.launch(rt, blocks, &self.temp, &mut self.keys, &self.counters, &self.block_offsets, start_bit);
            launch(l, flags, mode, &mut reports)?;
        }
        Ok(reports)
    }

    fn verify(&self) -> ld::Result<Verified> {
        let out = self.keys.to_vec()?;
        let mut expected = self.input.clone();
        expected.sort_unstable();
        let wrong = out.iter().zip(&expected).filter(|(a, b)| a != b).count();
        Ok(Verified {
            ok: wrong == 0,
            detail: format!("{} keys, {} passes of {BITS} bits; {wrong} keys differ from the host sort", out.len(), 32 / BITS),
            checksum: bits_checksum(out.iter().copied()),
        })
    }
}
