//! serprof's `dataset` command: the Order dataset as Jackson-mapping JSON (as Jackson writes
//! it: nulls written, base64 byte arrays, decimals with their scale), and its facts.

use std::io::Write;

use serde_json::json;

use super::bytes_json::{write_order, ByteArrayCodec, Options};
use crate::dataset::{order_dataset, sample_list, ORDER_COUNT};
use crate::model::Order;

/// What to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Export {
    /// Only this Order, as Jackson-mapping JSON.
    pub order: Option<usize>,
    /// The dataset's facts (counts, bytes) instead of the Orders.
    pub stats: bool,
    /// One JSON document: the array of Orders, or the facts.
    pub json: bool,
}

/// Why the export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The request cannot be met (an Order out of range): a misuse.
    #[error("{0}")]
    Misuse(String),
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The facts could not be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

fn total_json_bytes(orders: &[Order], options: &Options) -> usize {
    let mut buf = Vec::new();
    orders
        .iter()
        .map(|o| {
            buf.clear();
            write_order(o, options, &mut buf);
            buf.len()
        })
        .sum()
}

/// `x` with `decimals` decimals and thousands separated by commas.
pub fn thousands(x: f64, decimals: usize) -> String {
    let s = format!("{:.*}", decimals, x.abs());
    let (int, frac) = s
        .split_once('.')
        .map_or((s.as_str(), None), |(a, b)| (a, Some(b)));
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    if x < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

/// Writes what `req` asks for to `out`.
pub fn write(req: &Export, out: &mut dyn Write) -> Result<(), ExportError> {
    let orders = &order_dataset().orders;
    if let Some(n) = req.order {
        let Some(order) = orders.get(n) else {
            return Err(ExportError::Misuse(format!(
                "--order {n} is out of range: the dataset has orders 0 to {}",
                orders.len() - 1
            )));
        };
        let mut text = Vec::new();
        write_order(order, &Options::jackson(), &mut text);
        text.push(b'\n');
        out.write_all(&text)?;
        return Ok(());
    }
    if !req.stats {
        // One Order per line, or with --json one JSON document: the array of them.
        let mut buf = Vec::new();
        if req.json {
            out.write_all(b"[\n")?;
        }
        for (i, o) in orders.iter().enumerate() {
            buf.clear();
            write_order(o, &Options::jackson(), &mut buf);
            if req.json && i + 1 < orders.len() {
                buf.push(b',');
            }
            buf.push(b'\n');
            out.write_all(&buf)?;
        }
        if req.json {
            out.write_all(b"]\n")?;
        }
        return Ok(());
    }
    let json = req.json;
    let d = order_dataset();
    let o = &d.orders;
    let mappings = [
        ("nulls written, base64", Options::jackson()),
        (
            "nulls omitted, base64",
            Options {
                byte_arrays: ByteArrayCodec::Base64Table,
                write_nulls: false,
            },
        ),
        (
            "nulls omitted, signed decimal bytes",
            Options {
                byte_arrays: ByteArrayCodec::DecimalSigned,
                write_nulls: false,
            },
        ),
    ];
    let json_bytes: Vec<(&str, usize)> = mappings
        .iter()
        .map(|(n, opt)| (*n, total_json_bytes(o, opt)))
        .collect();
    let facts = json!({
        "categories": d.categories.len(),
        "products": d.products.len(),
        "customers": d.customers.len(),
        "orders": o.len(),
        "order_lines": o.iter().map(|o| o.lines.len()).sum::<usize>(),
        "orders_with_notes": o.iter().filter(|o| o.notes.is_some()).count(),
        "attribute_entries": o.iter().map(|o| o.attributes.0.len()).sum::<usize>(),
        "thumbnail_bytes": d.products.iter().map(|p| p.thumbnail.0.len()).sum::<usize>(),
        "samples": sample_list().len(),
        "json_bytes": json_bytes.iter().map(|(n, b)| json!({"mapping": n, "total": b, "mean": *b as f64 / ORDER_COUNT as f64})).collect::<Vec<_>>(),
    });
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&facts)?)?;
        return Ok(());
    }
    for key in [
        "categories",
        "products",
        "customers",
        "orders",
        "order_lines",
        "orders_with_notes",
        "attribute_entries",
        "thumbnail_bytes",
        "samples",
    ] {
        let v = facts[key].as_u64().unwrap_or(0) as f64;
        writeln!(out, "{:<20} {:>12}", key.replace('_', " "), thousands(v, 0))?;
    }
    writeln!(
        out,
        "JSON bytes over the {} Orders (compact, Jackson mapping):",
        o.len()
    )?;
    for (name, total) in json_bytes {
        writeln!(
            out,
            "  {name:<38} {:>10} B, mean {} B",
            thousands(total as f64, 0),
            thousands(total as f64 / o.len() as f64, 3)
        )?;
    }
    Ok(())
}
