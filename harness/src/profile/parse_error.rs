//! The error of serprof's profile readers: a line of a file that does not read, saying which
//! kind of file it is in (a folded file's or a callgrind file's).

use std::fmt;

/// The kind of file a [`ParseError`] is in; it decides how the error's text starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Folded stacks (`profile::folded`): `line N: ...`.
    Folded,
    /// A callgrind output file (`analyze::callgrind`): `callgrind file line N: ...`.
    Callgrind,
}

/// A parse failure, with the 1-based line number (0 for what concerns the whole file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub kind: FileKind,
    pub line: usize,
    pub message: String,
}

impl ParseError {
    pub fn new(kind: FileKind, line: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            kind,
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = match self.kind {
            FileKind::Folded => "",
            FileKind::Callgrind => "callgrind file ",
        };
        write!(f, "{file}line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_names_the_kind_of_file() {
        let folded = ParseError::new(FileKind::Folded, 2, "empty frame name");
        assert_eq!(folded.to_string(), "line 2: empty frame name");
        let callgrind = ParseError::new(FileKind::Callgrind, 0, "no events: header");
        assert_eq!(
            callgrind.to_string(),
            "callgrind file line 0: no events: header"
        );
    }
}
