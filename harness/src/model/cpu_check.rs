//! Whether this CPU has the instruction-set extensions the build was compiled for.
//!
//! serprof's workspace is built for `x86-64-v3` plus PCLMULQDQ (`.cargo/config.toml`), as
//! sonic-rs's authors ask (its SIMD paths are chosen at compile time and need both AVX2 and
//! PCLMULQDQ). Such a binary dies of SIGILL on an older CPU. `is_x86_feature_detected!` cannot
//! tell: for a feature compiled in, it is constant-true. So the check reads CPUID itself, first
//! thing in `main`, and prints one line naming what is missing and how to build without it.

/// Target features the build was compiled for that this CPU lacks (empty when it has them
/// all, and on other architectures).
pub(crate) fn missing_features() -> Vec<&'static str> {
    let compiled: Vec<&str> = env!("SERPROF_TARGET_FEATURES")
        .split(',')
        .filter(|f| !f.is_empty())
        .collect();
    #[cfg(target_arch = "x86_64")]
    {
        let have = cpuid_features();
        CHECKED
            .iter()
            .filter(|f| compiled.contains(f) && !have.contains(f))
            .copied()
            .collect()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = compiled;
        Vec::new()
    }
}

/// The features checked: those `x86-64-v3` and `+pclmulqdq` add to the x86-64 baseline.
#[cfg(target_arch = "x86_64")]
const CHECKED: [&str; 11] = [
    "sse3",
    "ssse3",
    "sse4.1",
    "sse4.2",
    "popcnt",
    "avx",
    "avx2",
    "bmi1",
    "bmi2",
    "fma",
    "pclmulqdq",
];

/// The CPUID bits of the [`CHECKED`] features (Intel SDM vol. 2A, CPUID leaves 1 and 7).
#[cfg(target_arch = "x86_64")]
fn cpuid_features() -> Vec<&'static str> {
    // CPUID exists on every x86-64 CPU; leaf 7 is read only when leaf 0 says it exists.
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    let l7 = (__cpuid(0).eax >= 7).then(|| __cpuid_count(7, 0));
    let l1 = __cpuid(1);
    let bit = |reg: u32, n: u32| reg & (1 << n) != 0;
    let mut have = Vec::new();
    let mut add = |on: bool, name: &'static str| {
        if on {
            have.push(name)
        }
    };
    add(bit(l1.ecx, 0), "sse3");
    add(bit(l1.ecx, 1), "pclmulqdq");
    add(bit(l1.ecx, 9), "ssse3");
    add(bit(l1.ecx, 12), "fma");
    add(bit(l1.ecx, 19), "sse4.1");
    add(bit(l1.ecx, 20), "sse4.2");
    add(bit(l1.ecx, 23), "popcnt");
    // AVX also needs the OS to save the YMM state (OSXSAVE and XCR0 bits 1 and 2).
    let os_ymm = bit(l1.ecx, 27) && {
        // SAFETY: XGETBV with ECX=0 is valid when OSXSAVE (checked just before) is set.
        let xcr0 = unsafe { std::arch::x86_64::_xgetbv(0) };
        xcr0 & 0b110 == 0b110
    };
    add(bit(l1.ecx, 28) && os_ymm, "avx");
    if let Some(l7) = l7 {
        add(bit(l7.ebx, 3), "bmi1");
        add(bit(l7.ebx, 5) && os_ymm, "avx2");
        add(bit(l7.ebx, 8), "bmi2");
    }
    have
}

/// The one line for a CPU that lacks compiled-in features, or `None`.
pub(crate) fn refusal() -> Option<String> {
    let missing = missing_features();
    if missing.is_empty() {
        return None;
    }
    Some(format!(
        "this CPU lacks {}, which this build was compiled for (see .cargo/config.toml); build for this machine with RUSTFLAGS=\"-C force-frame-pointers=yes\" cargo build --release (sonic-rs then runs its portable code)",
        missing.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_running_the_tests_has_what_the_tests_were_compiled_for() {
        // The test binary runs, so any compiled-in feature it needed is present: the check
        // must agree (a wrong CPUID bit would name a feature this CPU has).
        assert_eq!(missing_features(), Vec::<&str>::new());
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn cpuid_agrees_with_runtime_detection_for_features_not_compiled_in() {
        let have = cpuid_features();
        // `is_x86_feature_detected!` is a real run-time check for these when they are not
        // compiled in, and constant-true (and then CPUID must say so too) when they are.
        assert_eq!(
            have.contains(&"avx2"),
            std::is_x86_feature_detected!("avx2")
        );
        assert_eq!(
            have.contains(&"pclmulqdq"),
            std::is_x86_feature_detected!("pclmulqdq")
        );
        assert_eq!(
            have.contains(&"bmi2"),
            std::is_x86_feature_detected!("bmi2")
        );
        assert_eq!(have.contains(&"fma"), std::is_x86_feature_detected!("fma"));
        assert_eq!(
            have.contains(&"sse4.2"),
            std::is_x86_feature_detected!("sse4.2")
        );
    }
}
