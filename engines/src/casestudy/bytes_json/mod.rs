//! Placeholder: the bytes_json engine (issue 5) is built here.
