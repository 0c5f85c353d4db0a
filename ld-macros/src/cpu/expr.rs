//! Expressions of the CPU twin, with WGSL's arithmetic semantics: integer
//! operations wrap, division and remainder by zero follow WGSL, shifts use
//! the low five bits of the amount, float-to-int casts clamp.

use super::{helper_ident, local_ident, rust_type, Emitter};
use ld_compiler::ir::*;
use ld_compiler::Span;
use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

/// A place as the twin addresses it.
pub enum CpuPlace {
    /// A Rust lvalue (local variable, possibly projected).
    Local(TokenStream),
    /// Element `index` of memory `mem`, `inner` words into the element.
    Mem { mem: TokenStream, index: TokenStream, inner: TokenStream, site: TokenStream },
}

pub fn site(span: Span) -> TokenStream {
    quote_spanned!(crate::spans::get(span)=> (line!(), column!()))
}

impl Emitter<'_> {
    pub fn mem(&self, m: MemRef) -> TokenStream {
        match m {
            MemRef::Param(i) => quote!(__ld::Mem::Storage(#i)),
            MemRef::Shared(i) => quote!(__ld::Mem::Shared(#i)),
            MemRef::FnSlice(i) => {
                let s = format_ident!("m{}", i);
                quote!(#s)
            }
        }
    }

    pub fn local(&self, id: LocalId) -> TokenStream {
        let l = local_ident(id);
        if self.in_kernel {
            quote!(self.#l)
        } else {
            quote!(#l)
        }
    }

    pub fn place(&mut self, p: &Place, span: Span) -> (CpuPlace, Type) {
        let site = site(span);
        match &p.root {
            Root::Local(id) => {
                let mut t = self.local(*id);
                let mut ty = self.locals[*id].ty.clone();
                for pr in &p.path {
                    match (pr, ty.clone()) {
                        (Proj::Index(i), Type::Array(e, n)) => {
                            let i = self.expr(i);
                            t = quote!(#t[__ld::idx((#i) as i64, #n, #site)?]);
                            ty = *e;
                        }
                        (Proj::Field(f), Type::Struct(s)) => {
                            let def = &self.module.structs[s];
                            let name = format_ident!("{}", def.fields[*f].0);
                            ty = def.fields[*f].1.clone();
                            t = quote!(#t.#name);
                        }
                        (Proj::Component(c), _) => {
                            let name = ["x", "y", "z"][*c as usize];
                            let name = format_ident!("{}", name);
                            t = quote!(#t.#name);
                            ty = Type::U32;
                        }
                        _ => unreachable!("ill-typed projection"),
                    }
                }
                (CpuPlace::Local(t), ty)
            }
            Root::Mem { mem, index, .. } => {
                let mut ty = self.mem_elem(*mem);
                let mem = self.mem(*mem);
                let index = self.expr(index);
                let mut inner = quote!(0u32);
                for pr in &p.path {
                    match (pr, ty.clone()) {
                        (Proj::Index(i), Type::Array(e, n)) => {
                            let i = self.expr(i);
                            let w = e.words(self.module);
                            inner = quote!(#inner + (__ld::idx((#i) as i64, #n, #site)? as u32) * #w);
                            ty = *e;
                        }
                        (Proj::Field(f), Type::Struct(s)) => {
                            let def = &self.module.structs[s];
                            let off = def.field_offset(self.module, *f);
                            inner = quote!(#inner + #off);
                            ty = def.fields[*f].1.clone();
                        }
                        _ => unreachable!("ill-typed memory projection"),
                    }
                }
                (CpuPlace::Mem { mem, index: quote!((#index) as i64), inner, site }, ty)
            }
        }
    }

    pub fn mem_elem(&self, m: MemRef) -> Type {
        match m {
            MemRef::Param(i) => match &self.module.kernel.params[i].kind {
                ParamKind::Storage { elem, .. } => elem.clone(),
                ParamKind::Atomic { elem } => Type::Atomic(*elem),
                ParamKind::Uniform { .. } => unreachable!(),
            },
            MemRef::Shared(i) => self.module.kernel.shared[i].elem.clone(),
            MemRef::FnSlice(i) => self.slice_elem(i),
        }
    }

    fn slice_elem(&self, i: usize) -> Type {
        self.slice_elems[i].clone().expect("slice parameter of the current helper")
    }

    pub fn read_place(&mut self, p: &Place, span: Span) -> TokenStream {
        let (pl, ty) = self.place(p, span);
        match pl {
            CpuPlace::Local(t) => quote!(#t),
            CpuPlace::Mem { mem, index, inner, site } => {
                // Operands first: they may themselves need `cx` mutably.
                let ty = rust_type(self.module, &ty);
                let read = if matches!(p.root, Root::Mem { settled: true, .. }) { quote!(read_settled) } else { quote!(read) };
                quote!({ let ld_i = #index; let ld_o = #inner; cx.#read::<#ty>(#mem, ld_i, ld_o, #site)? })
            }
        }
    }

    pub fn expr(&mut self, e: &Expr) -> TokenStream {
        match &e.kind {
            ExprKind::Lit(l) => lit(*l, &e.ty),
            ExprKind::Load(p) => self.read_place(p, e.span),
            ExprKind::Uniform(i) => {
                let w = self.uniform_word(*i);
                match e.ty {
                    Type::Scalar(Scalar::F32) => quote!(f32::from_bits(cx.uniform(#w))),
                    Type::Scalar(Scalar::I32) => quote!((cx.uniform(#w) as i32)),
                    _ => quote!(cx.uniform(#w)),
                }
            }
            ExprKind::Builtin(b) => match b {
                Builtin::GlobalId => quote!(cx.ids.global_id),
                Builtin::LocalId => quote!(cx.ids.local_id),
                Builtin::WorkgroupId => quote!(cx.ids.workgroup_id),
                Builtin::NumWorkgroups => quote!(cx.ids.num_workgroups),
                Builtin::LocalIndex => quote!(cx.ids.local_index),
                Builtin::WorkgroupSize => quote!(cx.ids.workgroup_size),
            },
            ExprKind::Unary(op, a) => {
                let x = self.expr(a);
                match (op, &e.ty) {
                    (UnOp::Neg, Type::Scalar(Scalar::F32)) => quote!((-(#x))),
                    (UnOp::Neg, _) => quote!((#x).wrapping_neg()),
                    (UnOp::Not, _) => quote!((!(#x))),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let ty = a.ty.clone();
                let (x, y) = (self.expr(a), self.expr(b));
                binary(*op, &ty, x, y)
            }
            ExprKind::Cast(to, a) => {
                let x = self.expr(a);
                cast(a.ty.scalar().expect("scalar cast"), *to, x)
            }
            ExprKind::Intrinsic(i, args) => {
                let ty = args[0].ty.clone();
                let xs: Vec<TokenStream> = args.iter().map(|a| self.expr(a)).collect();
                intrinsic(*i, &ty, &xs)
            }
            ExprKind::Call(f, args) => {
                let name = helper_ident(*f);
                let mut xs = Vec::new();
                for a in args {
                    match a {
                        CallArg::Value(v) => xs.push(self.expr(v)),
                        CallArg::Slice { mem, offset } => {
                            xs.push(self.mem(*mem));
                            xs.push(self.expr(offset));
                        }
                    }
                }
                // Arguments are evaluated into temporaries before `cx` is lent to the call.
                let tmps: Vec<_> = (0..xs.len()).map(|i| format_ident!("ld_a{}", i)).collect();
                quote!({ #(let #tmps = #xs;)* #name(cx, #(#tmps),*)? })
            }
            ExprKind::Atomic(op, p, args) => self.atomic(*op, p, args, e),
            ExprKind::Component(a, c) => {
                let x = self.expr(a);
                let name = format_ident!("{}", ["x", "y", "z"][*c as usize]);
                quote!((#x).#name)
            }
            ExprKind::Field(a, f) => {
                let x = self.expr(a);
                let Type::Struct(s) = a.ty else { unreachable!() };
                let name = format_ident!("{}", self.module.structs[s].fields[*f].0);
                quote!((#x).#name)
            }
            ExprKind::Len(m, off) => {
                let mem = self.mem(*m);
                match off {
                    Some(o) => {
                        let o = self.expr(o);
                        quote!({ let ld_o: u32 = #o; cx.len(#mem).wrapping_sub(ld_o) })
                    }
                    None => quote!(cx.len(#mem)),
                }
            }
            ExprKind::StructLit(xs) => {
                let Type::Struct(s) = e.ty else { unreachable!() };
                let def = &self.module.structs[s];
                let name = format_ident!("{}", def.name);
                let names: Vec<_> = def.fields.iter().map(|(n, _)| format_ident!("{}", n)).collect();
                let vals: Vec<_> = xs.iter().map(|x| self.expr(x)).collect();
                quote!(#name { #(#names: #vals),* })
            }
            ExprKind::ArrayLit(xs) => {
                let vals: Vec<_> = xs.iter().map(|x| self.expr(x)).collect();
                quote!([#(#vals),*])
            }
            ExprKind::ArrayRepeat(x, n) => {
                let v = self.expr(x);
                let n = *n as usize;
                quote!([#v; #n])
            }
        }
    }

    pub fn uniform_word(&self, param: usize) -> usize {
        self.module.kernel.params[..param].iter().filter(|p| matches!(p.kind, ParamKind::Uniform { .. })).count()
    }

    pub fn atomic(&mut self, op: AtomicOp, p: &Place, args: &[Expr], e: &Expr) -> TokenStream {
        let (pl, ty) = self.place(p, e.span);
        let CpuPlace::Mem { mem, index, inner, site } = pl else { unreachable!("atomics live in memory") };
        let Type::Atomic(s) = ty else { unreachable!() };
        let signed = s == Scalar::I32;
        let xs: Vec<TokenStream> = args.iter().map(|a| self.expr(a)).collect();
        let a = xs.first().map(|x| quote!((#x) as u32)).unwrap_or(quote!(0u32));
        let b = xs.get(1).map(|x| quote!((#x) as u32)).unwrap_or(quote!(0u32));
        let op = format_ident!("{}", format!("{op:?}"));
        let call = quote!({ let ld_i = #index; let ld_o = #inner; let ld_x = #a; let ld_y = #b; cx.atomic(#mem, ld_i, ld_o, __ld::AtomicOp::#op, #signed, ld_x, ld_y, #site)? });
        match e.ty {
            Type::Unit => quote!({ #call; }),
            Type::Scalar(Scalar::I32) => quote!((#call as i32)),
            _ => call,
        }
    }
}

pub fn lit(l: Lit, ty: &Type) -> TokenStream {
    match (l, ty) {
        (Lit::Int(v), Type::Scalar(Scalar::U32)) => {
            let v = v as u32;
            quote!(#v)
        }
        (Lit::Int(v), _) => {
            let v = v as i32;
            quote!((#v))
        }
        (Lit::Float(f), _) => {
            let bits = f.to_bits();
            quote!(f32::from_bits(#bits))
        }
        (Lit::Bool(b), _) => quote!(#b),
    }
}

pub fn binary(op: BinOp, ty: &Type, x: TokenStream, y: TokenStream) -> TokenStream {
    let float = *ty == Type::F32;
    let int = matches!(ty, Type::Scalar(Scalar::U32 | Scalar::I32));
    let sfx = if *ty == Type::I32 { "i32" } else { "u32" };
    match op {
        BinOp::Add if int => quote!((#x).wrapping_add(#y)),
        BinOp::Sub if int => quote!((#x).wrapping_sub(#y)),
        BinOp::Mul if int => quote!((#x).wrapping_mul(#y)),
        BinOp::Div if int => {
            let f = format_ident!("div_{}", sfx);
            quote!(__ld::ops::#f(#x, #y))
        }
        BinOp::Rem if int => {
            let f = format_ident!("rem_{}", sfx);
            quote!(__ld::ops::#f(#x, #y))
        }
        BinOp::Rem if float => quote!(__ld::ops::rem_f32(#x, #y)),
        BinOp::Shl => quote!((#x).wrapping_shl((#y) as u32)),
        BinOp::Shr => quote!((#x).wrapping_shr((#y) as u32)),
        BinOp::Add => quote!((#x + #y)),
        BinOp::Sub => quote!((#x - #y)),
        BinOp::Mul => quote!((#x * #y)),
        BinOp::Div => quote!((#x / #y)),
        BinOp::Rem => quote!((#x % #y)),
        BinOp::BitAnd => quote!((#x & #y)),
        BinOp::BitOr => quote!((#x | #y)),
        BinOp::BitXor => quote!((#x ^ #y)),
        BinOp::Eq => quote!((#x == #y)),
        BinOp::Ne => quote!((#x != #y)),
        BinOp::Lt => quote!((#x < #y)),
        BinOp::Le => quote!((#x <= #y)),
        BinOp::Gt => quote!((#x > #y)),
        BinOp::Ge => quote!((#x >= #y)),
        BinOp::And => quote!((#x && #y)),
        BinOp::Or => quote!((#x || #y)),
    }
}

pub fn cast(from: Scalar, to: Scalar, x: TokenStream) -> TokenStream {
    use Scalar::*;
    match (from, to) {
        (a, b) if a == b => x,
        (F32, U32) => quote!(__ld::ops::f32_to_u32(#x)),
        (F32, I32) => quote!(__ld::ops::f32_to_i32(#x)),
        (Bool, F32) => quote!((((#x) as u32) as f32)),
        (_, U32) => quote!(((#x) as u32)),
        (_, I32) => quote!(((#x) as i32)),
        (_, F32) => quote!(((#x) as f32)),
        (_, Bool) => unreachable!("casts to bool are rejected"),
    }
}

pub fn intrinsic(i: Intrinsic, ty: &Type, xs: &[TokenStream]) -> TokenStream {
    use Intrinsic::*;
    let float = *ty == Type::F32;
    let x = &xs[0];
    match i {
        Abs if float => quote!((#x).abs()),
        Abs if *ty == Type::I32 => quote!((#x).wrapping_abs()),
        Abs => quote!((#x)),
        _ => intrinsic_rest(i, float, xs),
    }
}

fn intrinsic_rest(i: Intrinsic, float: bool, xs: &[TokenStream]) -> TokenStream {
    use Intrinsic::*;
    let x = &xs[0];
    let y = xs.get(1);
    let z = xs.get(2);
    match i {
        Min if float => quote!(__ld::ops::min_f32(#x, #y)),
        Max if float => quote!(__ld::ops::max_f32(#x, #y)),
        Min => quote!(::core::cmp::Ord::min(#x, #y)),
        Max => quote!(::core::cmp::Ord::max(#x, #y)),
        Clamp if float => quote!(__ld::ops::clamp_f32(#x, #y, #z)),
        Clamp => quote!(::core::cmp::Ord::min(::core::cmp::Ord::max(#x, #y), #z)),
        Sqrt => quote!((#x).sqrt()),
        Exp => quote!((#x).exp()),
        Exp2 => quote!((#x).exp2()),
        Log => quote!((#x).ln()),
        Log2 => quote!((#x).log2()),
        Pow => quote!((#x).powf(#y)),
        Powi => quote!((#x).powi(#y)),
        Sin => quote!((#x).sin()),
        Cos => quote!((#x).cos()),
        Tan => quote!((#x).tan()),
        Atan2 => quote!((#x).atan2(#y)),
        Floor => quote!((#x).floor()),
        Ceil => quote!((#x).ceil()),
        Round => quote!((#x).round()),
        RoundTiesEven => quote!((#x).round_ties_even()),
        Trunc => quote!((#x).trunc()),
        Fract => quote!(__ld::ops::fract(#x)),
        Fma => quote!((#x).mul_add(#y, #z)),
        CountOneBits => quote!((#x).count_ones()),
        LeadingZeros => quote!((#x).leading_zeros()),
        TrailingZeros => quote!((#x).trailing_zeros()),
        ReverseBits => quote!((#x).reverse_bits()),
        Bitcast(Scalar::F32) => quote!(f32::from_bits((#x) as u32)),
        Bitcast(Scalar::U32) if float => quote!((#x).to_bits()),
        Bitcast(Scalar::I32) if float => quote!(((#x).to_bits() as i32)),
        Bitcast(s) => cast(Scalar::U32, s, x.clone()),
        Abs => unreachable!(),
    }
}
