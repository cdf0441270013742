# rust_serialization_benchmark's log dataset (engines/src/dataset/rsb/log.rs) as Cap'n Proto
# structs, with the fields, types and order of rsb's log.capnp, for the capnp engine of the
# rsb-log study. Generated Rust: engines/src/external/capnp_rsb/rsb_log_capnp.rs
# (scripts/regenerate-schemas).
@0x81862ae5cb57ee4e;

struct Address {
  x0 @0 :UInt8;
  x1 @1 :UInt8;
  x2 @2 :UInt8;
  x3 @3 :UInt8;
}

struct Log {
  address @0 :Address;
  identity @1 :Text;
  userid @2 :Text;
  date @3 :Text;
  request @4 :Text;
  code @5 :UInt16;
  size @6 :UInt64;
}

struct Logs {
  logs @0 :List(Log);
}
