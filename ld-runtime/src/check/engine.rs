//! The check engine's driver, one for both backends: rounds at level 2,
//! level 1's merge, the final fold, and growing whatever a
//! run found too small. A backend (`gpu`, `cpu`) supplies the steps; the
//! GPU queues them without waiting, so a check costs a fixed number of
//! submissions and read-backs, however many barriers the kernel executes.

use super::layout::{self, Caps, Layout, Limits};
use super::plan::Plan;
use super::records::Raw;
use super::CheckOptions;
use crate::error::{Error, Result};
use crate::kernel::KernelInfo;
use ld_shaders::abi::{guard, status, MODE_CHECK, MODE_DETERMINISTIC};

/// What a run reports besides races.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Status {
    /// Race records counted so far (some may have been dropped).
    pub records: u64,
    /// `ld_shaders::abi::status` bits.
    pub bits: u32,
    /// Lowest workgroup that set a bit.
    pub workgroup: u32,
    /// Races past the record slots counted (`ld_shaders::abi::header::EXTRA`).
    pub extra: u64,
    /// Bit t: target t's table was full.
    pub full_tables: u32,
    /// Level-1 records wanted.
    pub l1_need: u32,
    /// The kernel's guard record (`ld_shaders::abi::guard`; the CPU
    /// reports its faults as errors of `run` instead).
    pub guard: [u32; guard::WORDS as usize],
}

/// The cost of a run, as the backend counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Kernel and engine dispatches.
    pub dispatches: u64,
    /// Queue submissions.
    pub submissions: u64,
    /// Waits for the device followed by a copy back to the host.
    pub readbacks: u64,
    /// The most bytes the engine's buffers held at once on the device (or
    /// host, for the CPU reference): a run that restarts with larger
    /// tables counts its largest attempt, not their sum.
    pub bytes_allocated: u64,
    /// Runs started again because a table, log or record buffer was short.
    pub retries: u64,
    /// Microseconds the host waited for the device (its submissions and
    /// read-backs; 0 on the CPU reference): the rest of a run's time is
    /// the host's own (planning, recording commands, the report).
    pub waited_us: u64,
    /// The probe answered the launch (`CheckOptions::probe`): no engine ran.
    pub probed: bool,
    /// Words that deterministic mode's probe deferred when it answered the
    /// launch: of workgroup arrays (folded at the barriers as the folded
    /// kernel would: every word of the arrays it deferred whole, or the
    /// words it found), and every word of the storage targets it deferred
    /// (folded at the launch's end).
    pub deferred: u64,
}

/// How a probe runs (`Backend::probe`).
#[derive(Clone, Debug, Default)]
pub(crate) struct ProbeRun {
    /// Words of workgroup arrays whose writes it defers to the next
    /// workgroup barrier (their bits, `ld_shaders::abi::probe::meta`):
    /// deterministic mode's, for words an earlier run saw shared.
    pub deferred: Vec<u32>,
    /// Whether it notes which words of workgroup arrays were shared (the
    /// found bitmap, which costs a test of every tag at every workgroup
    /// barrier): deterministic mode's runs after one that saw such words
    /// without finding them.
    pub find: bool,
    /// Storage targets (a bit each) whose writes it defers to the
    /// invocation's end, then folds in the folded kernel's order:
    /// deterministic mode's, for targets an earlier run saw a word of
    /// shared.
    pub storage: u32,
    /// Workgroup arrays (a bit per target) whose writes it defers whole to
    /// the next workgroup barrier (no tags, no bitmap: deterministic mode's,
    /// for arrays an earlier run saw a word of shared), where `deferred`
    /// would defer only the words found.
    pub arrays: u32,
    /// Whether a run with arrays deferred whole was cut short (its log
    /// overflowed): their words are found and deferred instead.
    pub words_only: bool,
}

impl ProbeRun {
    /// The run after this one, where it shared the words `found` (of
    /// workgroup arrays), storage targets `storage` and workgroup arrays
    /// `arrays` (bits per target): those targets deferred, the arrays
    /// whole (unless that overflowed the log before: then the words found).
    /// Both the engine's loop and the kernel's memory start from it.
    pub fn after(&self, found: &[u32], storage: u32, arrays: u32) -> ProbeRun {
        let arrays = if self.words_only { 0 } else { self.arrays | arrays };
        let mut next = ProbeRun { find: false, storage: self.storage | storage, arrays, ..self.clone() };
        or_bits(&mut next.deferred, found);
        next
    }

    /// The run after one whose arrays deferred whole overflowed the log:
    /// it finds their shared words, to defer those alone.
    pub fn words_instead(&self) -> ProbeRun {
        ProbeRun { arrays: 0, words_only: true, find: true, ..self.clone() }
    }
}

/// Adds `bits` to the bitmap `into` (the probe's words of workgroup
/// arrays, `ld_shaders::abi::probe::meta`), growing it to their length.
fn or_bits(into: &mut Vec<u32>, bits: &[u32]) {
    into.resize(into.len().max(bits.len()), 0);
    into.iter_mut().zip(bits).for_each(|(a, b)| *a |= b);
}

/// What a probe found (`Backend::probe`).
pub(crate) enum Probed {
    /// No shared word and no fault: the launch's answer (and the words of
    /// the targets it deferred whole: storage targets, workgroup arrays).
    Clean { raw: Raw, whole_words: u64 },
    /// Words shared, and nothing else: whether words of workgroup arrays
    /// were, those it found (the found bitmap,
    /// `ld_shaders::abi::probe::meta`; empty where the probe did not look),
    /// the storage targets and the workgroup arrays with a shared word (a
    /// bit per target), which a deterministic probe can run again with
    /// deferred.
    Deferrable { words: bool, found: Vec<u32>, storage: u32, arrays: u32 },
    /// A run with workgroup arrays deferred whole was cut short (a log
    /// too small): a deterministic probe can find and defer their words
    /// instead.
    Overflow,
    /// A log too small, a fault: the engine runs.
    Engine,
}

/// The primitive steps of a check, as a backend runs them.
pub(crate) trait Backend {
    /// Allocates for `layout` (again after a retry, with larger capacities).
    fn prepare(&mut self, layout: &Layout) -> Result<()>;
    /// Keeps a copy of the parameters a run writes as it goes (`live`:
    /// `Layout::live`, the atomic buffers and the targets left in place),
    /// for `restore`.
    fn snapshot(&mut self, live: &[usize]) -> Result<()>;
    /// Puts the snapshot back: every round and every retry starts from the
    /// dispatch's input, and a failed run leaves the buffers as they were.
    fn restore(&mut self) -> Result<()>;
    /// Runs every workgroup, in batches, in `mode` (check or deterministic)
    /// and publishes each workgroup's final pages anew.
    fn run(&mut self, mode: u32, round: u32) -> Result<()>;
    /// Runs the kernel as written, once, on the user's buffers: where the
    /// launch leaves every target in place (`Layout::nothing_to_check`).
    fn native(&mut self) -> Result<()>;
    /// Level 1 across workgroups: write-write races and the union (check
    /// mode), or the ordered fold into the user's buffers (deterministic).
    fn level1(&mut self, mode: u32) -> Result<()>;
    /// Check mode's result: the union into the user's buffers.
    fn fold(&mut self) -> Result<()>;
    /// Whether this backend probes `l` first (`ld_shaders::abi::probe`),
    /// and with which words of workgroup arrays deferred: the CPU never
    /// does (its runs are the reference), a GPU where the launch fits the
    /// probe's codes and memory and the kernel's probe has not found a
    /// shared word before (in deterministic mode: a shared storage word).
    fn probes(&self, _l: &Layout) -> Option<ProbeRun> {
        None
    }
    /// The probe: the kernel once on the user's buffers, every access to a
    /// target tagged, `run.deferred`'s words' writes held until the next
    /// workgroup barrier and folded there. Where no two invocations shared
    /// a word (one writing) other than those and nothing faulted, the
    /// buffers hold what the folded kernel (and where nothing was
    /// deferred, check mode's union) would leave, and no check could find
    /// a race. Else the buffers must be restored.
    fn probe(&mut self, _l: &Layout, _run: &ProbeRun) -> Result<Probed> {
        Ok(Probed::Engine)
    }
    /// Waits for what was queued and reads the status.
    fn status(&mut self) -> Result<Status>;
    /// Carries out what was queued (the GPU queues; the CPU runs at once).
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
    /// Forgets the fault a run recorded, before the launch runs again (the
    /// CPU returns its faults from `run`, keeping none).
    fn clear_fault(&mut self) -> Result<()> {
        Ok(())
    }
    /// The records, and the table of regions seen, of a run whose last
    /// status was `st` (its count of record slots, and of the races past
    /// them: `Status::records`, `Status::extra`).
    fn records(&mut self, st: &Status) -> Result<Raw>;
    fn stats(&self) -> Stats;
    /// Where the launch's invocations indexed out of bounds and went on
    /// (`crate::bounds`; `lens`: each parameter's length in elements).
    fn out_of_bounds(&mut self, lens: &[u32]) -> Result<Vec<crate::bounds::OutOfBounds>>;
}

/// Sizes a launch: the first layout to try.
pub(crate) fn plan(info: &'static KernelInfo, grid: [u32; 3], words: &[u64], opts: &CheckOptions, limits: Limits, deterministic: bool) -> Result<Layout> {
    let caps = layout::initial_caps(info, grid, words, opts);
    layout::layout(info, grid, words, opts, caps, limits, deterministic)
}

/// A finished check: the backend's records and the plan it ran under.
pub(crate) struct Checked {
    pub raw: Raw,
    pub plan: Plan,
    pub stats: Stats,
}

/// The error a kernel's guard words record, if any (the launch reads them:
/// `crate::guard::read`).
pub(crate) type OnFault<'f> = &'f dyn Fn(&[u32]) -> Option<Error>;

/// A check or deterministic run that fails (a kernel fault, a limit)
/// fails before anything is written to the user's buffers; the buffers
/// the kernel writes as it runs (atomics, targets left in place) are put
/// back as they were
/// (unless the device itself failed).
fn faulted<T>(b: &mut dyn Backend, r: Result<T>) -> Result<T> {
    match r {
        Err(e @ (Error::Timeout { .. } | Error::DeviceLost { .. } | Error::Wgpu { .. })) => Err(e),
        Err(e) => {
            b.restore()?;
            b.flush()?;
            Err(e)
        }
        ok => ok,
    }
}

/// The status of what ran, or the fault the kernel's guard recorded (it
/// comes first: what a faulting kernel did to the engine's capacities,
/// such as a table filled by a loop that never ends, says nothing).
fn status(b: &mut dyn Backend, on_fault: OnFault) -> Result<Status> {
    let st = b.status()?;
    match on_fault(&st.guard) {
        Some(e) => Err(e),
        None => Ok(st),
    }
}

/// Check mode: level 2 in rounds, then level 1.
pub(crate) fn check(b: &mut dyn Backend, l: Layout, words: &[u64], opts: &CheckOptions, limits: Limits, on_fault: OnFault) -> Result<Checked> {
    alone_on_fault(b, l, words, opts, limits, on_fault, check_runs)
}

/// The runs of one mode (`check_runs`, `deterministic_runs`).
type Runs<T> = fn(&mut dyn Backend, Layout, &[u64], &CheckOptions, Limits, OnFault) -> Result<T>;

/// `runs`, and where they faulted with lanes sharing their warp's copy,
/// `runs` again with one invocation per warp: a lane may have used a value
/// another lane of its warp wrote, so the fault may come from the order
/// the device ran the lanes in (a lane-order race), which each invocation
/// on its own copy does not see. A fault there too is the kernel's own,
/// and is what the launch returns. (The same on both backends, whose lane
/// orders differ.)
fn alone_on_fault<T>(b: &mut dyn Backend, l: Layout, words: &[u64], opts: &CheckOptions, limits: Limits, on_fault: OnFault, runs: Runs<T>) -> Result<T> {
    let (info, grid, caps, deterministic) = (l.info, l.grid, l.caps.clone(), l.deterministic);
    // (A native run's fault cannot come from lanes sharing a copy.)
    let shared = !l.nothing_to_check() && opts.warp_size != Some(1);
    match runs(b, l, words, opts, limits, on_fault) {
        Err(Error::Fault { .. }) if shared => {
            log::info!("ld: `{}` faulted with lanes sharing their warp's copy; running it again with one invocation per warp, so the fault does not depend on the device's lane order", info.name);
            b.restore()?;
            b.clear_fault()?;
            b.flush()?;
            let one = CheckOptions { warp_size: Some(1), ..*opts };
            let l = layout::layout(info, grid, words, &one, caps, limits, deterministic)?;
            let r = runs(b, l, words, &one, limits, on_fault);
            faulted(b, r).map_err(isolated)
        }
        r => faulted(b, r).map_err(isolated),
    }
}

/// A fault of a check or deterministic run, with what may have caused it
/// there and not in a native run: each unit ran on its own copy, so a read
/// of a word another unit wrote without a barrier between them saw the
/// old value (a race, which such a read is, can give it natively too).
fn isolated(e: Error) -> Error {
    match e {
        Error::Fault { kernel, invocation, kind, message } => Error::Fault {
            kernel,
            invocation,
            kind,
            message: format!(
                "{message}. (Each warp ran its regions on its own copy of memory: where the faulting value was read from memory another warp or workgroup writes with no barrier between them, the read saw the value the memory held before, which a native run can see too; `Mode::Exact` watches every access and names such a race)"
            ),
        },
        e => e,
    }
}

/// Where the launch leaves every target in place, nothing can race: the
/// kernel runs as written, once (its buffers put back if it fails), and
/// the check has no records.
fn native_run(b: &mut dyn Backend, l: &Layout, on_fault: OnFault) -> Result<Stats> {
    b.snapshot(&l.live())?;
    b.prepare(l)?;
    b.native()?;
    status(b, on_fault)?;
    Ok(b.stats())
}

fn check_runs(b: &mut dyn Backend, mut l: Layout, words: &[u64], opts: &CheckOptions, limits: Limits, on_fault: OnFault) -> Result<Checked> {
    if l.nothing_to_check() {
        let stats = native_run(b, &l, on_fault)?;
        return Ok(Checked { raw: b.records(&Status::default())?, plan: l.plan, stats });
    }
    let mut retries = 0;
    if let Some((raw, _)) = probed(b, &l, opts)? {
        return Ok(Checked { raw, plan: l.plan, stats: Stats { probed: true, ..b.stats() } });
    }
    let mut progress = super::progress::Progress::new(l.plan.level2.rounds_run as u64, l.info.name, opts.progress);
    'attempt: loop {
        b.prepare(&l)?;
        let plan = l.plan.clone();
        progress.restart(plan.level2.rounds_run as u64);
        let mut round = 1;
        let mut before = 0;
        let mut st = Status::default();
        loop {
            progress.tick(round as u64 - 1);
            if round > 1 {
                b.restore()?;
            }
            b.run(MODE_CHECK, round)?;
            // The last round's status comes back with level 1's, which
            // follows it in the same submission (one wait and read-back
            // fewer; a table or log too short there runs both again).
            if round == plan.level2.rounds_run && l.has_storage_targets() {
                break;
            }
            st = status(b, on_fault)?;
            if let Some(grown) = grow(&l, &st, words, opts, limits)? {
                (l, retries) = (grown, retries + 1);
                b.restore()?;
                continue 'attempt;
            }
            let found = st.records > before;
            before = st.records;
            if round == plan.level2.rounds_run || (found && !opts.all_rounds) {
                break;
            }
            round += 1;
        }
        if l.has_storage_targets() {
            b.level1(MODE_CHECK)?;
            st = status(b, on_fault)?;
            if let Some(grown) = grow(&l, &st, words, opts, limits)? {
                (l, retries) = (grown, retries + 1);
                b.restore()?;
                continue 'attempt;
            }
            b.fold()?;
        }
        let raw = b.records(&st)?;
        let mut stats = b.stats();
        stats.retries = retries;
        return Ok(Checked { raw, plan, stats });
    }
}

/// Deterministic mode: one pass per region, merges in warp order at
/// barriers and in workgroup order at the end.
pub(crate) fn deterministic(b: &mut dyn Backend, l: Layout, words: &[u64], opts: &CheckOptions, limits: Limits, on_fault: OnFault) -> Result<Stats> {
    alone_on_fault(b, l, words, opts, limits, on_fault, deterministic_runs)
}

fn deterministic_runs(b: &mut dyn Backend, mut l: Layout, words: &[u64], opts: &CheckOptions, limits: Limits, on_fault: OnFault) -> Result<Stats> {
    if l.nothing_to_check() {
        // No two invocations share a word a plain store writes: the native
        // result is every device's.
        return native_run(b, &l, on_fault);
    }
    let mut retries = 0;
    let mut opts = *opts;
    if let Some((_, deferred)) = probed(b, &l, &opts)? {
        return Ok(Stats { probed: true, deferred, ..b.stats() });
    }
    loop {
        b.prepare(&l)?;
        b.run(MODE_DETERMINISTIC, 1)?;
        let st = status(b, on_fault)?;
        if let Some(grown) = grow(&l, &st, words, &opts, limits)? {
            (l, retries) = (grown, retries + 1);
            b.restore()?;
            continue;
        }
        if st.bits & status::LANES != 0 {
            // Lanes of a warp shared a word: at this warp size the result
            // would be the device's lane order. One invocation per warp
            // makes it the same everywhere.
            log::info!(
                "ld: deterministic `{}`: lanes of one warp touched the same word in a region (one writing); running again with one invocation per warp so the result does not depend on the device's lane order",
                l.info.name
            );
            opts.warp_size = Some(1);
            (l, retries) = (layout::layout(l.info, l.grid, words, &opts, l.caps.clone(), limits, true)?, retries + 1);
            b.restore()?;
            continue;
        }
        if l.has_storage_targets() {
            b.level1(MODE_DETERMINISTIC)?;
            let st = status(b, on_fault)?;
            grow(&l, &st, words, &opts, limits)?;
        }
        let mut stats = b.stats();
        stats.retries = retries;
        return Ok(stats);
    }
}

/// Probes a deterministic launch at most this often: a run that saw
/// shared words of workgroup arrays is followed by one that defers their
/// arrays whole (or where that overflowed the log, one that finds the
/// words, then one that defers them), and a run that saw new ones, or new
/// storage targets with a shared word, by one that defers them too.
const PROBE_RUNS: usize = 5;

/// Takes the snapshot a launch's runs start from, and where the options
/// and the backend probe the launch (`Backend::probes`), the probe's
/// records if it found no shared word (deterministic mode: none it did not
/// defer) and the words it deferred; else the buffers as they were, for
/// the engine's runs.
fn probed(b: &mut dyn Backend, l: &Layout, opts: &CheckOptions) -> Result<Option<(Raw, u64)>> {
    let Some(mut run) = opts.probe.then(|| b.probes(l)).flatten() else {
        b.snapshot(&l.live())?;
        return Ok(None);
    };
    b.snapshot(&l.probed())?;
    let count = |bits: &[u32]| bits.iter().map(|w| w.count_ones() as u64).sum::<u64>();
    for n in 1..=PROBE_RUNS {
        let outcome = b.probe(l, &run)?;
        log::debug!(
            "ld: probe {n} of `{}` ({} words deferred{}): {}",
            l.info.name,
            count(&run.deferred),
            if run.find { ", finding" } else { "" },
            match &outcome {
                Probed::Clean { .. } => "answered".to_string(),
                Probed::Deferrable { words, found, storage, arrays } =>
                    format!("shared: words of workgroup arrays {words} ({} found, arrays {arrays:#b}), storage targets {storage:#b}", count(found)),
                Probed::Overflow => "the arrays deferred whole overflowed the log".to_string(),
                Probed::Engine => "the engine runs".to_string(),
            }
        );
        match outcome {
            Probed::Clean { raw, whole_words } => return Ok(Some((raw, count(&run.deferred) + whole_words))),
            Probed::Deferrable { words, found, storage, arrays } if l.deterministic && n < PROBE_RUNS => {
                // The arrays with a shared word are deferred whole, unless
                // that overflowed the log before: then their words are.
                let whole = words && !run.words_only;
                // Nothing new to defer: the engine runs.
                let stuck = if whole {
                    arrays & !run.arrays == 0
                } else if words {
                    run.find && count(&found) == 0
                } else {
                    storage & !run.storage == 0
                };
                if stuck {
                    break;
                }
                b.restore()?;
                b.clear_fault()?;
                // A run that did not find the words it shared (of arrays
                // not deferred whole) is followed by one that does (finding
                // costs a test of every tag at every workgroup barrier,
                // which a run whose words are all deferred already need
                // not pay).
                run = ProbeRun { find: run.find || (words && !whole), ..run.after(&found, storage, arrays) };
            }
            Probed::Overflow if l.deterministic && n < PROBE_RUNS => {
                b.restore()?;
                b.clear_fault()?;
                run = run.words_instead();
            }
            _ => break,
        }
    }
    // The engine's runs start from the input and keep only what they
    // write as they go.
    b.restore()?;
    b.clear_fault()?;
    b.snapshot(&l.live())?;
    Ok(None)
}

/// The layout to run again with, when a run found a capacity short; an
/// error when a run failed for good.
fn grow(l: &Layout, st: &Status, words: &[u64], opts: &CheckOptions, limits: Limits) -> Result<Option<Layout>> {
    if st.bits & status::LOOP_LIMIT != 0 {
        return Err(Error::LoopLimit { kernel: l.info.name, mode: l.mode(), adapter: "lavapipe".into(), line: None });
    }
    let short = status::TABLE_FULL | status::L1_FULL | status::POOL_FULL;
    if st.bits & short == 0 {
        return Ok(None);
    }
    let mut caps: Caps = l.caps.clone();
    if st.bits & status::L1_FULL != 0 {
        caps.l1 = caps.l1.max(st.l1_need);
    }
    if st.bits & status::POOL_FULL != 0 {
        caps.pool = l.slot.pool_cap.saturating_mul(4);
    }
    // Eight times the room, or (at a quarter of the pages or more, where
    // four probes among concurrent claims start to fail) one entry per
    // page, which is never full; where a workgroup's direct tables do not
    // fit (the budget, a binding), a hash table as large as the pages
    // instead.
    let (mut direct, mut hashed) = (caps.clone(), caps);
    for t in 0..direct.entries.len() {
        if st.full_tables & (1 << t) != 0 {
            let (pages, e) = (l.shapes[t].pages(), direct.entries[t]);
            hashed.entries[t] = e.saturating_mul(8).min(pages.next_power_of_two());
            if e as u64 * 4 < pages as u64 {
                direct.entries[t] = hashed.entries[t];
            } else {
                (direct.entries[t], direct.direct[t]) = (pages, true);
            }
        }
    }
    let direct = layout::with_l1_for_tables(direct, l.grid, layout::storage_pages(&l.shapes), opts);
    let hashed = layout::with_l1_for_tables(hashed, l.grid, layout::storage_pages(&l.shapes), opts);
    let fallback = hashed != direct && hashed.entries != l.caps.entries;
    match layout::layout(l.info, l.grid, words, opts, direct, limits, l.deterministic) {
        Err(Error::CheckMemory { .. }) if fallback => layout::layout(l.info, l.grid, words, opts, hashed, limits, l.deterministic).map(Some),
        r => r.map(Some),
    }
}
