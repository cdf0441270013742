//! `serprof dataset`: the Order dataset as Jackson-mapping JSON (as Jackson writes it: nulls
//! written, base64 byte arrays, decimals with their scale), and its facts.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;
use serprof_engines::casestudy::bytes_json::{write_order, ByteArrayCodec, Options};
use serprof_engines::dataset::{order_dataset, sample_list, ORDER_COUNT};
use serprof_engines::model::Order;

use crate::misuse;
use crate::render::table::format_thousands;

/// Order `n` as Jackson-mapping JSON, or a misuse error for an index out of range.
pub(crate) fn jackson_json(n: usize) -> Result<Vec<u8>> {
    let orders = &order_dataset().orders;
    if n >= orders.len() {
        misuse!(
            "--order {n} is out of range: the dataset has orders 0 to {}",
            orders.len() - 1
        );
    }
    let mut out = Vec::new();
    write_order(&orders[n], &Options::jackson(), &mut out);
    Ok(out)
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

pub(crate) fn run(order: Option<usize>, stats: bool, json: bool) -> Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    if let Some(n) = order {
        let mut text = jackson_json(n)?;
        text.push(b'\n');
        stdout.write_all(&text)?;
        return Ok(ExitCode::SUCCESS);
    }
    if !stats {
        // One Order per line, or with --json one JSON document: the array of them.
        let mut buf = Vec::new();
        let orders = &order_dataset().orders;
        if json {
            stdout.write_all(b"[\n")?;
        }
        for (i, o) in orders.iter().enumerate() {
            buf.clear();
            write_order(o, &Options::jackson(), &mut buf);
            if json && i + 1 < orders.len() {
                buf.push(b',');
            }
            buf.push(b'\n');
            stdout.write_all(&buf)?;
        }
        if json {
            stdout.write_all(b"]\n")?;
        }
        return Ok(ExitCode::SUCCESS);
    }
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
        writeln!(stdout, "{}", serde_json::to_string_pretty(&facts)?)?;
        return Ok(ExitCode::SUCCESS);
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
        writeln!(
            stdout,
            "{:<20} {:>12}",
            key.replace('_', " "),
            format_thousands(v, 0)
        )?;
    }
    writeln!(
        stdout,
        "JSON bytes over the {} Orders (compact, Jackson mapping):",
        o.len()
    )?;
    for (name, total) in json_bytes {
        writeln!(
            stdout,
            "  {name:<38} {:>10} B, mean {} B",
            format_thousands(total as f64, 0),
            format_thousands(total as f64 / o.len() as f64, 3)
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
