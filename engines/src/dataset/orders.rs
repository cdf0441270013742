//! The Order dataset, generated exactly as the Java `DatasetGenerator` of
//! `ej-technologies/serialization-comparison` generates it, with `java.util.Random` seed 42. The
//! order of the random calls is part of the specification.

use std::sync::{Arc, OnceLock};

use super::JavaRandom;
use crate::model::{
    Address, Attributes, ByteArray, Category, Customer, Decimal, Order, OrderLine, OrderStatus,
    OrderedMap, OrderedSet, Product, Tags,
};

/// Number of Orders in the dataset.
pub const ORDER_COUNT: usize = 200;

const FIRST: [&str; 10] = [
    "Alice", "Bruno", "Carla", "David", "Elena", "Frank", "Greta", "Henry", "Ingrid", "Jonas",
];
const LAST: [&str; 10] = [
    "Anderson", "Bergmann", "Costa", "Dubois", "Eriksen", "Ferrari", "Gruber", "Hansen", "Ivanov",
    "Jensen",
];
const CITIES: [&str; 8] = [
    "Berlin",
    "Munich",
    "Hamburg",
    "Cologne",
    "Vienna",
    "Zurich",
    "Amsterdam",
    "Prague",
];
const STREETS: [&str; 6] = [
    "Hauptstrasse",
    "Bahnhofstrasse",
    "Ringstrasse",
    "Parkallee",
    "Lindenweg",
    "Bergstrasse",
];
const ROOTS: [&str; 4] = ["Electronics", "Clothing", "Books", "Garden"];
const SUBS: [&str; 3] = ["Accessories", "Premium", "Budget"];
const WORDS: [&str; 8] = [
    "Ultra", "Pro", "Lite", "Max", "Eco", "Smart", "Classic", "Prime",
];
const TAGS: [&str; 8] = [
    "new",
    "sale",
    "bestseller",
    "limited",
    "organic",
    "imported",
    "clearance",
    "featured",
];
const ATTR: [&str; 6] = [
    "channel", "campaign", "salesRep", "priority", "giftWrap", "source",
];
const LOREM: [&str; 29] = [
    "Lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
    "incididunt",
    "ut",
    "labore",
    "et",
    "dolore",
    "magna",
    "aliqua",
    "enim",
    "ad",
    "minim",
    "veniam",
    "quis",
    "nostrud",
    "exercitation",
    "ullamco",
    "laboris",
    "nisi",
];

/// Everything the generator makes: the Orders and the values they share.
#[derive(Debug, Clone)]
pub struct OrderDataset {
    /// The category trees the products point to.
    pub categories: Vec<Arc<Category>>,
    /// The products the order lines share.
    pub products: Vec<Arc<Product>>,
    /// The customers the orders share.
    pub customers: Vec<Arc<Customer>>,
    /// The Orders, in generation order.
    pub orders: Vec<Order>,
}

/// The dataset, generated once per process.
pub fn order_dataset() -> &'static OrderDataset {
    static DATASET: OnceLock<OrderDataset> = OnceLock::new();
    DATASET.get_or_init(|| generate(42))
}

/// The 200 Orders.
pub fn orders() -> &'static [Order] {
    &order_dataset().orders
}

fn lorem(rnd: &mut JavaRandom, n: i32) -> String {
    let mut s = String::new();
    for k in 0..n {
        if k > 0 {
            s.push(' ');
        }
        s.push_str(rnd.pick(&LOREM));
    }
    s
}

fn address(rnd: &mut JavaRandom) -> Arc<Address> {
    let street = format!("{} {}", rnd.pick(&STREETS), 1 + rnd.next_int_bounded(150));
    let city = rnd.pick(&CITIES).to_string();
    let zip = format!("{:05}", rnd.next_int_bounded(100_000));
    Arc::new(Address {
        street,
        city,
        zip,
        country: "Germany".to_string(),
    })
}

/// Generates the dataset from `seed` (the published dataset uses 42): the categories (no random
/// draws), then the products, the customers and the Orders, each drawing from one
/// `JavaRandom` in that order.
pub fn generate(seed: i64) -> OrderDataset {
    let mut rnd = JavaRandom::new(seed);
    let categories = make_categories();
    let products = make_products(&mut rnd, &categories);
    let customers = make_customers(&mut rnd);
    let orders = make_orders(&mut rnd, &customers, &products);
    OrderDataset {
        categories,
        products,
        customers,
        orders,
    }
}

/// The 16 categories: each root, then its subcategories, ids from 1 in that order.
fn make_categories() -> Vec<Arc<Category>> {
    let mut categories = Vec::with_capacity(16);
    for root in ROOTS {
        let root_cat = Arc::new(Category {
            id: categories.len() as i64 + 1,
            name: root.to_string(),
            parent: None,
        });
        categories.push(root_cat.clone());
        for sub in SUBS {
            categories.push(Arc::new(Category {
                id: categories.len() as i64 + 1,
                name: format!("{root} {sub}"),
                parent: Some(root_cat.clone()),
            }));
        }
    }
    categories
}

/// The 200 products, in the order of their SKUs.
fn make_products(rnd: &mut JavaRandom, categories: &[Arc<Category>]) -> Vec<Arc<Product>> {
    let mut products = Vec::with_capacity(200);
    for i in 0..200 {
        products.push(product(rnd, i, categories));
    }
    products
}

/// Product `i`: name, tags, thumbnail, description, category, price, weight, drawn in that
/// order.
fn product(rnd: &mut JavaRandom, i: i32, categories: &[Arc<Category>]) -> Arc<Product> {
    let name = format!("{} {} {}", rnd.pick(&WORDS), rnd.pick(&WORDS), 1000 + i);
    let mut tags = OrderedSet::default();
    for _ in 0..2 + rnd.next_int_bounded(4) {
        tags.insert(rnd.pick(&TAGS).to_string());
    }
    let mut thumbnail = vec![0u8; (200 + rnd.next_int_bounded(1800)) as usize];
    rnd.next_bytes(&mut thumbnail);
    let description = {
        let n = 20 + rnd.next_int_bounded(60);
        lorem(rnd, n)
    };
    let category = categories[rnd.next_int_bounded(16) as usize].clone();
    let price = Decimal::from_cents(i64::from(199 + rnd.next_int_bounded(50_000)));
    let weight_grams = 50 + rnd.next_int_bounded(20_000);
    Arc::new(Product {
        sku: format!("SKU-{}", 100_000 + i),
        name,
        description,
        category,
        price,
        weight_grams,
        tags: Tags(tags),
        thumbnail: ByteArray(thumbnail),
    })
}

/// The 50 customers, in the order of their ids.
fn make_customers(rnd: &mut JavaRandom) -> Vec<Arc<Customer>> {
    let mut customers = Vec::with_capacity(50);
    for i in 0..50 {
        customers.push(customer(rnd, i));
    }
    customers
}

/// Customer `i`: names, one or two addresses, date of birth, VIP flag, drawn in that order.
fn customer(rnd: &mut JavaRandom, i: i64) -> Arc<Customer> {
    let first = rnd.pick(&FIRST);
    let last = rnd.pick(&LAST);
    let mut addresses = vec![address(rnd)];
    if rnd.next_boolean() {
        addresses.push(address(rnd));
    }
    let date_of_birth = 500_000_000_000 + i64::from(rnd.next_int_bounded(1_000_000_000)) * 1000;
    let vip = rnd.next_int_bounded(5) == 0;
    Arc::new(Customer {
        id: 10_000 + i,
        first_name: first.to_string(),
        last_name: last.to_string(),
        email: format!(
            "{}.{}{}@example.com",
            first.to_lowercase(),
            last.to_lowercase(),
            i
        ),
        date_of_birth,
        vip,
        addresses,
    })
}

/// The [`ORDER_COUNT`] Orders, each referring to shared customers and products.
fn make_orders(
    rnd: &mut JavaRandom,
    customers: &[Arc<Customer>],
    products: &[Arc<Product>],
) -> Vec<Order> {
    let mut orders = Vec::with_capacity(ORDER_COUNT);
    for idx in 0..ORDER_COUNT {
        orders.push(order(rnd, idx, customers, products));
    }
    orders
}

/// Order `idx`: customer, lines, attributes, status, creation time, notes, drawn in that order;
/// it ships to the customer's first address.
fn order(
    rnd: &mut JavaRandom,
    idx: usize,
    customers: &[Arc<Customer>],
    products: &[Arc<Product>],
) -> Order {
    let customer = customers[rnd.next_int_bounded(50) as usize].clone();
    let nlines = 1 + rnd.next_int_bounded(8);
    let mut lines = Vec::with_capacity(nlines as usize);
    for _ in 0..nlines {
        lines.push(order_line(rnd, products));
    }
    let attributes = attributes(rnd);
    let status = OrderStatus::ALL[rnd.next_int_bounded(6) as usize];
    let created = 1_750_000_000_000 + i64::from(rnd.next_int_bounded(30_000_000)) * 1000;
    let notes = if rnd.next_int_bounded(3) == 0 {
        let n = 10 + rnd.next_int_bounded(40);
        Some(lorem(rnd, n))
    } else {
        None
    };
    Order {
        id: format!("ORD-2026-{idx:06}"),
        shipping_address: customer.addresses[0].clone(),
        customer,
        lines,
        status,
        created,
        attributes: Attributes(attributes),
        notes,
    }
}

/// One line of an Order: product, quantity, and a discount one time in four, drawn in that
/// order; the unit price is the product's.
fn order_line(rnd: &mut JavaRandom, products: &[Arc<Product>]) -> OrderLine {
    let product = products[rnd.next_int_bounded(200) as usize].clone();
    let quantity = 1 + rnd.next_int_bounded(5);
    let discount = if rnd.next_int_bounded(4) == 0 {
        f64::from(rnd.next_int_bounded(30)) / 100.0
    } else {
        0.0
    };
    OrderLine {
        unit_price: product.price,
        product,
        quantity,
        discount,
    }
}

/// An Order's 2 to 6 attributes: each key (a name and its position) drawn before its value.
fn attributes(rnd: &mut JavaRandom) -> OrderedMap<String, String> {
    let mut attributes = OrderedMap::default();
    for k in 0..2 + rnd.next_int_bounded(5) {
        let key = format!("{}{}", rnd.pick(&ATTR), k);
        let n = 1 + rnd.next_int_bounded(3);
        attributes.insert(key, lorem(rnd, n));
    }
    attributes
}
