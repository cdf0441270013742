//! A stable 64-bit hash, for what must hash the same in every process and release.

/// FNV-1a over `bytes` (section contents, cache keys in `run::sides`, study stamps).
pub(crate) fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
