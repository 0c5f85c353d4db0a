//! `const` items: evaluated at expansion time so they can size arrays and
//! appear as literals in both back ends.

use ld_compiler::ir::{Lit, Scalar, Type};
use std::collections::HashMap;
use syn::{spanned::Spanned, Error, Result};

pub fn eval(e: &syn::Expr, ty: &Type, consts: &HashMap<String, (Lit, Type)>) -> Result<Lit> {
    let v = value(e, consts)?;
    match (ty, v) {
        (Type::Scalar(Scalar::U32), Lit::Int(i)) if (0..=u32::MAX as i64).contains(&i) => Ok(v),
        (Type::Scalar(Scalar::I32), Lit::Int(i)) if (i32::MIN as i64..=i32::MAX as i64).contains(&i) => Ok(v),
        (Type::Scalar(Scalar::F32), Lit::Float(_)) => Ok(v),
        (Type::Scalar(Scalar::Bool), Lit::Bool(_)) => Ok(v),
        _ => Err(Error::new(e.span(), "const value does not fit its type (consts are `u32`, `i32`, `f32` or `bool`)")),
    }
}

/// A constant of the standard library a kernel may name (`u32::MAX`,
/// `f32::consts::PI`, ...), in expressions and const initializers alike.
pub fn named(path: &syn::Path, span: proc_macro2::Span) -> Result<(Lit, Type)> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let (ty, name) = match segs.as_slice() {
        [.., ty, name] => (ty.as_str(), name.as_str()),
        _ => ("", segs[0].as_str()),
    };
    Ok(match (ty, name) {
        ("u32", "MAX") => (Lit::Int(u32::MAX as i64), Type::U32),
        ("u32", "MIN") => (Lit::Int(0), Type::U32),
        ("i32", "MAX") => (Lit::Int(i32::MAX as i64), Type::I32),
        ("i32", "MIN") => (Lit::Int(i32::MIN as i64), Type::I32),
        ("f32", "MAX") => (Lit::Float(f32::MAX), Type::F32),
        ("f32", "MIN") => (Lit::Float(f32::MIN), Type::F32),
        ("f32", "EPSILON") => (Lit::Float(f32::EPSILON), Type::F32),
        ("f32", "MIN_POSITIVE") => (Lit::Float(f32::MIN_POSITIVE), Type::F32),
        ("consts", "PI") => (Lit::Float(std::f32::consts::PI), Type::F32),
        ("consts", "TAU") => (Lit::Float(std::f32::consts::TAU), Type::F32),
        ("consts", "E") => (Lit::Float(std::f32::consts::E), Type::F32),
        ("consts", "SQRT_2") => (Lit::Float(std::f32::consts::SQRT_2), Type::F32),
        ("consts", "LN_2") => (Lit::Float(std::f32::consts::LN_2), Type::F32),
        ("f32", "INFINITY" | "NEG_INFINITY" | "NAN") => {
            return Err(Error::new(span, "WGSL has no infinity or NaN literals: use `f32::MAX`"));
        }
        _ => return Err(Error::new(span, format!("`{}` is not supported in kernels", segs.join("::")))),
    })
}

fn value(e: &syn::Expr, consts: &HashMap<String, (Lit, Type)>) -> Result<Lit> {
    let bad = || Error::new(e.span(), "const initializers may use literals, other consts, constants such as `u32::MAX` and arithmetic only");
    Ok(match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => Lit::Int(i.base10_parse()?),
            syn::Lit::Float(f) => Lit::Float(f.base10_parse()?),
            syn::Lit::Bool(b) => Lit::Bool(b.value),
            _ => return Err(bad()),
        },
        syn::Expr::Paren(p) => value(&p.expr, consts)?,
        syn::Expr::Path(p) => match p.path.get_ident() {
            Some(name) => consts.get(&name.to_string()).ok_or_else(bad)?.0,
            None => named(&p.path, p.span())?.0,
        },
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match value(&u.expr, consts)? {
            Lit::Int(i) => Lit::Int(-i),
            Lit::Float(f) => Lit::Float(-f),
            _ => return Err(bad()),
        },
        syn::Expr::Binary(b) => {
            let (l, r) = (value(&b.left, consts)?, value(&b.right, consts)?);
            use syn::BinOp as B;
            match (l, r) {
                (Lit::Int(a), Lit::Int(c)) => Lit::Int(match b.op {
                    B::Add(_) => a + c,
                    B::Sub(_) => a - c,
                    B::Mul(_) => a * c,
                    B::Div(_) if c != 0 => a / c,
                    B::Rem(_) if c != 0 => a % c,
                    B::Shl(_) if (0..32).contains(&c) => a << c,
                    B::Shr(_) if (0..32).contains(&c) => a >> c,
                    B::BitAnd(_) => a & c,
                    B::BitOr(_) => a | c,
                    _ => return Err(bad()),
                }),
                (Lit::Float(a), Lit::Float(c)) => Lit::Float(match b.op {
                    B::Add(_) => a + c,
                    B::Sub(_) => a - c,
                    B::Mul(_) => a * c,
                    B::Div(_) => a / c,
                    _ => return Err(bad()),
                }),
                _ => return Err(bad()),
            }
        }
        _ => return Err(bad()),
    })
}
