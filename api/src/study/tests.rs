//! The study builder's tests: configurations, verification of every extra operation, problems.

use super::*;

#[derive(Debug, Clone, PartialEq)]
struct Point {
    x: f64,
}

struct Text;
impl Codec<Point> for Text {
    fn encode(&mut self, v: &Point, out: &mut Vec<u8>) -> Result<(), CodecError> {
        out.extend_from_slice(v.x.to_string().as_bytes());
        Ok(())
    }
    fn decode(&mut self, bytes: &mut [u8]) -> Result<Point, CodecError> {
        let text = std::str::from_utf8(bytes).map_err(CodecError::decode)?;
        Ok(Point {
            x: text.parse().map_err(CodecError::decode)?,
        })
    }
}

#[test]
fn a_study_names_its_configurations_by_engine_and_operation() {
    let one: Study = Study::new("points", "q")
        .dataset(|| vec![Point { x: 1.5 }])
        .codec("text", || Ok(Text))
        .into();
    assert_eq!(one.configs().len(), 1);
    let c = &one.configs()[0].info;
    assert_eq!(
        (c.name(), c.dataset.as_str()),
        ("points/text".into(), "Point")
    );
    assert_eq!(c.engine_frames.as_str(), "serprof_api::");
    let three: Study = Study::new("points", "q")
        .dataset(|| vec![Point { x: 1.5 }])
        .codec("text", || Ok(Text))
        .operations([
            Operation::RoundTrip,
            Operation::Serialize,
            Operation::Deserialize,
        ])
        .into();
    let names: Vec<String> = three.configs().iter().map(|c| c.info.name()).collect();
    assert_eq!(
        names,
        [
            "points/text",
            "points/text.serialize",
            "points/text.deserialize"
        ]
    );
    let mut w = three.configs()[2].workload().unwrap();
    let v = w.verify().unwrap();
    assert_eq!(v.payload_bytes, 3.0);
    w.run(10).unwrap();
    assert_eq!(
        w.loop_function(),
        "serprof_api::workload::values::deserialize_loop"
    );
}

/// `Text`, reading its payload in place: the digest is the parsed number's bits, or (when
/// `wrong`) one more.
struct Peek {
    wrong: bool,
}
impl Codec<Point> for Peek {
    fn encode(&mut self, v: &Point, out: &mut Vec<u8>) -> Result<(), CodecError> {
        Text.encode(v, out)
    }
    fn decode(&mut self, bytes: &mut [u8]) -> Result<Point, CodecError> {
        Text.decode(bytes)
    }
    fn access(&mut self, bytes: &[u8]) -> Result<u64, CodecError> {
        let x: f64 = std::str::from_utf8(bytes)
            .map_err(CodecError::decode)?
            .parse()
            .map_err(CodecError::decode)?;
        Ok(x.to_bits() + u64::from(self.wrong))
    }
}

#[test]
fn a_duplicate_engine_or_a_baseline_of_nothing_is_a_problem_and_an_engine_baseline_is_not() {
    let points = || Study::new("points", "q").dataset(|| vec![Point { x: 1.5 }]);
    let both = || points().operations([Operation::Serialize, Operation::Deserialize]);
    let fine: Study = both().codec("text", || Ok(Text)).baseline("text").into();
    assert_eq!(fine.problem(), None);
    let whole: Study = both()
        .codec("text", || Ok(Text))
        .baseline("text.deserialize")
        .into();
    assert_eq!(whole.problem(), None);
    let typo: Study = both().codec("text", || Ok(Text)).baseline("txt").into();
    assert_eq!(
        typo.problem().as_deref(),
        Some("study points: the baseline \"txt\" names no configuration or engine of it (it has text.serialize, text.deserialize)")
    );
    // `text.round` is no operation: a prefix of a name is not an engine.
    let partial: Study = both().codec("text", || Ok(Text)).baseline("tex").into();
    assert!(partial.problem().is_some());
    let twice: Study = points()
        .codec("text", || Ok(Text))
        .codec("text", || Ok(Text))
        .into();
    assert_eq!(
        twice.problem().as_deref(),
        Some("study points: two configurations are named text (engine names must be unique within a study: rename one with `Engine::named`)")
    );
    let step: Study = points()
        .codec("text", || Ok(Text))
        .steps(["text", "txt"])
        .into();
    assert!(step.problem().unwrap().contains("the step \"txt\""));
}

/// `Text` with a slice call: right, writing one byte wrong, or refusing.
#[derive(Clone, Copy)]
enum SliceCall {
    Right,
    OneByteWrong,
    Refuses,
}
struct Slicer {
    call: SliceCall,
    calls: Arc<std::sync::atomic::AtomicUsize>,
}
impl Codec<Point> for Slicer {
    fn encode(&mut self, v: &Point, out: &mut Vec<u8>) -> Result<(), CodecError> {
        Text.encode(v, out)
    }
    fn decode(&mut self, bytes: &mut [u8]) -> Result<Point, CodecError> {
        Text.decode(bytes)
    }
    fn encode_to_slice<'a>(
        &'a mut self,
        v: &Point,
        out: &'a mut [u8],
    ) -> Option<Result<&'a [u8], CodecError>> {
        self.calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let text = v.x.to_string();
        let n = text.len();
        let Some(room) = out.get_mut(..n) else {
            return Some(Err(CodecError::encode("the slice is too small")));
        };
        room.copy_from_slice(text.as_bytes());
        match self.call {
            SliceCall::Right => {}
            SliceCall::OneByteWrong => room[n - 1] ^= 1,
            SliceCall::Refuses => return Some(Err(CodecError::encode("no"))),
        }
        Some(Ok(&out[..n]))
    }
}

#[test]
fn the_serialize_loop_writes_into_a_slice_whose_payload_verification_checks() {
    let study = |call: SliceCall, calls: &Arc<std::sync::atomic::AtomicUsize>| -> Study {
        let calls = Arc::clone(calls);
        Study::new("points", "q")
            .dataset(|| vec![Point { x: 1.5 }, Point { x: -20.25 }])
            .codec("slicer", move || {
                Ok(Slicer {
                    call,
                    calls: Arc::clone(&calls),
                })
            })
            .operations([Operation::Serialize, Operation::RoundTrip])
            .into()
    };
    let count = |calls: &Arc<std::sync::atomic::AtomicUsize>| {
        calls.load(std::sync::atomic::Ordering::Relaxed)
    };
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let right = study(SliceCall::Right, &calls);
    let mut w = right.configs()[0].workload().unwrap();
    w.verify().unwrap();
    assert_eq!(count(&calls), 2, "verification checks every value's slice");
    w.run(10).unwrap();
    // One call decides the loop's output, then ten timed ones.
    assert_eq!(count(&calls), 13);
    // Round trips encode into the `Vec`, never into a slice.
    let mut trip = right.configs()[1].workload().unwrap();
    trip.verify().unwrap();
    trip.run(10).unwrap();
    assert_eq!(count(&calls), 13);

    let wrong = study(SliceCall::OneByteWrong, &calls);
    let err = wrong.configs()[0].workload().unwrap().verify().unwrap_err();
    let text = err.to_string();
    assert!(text.contains("value 0"), "{text}");
    assert!(text.contains("encode_to_slice"), "{text}");
    assert!(text.contains("first different at byte 2"), "{text}");

    let refuses = study(SliceCall::Refuses, &calls);
    let mut w = refuses.configs()[0].workload().unwrap();
    let err = w.verify().unwrap_err().to_string();
    assert!(
        err.contains("encode_to_slice") && err.contains("no"),
        "{err}"
    );
    let err = w.run(1).unwrap_err().to_string();
    assert!(err.contains("a slice of 1031 bytes"), "{err}");
}

#[test]
fn access_configurations_are_checked_against_the_digest_and_kept_out_of_corrupt_studies() {
    let study = |wrong: bool| -> Study {
        Study::new("points", "q")
            .dataset(|| vec![Point { x: 1.5 }, Point { x: -2.0 }])
            .engine(
                Engine::new("peek", move || Ok(Peek { wrong }))
                    .access([Operation::ValidatedAccess, Operation::RoundTrip]),
            )
            .digest(|p: &Point| p.x.to_bits())
            .into()
    };
    let right = study(false);
    let names: Vec<String> = right.configs().iter().map(|c| c.info.name()).collect();
    assert_eq!(names, ["points/peek", "points/peek.validated-access"]);
    let mut w = right.configs()[1].workload().unwrap();
    w.verify().unwrap();
    w.run(5).unwrap();
    assert_eq!(
        w.loop_function(),
        "serprof_api::workload::values::access_loop"
    );
    let wrong = study(true);
    let err = wrong.configs()[1].workload().unwrap().verify().unwrap_err();
    assert!(err.to_string().contains("digest"), "{err}");
    fn untouched(index: usize, _: Format, payloads: &[Vec<u8>]) -> DamagedInput {
        DamagedInput {
            index,
            order: 0,
            mutation: "none",
            what: "nothing".into(),
            bytes: payloads[0].clone(),
        }
    }
    let damage = Damage {
        seed: 1,
        inputs: 2,
        quick_inputs: 1,
        input: untouched,
    };
    let corrupt: Study = Study::new("broken", "q")
        .dataset(|| vec![Point { x: 1.5 }])
        .engine(Engine::new("peek", || Ok(Peek { wrong: false })).access([Operation::Access]))
        .corrupt(damage)
        .into();
    assert_eq!(corrupt.configs().len(), 1);
}

#[test]
fn an_engine_on_some_operations_only_keeps_its_reads_and_every_engine_decodes_when_corrupt() {
    let points = || {
        Study::new("points", "q")
            .dataset(|| vec![Point { x: 1.5 }])
            .operations([Operation::Serialize, Operation::Deserialize])
            .codec("text", || Ok(Text))
    };
    let peek = || {
        Engine::new("peek", || Ok(Peek { wrong: false }))
            .access([Operation::Access])
            .only([Operation::Serialize])
    };
    let some: Study = points().engine(peek()).digest(|p| p.x.to_bits()).into();
    let names: Vec<String> = some.configs().iter().map(|c| c.info.name()).collect();
    assert_eq!(
        names,
        [
            "points/text.serialize",
            "points/text.deserialize",
            "points/peek.serialize",
            "points/peek.access"
        ]
    );
    let damage = Damage {
        seed: 1,
        inputs: 1,
        quick_inputs: 1,
        input: |index, _, payloads| DamagedInput {
            index,
            order: 0,
            mutation: "none",
            what: "nothing".into(),
            bytes: payloads[0].clone(),
        },
    };
    let corrupt: Study = points().engine(peek()).corrupt(damage).into();
    let names: Vec<String> = corrupt.configs().iter().map(|c| c.info.name()).collect();
    assert_eq!(names, ["points/text", "points/peek"]);
}

/// `Text`, with an unvalidated decode that parses without checking the text is UTF-8;
/// it gives one more than it read when `wrong`.
struct Trusting {
    wrong: bool,
}
impl Codec<Point> for Trusting {
    fn encode(&mut self, v: &Point, out: &mut Vec<u8>) -> Result<(), CodecError> {
        Text.encode(v, out)
    }
    fn decode(&mut self, bytes: &mut [u8]) -> Result<Point, CodecError> {
        Text.decode(bytes)
    }
    unsafe fn decode_unchecked(&mut self, bytes: &mut [u8]) -> Result<Point, CodecError> {
        // SAFETY: the payload is `encode`'s, which writes ASCII digits.
        let text = unsafe { std::str::from_utf8_unchecked(bytes) };
        let x: f64 = text.parse().map_err(CodecError::decode)?;
        Ok(Point {
            x: x + f64::from(u8::from(self.wrong)),
        })
    }
}

#[test]
fn an_unvalidated_decode_is_a_configuration_verified_against_the_value() {
    let study = |wrong: bool| -> Study {
        Study::new("points", "q")
            .dataset(|| vec![Point { x: 1.5 }, Point { x: -2.0 }])
            .operations([Operation::Deserialize])
            .engine(
                Engine::new("trusting", move || Ok(Trusting { wrong }))
                    .unvalidated_deserialize()
                    .access([Operation::ValidatedAccess]),
            )
            .into()
    };
    let right = study(false);
    let names: Vec<String> = right.configs().iter().map(|c| c.info.name()).collect();
    // `access` after `unvalidated_deserialize` keeps it.
    assert_eq!(
        names,
        [
            "points/trusting",
            "points/trusting.unvalidated-deserialize",
            "points/trusting.validated-access"
        ]
    );
    let mut w = right.configs()[1].workload().unwrap();
    w.verify().unwrap();
    w.run(5).unwrap();
    assert_eq!(
        w.loop_function(),
        "serprof_api::workload::values::unvalidated_deserialize_loop"
    );
    let err = study(true).configs()[1]
        .workload()
        .unwrap()
        .verify()
        .unwrap_err();
    assert!(err.to_string().contains("unvalidated decode"), "{err}");
    // An engine without one is refused at verification, never timed.
    let none: Study = Study::new("points", "q")
        .dataset(|| vec![Point { x: 1.5 }])
        .engine(Engine::new("text", || Ok(Text)).unvalidated_deserialize())
        .into();
    let err = none.configs()[1].workload().unwrap().verify().unwrap_err();
    assert!(err.to_string().contains("no unvalidated decode"), "{err}");
}

/// `Text`, with a borrowed decode that reads the number's text in place; `borrow_owned`
/// gives one more than it read when `wrong`.
struct Lend {
    wrong: bool,
}
impl Codec<Point> for Lend {
    fn encode(&mut self, v: &Point, out: &mut Vec<u8>) -> Result<(), CodecError> {
        Text.encode(v, out)
    }
    fn decode(&mut self, bytes: &mut [u8]) -> Result<Point, CodecError> {
        Text.decode(bytes)
    }
    fn borrow(&mut self, bytes: &[u8]) -> Result<(), CodecError> {
        std::str::from_utf8(bytes)
            .map(drop)
            .map_err(CodecError::decode)
    }
    fn borrow_owned(&mut self, bytes: &[u8]) -> Result<Point, CodecError> {
        let text = std::str::from_utf8(bytes).map_err(CodecError::decode)?;
        let x: f64 = text.parse().map_err(CodecError::decode)?;
        Ok(Point {
            x: if self.wrong { x + 1.0 } else { x },
        })
    }
}

#[test]
fn a_borrowing_engine_has_a_borrow_row_checked_against_the_value() {
    let study = |wrong: bool| -> Study {
        Study::new("points", "q")
            .dataset(|| vec![Point { x: 1.5 }, Point { x: -2.0 }])
            .operations([Operation::Deserialize])
            .engine(Engine::new("lend", move || Ok(Lend { wrong })).borrows())
            .engine(Engine::new("text", || Ok(Text)))
            .into()
    };
    let right = study(false);
    let names: Vec<String> = right.configs().iter().map(|c| c.info.name()).collect();
    assert_eq!(names, ["points/lend", "points/lend.borrow", "points/text"]);
    let mut w = right.configs()[1].workload().unwrap();
    w.verify().unwrap();
    w.run(5).unwrap();
    assert_eq!(
        w.loop_function(),
        "serprof_api::workload::values::borrow_loop"
    );
    let err = study(true).configs()[1]
        .workload()
        .unwrap()
        .verify()
        .unwrap_err();
    assert!(
        matches!(err, crate::verify::VerifyError::Differs { index: 0, .. }),
        "{err}"
    );
    // An engine without a borrowed decode says so if one is asked of it.
    let mut text = Text;
    assert!(text.borrow(b"1").is_err());
}

/// A codec that changes what it decodes: `Forget` drops the label, `Nudge` moves `x` by one
/// unit in the last place (what serde_json without `float_roundtrip` can do).
#[derive(Clone, Copy)]
enum Flaw {
    Forget,
    Nudge,
}

#[derive(Debug, Clone, PartialEq)]
struct Labelled {
    x: f64,
    label: String,
}

struct Flawed(Flaw);
impl Codec<Labelled> for Flawed {
    fn encode(&mut self, v: &Labelled, out: &mut Vec<u8>) -> Result<(), CodecError> {
        out.extend_from_slice(format!("{}|{}", v.x, v.label).as_bytes());
        Ok(())
    }
    fn decode(&mut self, bytes: &mut [u8]) -> Result<Labelled, CodecError> {
        let text = std::str::from_utf8(bytes).map_err(CodecError::decode)?;
        let (x, label) = text
            .split_once('|')
            .ok_or_else(|| CodecError::decode("no |"))?;
        let x: f64 = x.parse().map_err(CodecError::decode)?;
        Ok(match self.0 {
            Flaw::Forget => Labelled {
                x,
                label: String::new(),
            },
            Flaw::Nudge => Labelled {
                x: f64::from_bits(x.to_bits() + 1),
                label: label.into(),
            },
        })
    }
}

fn verify(flaw: Flaw) -> Result<crate::workload::Verified, crate::verify::VerifyError> {
    let study: Study = Study::new("labelled", "q")
        .dataset(|| {
            vec![
                Labelled {
                    x: 0.1,
                    label: "a".into(),
                },
                Labelled {
                    x: 0.2,
                    label: "b".into(),
                },
            ]
        })
        .codec("flawed", move || Ok(Flawed(flaw)))
        .into();
    study.configs()[0].workload().unwrap().verify()
}

/// `Text`, whose messages are the values' texts, kept; `wrong` keeps each one a digit
/// longer, as a message built from another value would be.
struct Messages {
    kept: Vec<String>,
    wrong: bool,
}
impl Codec<Point> for Messages {
    fn encode(&mut self, v: &Point, out: &mut Vec<u8>) -> Result<(), CodecError> {
        Text.encode(v, out)
    }
    fn decode(&mut self, bytes: &mut [u8]) -> Result<Point, CodecError> {
        Text.decode(bytes)
    }
    fn keep_messages(&mut self, values: &[Point]) -> Result<(), CodecError> {
        let extra = if self.wrong { "1" } else { "" };
        self.kept = values.iter().map(|v| format!("{}{extra}", v.x)).collect();
        Ok(())
    }
    fn encode_message(&mut self, index: usize, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let message = self
            .kept
            .get(index)
            .ok_or_else(|| CodecError::setup("none kept"))?;
        out.extend_from_slice(message.as_bytes());
        Ok(())
    }
    fn decode_message(&mut self, bytes: &[u8]) -> Result<(), CodecError> {
        std::str::from_utf8(bytes).map_err(CodecError::decode)?;
        Ok(())
    }
}

#[test]
fn an_engines_messages_are_two_configurations_verified_against_its_payloads() {
    let study = |wrong: bool| -> Study {
        Study::new("points", "q")
            .dataset(|| vec![Point { x: 1.5 }, Point { x: -2.0 }])
            .operations([Operation::Serialize, Operation::Deserialize])
            .engine(
                Engine::new("protocol", move || {
                    Ok(Messages {
                        kept: Vec::new(),
                        wrong,
                    })
                })
                .messages(),
            )
            .into()
    };
    let right = study(false);
    let names: Vec<String> = right.configs().iter().map(|c| c.info.name()).collect();
    assert_eq!(
        names,
        [
            "points/protocol.serialize",
            "points/protocol.deserialize",
            "points/protocol.encode-message",
            "points/protocol.decode-message"
        ]
    );
    for (config, function) in [
        (2, "serprof_api::workload::values::message_encode_loop"),
        (3, "serprof_api::workload::values::message_decode_loop"),
    ] {
        let mut w = right.configs()[config].workload().unwrap();
        w.verify().unwrap();
        // More operations than values: the loop cycles.
        w.run(5).unwrap();
        assert_eq!(w.loop_function(), function);
    }
    // A kept message that is not the value's payload fails verification, never timed.
    let err = study(true).configs()[2]
        .workload()
        .unwrap()
        .verify()
        .unwrap_err();
    assert!(err.to_string().contains("the kept message"), "{err}");
    // An engine without messages is refused at verification, on both.
    let none: Study = Study::new("points", "q")
        .dataset(|| vec![Point { x: 1.5 }])
        .engine(Engine::new("text", || Ok(Text)).messages())
        .into();
    for config in [1, 2] {
        let err = none.configs()[config]
            .workload()
            .unwrap()
            .verify()
            .unwrap_err();
        assert!(err.to_string().contains("no messages"), "{err}");
    }
}

#[test]
fn a_round_trip_that_loses_a_field_fails_naming_the_value_and_its_debug_line() {
    match verify(Flaw::Forget).unwrap_err() {
        crate::verify::VerifyError::Differs { index, difference } => {
            assert_eq!(index, 0);
            assert_eq!(
                difference,
                "line 3 of its {:#?}: expected `label: \"a\",`, got `label: \"\",`"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn floats_that_move_in_their_last_digit_are_a_finding_not_a_failure() {
    let v = verify(Flaw::Nudge).unwrap();
    match &v.findings[..] {
        [crate::verify::Finding::FloatsChanged {
            values,
            index,
            original,
            decoded,
        }] => {
            assert_eq!((*values, *index), (2, 0));
            assert_eq!(original.trim(), "x: 0.1,");
            assert_eq!(decoded.trim(), "x: 0.10000000000000002,");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn type_names_are_short() {
    assert_eq!(short_type_name::<Point>(), "Point");
    assert_eq!(short_type_name::<Vec<Point>>(), "Vec<Point>");
}

/// A fixed-width codec (the number's eight bytes) whose update sets the number to zero where
/// it lies; `wrong` writes one there instead, as an update of another field would.
struct Zeroing {
    wrong: bool,
}
impl Codec<Point> for Zeroing {
    fn encode(&mut self, v: &Point, out: &mut Vec<u8>) -> Result<(), CodecError> {
        out.extend_from_slice(&v.x.to_le_bytes());
        Ok(())
    }
    fn decode(&mut self, bytes: &mut [u8]) -> Result<Point, CodecError> {
        let x: [u8; 8] = (&*bytes).try_into().map_err(CodecError::decode)?;
        Ok(Point {
            x: f64::from_le_bytes(x),
        })
    }
    unsafe fn update_unchecked(&mut self, bytes: &mut [u8]) -> Result<(), CodecError> {
        let to = if self.wrong { 1.0f64 } else { 0.0 };
        bytes
            .get_mut(..8)
            .ok_or_else(|| CodecError::decode("short"))?
            .copy_from_slice(&to.to_le_bytes());
        Ok(())
    }
    fn update_value(&mut self, value: &mut Point) -> Result<(), CodecError> {
        value.x = 0.0;
        Ok(())
    }
}

#[test]
fn an_update_is_a_configuration_of_its_own_verified_against_the_updated_value() {
    let study = |wrong: bool| -> Study {
        Study::new("points", "q")
            .dataset(|| vec![Point { x: 1.5 }, Point { x: -2.0 }])
            .operations([Operation::Serialize, Operation::Deserialize])
            .engine(Engine::new("fixed", move || Ok(Zeroing { wrong })).updates())
            .into()
    };
    let right = study(false);
    let names: Vec<String> = right.configs().iter().map(|c| c.info.name()).collect();
    assert_eq!(
        names,
        [
            "points/fixed.serialize",
            "points/fixed.deserialize",
            "points/fixed.update"
        ]
    );
    let mut w = right.configs()[2].workload().unwrap();
    w.verify().unwrap();
    // More operations than values: the loop cycles, updating what it updated before.
    w.run(5).unwrap();
    assert_eq!(
        w.loop_function(),
        "serprof_api::workload::values::update_loop"
    );
    // An update that writes something else than the value's update fails verification.
    let err = study(true).configs()[2]
        .workload()
        .unwrap()
        .verify()
        .unwrap_err();
    assert!(err.to_string().contains("differs at byte 6"), "{err}");
    // An engine without an update is refused at verification.
    let none: Study = Study::new("points", "q")
        .dataset(|| vec![Point { x: 1.5 }])
        .engine(Engine::new("text", || Ok(Text)).updates())
        .into();
    let err = none.configs()[1].workload().unwrap().verify().unwrap_err();
    assert!(err.to_string().contains("does not update"), "{err}");
}
