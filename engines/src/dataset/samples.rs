//! The Sample list of the reflection study: the 10,000 Samples that the JMH benchmark of the
//! Korean blog post "Jackson 직접 구현해보기 (JSON 직렬화기 구현)" serializes as one list, built
//! the way its `setUp` builds them.

use std::sync::OnceLock;

use crate::model::{Sample, SampleAddress};

/// Number of Samples serialized per operation.
pub const SAMPLE_COUNT: usize = 10_000;

/// Sample `i` of the list.
pub fn sample(i: i64) -> Sample {
    Sample {
        id: i,
        name: format!("user{i}"),
        email: format!("user{i}@example.com"),
        active: (i & 1) == 0,
        age: 20 + (i % 50) as i32,
        roles: vec![format!("ROLE_{}", i % 7), format!("GROUP_{}", i % 13)],
        address: SampleAddress {
            city: format!("city{}", i % 100),
            zip_code: format!("{:05}", i % 100_000),
        },
    }
}

/// The 10,000 Samples, generated once per process.
pub fn sample_list() -> &'static Vec<Sample> {
    static LIST: OnceLock<Vec<Sample>> = OnceLock::new();
    LIST.get_or_init(|| (0..SAMPLE_COUNT as i64).map(sample).collect())
}

/// The reflection study's dataset: one value per operation, the whole list.
pub fn samples() -> &'static [Vec<Sample>] {
    std::slice::from_ref(sample_list())
}

/// The article's test sample (`kim`, Seoul), which its tests expect to serialize to exactly
/// `{"active":true,"address":{"city":"Seoul","zipCode":"04524"},"age":33,"email":"kim@example.com","id":7,"name":"kim","roles":["ADMIN","USER"]}`.
pub fn fixed_sample() -> Sample {
    Sample {
        id: 7,
        name: "kim".into(),
        email: "kim@example.com".into(),
        active: true,
        age: 33,
        roles: vec!["ADMIN".into(), "USER".into()],
        address: SampleAddress {
            city: "Seoul".into(),
            zip_code: "04524".into(),
        },
    }
}
