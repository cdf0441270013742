//! The Sample model of the reflection study: the `Sample` bean and its `Address` of the Korean
//! blog post "Jackson 직접 구현해보기 (JSON 직렬화기 구현)" ("Implementing Jackson ourselves: a
//! JSON serializer"): seven properties, one of them a nested object and one a list.
//!
//! Fields are declared in alphabetical order so that serde's derive writes them in the order
//! the article's reflective serializer does (it sorts property names).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Sample {
    pub active: bool,
    pub address: SampleAddress,
    pub age: i32,
    pub email: String,
    pub id: i64,
    pub name: String,
    pub roles: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SampleAddress {
    pub city: String,
    pub zip_code: String,
}
