//! Placeholder: the reflect_json engine (issue 6) is built here.
