//! The hidden `testkit-user` study of the `testkit-findings` module.

use serprof_api::{Operation, Study};

use super::types::{Counts, Customer, Samples};
use super::{configs, sub};
use crate::external;
use crate::model::SerdeBytes;

/// The hidden `testkit-user` study: a crate of one's own's three types (many `String` fields,
/// a `HashMap<String, _>`, many `f64`s) through serde_json and postcard, for the harness's test
/// that the matching findings fire on the serde_json rows and name the fields or functions,
/// and that postcard's rows of floats hold no number-as-text finding.
pub fn user_study() -> Study {
    fn customers() -> Vec<Customer> {
        (0..300)
            .map(|i| Customer {
                name: format!("customer {i}"),
                street: format!("{i} long street"),
                city: "Springfield".into(),
                country: "Freedonia".into(),
                email: format!("c{i}@example.com"),
                phone: format!("+1 555 {i:04}"),
                note: "no note".into(),
                tags: (0..4).map(|t| format!("tag{t}")).collect(),
            })
            .collect()
    }
    fn counts() -> Vec<Counts> {
        (0..20)
            .map(|i| Counts {
                by_word: (0..500).map(|w| (format!("w{w}"), w + i)).collect(),
            })
            .collect()
    }
    fn samples() -> Vec<Samples> {
        (0..50u32)
            .map(|i| Samples {
                readings: (0..1000)
                    .map(|k| f64::from(k) * 0.017_3 + f64::from(i))
                    .collect(),
            })
            .collect()
    }
    let s: Study = sub("customer")
        .dataset(customers)
        .engine(external::serde_json::engine(SerdeBytes::Seq).named("customer-serde_json"))
        .engine(external::postcard::engine(SerdeBytes::Seq).named("customer-postcard"))
        .operations([Operation::Deserialize])
        .into();
    let mut configs_all = configs(s, Operation::Deserialize);
    let s: Study = sub("counts")
        .dataset(counts)
        .engine(external::serde_json::engine(SerdeBytes::Seq).named("counts-serde_json"))
        .engine(external::postcard::engine(SerdeBytes::Seq).named("counts-postcard"))
        .operations([Operation::Deserialize])
        .into();
    configs_all.extend(configs(s, Operation::Deserialize));
    let s: Study = sub("samples")
        .dataset(samples)
        .engine(external::serde_json::engine(SerdeBytes::Seq).named("samples-serde_json"))
        .engine(external::postcard::engine(SerdeBytes::Seq).named("samples-postcard"))
        .operations([Operation::Serialize])
        .into();
    configs_all.extend(configs(s, Operation::Serialize));
    configs_all.into_iter().fold(
        Study::new("testkit-user", "A crate of one's own's findings")
            .source("serprof's test suite")
            .hidden(),
        Study::config,
    )
}
