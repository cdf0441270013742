//! The four datasets of rust_serialization_benchmark (rsb, github.com/djkoloski/rust_serialization_benchmark):
//! `log`, `mesh`, `minecraft_savedata` and `mk48`, as types of our own with rsb's shapes and
//! values drawn by generators of our own.
//!
//! rsb draws every value from one PCG32 (rand_pcg's `Lcg64Xsh32`) seeded with the first twenty
//! digits of pi, through rand 0.8's samplers (`gen`, `gen_range`, `gen_bool`, `WeightedIndex`).
//! Our generators make the same draws, with the same types, in the same order, from the same
//! crates, so the values are rsb's value for value: the check is that serde_json writes each
//! whole dataset in exactly the bytes rsb publishes for it (the `rsb_sizes` test of
//! `rsb/tests/rsb.rs`, and [`SERDE_JSON_BYTES`]).
//!
//! Each dataset is one value (`Logs`, `Mesh`, `Players`, `Updates`): rsb serializes and
//! deserializes the whole of it in one operation, and so do the `rsb-*` studies. The types
//! carry the derives of every engine of the build that rsb also measures (serde always; borsh,
//! rkyv, wincode, bitcode, Müsli, nanoserde, msgpacker, minicbor, speedy, simd-json behind their
//! features, through `rsb_types!`; bilrost's `Message` or `Enumeration` on each item itself,
//! since the two differ and the log's address is written through a proxy), and [`log`] and
//! [`minecraft`] a borrowed form of their strings for rsb's `borrow` column.

pub mod log;
pub mod mesh;
pub mod minecraft;
pub mod mk48;

use rand_pcg::Lcg64Xsh32;

/// The generator rsb seeds for every dataset: PCG32 with state and stream the first twenty
/// digits of pi, split in two.
pub fn rng() -> Lcg64Xsh32 {
    Lcg64Xsh32::new(3_141_592_653, 5_897_932_384)
}

/// The serde_json size of each whole dataset as rsb publishes it (README of rsb commit
/// 695b804b, 2026-08-21): `log`, `mesh`, `minecraft_savedata`, `mk48`. The tests hold our
/// generators to them; nothing is measured with them.
pub const SERDE_JSON_BYTES: [(&str, usize); 4] = [
    ("log", 1_827_461),
    ("mesh", 26_192_883),
    ("minecraft_savedata", 1_623_191),
    ("mk48", 9_390_461),
];

/// `n` values made by `one`, after drawing their count from `range` as rsb does (a draw even
/// when the range holds one count).
pub(crate) fn many<T, R: rand::Rng>(
    rng: &mut R,
    range: std::ops::Range<usize>,
    mut one: impl FnMut(&mut R) -> T,
) -> Vec<T> {
    let n = rng.gen_range(range);
    (0..n).map(|_| one(rng)).collect()
}

/// The digest of what rsb's read of an archive touches: `read` of each of `items`, in order
/// (the access rows' check, [`crate::model::Digest`]); the rsb studies read archives with it.
pub fn read_each<T>(items: &[T], read: impl Fn(&mut crate::model::Digest, &T)) -> u64 {
    let mut d = crate::model::Digest::default();
    for item in items {
        read(&mut d, item);
    }
    d.finish()
}

/// Puts the derives of every engine of the build that rsb measures on the items given: serde
/// always, the others behind their crates' features. Field and variant attributes of the
/// engines (minicbor's indexes, wincode's tag width) are written on the items themselves, each
/// behind its feature.
macro_rules! rsb_types {
    ($($item:item)*) => {$(
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[cfg_attr(feature = "borsh", derive(borsh::BorshSerialize, borsh::BorshDeserialize))]
        #[cfg_attr(feature = "rkyv", derive(rkyv::Archive, rkyv::Serialize, rkyv::Deserialize))]
        #[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
        #[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
        #[cfg_attr(feature = "musli", derive(musli::Encode, musli::Decode))]
        #[cfg_attr(feature = "nanoserde", derive(nanoserde::SerBin, nanoserde::DeBin))]
        #[cfg_attr(feature = "msgpacker", derive(msgpacker::MsgPacker))]
        #[cfg_attr(feature = "minicbor", derive(minicbor::Encode, minicbor::Decode))]
        #[cfg_attr(feature = "speedy", derive(speedy::Readable, speedy::Writable))]
        #[cfg_attr(
            feature = "simd-json-derive",
            derive(simd_json_derive::Serialize, simd_json_derive::Deserialize)
        )]
        $item
    )*};
}
pub(crate) use rsb_types;

/// A dataset's value with a borrowed form: the same fields, its strings `&str`s into the
/// payload it was read from (rsb's `borrow` column).
pub trait Borrowable: Sized {
    /// The borrowed form.
    type Borrowed<'a>: serde::Deserialize<'a> + Into<Self> + Lend<'a>;
}

/// The borrowed decodes of the derive engines of the build, each a trait that is empty when its
/// engine's feature is off.
pub trait Lend<'a>:
    LendBitcode<'a> + LendWincode<'a> + LendMinicbor<'a> + LendMsgpacker<'a> + LendBilrost<'a>
{
}
impl<
        'a,
        T: LendBitcode<'a> + LendWincode<'a> + LendMinicbor<'a> + LendMsgpacker<'a> + LendBilrost<'a>,
    > Lend<'a> for T
{
}

/// A trait `$name` that is `$bound` with `$feature`, and nothing without it.
macro_rules! lend {
    ($(#[$doc:meta])* $name:ident, $feature:literal, $($bound:tt)+) => {
        $(#[$doc])*
        #[cfg(feature = $feature)]
        pub trait $name<'a>: $($bound)+ {}
        #[cfg(feature = $feature)]
        impl<'a, T: $($bound)+> $name<'a> for T {}
        $(#[$doc])*
        #[cfg(not(feature = $feature))]
        pub trait $name<'a> {}
        #[cfg(not(feature = $feature))]
        impl<T> $name<'_> for T {}
    };
}

lend!(
    /// bitcode's borrowed decode (`bitcode::Buffer::decode`).
    LendBitcode, "bitcode", bitcode::Decode<'a>
);
/// wincode's borrowed decode (`wincode::deserialize`).
#[cfg(feature = "wincode")]
pub trait LendWincode<'a>:
    wincode::SchemaRead<'a, wincode::config::DefaultConfig, Dst = Self>
{
}
#[cfg(feature = "wincode")]
impl<'a, T: wincode::SchemaRead<'a, wincode::config::DefaultConfig, Dst = T>> LendWincode<'a>
    for T
{
}
/// wincode's borrowed decode (`wincode::deserialize`).
#[cfg(not(feature = "wincode"))]
pub trait LendWincode<'a> {}
#[cfg(not(feature = "wincode"))]
impl<T> LendWincode<'_> for T {}
lend!(
    /// minicbor's borrowed decode (`minicbor::decode`).
    LendMinicbor, "minicbor", minicbor::Decode<'a, ()>
);
lend!(
    /// msgpacker's borrowed decode (`UnpackableBorrowed::unpack`).
    LendMsgpacker, "msgpacker", msgpacker::UnpackableBorrowed<'a, Error = msgpacker::Error>
);
lend!(
    /// bilrost's borrowed decode (`BorrowedMessage::decode_borrowed`).
    LendBilrost, "bilrost", bilrost::BorrowedMessage<'a>
);

/// Puts the derives of the engines whose decode borrows on the borrowed forms given: serde
/// always; bitcode, wincode, minicbor (with the indexes on the fields), msgpacker and bilrost
/// (with the owned forms' encodings on the fields) behind their features.
macro_rules! borrowed_types {
    ($($item:item)*) => {$(
        #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
        #[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
        #[cfg_attr(feature = "msgpacker", derive(msgpacker::MsgPackerBorrowed))]
        #[cfg_attr(feature = "minicbor", derive(minicbor::Encode, minicbor::Decode))]
        #[cfg_attr(feature = "bilrost", derive(bilrost::Message))]
        $item
    )*};
}
pub(crate) use borrowed_types;

impl Borrowable for log::Logs {
    type Borrowed<'a> = log::BorrowLogs<'a>;
}

impl Borrowable for minecraft::Players {
    type Borrowed<'a> = minecraft::BorrowPlayers<'a>;
}
