//! Payload sizes after compression (zlib and zstd at the levels `measure::sizes` names), computed
//! by the driver from the payloads a verification child hands over.

use crate::measure::sizes::{ZLIB_LEVEL, ZSTD_LEVEL};
use crate::model::CompressedBytes;

/// The mean compressed size of `payloads`, each compressed on its own.
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

#[cfg(test)]
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
