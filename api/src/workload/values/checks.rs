//! The checks verification makes beyond a round trip (in-place reads, borrowed decodes, a
//! decode that must only read, the heap a value keeps, the slice call's payload), and the
//! serialize loop's output, decided once before it runs.

use super::*;

impl<T: Value> Values<T> {
    /// For the access loops: reading value `index`'s payload (in `buf`, just encoded) in place
    /// must give the digest of the value.
    pub(super) fn check_access(&mut self, index: usize) -> Result<(), VerifyError> {
        let Some(digest) = &self.checks.digest else {
            return Err(VerifyError::Check {
                index,
                message: "the study gives no digest to check an access against \
                          (`StudyOf::digest`)"
                    .into(),
            });
        };
        let expected = digest(&self.data[index]);
        let read = match self.operation {
            // SAFETY: `buf` holds the payload this codec's `encode` wrote for value `index`.
            Operation::Access => unsafe { self.codec.access_unchecked(&self.buf) },
            _ => self.codec.access(&self.buf),
        }
        .map_err(|error| VerifyError::Decode { index, error })?;
        if read != expected {
            return Err(VerifyError::Check {
                index,
                message: format!(
                    "reading the payload in place gave digest {read:#018x}, the value's is \
                     {expected:#018x}: the access reads other fields than the digest does"
                ),
            });
        }
        Ok(())
    }

    /// For the borrow loop: the borrowed decode of value `index`'s payload (in `buf`, just
    /// encoded), made owned, must be the value.
    pub(super) fn check_borrow(&mut self, index: usize) -> Result<(), VerifyError> {
        let back = self
            .codec
            .borrow_owned(&self.buf)
            .map_err(|error| VerifyError::Decode { index, error })?;
        if back != self.data[index] {
            if let Difference::Other(difference) = self.differs(index, &self.data[index], &back) {
                return Err(VerifyError::Differs { index, difference });
            }
        }
        Ok(())
    }

    /// For the deserialize loop, which decodes stored payloads where they are: the engine must
    /// leave its input as it was (an engine that parses in place says so, and its loop copies).
    pub(super) fn check_reads_only(&mut self, index: usize) -> Result<(), VerifyError> {
        let mut input = self.buf.clone();
        self.codec
            .decode(&mut input)
            .map_err(|error| VerifyError::Decode { index, error })?;
        if input != self.buf {
            return Err(VerifyError::Check {
                index,
                message: "the engine writes into the payload it decodes: its codec must say \
                          so (`Codec::decodes_in_place`)"
                    .into(),
            });
        }
        Ok(())
    }

    /// For an unvalidated deserialize: the payload `encode` wrote for value `index` (in `buf`)
    /// decodes without validation to the value.
    pub(super) fn check_unvalidated(&mut self, index: usize) -> Result<(), VerifyError> {
        let mut input = self.buf.clone();
        // SAFETY: `buf` holds the payload the codec's `encode` wrote for value `index` (the
        // round trip before this check), unchanged.
        let back = unsafe { self.codec.decode_unchecked(&mut input) }
            .map_err(|error| VerifyError::Decode { index, error })?;
        if back != self.data[index] {
            return Err(VerifyError::Check {
                index,
                message: "the unvalidated decode (`Codec::decode_unchecked`) gives another \
                          value than the payload's"
                    .into(),
            });
        }
        Ok(())
    }

    /// Builds and keeps every value's message, once, for the message encode
    /// ([`Codec::keep_messages`]).
    pub(super) fn keep_messages(&mut self) -> Result<(), CodecError> {
        if !self.messages_kept {
            self.codec.keep_messages(&self.data)?;
            self.messages_kept = true;
        }
        Ok(())
    }

    /// For the message configurations: value `index`'s payload (encoded again into
    /// `expected`) must read into a message ([`Codec::decode_message`]), and for the message
    /// encode its kept message must encode (into `scratch`) to that same payload.
    pub(super) fn check_messages(
        &mut self,
        index: usize,
        scratch: &mut Vec<u8>,
        expected: &mut Vec<u8>,
    ) -> Result<(), VerifyError> {
        expected.clear();
        self.codec
            .encode(&self.data[index], expected)
            .map_err(|error| VerifyError::Encode { index, error })?;
        if self.operation == Operation::DecodeMessage {
            return self
                .codec
                .decode_message(expected)
                .map_err(|error| VerifyError::Decode { index, error });
        }
        self.keep_messages()
            .map_err(|error| VerifyError::Encode { index, error })?;
        scratch.clear();
        self.codec
            .encode_message(index, scratch)
            .map_err(|error| VerifyError::Encode { index, error })?;
        if scratch != expected {
            return Err(VerifyError::Check {
                index,
                message: format!(
                    "the kept message (`Codec::encode_message`) encodes to {} bytes and the \
                     value (`encode`) to {}: they must be the same payload",
                    scratch.len(),
                    expected.len()
                ),
            });
        }
        Ok(())
    }

    /// For the update loop: value `index`'s payload (in `buf`, just encoded), updated in place
    /// once ([`Codec::update_unchecked`]), must be exactly the payload `encode` writes (into
    /// `expected`) for the value decoded from it (into `scratch`'s copy) with the same update
    /// ([`Codec::update_value`]): the update writes what it says, where the format keeps it,
    /// and nothing else.
    pub(super) fn check_update(
        &mut self,
        index: usize,
        scratch: &mut Vec<u8>,
        expected: &mut Vec<u8>,
    ) -> Result<(), VerifyError> {
        scratch.clear();
        scratch.extend_from_slice(&self.buf);
        let mut value = self
            .codec
            .decode(scratch)
            .map_err(|error| VerifyError::Decode { index, error })?;
        self.codec
            .update_value(&mut value)
            .map_err(|error| VerifyError::Encode { index, error })?;
        expected.clear();
        self.codec
            .encode(&value, expected)
            .map_err(|error| VerifyError::Encode { index, error })?;
        scratch.clear();
        scratch.extend_from_slice(&self.buf);
        // SAFETY: `scratch` holds a copy of the payload this codec's `encode` wrote for value
        // `index`, unchanged.
        unsafe { self.codec.update_unchecked(scratch) }
            .map_err(|error| VerifyError::Decode { index, error })?;
        if scratch != expected {
            let at = scratch
                .iter()
                .zip(expected.iter())
                .position(|(a, b)| a != b)
                .unwrap_or(scratch.len().min(expected.len()));
            return Err(VerifyError::Check {
                index,
                message: format!(
                    "the payload updated in place (`Codec::update_unchecked`, {} bytes) differs \
                     at byte {at} from the updated value's payload (`Codec::update_value`, then \
                     `encode`, {} bytes): the two updates must write the same fields",
                    scratch.len(),
                    expected.len()
                ),
            });
        }
        Ok(())
    }

    /// [`Workload::retained_bytes`] of a workload that reads payloads: each payload decoded
    /// (or accessed) from a copy, once to warm up and once between two readings of `live`.
    pub(super) fn retained(&mut self, live: &mut dyn FnMut() -> i64) -> Result<f64, CodecError> {
        self.encode_all()?;
        let access = matches!(
            self.operation,
            Operation::Access | Operation::ValidatedAccess
        );
        let mut held: i64 = 0;
        let mut copy = Vec::new();
        for index in 0..self.payloads.len() {
            for measured in [false, true] {
                copy.clear();
                copy.extend_from_slice(&self.payloads[index]);
                let before = live();
                let after = if access {
                    let digest = self.codec.access(&copy)?;
                    let after = live();
                    black_box(digest);
                    after
                } else {
                    let value = self.codec.decode(&mut copy)?;
                    let after = live();
                    drop(black_box(value));
                    after
                };
                if measured {
                    held += after - before;
                }
            }
        }
        Ok(held as f64 / self.payloads.len().max(1) as f64)
    }

    /// For the serialize loop of an engine that writes into a slice: its payload of value
    /// `index` must be exactly what `encode` writes (into `expected`), here written into a
    /// slice that is not zeroed, as the timed loop's slice holds the payload before. Whether
    /// the engine has the call.
    pub(super) fn check_slice(
        &mut self,
        index: usize,
        scratch: &mut Vec<u8>,
        expected: &mut Vec<u8>,
    ) -> Result<bool, VerifyError> {
        let value = &self.data[index];
        expected.clear();
        self.codec
            .encode(value, expected)
            .map_err(|error| VerifyError::Encode { index, error })?;
        scratch.clear();
        scratch.resize(slice_room(expected.len()), UNZEROED);
        let room = scratch.len();
        let payload = match self.codec.encode_to_slice(value, scratch.as_mut_slice()) {
            None => return Ok(false),
            Some(Err(error)) => {
                return Err(VerifyError::Encode {
                    index,
                    error: in_slice(error, room),
                })
            }
            Some(Ok(payload)) => payload,
        };
        if payload != expected.as_slice() {
            return Err(VerifyError::Check {
                index,
                message: slice_differs(payload, expected),
            });
        }
        Ok(true)
    }

    /// Decides, once and before the serialize loop is timed, where it writes: into one slice
    /// allocated and zero-filled here when the codec has a slice call
    /// ([`Codec::encode_to_slice`]), [`slice_room`] for the largest payload `encode` writes
    /// of the dataset; else into the reused `Vec`.
    pub(super) fn prepare_output(&mut self) -> Result<(), CodecError> {
        if !matches!(self.output, Output::Undecided) {
            return Ok(());
        }
        let Some(first) = self.data.first() else {
            self.output = Output::Vec;
            return Ok(());
        };
        let mut largest = 0;
        for value in self.data.iter() {
            self.buf.clear();
            self.codec.encode(value, &mut self.buf)?;
            largest = largest.max(self.buf.len());
        }
        let mut slice = vec![0u8; slice_room(largest)].into_boxed_slice();
        let room = slice.len();
        let answer = self
            .codec
            .encode_to_slice(first, &mut slice[..])
            .map(|written| written.map(|_| ()));
        self.output = match answer {
            None => Output::Vec,
            Some(Err(e)) => return Err(in_slice(e, room)),
            Some(Ok(())) => {
                // The loop does not use the `Vec`: its memory goes back.
                self.buf = Vec::new();
                Output::Slice(slice)
            }
        };
        Ok(())
    }

    /// Encodes every value once, for the deserialize loop.
    pub(super) fn encode_all(&mut self) -> Result<(), CodecError> {
        if self.payloads.len() == self.data.len() {
            return Ok(());
        }
        let mut payloads = Vec::with_capacity(self.data.len());
        for value in self.data.iter() {
            let mut out = Vec::new();
            self.codec.encode(value, &mut out)?;
            payloads.push(out);
        }
        self.payloads = payloads;
        Ok(())
    }
}

/// What a verification slice holds before the engine writes into it: not zeroes, so that an
/// engine that counts on zeroed memory fails.
const UNZEROED: u8 = 0xA5;

/// The room of a slice for payloads of at most `largest` bytes: a quarter more, and 1 KiB.
fn slice_room(largest: usize) -> usize {
    largest.saturating_add(largest / 4).saturating_add(1024)
}

/// How a slice call's payload differs from `encode`'s.
#[cold]
fn slice_differs(slice: &[u8], encoded: &[u8]) -> String {
    let at = slice
        .iter()
        .zip(encoded)
        .position(|(a, b)| a != b)
        .unwrap_or(slice.len().min(encoded.len()));
    format!(
        "the engine's slice call (`Codec::encode_to_slice`) wrote {} bytes and `encode` {}, \
         first different at byte {at}: they must be the same payload",
        slice.len(),
        encoded.len()
    )
}

/// An engine's error from its slice call, with the slice's size.
#[cold]
pub(super) fn in_slice(error: CodecError, room: usize) -> CodecError {
    CodecError::encode(format_args!(
        "{error} (the slice call, `Codec::encode_to_slice`, into a slice of {room} bytes \
         sized from the largest payload `encode` wrote)"
    ))
}
