//! Progress of checks that take several rounds: a `log` record per round,
//! and a bar on stderr when it is a terminal, the caller allows it
//! (`CheckOptions::progress`) and the check has taken more than a second
//! (quick checks stay silent).

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

pub(crate) struct Progress {
    start: Instant,
    total: u64,
    label: String,
    bar_allowed: bool,
    bar: Option<ProgressBar>,
}

impl Progress {
    pub fn new(total: u64, label: String, bar_allowed: bool) -> Self {
        Progress { start: Instant::now(), total, label, bar_allowed: bar_allowed && std::io::stderr().is_terminal(), bar: None }
    }

    /// `done` rounds finished.
    pub fn tick(&mut self, done: u64) {
        if self.total <= 1 {
            return;
        }
        if done > 0 {
            log::info!("{}: round {done}/{} done after {:.1?}", self.label, self.total, self.start.elapsed());
        }
        if self.bar.is_none() && self.bar_allowed && self.start.elapsed() > Duration::from_secs(1) {
            let bar = ProgressBar::new(self.total);
            bar.set_style(ProgressStyle::with_template("{msg} [{bar:30}] round {pos}/{len} ({elapsed})").unwrap().progress_chars("=> "));
            bar.set_message(self.label.clone());
            self.bar = Some(bar);
        }
        if let Some(b) = &self.bar {
            b.set_position(done);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}
