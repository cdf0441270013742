//! Payload sizes after compression, as rust_serialization_benchmark reports them beside the raw
//! size: each value's payload compressed on its own, zlib and zstd at their usual default
//! levels, and the mean over the dataset.

use serprof_api::__private::Config;
use serprof_api::Operation;

#[cfg(feature = "driver")]
use crate::model::CompressedBytes;

/// zlib's level: 6, zlib's own default (`flate2::Compression::default()`).
pub(crate) const ZLIB_LEVEL: u32 = 6;
/// zstd's level: 3, libzstd's default (what level 0 selects).
pub(crate) const ZSTD_LEVEL: i32 = 3;

/// Whether `config`'s payloads are messages an engine wrote (not stored documents or damaged
/// inputs, whose sizes say nothing about the engine). A configuration of a document (the
/// corpus study) holds one parsed value and makes no list of payloads, so it has none either.
pub(crate) fn compresses(config: &Config) -> bool {
    !matches!(config.info.operation, Operation::Parse | Operation::Decode)
        && config.info.document.is_none()
}

/// The mean compressed size of `payloads`, each compressed on its own (in the driver).
#[cfg(feature = "driver")]
pub(crate) fn compressed(payloads: &[Vec<u8>]) -> std::io::Result<CompressedBytes> {
    use std::io::Write;
    let (mut zlib, mut zstd) = (0usize, 0usize);
    for p in payloads {
        let mut z = flate2::write::ZlibEncoder::new(
            Vec::with_capacity(p.len() / 2),
            flate2::Compression::new(ZLIB_LEVEL),
        );
        z.write_all(p)?;
        zlib += z.finish()?.len();
        zstd += zstd::bulk::compress(p, ZSTD_LEVEL)?.len();
    }
    let n = payloads.len().max(1) as f64;
    Ok(CompressedBytes {
        zlib: zlib as f64 / n,
        zlib_level: ZLIB_LEVEL,
        zstd: zstd as f64 / n,
        zstd_level: ZSTD_LEVEL,
    })
}

#[cfg(all(test, feature = "driver"))]
mod tests {
    use super::*;

    #[test]
    fn repetitive_payloads_shrink_and_each_is_compressed_on_its_own() {
        let text = b"the same words again and again, ".repeat(64);
        let one = compressed(std::slice::from_ref(&text.to_vec())).unwrap();
        assert!(one.zlib < text.len() as f64 / 4.0, "{one:?}");
        assert!(one.zstd < text.len() as f64 / 4.0, "{one:?}");
        // Two copies compressed apart cost each its own dictionary: the mean stays the same.
        let two = compressed(&[text.to_vec(), text.to_vec()]).unwrap();
        assert_eq!((two.zlib, two.zstd), (one.zlib, one.zstd));
        let empty = compressed(&[]).unwrap();
        assert_eq!((empty.zlib, empty.zstd), (0.0, 0.0));
    }
}
