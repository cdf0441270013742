//! Why a field split could not be made.

/// Why a value's payload could not be split by field: a JSON text that does not parse, a
/// format's writer that failed or left values open while recording, or a recording that is not
/// the timed call's payload.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FieldsError {
    /// The JSON text does not parse: what the reader met, and at which byte.
    #[error("{problem} at byte {at}")]
    Json {
        /// What is wrong there.
        problem: JsonProblem,
        /// The byte offset in the text.
        at: usize,
    },
    /// The format's writer returned an error while the value was recorded.
    #[error("{0}")]
    Write(String),
    /// The format returned without closing every value it opened.
    #[error("the format left {open} value(s) open (an error inside a field?)")]
    Unclosed {
        /// Values still open.
        open: usize,
    },
    /// The recorded serialization of value `index` differs from the payload the timed call
    /// wrote.
    #[error(
        "the recorded serialization of value {index} is not the timed call's payload ({recorded} bytes against {payload}, first difference at byte {first_difference}), so no split is shown"
    )]
    NotThePayload {
        /// The value's index in the dataset.
        index: usize,
        /// Bytes recorded.
        recorded: usize,
        /// Bytes of the timed call's payload.
        payload: usize,
        /// The first byte where they differ.
        first_difference: usize,
    },
}

/// What is wrong in a JSON text ([`FieldsError::Json`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JsonProblem {
    /// Another byte where this one belongs.
    #[error("expected `{0}`")]
    Expected(char),
    /// Something other than a string where a string (an object's key) belongs.
    #[error("expected a string")]
    ExpectedString,
    /// No value where one belongs.
    #[error("no JSON value")]
    NoValue,
    /// The text ends where a value belongs.
    #[error("the JSON text ends before its value")]
    EndsEarly,
    /// A string that starts here does not end.
    #[error("a string that does not end starts")]
    UnendedString,
    /// Text follows the value.
    #[error("JSON text continues after its value")]
    Trailing,
}
