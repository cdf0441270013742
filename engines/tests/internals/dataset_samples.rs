//! `dataset::samples`.

use serprof_engines::dataset::samples::*;

#[test]
fn list_follows_the_formulas() {
    let list = sample_list();
    assert_eq!(list.len(), 10_000);
    let s = &list[9999];
    assert_eq!(s.name, "user9999");
    assert_eq!(s.email, "user9999@example.com");
    assert!(!s.active);
    assert_eq!(s.age, 20 + 9999 % 50);
    assert_eq!(s.roles, ["ROLE_3", "GROUP_2"]);
    assert_eq!(s.address.city, "city99");
    assert_eq!(s.address.zip_code, "09999");
}

#[test]
fn serde_json_writes_the_fixed_sample_exactly() {
    assert_eq!(
        serde_json::to_string(&fixed_sample()).unwrap(),
        r#"{"active":true,"address":{"city":"Seoul","zipCode":"04524"},"age":33,"email":"kim@example.com","id":7,"name":"kim","roles":["ADMIN","USER"]}"#
    );
}
