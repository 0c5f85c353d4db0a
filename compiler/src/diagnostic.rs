//! What the compiler says about a kernel it cannot compile.

use crate::Span;

/// An error at a place in the kernel's source, in words for its author:
/// what is wrong there and what to do. The front-end renders it (rustc's
/// error for the Rust dialect, the source line and a caret for a shader).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where the problem is.
    pub span: Span,
    /// What is wrong, and what to do about it.
    pub message: String,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { span, message: message.into() }
    }
}

/// Every error an analysis found, in source order of discovery (never
/// empty when returned as an error).
pub type Diagnostics = Vec<Diagnostic>;
