//! Statements of the CPU twin. Loops count the iterations they start
//! against the invocation's fuel, so a kernel that never terminates becomes
//! an error naming the invocation and the loop instead of a hang.

use super::expr::{binary, CpuPlace};
use super::{rust_type, Emitter};
use ld_compiler::ir::*;
use proc_macro2::TokenStream;
use quote::quote;

impl Emitter<'_> {
    pub fn block(&mut self, b: &[Stmt]) -> TokenStream {
        let stmts: Vec<TokenStream> = b.iter().map(|s| self.stmt(s)).collect();
        quote!(#(#stmts)*)
    }

    fn stmt(&mut self, s: &Stmt) -> TokenStream {
        match &s.kind {
            StmtKind::Let(id, init) => match init {
                Some(e) => {
                    let l = self.local(*id);
                    let v = self.expr(e);
                    quote!(#l = #v;)
                }
                None => quote!(),
            },
            StmtKind::Assign(p, op, v) => self.assign(p, *op, v, s),
            StmtKind::Expr(e) => {
                let x = match &e.kind {
                    ExprKind::Atomic(op, p, args) => self.atomic(*op, p, args, e),
                    _ => self.expr(e),
                };
                quote!(let _ = #x;)
            }
            StmtKind::If(c, a, b) => {
                let c = self.expr(c);
                let a = self.block(a);
                let b = self.block(b);
                quote!(if #c { #a } else { #b })
            }
            StmtKind::Loop(l) => {
                let n = self.next_label;
                self.next_label += 1;
                let brk = syn::Lifetime::new(&format!("'ld_loop{n}"), proc_macro2::Span::call_site());
                let cont = syn::Lifetime::new(&format!("'ld_body{n}"), proc_macro2::Span::call_site());
                let cond = l.cond.as_ref().map(|c| {
                    let c = self.expr(c);
                    quote!(if !(#c) { break #brk; })
                });
                self.loops.push((brk.clone(), cont.clone()));
                let body = self.block(&l.body);
                self.loops.pop();
                let continuing = self.block(&l.continuing);
                let site = super::expr::site(s.span);
                quote! {
                    #brk: loop {
                        cx.tick(#site)?;
                        #cond
                        #cont: { #body }
                        #continuing
                    }
                }
            }
            StmtKind::Break => {
                let (b, _) = self.loops.last().expect("structured break").clone();
                quote!(break #b;)
            }
            StmtKind::Continue => {
                let (_, c) = self.loops.last().expect("structured continue").clone();
                quote!(break #c;)
            }
            StmtKind::Return(v) => match (v, self.in_kernel) {
                (_, true) => quote!({
                    self.pc = u32::MAX;
                    return Ok(__ld::Yield::Done);
                }),
                (Some(v), false) => {
                    let v = self.expr(v);
                    quote!(return Ok(#v);)
                }
                (None, false) => quote!(return Ok(());),
            },
            StmtKind::Barrier(_) => unreachable!("barriers are block terminators after lowering"),
        }
    }

    fn assign(&mut self, p: &Place, op: Option<BinOp>, v: &Expr, s: &Stmt) -> TokenStream {
        let val = self.expr(v);
        let (pl, ty) = self.place(p, s.span);
        let combine = |cur: TokenStream| match op {
            Some(op) => binary(op, &ty, cur, quote!(ld_v)),
            None => quote!(ld_v),
        };
        match pl {
            CpuPlace::Local(t) => {
                let new = combine(quote!((*ld_p)));
                quote!({ let ld_v = #val; let ld_p = &mut #t; *ld_p = #new; })
            }
            CpuPlace::Mem { mem, index, inner, site } => {
                let rty = rust_type(self.module, &ty);
                let new = combine(quote!(ld_c));
                let read = if op.is_some() { quote!(let ld_c = cx.read::<#rty>(#mem, ld_i, ld_o, #site)?;) } else { quote!() };
                quote!({
                    let ld_v = #val;
                    let ld_i = #index;
                    let ld_o = #inner;
                    #read
                    cx.write::<#rty>(#mem, ld_i, ld_o, #new, #site)?;
                })
            }
        }
    }
}
