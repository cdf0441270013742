//! `dataset::orders`.

//! Facts of the generated dataset: counts, Order 0, Product 0, and what is shared.
use serprof_engines::dataset::orders::*;
use serprof_engines::model::{Order, OrderStatus};
use std::sync::Arc;

#[test]
fn counts() {
    let d = order_dataset();
    assert_eq!(d.categories.len(), 16);
    assert_eq!(d.products.len(), 200);
    assert_eq!(d.customers.len(), 50);
    assert_eq!(d.orders.len(), 200);
    assert_eq!(d.orders.iter().map(|o| o.lines.len()).sum::<usize>(), 885);
    assert_eq!(d.orders.iter().filter(|o| o.notes.is_some()).count(), 55);
    assert_eq!(
        d.orders.iter().map(|o| o.attributes.0.len()).sum::<usize>(),
        837
    );
    let thumbs: usize = d.products.iter().map(|p| p.thumbnail.0.len()).sum();
    assert_eq!(thumbs, 220_505);
}

#[test]
fn order_zero() {
    let o = &orders()[0];
    assert_eq!(o.id, "ORD-2026-000000");
    assert_eq!(o.customer.id, 10024);
    assert_eq!(o.customer.email, "frank.bergmann24@example.com");
    assert_eq!(o.customer.addresses.len(), 1);
    let a = &o.customer.addresses[0];
    assert_eq!(
        (a.street.as_str(), a.city.as_str(), a.zip.as_str()),
        ("Ringstrasse 3", "Vienna", "61933")
    );
    assert_eq!(o.lines.len(), 7);
    assert_eq!(o.status, OrderStatus::Shipped);
    assert_eq!(o.created, 1_753_505_827_000);
    let attrs: Vec<_> = o
        .attributes
        .0
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        attrs,
        [
            ("campaign0", "incididunt"),
            ("giftWrap1", "incididunt amet ut")
        ]
    );
    let line = &o.lines[0];
    assert_eq!(line.product.sku, "SKU-100192");
    assert_eq!(line.quantity, 5);
    assert_eq!(line.unit_price.to_string(), "218.62");
    assert_eq!(line.discount, 0.0);
    let thumb = &line.product.thumbnail.0;
    assert_eq!(thumb.len(), 323);
    assert_eq!(
        thumb[..4].iter().map(|&b| b as i8).collect::<Vec<_>>(),
        [-77, -1, 99, -104]
    );
}

#[test]
fn product_zero() {
    let p = &order_dataset().products[0];
    assert_eq!(p.sku, "SKU-100000");
    assert_eq!(p.name, "Smart Ultra 1000");
    assert_eq!(p.price.to_string(), "181.49");
    assert_eq!(p.weight_grams, 6898);
    assert_eq!(
        p.tags.0.iter().collect::<Vec<_>>(),
        ["new", "bestseller", "featured"]
    );
    assert_eq!(p.thumbnail.0.len(), 1318);
    assert_eq!(
        (p.category.id, p.category.name.as_str()),
        (16, "Garden Budget")
    );
}

#[test]
fn shared_references_are_shared() {
    let d = order_dataset();
    assert!(d.orders.iter().all(Order::shares_references));
    let repeated = d
        .orders
        .iter()
        .filter(|o| {
            o.lines.iter().enumerate().any(|(i, a)| {
                o.lines[..i]
                    .iter()
                    .any(|b| Arc::ptr_eq(&a.product, &b.product))
            })
        })
        .count();
    assert_eq!(repeated, 11);
    let sub = &d.categories[1];
    assert!(Arc::ptr_eq(sub.parent.as_ref().unwrap(), &d.categories[0]));
}
