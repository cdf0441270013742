//! The serde types of the `testkit-findings` study's pairs: each trap's type and its twin's,
//! the remedy applied to the type (a cheap hasher, short names, exact floats, `serde_bytes`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::{Deserialize, Serialize};

/// A map with std's hasher.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SipMap {
    /// The entries.
    pub m: HashMap<u64, u32>,
}

/// A multiply-and-rotate hasher (FxHash's step): what `rustc_hash::FxBuildHasher` does.
#[derive(Default)]
pub struct Fx(u64);

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// The same map with the cheap hasher.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FxMap {
    /// The entries.
    pub m: HashMap<u64, u32, BuildHasherDefault<Fx>>,
}

/// A reading with long field names.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LongNames {
    /// A.
    pub temperature_of_the_sensor_in_kelvin: u8,
    /// B.
    pub relative_humidity_of_the_air_percent: u8,
    /// C.
    pub barometric_pressure_reading_in_hpa: u8,
    /// D.
    pub identifier_of_the_reporting_station: u8,
}

/// The same reading, its fields renamed short.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShortNames {
    /// A.
    #[serde(rename = "t")]
    pub temperature_of_the_sensor_in_kelvin: u8,
    /// B.
    #[serde(rename = "h")]
    pub relative_humidity_of_the_air_percent: u8,
    /// C.
    #[serde(rename = "p")]
    pub barometric_pressure_reading_in_hpa: u8,
    /// D.
    #[serde(rename = "s")]
    pub identifier_of_the_reporting_station: u8,
}

/// Floats of every magnitude (random bit patterns), as serde_json writes and reads them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Wide {
    /// The values.
    pub xs: Vec<f64>,
}

/// The same floats written as JSON strings and parsed with `str::parse` (correctly rounded).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WideExact {
    /// The values.
    #[serde(with = "exact")]
    pub xs: Vec<f64>,
}

mod exact {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(xs: &[f64], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(xs.iter().map(|x| format!("{x:e}")))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|t| t.parse::<f64>().map_err(serde::de::Error::custom))
            .collect()
    }
}

/// A frame of raw bytes, written as serde writes a `Vec<u8>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// Its number.
    pub id: u32,
    /// Its bytes.
    pub raw: Vec<u8>,
}

/// The same frame, its bytes through `serde_bytes`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameBytes {
    /// Its number.
    pub id: u32,
    /// Its bytes.
    #[serde(with = "serde_bytes")]
    pub raw: Vec<u8>,
}

/// A user's record of many text fields (the "crate of one's own").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Customer {
    /// Name.
    pub name: String,
    /// Street.
    pub street: String,
    /// City.
    pub city: String,
    /// Country.
    pub country: String,
    /// E-mail.
    pub email: String,
    /// Phone.
    pub phone: String,
    /// Note.
    pub note: String,
    /// Tags.
    pub tags: Vec<String>,
}

/// A user's map keyed by text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    /// Counts by word.
    pub by_word: HashMap<String, u32>,
}

/// A user's record of many floats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Samples {
    /// The readings.
    pub readings: Vec<f64>,
}

/// A record of sixteen text fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Names {
    /// The texts.
    pub texts: [String; 16],
}
