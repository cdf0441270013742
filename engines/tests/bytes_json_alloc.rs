//! `read_order` never allocates more than a small multiple of its input, whatever the input: a
//! counting global allocator (in this test binary only) tracks the peak of live heap bytes on the
//! decoding thread.
//!
//! The reader sizes nothing from counts in the input: strings and byte arrays are at most as long
//! as their text, and collections grow by pushing parsed elements, each at least two input bytes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use serprof_engines::casestudy::bytes_json::{read_order, write_order, ByteArrayCodec, Options};
use serprof_engines::dataset::orders;

struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn add(bytes: usize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + bytes;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn sub(bytes: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(bytes)));
}

// SAFETY: forwards every call to the system allocator unchanged; only counts on the side, in
// thread-locals with constant initialisers (no allocation, no destructor).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        sub(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        add(new_size);
        sub(layout.size());
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak live bytes on this thread while decoding `input` (the decoded value included).
fn peak_while_decoding(input: &[u8], options: &Options) -> usize {
    let before = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(before));
    let result = read_order(input, options);
    let peak = PEAK.with(Cell::get) - before;
    drop(result);
    peak
}

/// Peak live bytes per input byte, at most. A JSON reader that builds a `String` and a map slot
/// for an attribute written in 8 bytes (`"123":"",`) holds about 70 bytes for it, and a `Vec` or
/// map may hold twice what it needs while growing: the worst ratio of these inputs, about 12.5,
/// is for thousands of tiny attributes; the test prints it.
const BOUND: usize = 24;

#[test]
fn decoding_allocates_a_small_multiple_of_the_input() {
    let mut inputs: Vec<Vec<u8>> = Vec::new();
    for order in &orders()[..20] {
        for byte_arrays in [ByteArrayCodec::DecimalSigned, ByteArrayCodec::Base64Table] {
            let mut out = Vec::new();
            let options = Options {
                byte_arrays,
                write_nulls: true,
            };
            write_order(order, &options, &mut out);
            // Damaged copies: cut in half, and with the base64 or array brackets broken.
            inputs.push(out[..out.len() / 2].to_vec());
            inputs.push(
                out.iter()
                    .map(|&b| if b == b'=' { b'A' } else { b })
                    .collect(),
            );
            inputs.push(out);
        }
    }
    // Many small elements, where per-element overhead (a `String` and a map slot for two or
    // three bytes of input) is largest relative to the input.
    let mut order0 = Vec::new();
    write_order(&orders()[0], &Options::jackson(), &mut order0);
    let order0 = String::from_utf8(order0).unwrap();
    let many = |from: &str, element: &dyn Fn(usize) -> String| {
        let elements: Vec<String> = (0..20_000).map(element).collect();
        order0
            .replacen(from, &format!("{from}{},", elements.join(",")), 1)
            .into_bytes()
    };
    inputs.push(many(r#""attributes":{"#, &|i| format!(r#""{i}":"""#)));
    inputs.push(many(r#""tags":["#, &|i| format!(r#""{i}""#)));
    inputs.push(many(r#""lines":["#, &|_| "{}".into()));
    inputs.push(
        order0
            .replacen(r#""thumbnail":""#, r#""thumbnail":[0,0,0,0,0],"x":""#, 1)
            .into_bytes(),
    );
    let zeros = vec!["0"; 100_000].join(",");
    inputs.push(
        order0
            .replacen(
                r#""thumbnail":""#,
                &format!(r#""thumbnail":[{zeros}],"x":""#),
                1,
            )
            .into_bytes(),
    );

    let mut worst: f64 = 0.0;
    for input in &inputs {
        for byte_arrays in ByteArrayCodec::ALL {
            let options = Options {
                byte_arrays,
                write_nulls: false,
            };
            let peak = peak_while_decoding(input, &options);
            let bound = BOUND * input.len() + 4096;
            assert!(
                peak <= bound,
                "{byte_arrays:?}: peak {peak} B for {} B of input",
                input.len()
            );
            worst = worst.max(peak as f64 / input.len() as f64);
        }
    }
    println!("worst peak / input: {worst:.2}");
}
