# rust_serialization_benchmark's mesh dataset (engines/src/dataset/rsb/mesh.rs) as Cap'n Proto
# structs, with the fields, types and order of rsb's mesh.capnp, for the capnp engine of the
# rsb-mesh study. Generated Rust: engines/src/external/capnp_rsb/rsb_mesh_capnp.rs
# (scripts/regenerate-schemas).
@0x87e522d67469e793;

struct Vector3 {
  x @0 :Float32;
  y @1 :Float32;
  z @2 :Float32;
}

struct Triangle {
  v0 @0 :Vector3;
  v1 @1 :Vector3;
  v2 @2 :Vector3;
  normal @3 :Vector3;
}

struct Mesh {
  triangles @0 :List(Triangle);
}
