//! Indices out of bounds under WGSL's rule (`Bounds::Clamp`): the run goes
//! on (a read gives the last element, a write or an atomic is skipped) and
//! the launch says where it happened. Both backends find the same places:
//! the CPU reference notes each invocation's first index out of bounds
//! (`Cx::noted`), the generated WGSL enters it in its variant's table (the
//! guard's, `ld_shaders::abi::guard`), and both become [`OutOfBounds`],
//! one per source place, with the smallest and largest index seen there.

use crate::cpu::twin::{Fault, Mem};
use crate::kernel::{KernelInfo, SiteKind};
use ld_shaders::abi::guard;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// A place in the kernel's source where invocations indexed past the end
/// of an array, and the run went on as WGSL says (see [`crate::Run::out_of_bounds`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct OutOfBounds {
    /// The buffer or workgroup array indexed; empty for an array inside a
    /// local or an element.
    pub array: String,
    /// The kernel's source file.
    pub file: String,
    /// The text of the access's source line (empty when it cannot be found).
    pub source: String,
    /// Its length, in elements.
    pub len: u32,
    /// The access's source line.
    pub line: u32,
    /// Its column.
    pub column: u32,
    /// The smallest index seen out of bounds there.
    pub min_index: i64,
    /// The largest.
    pub max_index: i64,
}

impl OutOfBounds {
    /// Where this one, and `other` at the same place, went.
    fn merge(&mut self, other: &OutOfBounds) {
        self.min_index = self.min_index.min(other.min_index);
        self.max_index = self.max_index.max(other.max_index);
    }

    fn key(&self) -> (u32, u32, String) {
        (self.line, self.column, self.array.clone())
    }
}

impl OutOfBounds {
    fn at(info: &KernelInfo, array: &str, len: u32, site: (u32, u32), min_index: i64, max_index: i64) -> OutOfBounds {
        OutOfBounds {
            array: array.to_string(),
            file: info.source.file.to_string(),
            source: info.source.line(site.0).unwrap_or_default(),
            len,
            line: site.0,
            column: site.1,
            min_index,
            max_index,
        }
    }

    /// The place as a warning in rustc's style: the source line, the
    /// access marked, and what the run did there.
    pub fn diagnostic(&self) -> String {
        use codespan_reporting::diagnostic::{Diagnostic, Label};
        use codespan_reporting::files::SimpleFiles;
        use codespan_reporting::term;
        let mut files = SimpleFiles::new();
        // The file as far as this line, the lines before it empty:
        // codespan numbers lines from the text.
        let before = "\n".repeat(self.line.saturating_sub(1) as usize);
        let id = files.add(self.file.clone(), format!("{before}{}\n", self.source));
        let (from, to) = crate::check::text::expression(&self.source, self.column);
        let label = Label::primary(id, before.len() + from..before.len() + to).with_message(self.to_string());
        let d = Diagnostic::warning()
            .with_message("index out of bounds; the run went on as WGSL allows")
            .with_labels(vec![label])
            .with_notes(vec!["note: a read there gave the array's last element, a write or an atomic there did nothing (wgpu's bounds checks); each invocation's first index out of bounds is counted".to_string()]);
        let mut out = String::new();
        if term::emit_into_string(&term::Config::default(), &files, &d).map(|s| out = s).is_err() {
            out = format!("warning: {self} ({})\n", self.file);
        }
        out
    }
}

impl std::fmt::Display for OutOfBounds {
    /// ``index 4 into `a` of length 4`` (or `indices 4 to 7`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = if self.array.is_empty() { "an array".to_string() } else { format!("`{}`", self.array) };
        let index =
            if self.min_index == self.max_index { format!("index {}", self.min_index) } else { format!("indices {} to {}", self.min_index, self.max_index) };
        write!(f, "{index} into {what} of length {}", self.len)
    }
}

/// One list of places, in source order, from any number of notes.
#[derive(Default)]
pub(crate) struct Log(Mutex<BTreeMap<(u32, u32, String), OutOfBounds>>);

impl Log {
    pub fn add(&self, o: OutOfBounds) {
        let mut m = self.0.lock().unwrap();
        m.entry(o.key()).and_modify(|e| e.merge(&o)).or_insert(o);
    }

    pub fn take(&self) -> Vec<OutOfBounds> {
        std::mem::take(&mut *self.0.lock().unwrap()).into_values().collect()
    }
}

/// The CPU reference's note of an index out of bounds.
pub(crate) fn of_fault(info: &KernelInfo, f: &Fault) -> Option<OutOfBounds> {
    let Fault::OutOfBounds { mem, index, len, site } = f else { return None };
    let array = match mem {
        Some(Mem::Storage(i)) => info.params[*i].name,
        Some(Mem::Shared(i)) => info.shared[*i].name,
        None => "",
    };
    Some(OutOfBounds::at(info, array, *len, *site, *index, *index))
}

/// Words of the guard's buffer for a launch of `info`: the header, then a
/// table for each variant, an entry per site.
pub(crate) fn guard_words(info: &KernelInfo) -> usize {
    // (A runtime-sized array binds with at least one entry.)
    guard::WORDS as usize + (guard::ENTRY as usize * info.sites.iter().map(|s| s.len()).sum::<usize>()).max(guard::ENTRY as usize)
}

/// The guard's words before a launch: the fuel, nothing recorded, where
/// each variant's table starts, and every entry empty.
pub(crate) fn initial_guard(info: &KernelInfo, fuel: u64) -> Vec<u32> {
    let mut w = vec![0u32; guard_words(info)];
    w[guard::FUEL as usize] = crate::guard::gpu_fuel(fuel);
    let mut at = 0;
    for (v, sites) in info.sites.iter().enumerate() {
        w[guard::TABLES as usize + v] = at;
        at += guard::ENTRY * sites.len() as u32;
    }
    for e in w[guard::WORDS as usize..].chunks_exact_mut(guard::ENTRY as usize) {
        e[guard::MIN as usize] = u32::MAX;
    }
    w
}

/// The places the tables of a guard's words record (`lens`: each
/// parameter's length in elements, for a buffer's sites).
pub(crate) fn of_guard(info: &KernelInfo, lens: &[u32], words: &[u32]) -> Vec<OutOfBounds> {
    let log = Log::default();
    if words.get(guard::SEEN as usize).copied().unwrap_or(0) == 0 {
        return vec![];
    }
    for (v, sites) in info.sites.iter().enumerate() {
        let start = guard::WORDS as usize + words[guard::TABLES as usize + v] as usize;
        for (k, s) in sites.iter().enumerate() {
            let Some(e) = words.get(start + k * guard::ENTRY as usize..start + (k + 1) * guard::ENTRY as usize) else { break };
            let kinds = e[guard::KINDS as usize];
            if kinds == 0 {
                continue;
            }
            let signed = kinds & (1 << guard::OOB_SIGNED) != 0;
            let len = match s.what {
                SiteKind::Buffer => info.params.iter().position(|p| p.name == s.array).and_then(|p| lens.get(p).copied()).unwrap_or(0),
                _ => s.len,
            };
            let (min, max) = (guard::index(e[guard::MIN as usize], signed), guard::index(e[guard::MAX as usize], signed));
            log.add(OutOfBounds::at(info, s.array, len, (s.line, s.column), min, max));
        }
    }
    log.take()
}
