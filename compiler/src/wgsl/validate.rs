//! naga validation of every module the writers emit: WGSL that naga
//! rejects is an ld bug, reported at the kernel with naga's message and
//! the WGSL, rather than a pipeline wgpu refuses at run time.

use crate::{Diagnostic, Span};

/// Parses and validates `src`, a `what` variant of the kernel at `span`.
pub fn validate(src: &str, span: Span, what: &str) -> Result<(), Diagnostic> {
    let module = naga::front::wgsl::parse_str(src).map_err(|e| {
        Diagnostic::new(
            span,
            format!("ld generated {what} WGSL that naga cannot parse (an ld bug, please report it):\n{}\n--- WGSL ---\n{src}", e.emit_to_string(src)),
        )
    })?;
    let mut v = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default());
    v.validate(&module)
        .map_err(|e| Diagnostic::new(span, format!("naga rejects the {what} WGSL of this kernel:\n{}\n--- WGSL ---\n{src}", e.emit_to_string(src))))?;
    Ok(())
}
