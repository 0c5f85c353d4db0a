//! What a launch takes: buffers, borrowed shared or exclusive, and
//! scalars, as a tuple or a `Vec<Arg>`.

use crate::buffer::{Buffer, Element, Store};
use crate::kernel::ScalarKind;
use std::any::TypeId;

/// One launch argument.
pub enum Arg<'a> {
    /// A buffer, borrowed shared (`&buf`) or exclusive (`&mut buf`).
    Buffer(BufArg<'a>),
    /// A `u32` scalar.
    U32(u32),
    /// An `i32` scalar.
    I32(i32),
    /// An `f32` scalar.
    F32(f32),
}

/// A buffer argument: the buffer, its element type and its borrow.
pub struct BufArg<'a> {
    pub(crate) store: &'a Store,
    pub(crate) id: u64,
    pub(crate) len: usize,
    pub(crate) elem: TypeId,
    pub(crate) elem_name: &'static str,
    pub(crate) elem_words: u32,
    /// Passed as `&mut`: the caller gave the kernel the right to write it.
    pub(crate) exclusive: bool,
}

impl<'a, T: Element> From<&'a Buffer<T>> for Arg<'a> {
    fn from(b: &'a Buffer<T>) -> Self {
        Arg::Buffer(BufArg {
            store: &b.store,
            id: b.id,
            len: b.len(),
            elem: TypeId::of::<T>(),
            elem_name: std::any::type_name::<T>(),
            elem_words: T::WORDS,
            exclusive: false,
        })
    }
}
impl<'a, T: Element> From<&'a mut Buffer<T>> for Arg<'a> {
    fn from(b: &'a mut Buffer<T>) -> Self {
        let len = b.len();
        Arg::Buffer(BufArg {
            store: &b.store,
            id: b.id,
            len,
            elem: TypeId::of::<T>(),
            elem_name: std::any::type_name::<T>(),
            elem_words: T::WORDS,
            exclusive: true,
        })
    }
}
impl From<u32> for Arg<'_> {
    fn from(x: u32) -> Self {
        Arg::U32(x)
    }
}
impl From<i32> for Arg<'_> {
    fn from(x: i32) -> Self {
        Arg::I32(x)
    }
}
impl From<f32> for Arg<'_> {
    fn from(x: f32) -> Self {
        Arg::F32(x)
    }
}

impl Arg<'_> {
    pub(super) fn describe(&self) -> String {
        match self {
            Arg::Buffer(b) if b.exclusive => format!("`&mut Buffer<{}>`", b.elem_name),
            Arg::Buffer(b) => format!("`&Buffer<{}>`", b.elem_name),
            Arg::U32(_) => "a `u32`".into(),
            Arg::I32(_) => "an `i32`".into(),
            Arg::F32(_) => "an `f32`".into(),
        }
    }
}

/// Launch arguments: a tuple of buffers and scalars, or a `Vec<Arg>`.
pub trait IntoArgs<'a> {
    /// The arguments, in parameter order.
    fn into_args(self) -> Vec<Arg<'a>>;
}

impl<'a> IntoArgs<'a> for Vec<Arg<'a>> {
    fn into_args(self) -> Vec<Arg<'a>> {
        self
    }
}

impl<'a> IntoArgs<'a> for () {
    fn into_args(self) -> Vec<Arg<'a>> {
        vec![]
    }
}

macro_rules! tuple_args {
    ($($t:ident),+) => {
        impl<'a, $($t: Into<Arg<'a>>),+> IntoArgs<'a> for ($($t,)+) {
            #[allow(non_snake_case)]
            fn into_args(self) -> Vec<Arg<'a>> {
                let ($($t,)+) = self;
                vec![$($t.into()),+]
            }
        }
    };
}
tuple_args!(A);
tuple_args!(A, B);
tuple_args!(A, B, C);
tuple_args!(A, B, C, D);
tuple_args!(A, B, C, D, E);
tuple_args!(A, B, C, D, E, F);
tuple_args!(A, B, C, D, E, F, G);
tuple_args!(A, B, C, D, E, F, G, H);
tuple_args!(A, B, C, D, E, F, G, H, I);
tuple_args!(A, B, C, D, E, F, G, H, I, J);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P);

/// A scalar argument as its uniform word; a non-negative `i32` literal
/// passes for a `u32` (Rust's default integer type is `i32`).
pub(super) fn scalar_word(want: ScalarKind, a: &Arg) -> std::result::Result<u32, String> {
    match (want, a) {
        (ScalarKind::U32, Arg::U32(x)) => Ok(*x),
        (ScalarKind::U32, Arg::I32(x)) if *x >= 0 => Ok(*x as u32),
        (ScalarKind::U32, Arg::I32(x)) => Err(format!("got {x}, a negative `i32`; a `u32` holds 0 to {}", u32::MAX)),
        (ScalarKind::I32, Arg::I32(x)) => Ok(*x as u32),
        (ScalarKind::F32, Arg::F32(x)) => Ok(x.to_bits()),
        (_, a) => Err(format!("got {}", a.describe())),
    }
}
