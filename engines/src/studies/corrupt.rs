//! The `corrupt` study (beyond the articles): what each engine does with damaged
//! input.
//!
//! Its configurations are the `formats` engines and the `bytes` study's four `bytes_json` codecs,
//! renamed into the study (`corrupt/serde_json`, `corrupt/json-base64-table`) with the operation
//! `decode`. Its inputs are this module's [`corrupt_input`]: deterministic, seeded mutations of
//! each engine's own valid payloads of the 200 Orders. Input `i` depends only on `i`, the format
//! and the payloads, never on how many inputs a run asks for, so the 100 inputs of `--quick` are
//! the first 100 of the full 1,000, and a restarted child regenerates exactly the input it
//! resumes from. The study hands them to the harness as its [`DAMAGE`]; the harness decodes them
//! in guarded children and sorts the outcomes.

use serprof_api::{Damage, DamagedInput};

use super::{bytes, formats, Format, Study};

/// The study: every `formats` engine and the four `bytes_json` codecs on the Orders, decoding
/// damaged payloads; with the testkit, also `corrupt/testkit-trap` (see `testkit::Trap`).
pub fn study() -> Study {
    #[allow(unused_mut)]
    let mut engines = formats::engines();
    engines.extend(bytes::bytes_json_engines());
    #[cfg(feature = "testkit")]
    engines.push(super::testkit::trap());
    engines
        .into_iter()
        .fold(
            Study::new("corrupt", "What each engine does with damaged input")
                .source("beyond the articles: seeded mutations of valid payloads, decoded in guarded children")
                .dataset_static(crate::dataset::ORDERS, crate::dataset::orders),
            |study, engine| study.engine(engine),
        )
        .describe_difference(crate::model::Order::first_difference)
        .corrupt(DAMAGE)
        .into()
}

/// The seed of every run's inputs. Fixed, so that two runs (and two engines) see the same
/// mutation kinds, Orders and positions at the same index.
pub const SEED: u64 = 0x5EED_C0DE_0009_2026;

/// Inputs per engine in a full run.
pub const INPUTS_FULL: usize = 1_000;

/// Inputs per engine with `--quick`.
pub const INPUTS_QUICK: usize = 100;

/// The study's damage, as the harness reads it: [`corrupt_input`] under [`SEED`].
pub const DAMAGE: Damage = Damage {
    seed: SEED,
    inputs: INPUTS_FULL,
    quick_inputs: INPUTS_QUICK,
    input: damaged,
};

/// [`corrupt_input`] as the harness takes it.
fn damaged(index: usize, format: Format, payloads: &[Vec<u8>]) -> DamagedInput {
    let input = corrupt_input(index, format, payloads);
    DamagedInput {
        index: input.index,
        order: input.order,
        mutation: input.mutation.as_str(),
        what: input.what,
        bytes: input.bytes,
    }
}

/// How a valid payload was damaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mutation {
    /// Cut off at one of the length classes of [`truncation_length`].
    Truncate,
    /// One to three bits flipped.
    BitFlip,
    /// One to four bytes replaced (with 0x00, 0xFF, 0x7F, 0x80, JSON punctuation or noise).
    ByteReplace,
    /// Binary: bytes that look like a length or count overwritten with a huge one (0xFF, a
    /// maximal varint, four or eight 0xFF bytes).
    LengthInflate,
    /// JSON: a bracket removed, added or swapped.
    UnbalancedBrackets,
    /// JSON: an invalid escape (`\x`, a short `\u`, a lone surrogate, a backslash before the
    /// closing quote).
    BadEscape,
    /// JSON: an invalid UTF-8 sequence inside a string.
    InvalidUtf8,
    /// JSON: 10,000 or 100,000 `[` where a value starts: a probe for unbounded recursion.
    DeepNesting,
}

impl Mutation {
    /// Its name in outcome tables (`bit-flip`).
    pub fn as_str(self) -> &'static str {
        match self {
            Mutation::Truncate => "truncate",
            Mutation::BitFlip => "bit-flip",
            Mutation::ByteReplace => "byte-replace",
            Mutation::LengthInflate => "length-inflate",
            Mutation::UnbalancedBrackets => "unbalanced-brackets",
            Mutation::BadEscape => "bad-escape",
            Mutation::InvalidUtf8 => "invalid-utf8",
            Mutation::DeepNesting => "deep-nesting",
        }
    }

    /// The kinds a format gets, in the order inputs cycle through them.
    pub fn kinds(format: Format) -> &'static [Mutation] {
        match format {
            Format::Binary => &[
                Mutation::Truncate,
                Mutation::BitFlip,
                Mutation::ByteReplace,
                Mutation::LengthInflate,
            ],
            Format::Json => &[
                Mutation::Truncate,
                Mutation::BitFlip,
                Mutation::ByteReplace,
                Mutation::UnbalancedBrackets,
                Mutation::BadEscape,
                Mutation::InvalidUtf8,
                Mutation::DeepNesting,
            ],
        }
    }
}

/// One damaged input.
#[derive(Debug, Clone, PartialEq)]
pub struct CorruptInput {
    /// Its number among the engine's inputs.
    pub index: usize,
    /// The Order (0 to 199) whose payload was damaged.
    pub order: usize,
    /// The kind of damage.
    pub mutation: Mutation,
    /// What was done, e.g. `truncated to 3 of 6,983 bytes`.
    pub what: String,
    /// The damaged payload.
    pub bytes: Vec<u8>,
}

/// SplitMix64: tiny, seedable and good enough to pick positions (no crate needed).
struct Rng(u64);

impl Rng {
    fn for_input(index: usize) -> Rng {
        let mut r = Rng(SEED ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.next();
        r
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// The damaged input number `index` for an engine of `format` whose valid payloads of the
/// Orders are `payloads` (one per Order, in dataset order).
pub fn corrupt_input(index: usize, format: Format, payloads: &[Vec<u8>]) -> CorruptInput {
    assert!(!payloads.is_empty(), "no payloads to damage");
    let kinds = Mutation::kinds(format);
    let mutation = kinds[index % kinds.len()];
    let mut rng = Rng::for_input(index);
    let order = rng.below(payloads.len());
    let mut bytes = payloads[order].clone();
    let what = match mutation {
        Mutation::Truncate => {
            let len = truncation_length(index / kinds.len(), bytes.len(), &mut rng);
            let what = format!("truncated to {len} of {} bytes", bytes.len());
            bytes.truncate(len);
            what
        }
        Mutation::BitFlip => bit_flips(&mut bytes, &mut rng),
        Mutation::ByteReplace => byte_replacements(&mut bytes, format, &mut rng),
        Mutation::LengthInflate => inflate_length(&mut bytes, &mut rng),
        Mutation::UnbalancedBrackets => unbalance(&mut bytes, &mut rng),
        Mutation::BadEscape => bad_escape(&mut bytes, &mut rng),
        Mutation::InvalidUtf8 => invalid_utf8(&mut bytes, &mut rng),
        Mutation::DeepNesting => deep_nesting(&mut bytes, &mut rng),
    };
    CorruptInput {
        index,
        order,
        mutation,
        what,
        bytes,
    }
}

/// The length of the `nth` truncation of a payload of `len` bytes: first every class (0 to 4
/// bytes, each power of two below `len`, half, and 4, 2 and 1 bytes short of the end), then
/// random lengths. The tiny classes come first so that even `--quick` cuts inside the first
/// header, length or tag.
pub fn truncation_length(nth: usize, len: usize, rng: &mut impl RngLike) -> usize {
    let mut classes: Vec<usize> = (0..=4).filter(|&n| n < len).collect();
    let mut p = 8;
    while p < len {
        classes.push(p);
        p *= 2;
    }
    for short in [
        len / 2,
        len.saturating_sub(4),
        len.saturating_sub(2),
        len.saturating_sub(1),
    ] {
        classes.push(short);
    }
    match classes.get(nth) {
        Some(&n) => n,
        None => rng.below(len),
    }
}

/// What [`truncation_length`] needs of a random source (so tests can pass their own).
pub trait RngLike {
    /// A number below `n`.
    fn below(&mut self, n: usize) -> usize;
}

impl RngLike for Rng {
    fn below(&mut self, n: usize) -> usize {
        Rng::below(self, n)
    }
}

fn bit_flips(bytes: &mut [u8], rng: &mut Rng) -> String {
    let n = 1 + rng.below(3);
    let mut at = Vec::new();
    for _ in 0..n {
        let (pos, bit) = (rng.below(bytes.len()), rng.below(8));
        bytes[pos] ^= 1 << bit;
        at.push(format!("{pos}.{bit}"));
    }
    format!("bits flipped at {}", at.join(", "))
}

fn byte_replacements(bytes: &mut [u8], format: Format, rng: &mut Rng) -> String {
    let n = 1 + rng.below(4);
    let mut at = Vec::new();
    for _ in 0..n {
        let pos = rng.below(bytes.len());
        let noise = rng.next() as u8;
        let mut value = match format {
            Format::Binary => rng.pick(&[0x00, 0xFF, 0x7F, 0x80, noise]),
            Format::Json => rng.pick(&[0x00, 0xFF, b'"', b'\\', b'{', b']', b',', noise]),
        };
        if value == bytes[pos] {
            // Always a change: a byte replaced by itself would test nothing.
            value = !value;
        }
        bytes[pos] = value;
        at.push(format!("{pos}=0x{value:02x}"));
    }
    format!("bytes replaced: {}", at.join(", "))
}

/// Overwrites a byte that could be a length or count (1 to 127, not past the end if it were
/// one) with a huge length: most of the formats here put varint or one-byte lengths in front of
/// strings, byte arrays and sequences, so a decoder that trusts them allocates what they claim.
fn inflate_length(bytes: &mut [u8], rng: &mut Rng) -> String {
    let plausible: Vec<usize> = (0..bytes.len())
        .filter(|&p| (1..=0x7F).contains(&bytes[p]) && (bytes[p] as usize) < bytes.len() - p)
        .collect();
    let pos = if plausible.is_empty() {
        rng.below(bytes.len())
    } else {
        rng.pick(&plausible)
    };
    let (name, with): (&str, &[u8]) = rng.pick(&[
        ("0xff", &[0xFF][..]),
        ("varint u32::MAX", &[0xFF, 0xFF, 0xFF, 0xFF, 0x0F][..]),
        ("four 0xff", &[0xFF; 4][..]),
        ("eight 0xff", &[0xFF; 8][..]),
        (
            "varint u64::MAX",
            &[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01][..],
        ),
    ]);
    let was = bytes[pos];
    let end = (pos + with.len()).min(bytes.len());
    bytes[pos..end].copy_from_slice(&with[..end - pos]);
    format!("byte {pos} (0x{was:02x}) and on overwritten with {name}")
}

/// Positions of the bytes equal to one of `set`.
fn positions(bytes: &[u8], set: &[u8]) -> Vec<usize> {
    (0..bytes.len())
        .filter(|&p| set.contains(&bytes[p]))
        .collect()
}

/// Positions right after an opening quote (a quote after `:`, `,`, `[` or `{`): inside a string.
fn string_starts(bytes: &[u8]) -> Vec<usize> {
    (1..bytes.len())
        .filter(|&p| bytes[p] == b'"' && b":,[{".contains(&bytes[p - 1]))
        .map(|p| p + 1)
        .collect()
}

/// Positions of closing quotes (a quote before `:`, `,`, `]` or `}`).
fn string_ends(bytes: &[u8]) -> Vec<usize> {
    (0..bytes.len().saturating_sub(1))
        .filter(|&p| bytes[p] == b'"' && b":,]}".contains(&bytes[p + 1]))
        .collect()
}

/// A position from `candidates`, or anywhere when there is none (the input is damaged either way).
fn somewhere(candidates: &[usize], len: usize, rng: &mut Rng) -> usize {
    if candidates.is_empty() {
        rng.below(len)
    } else {
        rng.pick(candidates)
    }
}

fn insert(bytes: &mut Vec<u8>, pos: usize, what: &[u8]) {
    bytes.splice(pos..pos, what.iter().copied());
}

fn unbalance(bytes: &mut Vec<u8>, rng: &mut Rng) -> String {
    match rng.below(5) {
        0 => {
            let last = bytes.iter().rposition(|&b| b == b'}' || b == b']');
            let pos = last.unwrap_or(bytes.len() - 1);
            bytes.remove(pos);
            format!("last closing bracket (at {pos}) removed")
        }
        1 => {
            let pos = somewhere(&positions(bytes, b"}]"), bytes.len(), rng);
            let b = bytes.remove(pos);
            format!("{:?} at {pos} removed", b as char)
        }
        2 => {
            let pos = somewhere(&positions(bytes, b":"), bytes.len(), rng) + 1;
            let b = rng.pick(b"{[");
            insert(bytes, pos, &[b]);
            format!("{:?} inserted at {pos}", b as char)
        }
        3 => {
            let pos = somewhere(&positions(bytes, b","), bytes.len(), rng) + 1;
            let b = rng.pick(b"}]");
            insert(bytes, pos, &[b]);
            format!("{:?} inserted at {pos}", b as char)
        }
        _ => {
            let pos = somewhere(&positions(bytes, b"{[]}"), bytes.len(), rng);
            let swapped = match bytes[pos] {
                b'{' => b'[',
                b'[' => b'{',
                b'}' => b']',
                _ => b'}',
            };
            bytes[pos] = swapped;
            format!("bracket at {pos} swapped for {:?}", swapped as char)
        }
    }
}

fn bad_escape(bytes: &mut Vec<u8>, rng: &mut Rng) -> String {
    let escapes: [&[u8]; 6] = [
        b"\\x",
        b"\\u12",
        b"\\uD800",
        b"\\uDC00\\uD800",
        b"\\uZZZZ",
        b"\\U0041",
    ];
    if rng.below(7) == 0 {
        // A backslash before the closing quote: the string never ends.
        let pos = somewhere(&string_ends(bytes), bytes.len(), rng);
        insert(bytes, pos, b"\\");
        return format!("backslash inserted before the quote at {pos}");
    }
    let pos = somewhere(&string_starts(bytes), bytes.len(), rng);
    let escape = rng.pick(&escapes);
    insert(bytes, pos, escape);
    format!(
        "escape {} inserted at {pos}",
        String::from_utf8_lossy(escape)
    )
}

fn invalid_utf8(bytes: &mut Vec<u8>, rng: &mut Rng) -> String {
    let sequences: [(&str, &[u8]); 6] = [
        ("0xff", &[0xFF]),
        ("a lone continuation byte", &[0x80]),
        ("a lead byte without continuation", &[0xC3]),
        ("an overlong '/'", &[0xC0, 0xAF]),
        ("an encoded surrogate", &[0xED, 0xA0, 0x80]),
        ("a code point above U+10FFFF", &[0xF4, 0x90, 0x80, 0x80]),
    ];
    let pos = somewhere(&string_starts(bytes), bytes.len(), rng);
    let (name, seq) = rng.pick(&sequences);
    insert(bytes, pos, seq);
    format!("{name} inserted at {pos}")
}

fn deep_nesting(bytes: &mut Vec<u8>, rng: &mut Rng) -> String {
    let depth = rng.pick(&[10_000, 100_000]);
    let pos = somewhere(&positions(bytes, b":"), bytes.len(), rng) + 1;
    insert(bytes, pos, &vec![b'['; depth]);
    format!("{depth} '[' inserted at {pos}")
}
