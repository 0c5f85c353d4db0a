//! Progress of a check: a `log` record per round, and, when the caller
//! allows it (`CheckOptions::progress`), a bar on stderr when it is a
//! terminal and the check has several rounds and has taken more than a
//! second; else (a log file, CI) an info-level `log` record once the check
//! has taken 2 s and then every 5 s, from a watcher thread, so a long
//! single round is seen where the program's logger shows info. A program's
//! output holds nothing it did not ask for: quick checks, and every check
//! whose stderr is not a terminal, print nothing of their own.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// When the first plain line comes, and how often the next ones.
const FIRST_LINE: Duration = Duration::from_secs(2);
const EVERY: Duration = Duration::from_secs(5);

pub(crate) struct Progress {
    start: Instant,
    total: u64,
    label: String,
    bar_allowed: bool,
    bar: Option<ProgressBar>,
    /// Rounds finished and rounds in all, as the watcher reads them.
    rounds: Arc<[AtomicU64; 2]>,
    /// The plain-lines watcher: dropping the sender stops it.
    watcher: Option<(mpsc::Sender<()>, JoinHandle<()>)>,
}

impl Progress {
    /// `kernel`'s check of `total` rounds; `allowed`: `CheckOptions::progress`.
    pub fn new(total: u64, kernel: &str, allowed: bool) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let rounds = Arc::new([AtomicU64::new(0), AtomicU64::new(total)]);
        let watcher = (allowed && !terminal).then(|| {
            let (stop, stopped) = mpsc::channel::<()>();
            let (rounds, kernel, start) = (rounds.clone(), kernel.to_string(), Instant::now());
            let thread = std::thread::Builder::new()
                .name("ld-progress".into())
                .spawn(move || {
                    let mut wait = FIRST_LINE;
                    // Only a timeout goes on: the sender dropped means the check ended.
                    while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(wait) {
                        let total = rounds[1].load(Relaxed).max(1);
                        let round = (rounds[0].load(Relaxed) + 1).min(total);
                        log::info!("ld: checking {kernel}: round {round}/{total}, {:.1} s", start.elapsed().as_secs_f64());
                        wait = EVERY;
                    }
                })
                .ok()?;
            Some((stop, thread))
        });
        Progress {
            start: Instant::now(),
            total,
            label: format!("ld check `{kernel}`"),
            bar_allowed: allowed && terminal,
            bar: None,
            rounds,
            watcher: watcher.flatten(),
        }
    }

    /// The check starts again (a retry with larger capacities), now of
    /// `total` rounds; the clock goes on.
    pub fn restart(&mut self, total: u64) {
        self.total = total;
        self.rounds[1].store(total, Relaxed);
        if let Some(b) = &self.bar {
            b.set_length(total);
        }
    }

    /// `done` rounds finished.
    pub fn tick(&mut self, done: u64) {
        self.rounds[0].store(done, Relaxed);
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
        if let Some((stop, thread)) = self.watcher.take() {
            drop(stop);
            let _ = thread.join();
        }
    }
}
