//! `Values` as a [`Workload`]: its verification of every value, and the measured loop each
//! operation runs (chosen once per call).

use super::*;

impl<T: Value> Workload for Values<T> {
    fn verify(&mut self) -> Result<Verified, VerifyError> {
        let mut total = 0usize;
        let mut shares = None;
        let mut floats: Option<(usize, DebugDiff)> = None;
        let mut float_values = 0;
        // Whether the engine writes into a slice (the serialize loop's check).
        let mut slice_call: Option<bool> = None;
        let (mut scratch, mut expected) = (Vec::new(), Vec::new());
        for index in 0..self.data.len() {
            let back = self.round_trip(index)?;
            total += self.buf.len();
            if self.operation == Operation::Serialize {
                let answered = self.check_slice(index, &mut scratch, &mut expected)?;
                if *slice_call.get_or_insert(answered) != answered {
                    return Err(VerifyError::Check {
                        index,
                        message: "the engine's slice call (`Codec::encode_to_slice`) answers \
                                  for some values and not for others"
                            .into(),
                    });
                }
            }
            if self.operation == Operation::Deserialize && !self.in_place {
                self.check_reads_only(index)?;
            }
            if matches!(
                self.operation,
                Operation::Access | Operation::ValidatedAccess
            ) {
                self.check_access(index)?;
            }
            if self.operation == Operation::Borrow {
                self.check_borrow(index)?;
            }
            if self.operation == Operation::UnvalidatedDeserialize {
                self.check_unvalidated(index)?;
            }
            if matches!(
                self.operation,
                Operation::EncodeMessage | Operation::DecodeMessage
            ) {
                self.check_messages(index, &mut scratch, &mut expected)?;
            }
            if self.operation == Operation::Update {
                self.check_update(index, &mut scratch, &mut expected)?;
            }
            let original = &self.data[index];
            if *original != back {
                match self.differs(index, original, &back) {
                    Difference::Floats(d) => {
                        float_values += 1;
                        floats.get_or_insert((index, d));
                    }
                    Difference::Other(difference) => {
                        return Err(VerifyError::Differs { index, difference })
                    }
                }
            }
            if let Some(message) = self
                .checks
                .verify_with
                .as_ref()
                .and_then(|f| f(original, &back))
            {
                return Err(VerifyError::Check { index, message });
            }
            if let Some(f) = &self.checks.shares_references {
                shares = Some(shares.unwrap_or(true) && f(&back));
            }
        }
        let findings = floats
            .map(|(index, d)| Finding::FloatsChanged {
                values: float_values,
                index,
                original: d.original,
                decoded: d.decoded,
            })
            .into_iter()
            .collect();
        Ok(Verified {
            payload_bytes: total as f64 / self.data.len().max(1) as f64,
            shares_references: shares,
            findings,
        })
    }

    fn run(&mut self, n: u64) -> Result<(), CodecError> {
        // Chosen once per call, outside the loop.
        match self.operation {
            op @ (Operation::Access | Operation::ValidatedAccess) => {
                self.encode_all()?;
                access_loop::<T>(
                    self.codec.as_mut(),
                    &self.payloads,
                    &mut self.next,
                    n,
                    op == Operation::ValidatedAccess,
                )
            }
            Operation::Borrow => {
                self.encode_all()?;
                borrow_loop::<T>(self.codec.as_mut(), &self.payloads, &mut self.next, n)
            }
            Operation::UnvalidatedDeserialize => {
                self.encode_all()?;
                // SAFETY: the payloads are the ones the codec's `encode` wrote in
                // `encode_all`, unchanged: the contract of `decode_unchecked`.
                unsafe {
                    unvalidated_deserialize_loop::<T>(
                        self.codec.as_mut(),
                        &mut self.payloads,
                        &mut self.next,
                        n,
                    )
                }
            }
            Operation::Deserialize => {
                self.encode_all()?;
                deserialize_loop::<T>(
                    self.codec.as_mut(),
                    &mut self.payloads,
                    &mut self.buf,
                    &mut self.next,
                    n,
                    self.in_place,
                )
            }
            Operation::EncodeMessage => {
                self.keep_messages()?;
                message_encode_loop::<T>(
                    self.codec.as_mut(),
                    self.data.len(),
                    &mut self.buf,
                    &mut self.next,
                    n,
                )
            }
            Operation::DecodeMessage => {
                self.encode_all()?;
                message_decode_loop::<T>(self.codec.as_mut(), &self.payloads, &mut self.next, n)
            }
            Operation::Update => {
                self.encode_all()?;
                // SAFETY: the payloads are the ones the codec's `encode` wrote in
                // `encode_all`, changed since only by this loop's updates: the contract of
                // `update_unchecked`.
                unsafe {
                    update_loop::<T>(self.codec.as_mut(), &mut self.payloads, &mut self.next, n)
                }
            }
            Operation::RoundTrip => roundtrip_loop::<T>(
                self.codec.as_mut(),
                &self.data,
                &mut self.buf,
                &mut self.next,
                n,
            ),
            _ => {
                self.prepare_output()?;
                let out = match &mut self.output {
                    Output::Slice(slice) => Out::Slice(&mut slice[..]),
                    _ => Out::Vec(&mut self.buf),
                };
                serialize_loop::<T>(self.codec.as_mut(), &self.data, out, &mut self.next, n)
            }
        }
    }

    fn dataset_len(&self) -> usize {
        self.data.len()
    }

    fn loop_function(&self) -> &'static str {
        values_loop(self.operation)
    }

    fn copies_input(&self) -> bool {
        self.operation == Operation::Deserialize && self.in_place
    }

    fn encode_value(&mut self, index: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let value = self.data.get(index).ok_or_else(|| {
            CodecError::setup(format_args!(
                "there is no value {index}: the dataset has {} (0 to {})",
                self.data.len(),
                self.data.len().saturating_sub(1)
            ))
        })?;
        self.codec.encode(value, out)
    }

    fn decode_to_text(&mut self, bytes: &mut [u8]) -> Result<String, CodecError> {
        self.codec.decode(bytes).map(|v| format!("{v:#?}"))
    }

    fn decode_to_json(&mut self, bytes: &mut [u8]) -> Result<Option<String>, CodecError> {
        let Some(json) = self.checks.json.clone() else {
            return Ok(None);
        };
        let value = self.codec.decode(bytes)?;
        json(&value).map(Some)
    }

    /// Every value's payload split by field: encoded again by the codec (outside any timed
    /// loop), and recorded or read as the engine says.
    fn split_fields(&mut self) -> FieldsReport {
        if let FieldSplit::Not(why) = &self.fields {
            return FieldsReport::none(why.clone());
        }
        let mut tally = Tally::default();
        let mut payload = Vec::new();
        for (index, value) in self.data.iter().enumerate() {
            payload.clear();
            if let Err(e) = self.codec.encode(value, &mut payload) {
                return FieldsReport::none(format!(
                    "no field split: encoding value {index} again failed: {e}"
                ));
            }
            let paths = match &self.fields {
                FieldSplit::Record(record) => record(value),
                FieldSplit::Payload(read) => read(&payload),
                FieldSplit::Not(_) => unreachable!("returned above"),
            };
            let added = paths
                .map_err(|e| format!("no field split: value {index}: {e}"))
                .and_then(|paths| tally.add(index, paths, &payload).map_err(|e| e.to_string()));
            if let Err(e) = added {
                return FieldsReport::none(e);
            }
        }
        tally.report(self.json)
    }

    fn payloads(&mut self) -> Result<Vec<Vec<u8>>, VerifyError> {
        let mut payloads = Vec::with_capacity(self.data.len());
        for index in 0..self.data.len() {
            let back = self.round_trip(index)?;
            // A float changed in its last digits is a finding of verification, not a failure:
            // the payload is still the engine's.
            if back != self.data[index] {
                if let Difference::Other(difference) = self.differs(index, &self.data[index], &back)
                {
                    return Err(VerifyError::Differs { index, difference });
                }
            }
            payloads.push(self.buf.clone());
        }
        Ok(payloads)
    }

    fn retained_bytes(&mut self, live: &mut dyn FnMut() -> i64) -> Option<Result<f64, CodecError>> {
        match self.operation {
            // A borrowed value or a decoded message lives only inside the engine's call:
            // nothing is kept.
            // An update changes the payload where it lies: nothing is kept either.
            Operation::Serialize
            | Operation::EncodeMessage
            | Operation::Borrow
            | Operation::DecodeMessage
            | Operation::Update => None,
            _ => Some(self.retained(live)),
        }
    }

    fn decode_damaged(&mut self, bytes: &mut [u8], index: usize) -> Damaged {
        match self.codec.decode(bytes) {
            Err(e) => Damaged::Refused(e),
            Ok(value) if value == self.data[index] => Damaged::Unchanged,
            Ok(value) => match self.differs(index, &self.data[index], &value) {
                Difference::Floats(d) => Damaged::Altered(d.to_string()),
                Difference::Other(text) => Damaged::Altered(text),
            },
        }
    }
}
