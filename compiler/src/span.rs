//! Source places in the IR.

/// Where an IR node came from: an index into the table of the front-end
/// that built the node, which alone can say which file, line and column
/// it is (a `crate::Span` for the Rust dialect, a byte range of a
/// shader file for WGSL). rustc interns its spans the same way, and it
/// keeps the IR free of any front-end's types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span(u32);

impl Span {
    /// No place in the source: code the compiler made up.
    pub const DETACHED: Span = Span(u32::MAX);

    /// The span a front-end's table keeps at `index` (past 2^32 - 2
    /// entries, none: [`Span::DETACHED`]).
    pub fn from_index(index: usize) -> Span {
        u32::try_from(index).map_or(Span::DETACHED, Span)
    }

    /// The index into the front-end's table, or `None` for [`Span::DETACHED`].
    pub fn index(self) -> Option<usize> {
        (self != Span::DETACHED).then_some(self.0 as usize)
    }
}
