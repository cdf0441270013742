//! The reader's error: what is wrong with an input, and the byte where the reader noticed.

/// Why an input is not a valid JSON encoding of an Order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at byte {offset}")]
pub struct ReadError {
    /// The byte of the input where the reader noticed.
    pub offset: usize,
    /// What is wrong, for a person.
    pub message: String,
}

impl ReadError {
    /// Every error goes through here: the error paths stay out of the hot loops.
    #[cold]
    #[inline(never)]
    pub(crate) fn new(offset: usize, message: impl Into<String>) -> ReadError {
        ReadError {
            offset,
            message: message.into(),
        }
    }
}
