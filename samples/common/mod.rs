//! What every sample shares: reproducible inputs, checksums, timing, and the
//! runtime chosen by the common flags.
#![allow(dead_code)]

pub mod app;
pub mod table;

use std::time::Duration;

/// SplitMix64: a fixed-seed generator, so every run sees the same inputs.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Roughly normal (sum of uniforms), mean 0, deviation 1.
    pub fn normal(&mut self) -> f32 {
        (0..12).map(|_| self.f32()).sum::<f32>() - 6.0
    }
}

/// FNV-1a over the bits: equal checksums mean bit-identical outputs.
pub fn bits_checksum(words: impl IntoIterator<Item = u32>) -> u64 {
    words.into_iter().fold(0xcbf2_9ce4_8422_2325u64, |h, w| (h ^ w as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The runtime: `--cpu` forces the CPU executor, else `ld::Runtime::new()`
/// (LD_BACKEND and LD_REQUIRE_GPU apply).
pub fn runtime(cpu: bool) -> ld::Result<ld::Runtime> {
    // ld reports notes (such as falling back to the CPU) through `log`;
    // a normal run shows warnings only (`RUST_LOG=ld_runtime=debug` shows
    // where a run's time went).
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).format_timestamp(None).try_init();
    if cpu {
        Ok(ld::Runtime::cpu())
    } else {
        ld::Runtime::new()
    }
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Median of repeated timings.
pub fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}
