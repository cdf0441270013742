//! The variants of the reflective serializer: one per configuration of the `reflection` study.

/// How the serializer finds properties and writes values. Each is one configuration of the
/// `reflection` study; the tuned ones add one step each to the one before, so each step's share
/// is measured on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Introspects a bean's class again for every bean, like the article's
    /// `NonCachedJsonSerializer`; writes into a fresh `String`.
    NonCached,
    /// Introspects once per type and looks the list up in a concurrent map per bean, like the
    /// article's `CachedJsonSerializer`; writes into a fresh `String`.
    Cached,
    /// `Cached`, writing straight into the caller's reused `Vec<u8>` (Jackson's streaming core
    /// and recycled buffers).
    TunedBytes,
    /// `TunedBytes`, with a writer chosen once per property at introspection instead of a type
    /// switch per value (Jackson's type-specific serializers).
    TunedTyped,
    /// `TunedTyped`, with each type's property list resolved once per call and held instead of a
    /// map lookup per nested object (Jackson resolves serializers once per root type).
    TunedResolved,
}

impl Variant {
    /// Every variant, from the article's slowest to the last tuning step.
    pub const ALL: [Variant; 5] = [
        Variant::NonCached,
        Variant::Cached,
        Variant::TunedBytes,
        Variant::TunedTyped,
        Variant::TunedResolved,
    ];

    /// The configuration name in the `reflection` study.
    pub fn config_name(self) -> &'static str {
        match self {
            Variant::NonCached => "reflect-noncached",
            Variant::Cached => "reflect-cached",
            Variant::TunedBytes => "reflect-tuned-bytes",
            Variant::TunedTyped => "reflect-tuned-typed",
            Variant::TunedResolved => "reflect-tuned-resolved",
        }
    }
}
