//! `model::bytes`.

use serprof_engines::model::bytes::*;

#[test]
fn mode_selects_the_json_form() {
    let b = ByteArray(vec![0xb3, 0xff, 0x63]);
    let seq = with_serde_bytes(SerdeBytes::Seq, || serde_json::to_string(&b).unwrap());
    assert_eq!(seq, "[179,255,99]");
    let b64 = with_serde_bytes(SerdeBytes::Base64, || serde_json::to_string(&b).unwrap());
    assert_eq!(b64, "\"s/9j\"");
    let back: ByteArray =
        with_serde_bytes(SerdeBytes::Base64, || serde_json::from_str(&b64).unwrap());
    assert_eq!(back, b);
    assert!(
        with_serde_bytes(SerdeBytes::Base64, || serde_json::from_str::<ByteArray>(
            "\"s/9\""
        ))
        .is_err()
    );
    // The previous mode is restored.
    assert_eq!(mode(), SerdeBytes::Seq);
}
