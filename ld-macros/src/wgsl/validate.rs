//! naga validation at expansion time: WGSL that naga rejects becomes a
//! compile error at the kernel's name, quoting naga's message.

use proc_macro2::Span;

pub fn validate(src: &str, span: Span, what: &str) -> syn::Result<()> {
    let module = naga::front::wgsl::parse_str(src).map_err(|e| {
        syn::Error::new(
            span,
            format!("ld generated {what} WGSL that naga cannot parse (an ld bug, please report it):\n{}\n--- WGSL ---\n{src}", e.emit_to_string(src)),
        )
    })?;
    let mut v = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default());
    v.validate(&module)
        .map_err(|e| syn::Error::new(span, format!("naga rejects the {what} WGSL of this kernel:\n{}\n--- WGSL ---\n{src}", e.emit_to_string(src))))?;
    Ok(())
}
