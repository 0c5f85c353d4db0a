//! The macro's table of source spans.
//!
//! The compiler's IR names places by `ld_compiler::Span`, an index; this
//! table turns each back into the `proc_macro2::Span` it was made from,
//! for rustc's errors and for the `line!()`/`column!()` of a site. One
//! expansion's IR never outlives it, so each expansion starts a new table
//! (`reset`), on its own thread (rustc interns spans the same way).

use ld_compiler::{Diagnostic, Span};
use std::cell::RefCell;

thread_local! {
    static TABLE: RefCell<Vec<proc_macro2::Span>> = const { RefCell::new(Vec::new()) };
}

/// Starts the table of a new expansion.
pub fn reset() {
    TABLE.with(|t| t.borrow_mut().clear());
}

/// The IR's name for `span`.
pub fn intern(span: proc_macro2::Span) -> Span {
    TABLE.with(|t| {
        let mut t = t.borrow_mut();
        t.push(span);
        Span::from_index(t.len() - 1)
    })
}

/// The source span an IR node came from (the macro's call site for code
/// the compiler made up).
pub fn get(span: Span) -> proc_macro2::Span {
    let found = span.index().and_then(|i| TABLE.with(|t| t.borrow().get(i).copied()));
    found.unwrap_or_else(proc_macro2::Span::call_site)
}

/// The compiler's error as rustc's, at its place in the kernel.
pub fn error(d: &Diagnostic) -> syn::Error {
    syn::Error::new(get(d.span), &d.message)
}

/// Every error, as one rustc error each.
pub fn errors(ds: &[Diagnostic]) -> syn::Error {
    let mut all = ds.iter().map(error);
    let mut first = all.next().unwrap_or_else(|| syn::Error::new(proc_macro2::Span::call_site(), "ld: an analysis failed without saying why"));
    for e in all {
        first.combine(e);
    }
    first
}
