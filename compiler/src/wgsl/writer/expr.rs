//! Expressions and places: each becomes a WGSL expression.

use super::*;

impl Writer<'_> {
    /// The right operand of an integer operation helper: shift amounts are
    /// `u32` (a literal one written as such).
    pub(in crate::wgsl) fn int_operand(&mut self, f: &mut Func, op: BinOp, v: &Expr) -> String {
        if op.is_shift() && v.ty != Type::U32 {
            if let ExprKind::Lit(l) = v.kind {
                return lit(l, &Type::U32);
            }
            return format!("u32({})", self.expr(f, v));
        }
        self.expr(f, v)
    }

    /// Check and deterministic modes' function for a float `*`, `/` or `%`
    /// (`ld_shaders::EXACT`): their float results are the CPU reference's
    /// bits on every device, so a check's buffers equal deterministic
    /// mode's and the CPU's wherever they say so.
    fn exact_float_op(&self, op: BinOp, ty: &Type) -> Option<&'static str> {
        if self.variant.as_written() || *ty != Type::F32 {
            return None;
        }
        match op {
            BinOp::Mul => Some("ld_fmul"),
            BinOp::Div => Some("ld_fdiv"),
            BinOp::Rem => Some("ld_frem"),
            _ => None,
        }
    }

    /// `x op y` on a type without an integer helper, through
    /// [`Self::exact_float_op`] where it has one.
    pub(in crate::wgsl) fn binary_text(&self, op: BinOp, ty: &Type, x: &str, y: &str) -> String {
        match self.exact_float_op(op, ty) {
            Some(call) => format!("{call}({x}, {y})"),
            None => format!("({x} {} {y})", op.symbol()),
        }
    }

    /// The statement `place op= v` on a type without an integer helper,
    /// through [`Self::exact_float_op`] where it has one.
    pub(in crate::wgsl) fn compound_text(&self, op: BinOp, ty: &Type, place: &str, v: &str) -> String {
        match self.exact_float_op(op, ty) {
            Some(call) => format!("{place} = {call}({place}, {v});"),
            None => format!("{place} {}= {v};", op.symbol()),
        }
    }

    /// The name of the helper computing `op` on `s`, emitted once.
    pub(in crate::wgsl) fn int_op_call(&mut self, op: BinOp, s: Scalar) -> String {
        let o = int_op(op, &Type::Scalar(s)).expect("an integer operation helper");
        self.int_ops.insert((o, s));
        int_op_name(o, s)
    }

    /// `x`, or, where `hide`, `x` behind an identity function (see [`hidden`]).
    pub(super) fn opaque(&mut self, x: String, ty: &Type, hide: bool) -> String {
        match ty {
            Type::Scalar(s) if hide => {
                self.opaque_types.insert(*s);
                format!("ld_opaque_{}({x})", self.ty(ty))
            }
            _ => x,
        }
    }

    pub(in crate::wgsl) fn mem_name(&self, f: &Func, m: MemRef) -> (String, MemRef) {
        let m = match m {
            MemRef::FnSlice(i) => f.slices[i].expect("bound slice"),
            m => m,
        };
        match m {
            MemRef::Param(i) => (self.param_names[i].clone(), m),
            MemRef::Shared(i) => (self.shared_names[i].clone(), m),
            MemRef::FnSlice(_) => unreachable!(),
        }
    }

    /// A place to read, every index checked by the guard (see `ld_idx`).
    pub(in crate::wgsl) fn place(&mut self, f: &mut Func, p: &Place, span: crate::Span) -> String {
        self.place_at(f, p, span, None)
    }

    /// A place; `idx`: the texts of its indices, already checked (see
    /// [`Writer::index_sites`]), else each index is checked as it is read.
    pub(in crate::wgsl) fn place_at(&mut self, f: &mut Func, p: &Place, span: crate::Span, idx: Option<&[String]>) -> String {
        let mut next = 0;
        let mut index = |w: &mut Self, f: &mut Func, i: &Expr, len: String, site: &dyn Fn(&mut Self) -> u32| match idx {
            Some(texts) => {
                next += 1;
                texts[next - 1].clone()
            }
            None => {
                let t = w.expr(f, i);
                let site = site(w);
                w.checked_index(i, t, &len, site)
            }
        };
        let mut s = match &p.root {
            Root::Local(id) => f.names[*id].clone(),
            Root::Mem { mem, index: i, .. } => {
                let (_, m) = self.mem_name(f, *mem);
                let len = self.mem_len(m);
                let t = index(self, f, i, len, &|w: &mut Self| w.mem_site(m, span));
                self.mem_at(m, &t)
            }
        };
        let mut ty = match &p.root {
            Root::Local(id) => f.locals[*id].ty.clone(),
            Root::Mem { mem, .. } => self.mem_elem(f, *mem),
        };
        for pr in &p.path {
            match (pr, ty.clone()) {
                (Proj::Index(i), Type::Array(e, n)) => {
                    let t = index(self, f, i, format!("{n}u"), &|w: &mut Self| w.site(SiteWhat::Array, "", Some(n), span));
                    s = format!("{s}[{t}]");
                    ty = *e;
                }
                (Proj::Field(i), Type::Struct(sid)) => {
                    s = format!("{s}.{}", self.field_names[sid][*i]);
                    ty = self.m.structs[sid].fields[*i].1.clone();
                }
                (Proj::Component(c), _) => {
                    s = format!("{s}.{}", ["x", "y", "z"][*c as usize]);
                    ty = Type::U32;
                }
                _ => unreachable!("ill-typed projection"),
            }
        }
        s
    }

    /// The type of the value at a place.
    pub(in crate::wgsl) fn place_type(&self, f: &Func, p: &Place) -> Type {
        let mut ty = match &p.root {
            Root::Local(id) => f.locals[*id].ty.clone(),
            Root::Mem { mem, .. } => self.mem_elem(f, *mem),
        };
        for pr in &p.path {
            ty = match (pr, ty) {
                (Proj::Index(_), Type::Array(e, _)) => *e,
                (Proj::Field(i), Type::Struct(sid)) => self.m.structs[sid].fields[*i].1.clone(),
                (Proj::Component(_), _) => Type::U32,
                _ => unreachable!("ill-typed projection"),
            };
        }
        ty
    }

    pub(in crate::wgsl) fn mem_elem(&self, f: &Func, m: MemRef) -> Type {
        let (_, m) = self.mem_name(f, m);
        match m {
            MemRef::Param(i) => match &self.m.kernel.params[i].kind {
                ParamKind::Storage { elem, .. } => elem.clone(),
                ParamKind::Atomic { elem } => Type::Atomic(*elem),
                ParamKind::Uniform { .. } => unreachable!(),
            },
            MemRef::Shared(i) => self.m.kernel.shared[i].elem.clone(),
            MemRef::FnSlice(_) => unreachable!(),
        }
    }

    pub(in crate::wgsl) fn expr(&mut self, f: &mut Func, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Lit(l) => lit(*l, &e.ty),
            ExprKind::Load(p) if self.target_place(f, p).is_some() => self.load_target(f, p, e.span),
            ExprKind::Load(p) => self.place(f, p, e.span),
            ExprKind::Uniform(i) => format!("{}.{}", self.uniforms_name, uniform_field(&self.param_names[*i])),
            ExprKind::Builtin(b) => match b {
                Builtin::GlobalId => "ld_gid".into(),
                Builtin::LocalId => "ld_lid".into(),
                Builtin::WorkgroupId => "ld_wid".into(),
                Builtin::NumWorkgroups => "ld_nwg".into(),
                Builtin::LocalIndex => "ld_lidx".into(),
                Builtin::WorkgroupSize => {
                    let [x, y, z] = self.m.kernel.workgroup_size;
                    format!("vec3<u32>({x}u, {y}u, {z}u)")
                }
            },
            ExprKind::Unary(op, a) => {
                let x = self.expr(f, a);
                let x = self.opaque(x, &a.ty, hidden(e));
                match op {
                    UnOp::Neg => format!("(-{x})"),
                    UnOp::Not if a.ty == Type::BOOL => format!("(!{x})"),
                    UnOp::Not => format!("(~{x})"),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(f, a);
                match (int_op(*op, &a.ty), &a.ty) {
                    (Some(_), Type::Scalar(s)) => {
                        let y = self.int_operand(f, *op, b);
                        let call = self.int_op_call(*op, *s);
                        format!("{call}({x}, {y})")
                    }
                    _ => {
                        let x = self.opaque(x, &a.ty, hidden(e));
                        let y = self.expr(f, b);
                        self.binary_text(*op, &a.ty, &x, &y)
                    }
                }
            }
            ExprKind::Cast(to, a) => {
                let x = self.expr(f, a);
                if a.ty == Type::Scalar(*to) {
                    x
                } else if a.ty == Type::F32 && to.is_integer() {
                    self.float_to_int.insert(*to);
                    format!("ld_f32_to_{}({x})", self.ty(&Type::Scalar(*to)))
                } else {
                    format!("{}({x})", self.ty(&Type::Scalar(*to)))
                }
            }
            ExprKind::Intrinsic(i, args) => {
                let mut xs: Vec<String> = args.iter().map(|a| self.expr(f, a)).collect();
                let first = std::mem::take(&mut xs[0]);
                xs[0] = self.opaque(first, &args[0].ty, hidden(e));
                self.intrinsic(*i, &args[0].ty, &xs)
            }
            ExprKind::Call(id, args) => {
                let mut binding = Vec::new();
                let mut xs = Vec::new();
                for a in args {
                    match a {
                        CallArg::Value(v) => {
                            binding.push(None);
                            xs.push(self.expr(f, v));
                        }
                        CallArg::Slice { mem, offset } => {
                            let (_, m) = self.mem_name(f, *mem);
                            binding.push(Some(m));
                            xs.push(self.expr(f, offset));
                        }
                    }
                }
                let name = self.instance((*id, binding));
                format!("{name}({})", xs.join(", "))
            }
            ExprKind::Atomic(..) => self.atomic_site(f, e, &e.ty),
            ExprKind::Component(a, c) => {
                let x = self.expr(f, a);
                format!("{x}.{}", ["x", "y", "z"][*c as usize])
            }
            ExprKind::Field(a, i) => {
                let x = self.expr(f, a);
                let Type::Struct(s) = a.ty else { unreachable!() };
                format!("{x}.{}", self.field_names[s][*i])
            }
            ExprKind::Len(m, off) => {
                let (name, m) = self.mem_name(f, *m);
                let len = match m {
                    MemRef::Shared(i) => format!("{}u", self.m.kernel.shared[i].len),
                    // The instrumented kernel binds a target as its words.
                    MemRef::Param(i) if self.targets.contains_key(&m) => {
                        format!("(arrayLength(&{name}) / {}u)", self.mem_elem_words(i))
                    }
                    _ => format!("arrayLength(&{name})"),
                };
                match off {
                    Some(o) => {
                        let o = self.expr(f, o);
                        format!("({len} - {o})")
                    }
                    None => len,
                }
            }
            ExprKind::StructLit(xs) => {
                let vals: Vec<String> = xs.iter().map(|x| self.expr(f, x)).collect();
                format!("{}({})", self.ty(&e.ty), vals.join(", "))
            }
            ExprKind::ArrayLit(xs) => {
                let vals: Vec<String> = xs.iter().map(|x| self.expr(f, x)).collect();
                format!("{}({})", self.ty(&e.ty), vals.join(", "))
            }
            ExprKind::ArrayRepeat(x, n) => {
                let zero = matches!(x.kind, ExprKind::Lit(Lit::Int(0)) | ExprKind::Lit(Lit::Bool(false)))
                    || matches!(x.kind, ExprKind::Lit(Lit::Float(v)) if v.to_bits() == 0);
                if zero {
                    return format!("{}()", self.ty(&e.ty));
                }
                let v = self.expr(f, x);
                let vals = vec![v; *n as usize];
                format!("{}({})", self.ty(&e.ty), vals.join(", "))
            }
        }
    }

    pub(super) fn intrinsic(&mut self, i: Intrinsic, ty: &Type, xs: &[String]) -> String {
        use Intrinsic::*;
        let call = |name: &str| format!("{name}({})", xs.join(", "));
        let as_u32 = |name: &str| {
            let c = format!("{name}({})", xs[0]);
            if *ty == Type::U32 {
                c
            } else {
                format!("u32({c})")
            }
        };
        match i {
            Abs => call("abs"),
            Min => call("min"),
            Max => call("max"),
            Clamp => call("clamp"),
            Sqrt if !self.variant.as_written() => call("ld_fsqrt"),
            Sqrt => call("sqrt"),
            Exp => call("exp"),
            Exp2 => call("exp2"),
            Log => call("log"),
            Log2 => call("log2"),
            Pow => call("pow"),
            Powi => {
                self.uses_powi = true;
                call("ld_powi")
            }
            Sin => call("sin"),
            Cos => call("cos"),
            Tan => call("tan"),
            Atan2 => call("atan2"),
            Floor => call("floor"),
            Ceil => call("ceil"),
            Round => {
                self.uses_round = true;
                call("ld_round")
            }
            RoundTiesEven => call("round"),
            Trunc => call("trunc"),
            Fract => format!("({} - trunc({}))", xs[0], xs[0]),
            Fma => call("fma"),
            CountOneBits => as_u32("countOneBits"),
            LeadingZeros => as_u32("countLeadingZeros"),
            TrailingZeros => as_u32("countTrailingZeros"),
            ReverseBits => call("reverseBits"),
            Bitcast(s) => format!("bitcast<{}>({})", self.ty(&Type::Scalar(s)), xs[0]),
        }
    }
}

pub fn lit(l: Lit, ty: &Type) -> String {
    match (l, ty) {
        (Lit::Int(v), Type::Scalar(Scalar::U32)) => format!("{}u", v as u32),
        (Lit::Int(v), _) => {
            let v = v as i32;
            if v == i32::MIN {
                "(-2147483647i - 1i)".into()
            } else if v < 0 {
                format!("(-{}i)", -(v as i64))
            } else {
                format!("{v}i")
            }
        }
        (Lit::Float(x), _) => {
            let s = format!("{:?}", x.abs());
            let s = if s.contains('.') || s.contains('e') { s } else { format!("{s}.0") };
            if x.is_sign_negative() {
                format!("(-{s}f)")
            } else {
                format!("{s}f")
            }
        }
        (Lit::Bool(b), _) => b.to_string(),
    }
}
