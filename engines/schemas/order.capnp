# The Order graph (engines/src/model/order.rs) as Cap'n Proto structs, for the capnp engine.
# Generated Rust: engines/src/external/capnp/order_capnp.rs (scripts/regenerate-schemas).
@0xc4f1e2b7a9d35e61;

struct Order {
  id @0 :Text;
  customer @1 :Customer;
  lines @2 :List(OrderLine);
  status @3 :Status;
  created @4 :Int64;             # epoch milliseconds
  shippingAddress @5 :Address;
  attributes @6 :List(Attribute); # in insertion order
  notes @7 :Text;                # null when absent
}

struct Attribute {
  key @0 :Text;
  value @1 :Text;
}

struct Customer {
  id @0 :Int64;
  firstName @1 :Text;
  lastName @2 :Text;
  email @3 :Text;
  dateOfBirth @4 :Int64;         # epoch milliseconds
  vip @5 :Bool;
  addresses @6 :List(Address);
}

struct Address {
  street @0 :Text;
  city @1 :Text;
  zip @2 :Text;
  country @3 :Text;
}

struct OrderLine {
  product @0 :Product;
  quantity @1 :Int32;
  unitPriceCents @2 :Int64;
  discount @3 :Float64;
}

struct Product {
  sku @0 :Text;
  name @1 :Text;
  description @2 :Text;
  category @3 :Category;
  priceCents @4 :Int64;
  weightGrams @5 :Int32;
  tags @6 :List(Text);           # in insertion order
  thumbnail @7 :Data;
}

struct Category {
  id @0 :Int64;
  name @1 :Text;
  parent @2 :Category;           # null for a root category
}

enum Status {
  new @0;
  paid @1;
  picking @2;
  shipped @3;
  delivered @4;
  cancelled @5;
}
