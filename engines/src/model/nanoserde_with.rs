//! nanoserde's `#[nserde(proxy = ...)]` types for the model's `Arc` fields (nanoserde has no
//! `Arc` impls). They sit in the model, whose derives name them; the impls for the ordered
//! attributes and tags are in `order`, beside the types.
//!
//! A field proxy is built from `&field` before the field is written and turned back into the
//! field after the proxy is read, both by `From`; here that is a reference-count increment
//! (for the lists of addresses, a new `Vec` of the same `Arc`s). Each proxy writes what its
//! `Arc`s point to, so shared references are written once per use and decode into separate
//! allocations.

use std::sync::Arc;

use nanoserde::{DeBin, DeBinErr, SerBin};

/// The field of `T`, an `Arc` shape, written as the values its `Arc`s point to.
pub struct Unshared<T>(T);

/// `From` both ways between each `Arc` shape and its proxy.
macro_rules! unshared_from {
    ($($t:ty),*) => {$(
        impl<T> From<&$t> for Unshared<$t> {
            fn from(field: &$t) -> Self {
                Unshared(field.clone())
            }
        }

        impl<T> From<&Unshared<$t>> for $t {
            fn from(proxy: &Unshared<$t>) -> Self {
                proxy.0.clone()
            }
        }
    )*};
}

unshared_from!(Arc<T>, Option<Arc<T>>, Vec<Arc<T>>);

impl<T: SerBin> SerBin for Unshared<Arc<T>> {
    fn ser_bin(&self, s: &mut Vec<u8>) {
        self.0.as_ref().ser_bin(s);
    }
}

impl<T: DeBin> DeBin for Unshared<Arc<T>> {
    fn de_bin(o: &mut usize, d: &[u8]) -> Result<Self, DeBinErr> {
        T::de_bin(o, d).map(|v| Unshared(Arc::new(v)))
    }
}

/// nanoserde's `Option` layout: a 0 byte, or a 1 byte and the value.
impl<T: SerBin> SerBin for Unshared<Option<Arc<T>>> {
    fn ser_bin(&self, s: &mut Vec<u8>) {
        match &self.0 {
            Some(v) => {
                s.push(1);
                v.as_ref().ser_bin(s);
            }
            None => s.push(0),
        }
    }
}

impl<T: DeBin> DeBin for Unshared<Option<Arc<T>>> {
    fn de_bin(o: &mut usize, d: &[u8]) -> Result<Self, DeBinErr> {
        Option::<Unshared<Arc<T>>>::de_bin(o, d).map(|v| Unshared(v.map(|a| a.0)))
    }
}

/// nanoserde's `Vec` layout: a u64 length, then the elements (decoded by nanoserde's own `Vec`
/// decoder, which reserves the length it reads).
impl<T: SerBin> SerBin for Unshared<Vec<Arc<T>>> {
    fn ser_bin(&self, s: &mut Vec<u8>) {
        self.0.len().ser_bin(s);
        for item in &self.0 {
            item.as_ref().ser_bin(s);
        }
    }
}

impl<T: DeBin> DeBin for Unshared<Vec<Arc<T>>> {
    fn de_bin(o: &mut usize, d: &[u8]) -> Result<Self, DeBinErr> {
        let values = Vec::<Unshared<Arc<T>>>::de_bin(o, d)?;
        Ok(Unshared(values.into_iter().map(|v| v.0).collect()))
    }
}
