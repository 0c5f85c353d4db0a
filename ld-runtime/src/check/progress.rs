//! A progress bar on stderr for checks that take several rounds and more
//! than a second (quick checks stay silent).

use indicatif::{ProgressBar, ProgressStyle};
use std::time::{Duration, Instant};

pub(crate) struct Progress {
    start: Instant,
    total: u64,
    label: String,
    bar: Option<ProgressBar>,
}

impl Progress {
    pub fn new(total: u64, label: String) -> Self {
        Progress { start: Instant::now(), total, label, bar: None }
    }

    /// `done` rounds finished.
    pub fn tick(&mut self, done: u64) {
        if self.bar.is_none() && self.total > 1 && self.start.elapsed() > Duration::from_secs(1) {
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
