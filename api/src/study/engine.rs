//! An engine of a study: a codec on values of `T` and what serprof says about it.

use std::sync::Arc;

use super::Format;
use crate::codec::{Codec, CodecError};
use crate::fields::FieldSplit;
use crate::workload::{Operation, Value};

/// How a codec is built.
type MakeCodec<T> = Arc<dyn Fn() -> Result<Box<dyn Codec<T>>, CodecError> + Send + Sync>;

/// An engine of a study on values of `T`: a codec and what serprof should say about it.
pub struct Engine<T> {
    pub(super) name: String,
    pub(super) library: String,
    pub(super) version: String,
    pub(super) format: Format,
    pub(super) frames: String,
    pub(super) notes: String,
    pub(super) feature: Option<String>,
    pub(super) call: String,
    /// Its values as JSON, when it knows how ([`Engine::json_view`]).
    pub(super) json_view: Option<crate::workload::JsonView<T>>,
    /// How its payloads split by field ([`Engine::fields`]).
    pub(super) fields: FieldSplit<T>,
    /// The operations it has besides the study's: in-place access ([`Engine::access`]),
    /// borrowed decoding ([`Engine::borrows`]), its unvalidated decode
    /// ([`Engine::unvalidated_deserialize`]) and its messages ([`Engine::messages`]).
    pub(super) extra: Vec<Operation>,
    /// The study's operations it is measured on, when not all of them ([`Engine::only`]).
    pub(super) only: Option<Vec<Operation>>,
    pub(super) make: MakeCodec<T>,
}

impl<T> Clone for Engine<T> {
    fn clone(&self) -> Self {
        Engine {
            name: self.name.clone(),
            library: self.library.clone(),
            version: self.version.clone(),
            format: self.format,
            frames: self.frames.clone(),
            notes: self.notes.clone(),
            feature: self.feature.clone(),
            call: self.call.clone(),
            json_view: self.json_view.clone(),
            fields: self.fields.clone(),
            extra: self.extra.clone(),
            only: self.only.clone(),
            make: Arc::clone(&self.make),
        }
    }
}

impl<T: Value> Engine<T> {
    /// The codec `make` builds, named `name` in the study. Its frames are those of the crate
    /// that defines the codec's type; its format is binary.
    pub fn new<C: Codec<T> + 'static>(
        name: impl Into<String>,
        make: impl Fn() -> Result<C, CodecError> + Send + Sync + 'static,
    ) -> Engine<T> {
        let name = name.into();
        let krate = std::any::type_name::<C>()
            .split("::")
            .next()
            .unwrap_or("")
            .to_string();
        Engine {
            library: name.clone(),
            version: String::new(),
            format: Format::Binary,
            frames: format!("{}::", escape_regex(&krate)),
            notes: String::new(),
            feature: None,
            call: String::new(),
            json_view: None,
            fields: FieldSplit::Not(crate::fields::tally::NOT_SERDE.into()),
            extra: Vec::new(),
            only: None,
            make: Arc::new(move || make().map(|c| Box::new(c) as Box<dyn Codec<T>>)),
            name,
        }
    }

    /// The library that does the work and its version (tables show `library version`).
    pub fn library(mut self, library: impl Into<String>, version: impl Into<String>) -> Self {
        self.library = library.into();
        self.version = version.into();
        self
    }

    /// Its payloads are JSON text (the corrupt study damages them as text).
    pub fn json(mut self) -> Self {
        self.format = Format::Json;
        self
    }

    /// The frames that are the engine's own: a regular expression over frame names.
    pub fn frames(mut self, regex: impl Into<String>) -> Self {
        self.frames = regex.into();
        self
    }

    /// What it does differently from the other engines, or cannot do.
    pub fn notes(mut self, text: impl Into<String>) -> Self {
        self.notes = text.into();
        self
    }

    /// The calls its codec makes, as the library names them (`postcard::to_slice`,
    /// `bitcode::Buffer::encode`): `result.json` and `serprof list` show them, so that a row
    /// says which of a library's ways to write and read it measures.
    pub fn call(mut self, call: impl Into<String>) -> Self {
        self.call = call.into();
        self
    }

    /// How a value of `T` is written as JSON, which `serprof decode --json` prints; a study
    /// takes the view of the first engine that has one (serprof's serde engines do). `view`
    /// returns the JSON text, or why the value has none ([`CodecError::encode`]).
    pub fn json_view(
        mut self,
        view: impl Fn(&T) -> Result<String, CodecError> + Send + Sync + 'static,
    ) -> Self {
        self.json_view = Some(Arc::new(view));
        self
    }

    /// How its payloads split by field (`result.json` `fields`, see [`crate::fields`]): the
    /// serde engines record the value's serialization again through their format
    /// ([`FieldSplit::Record`]); a JSON engine of one's own can read its payload
    /// ([`FieldSplit::Payload`] with [`crate::fields::json_text`]); an engine without a split
    /// says why ([`FieldSplit::Not`], the default for an engine that does not name one).
    pub fn fields(mut self, split: FieldSplit<T>) -> Self {
        self.fields = split;
        self
    }

    /// The cargo feature of serprof's that builds it.
    #[doc(hidden)]
    pub fn feature(mut self, feature: impl Into<String>) -> Self {
        self.feature = Some(feature.into());
        self
    }

    /// A zero-copy engine's in-place reads, each a configuration of its own beside the study's
    /// operations (`ENGINE.access`, `ENGINE.validated-access`): [`Operation::Access`] through
    /// [`Codec::access_unchecked`], [`Operation::ValidatedAccess`] through [`Codec::access`].
    /// The study checks them against its digest ([`crate::StudyOf::digest`]).
    pub fn access(mut self, operations: impl IntoIterator<Item = Operation>) -> Self {
        self.extra
            .retain(|o| !matches!(o, Operation::Access | Operation::ValidatedAccess));
        self.extra.extend(
            operations
                .into_iter()
                .filter(|o| matches!(o, Operation::Access | Operation::ValidatedAccess)),
        );
        self
    }

    /// The engine decodes into borrowed values ([`Codec::borrow`]): a configuration of its own
    /// beside the study's operations (`ENGINE.borrow`), verified through
    /// [`Codec::borrow_owned`].
    pub fn borrows(mut self) -> Self {
        self.extra.push(Operation::Borrow);
        self
    }

    /// The engine decodes without validation too ([`Codec::decode_unchecked`]): a
    /// configuration of its own beside the study's operations (`ENGINE.unvalidated-deserialize`),
    /// timed on payloads the engine encoded and verified like a deserialize.
    pub fn unvalidated_deserialize(mut self) -> Self {
        self.extra.push(Operation::UnvalidatedDeserialize);
        self
    }

    /// The engine writes from messages of its own type, which its `encode` builds from the
    /// value and its `decode` converts back ([`Codec::keep_messages`]): two configurations of
    /// its own beside the study's operations, `ENGINE.encode-message` (the messages built
    /// before anything is timed, [`Codec::encode_message`]) and `ENGINE.decode-message` (a
    /// stored payload read into a message, not converted, [`Codec::decode_message`]), as
    /// rust_serialization_benchmark times a Protobuf crate's `encode` and `decode` beside its
    /// `populate + encode` and `decode + convert`.
    pub fn messages(mut self) -> Self {
        self.extra
            .extend([Operation::EncodeMessage, Operation::DecodeMessage]);
        self
    }

    /// The engine updates payloads in place ([`Codec::update_unchecked`]): a configuration of
    /// its own beside the study's operations (`ENGINE.update`), timed on the payloads it
    /// encoded, each updated again on every pass, as rust_serialization_benchmark times rkyv's
    /// `update`; verified against [`Codec::update_value`].
    pub fn updates(mut self) -> Self {
        self.extra.push(Operation::Update);
        self
    }

    /// Measures the engine on these of the study's operations only (its configurations beside
    /// them, such as [`Engine::access`] and [`Engine::borrows`], are kept): a second way of
    /// one library to do one operation, beside the engine that does all of them, such as
    /// bilrost's `prepend` as a serialize of its own. A corrupt study decodes with every
    /// engine regardless.
    pub fn only(mut self, operations: impl IntoIterator<Item = Operation>) -> Self {
        self.only = Some(operations.into_iter().collect());
        self
    }

    /// The same engine, each codec it builds handed to `wrap`, whose codec the study measures
    /// instead (a codec that adds a way to read to the engine's, such as a borrowed decode).
    /// The wrapper forwards what it keeps of the engine's codec, its slice call
    /// ([`Codec::encode_to_slice`]) included: one it does not forward is not called.
    pub fn wrap<C: Codec<T> + 'static>(
        mut self,
        wrap: impl Fn(Box<dyn Codec<T>>) -> C + Send + Sync + 'static,
    ) -> Self {
        let make = Arc::clone(&self.make);
        self.make = Arc::new(move || make().map(|c| Box::new(wrap(c)) as Box<dyn Codec<T>>));
        self
    }

    /// The engine under another name in the study.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Its name in the study.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Builds its codec, as a worker process does (for tests and tools that drive a codec
    /// themselves).
    pub fn build(&self) -> Result<Box<dyn Codec<T>>, CodecError> {
        (self.make)()
    }
}

/// `text` as a regular expression that matches it literally: every character that has a
/// meaning in one (as the regex crate reads them) behind a backslash.
fn escape_regex(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_escaped_name_is_the_regex_crates_escape() {
        for text in ["serde_json", "a.b+c*d?(e)|[f]{g}^h$#&-~\\i", "", "ü"] {
            let escaped = super::escape_regex(text);
            #[cfg(feature = "regex")]
            {
                assert_eq!(escaped, regex::escape(text), "{text}");
                let re = regex::Regex::new(&format!("^{escaped}$")).unwrap();
                assert!(re.is_match(text), "{text}");
            }
            assert!(escaped.len() >= text.len());
        }
    }
}
