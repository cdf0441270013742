//! The digest an in-place access returns: every field of a value, combined in one order, so
//! that a zero-copy engine's reader of the archived form and this module's reader of the value
//! must visit the same fields to agree. Numbers, flags and enum tags go in whole; strings and
//! byte arrays by their length and their first and last byte (touching the field, as a reader
//! that hands the field on does, without hashing every byte, which would put the digest's own
//! work inside the engine's figure).

use super::{Address, Category, Customer, Order, OrderLine, OrderStatus, Product};

/// The running digest: a multiply-xor mix of each field in turn.
#[derive(Debug, Clone, Copy)]
pub struct Digest(u64);

impl Default for Digest {
    fn default() -> Self {
        Digest(0xcbf2_9ce4_8422_2325)
    }
}

impl Digest {
    /// A number (integers widened to 64 bits, enum tags as their index).
    #[inline]
    pub fn int(&mut self, v: i64) {
        self.0 = (self.0 ^ v as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }

    /// A floating-point number, by its bits.
    #[inline]
    pub fn float(&mut self, v: f64) {
        self.int(v.to_bits() as i64);
    }

    /// A flag.
    #[inline]
    pub fn flag(&mut self, v: bool) {
        self.int(i64::from(v));
    }

    /// A string or byte array: its length and its first and last byte.
    #[inline]
    pub fn bytes(&mut self, b: &[u8]) {
        self.int(b.len() as i64);
        if let (Some(&first), Some(&last)) = (b.first(), b.last()) {
            self.int(i64::from(first) << 8 | i64::from(last));
        }
    }

    /// Whether an optional field is there (then its contents follow).
    #[inline]
    pub fn present(&mut self, v: bool) {
        self.flag(v);
    }

    /// The digest so far.
    pub fn finish(self) -> u64 {
        self.0
    }
}

impl Order {
    /// The digest of every field of the order, in declaration order (see [`Digest`]): what an
    /// engine's in-place access of its payload must return.
    pub fn digest(&self) -> u64 {
        let mut d = Digest::default();
        d.bytes(self.id.as_bytes());
        customer(&mut d, &self.customer);
        d.int(self.lines.len() as i64);
        for l in &self.lines {
            line(&mut d, l);
        }
        d.int(status_index(self.status));
        d.int(self.created);
        address(&mut d, &self.shipping_address);
        d.int(self.attributes.0.len() as i64);
        for (k, v) in &self.attributes.0 {
            d.bytes(k.as_bytes());
            d.bytes(v.as_bytes());
        }
        d.present(self.notes.is_some());
        if let Some(n) = &self.notes {
            d.bytes(n.as_bytes());
        }
        d.finish()
    }
}

/// A status's index in [`OrderStatus::ALL`].
pub fn status_index(s: OrderStatus) -> i64 {
    OrderStatus::ALL.iter().position(|&x| x == s).unwrap_or(0) as i64
}

fn customer(d: &mut Digest, c: &Customer) {
    d.int(c.id);
    d.bytes(c.first_name.as_bytes());
    d.bytes(c.last_name.as_bytes());
    d.bytes(c.email.as_bytes());
    d.int(c.date_of_birth);
    d.flag(c.vip);
    d.int(c.addresses.len() as i64);
    for a in &c.addresses {
        address(d, a);
    }
}

fn address(d: &mut Digest, a: &Address) {
    d.bytes(a.street.as_bytes());
    d.bytes(a.city.as_bytes());
    d.bytes(a.zip.as_bytes());
    d.bytes(a.country.as_bytes());
}

fn line(d: &mut Digest, l: &OrderLine) {
    product(d, &l.product);
    d.int(i64::from(l.quantity));
    d.int(l.unit_price.cents);
    d.float(l.discount);
}

fn product(d: &mut Digest, p: &Product) {
    d.bytes(p.sku.as_bytes());
    d.bytes(p.name.as_bytes());
    d.bytes(p.description.as_bytes());
    category(d, &p.category);
    d.int(p.price.cents);
    d.int(i64::from(p.weight_grams));
    d.int(p.tags.0.len() as i64);
    for t in &p.tags.0 {
        d.bytes(t.as_bytes());
    }
    d.bytes(&p.thumbnail.0);
}

fn category(d: &mut Digest, c: &Category) {
    d.int(c.id);
    d.bytes(c.name.as_bytes());
    d.present(c.parent.is_some());
    if let Some(p) = &c.parent {
        category(d, p);
    }
}
