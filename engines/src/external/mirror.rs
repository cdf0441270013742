//! The conversions between the model and the Protobuf-like mirror messages of the prost,
//! bilrost and rust-protobuf adapters. The three mirrors have the same field names (those of
//! the model, prices as `*_cents`, the attributes as entries); they differ in how a nested
//! message, the status, an attribute entry and the category's parent are held, which each
//! adapter says in its call of [`mirror_conversions!`].

/// `From<&model>` for each mirror message (copying every string and thumbnail, shared values
/// once per use) and `TryFrom<mirror>` for each model type (moving the strings; a missing
/// nested message or an unknown status is an error). The arguments: the mirror's type names,
/// then functions (paths or closures) that wrap and unwrap a nested message (`some`, `take`,
/// the latter given the message's name for its error), convert the status and an attribute
/// entry both ways, and the category's parent both ways (as an `Option` of the mirror), then
/// the tokens that end every mirror's struct literal (`..Default::default()` or nothing).
macro_rules! mirror_conversions {
    (
        order: $order:ident, customer: $customer:ident, address: $address:ident,
        line: $line:ident, product: $product:ident, category: $category:ident,
        some: $some:expr, take: $take:expr,
        status: ($status_to:expr, $status_from:expr),
        attribute: ($attr_to:expr, $attr_from:expr),
        parent: ($parent_to:expr, $parent_from:expr),
        rest: {$($rest:tt)*} $(,)?
    ) => {
        impl From<&crate::model::Order> for $order {
            fn from(o: &crate::model::Order) -> $order {
                $order {
                    id: o.id.clone(),
                    customer: ($some)($customer::from(o.customer.as_ref())),
                    lines: o.lines.iter().map($line::from).collect(),
                    status: ($status_to)(o.status),
                    created: o.created,
                    shipping_address: ($some)($address::from(o.shipping_address.as_ref())),
                    attributes: o.attributes.0.iter().map(|(k, v)| ($attr_to)(k, v)).collect(),
                    notes: o.notes.clone(),
                    $($rest)*
                }
            }
        }

        impl TryFrom<$order> for crate::model::Order {
            type Error = serprof_api::CodecError;

            fn try_from(m: $order) -> Result<crate::model::Order, serprof_api::CodecError> {
                Ok(crate::model::Order {
                    id: m.id,
                    customer: std::sync::Arc::new(
                        ($take)(m.customer, concat!(stringify!($order), ".customer"))?.into(),
                    ),
                    lines: m
                        .lines
                        .into_iter()
                        .map(crate::model::OrderLine::try_from)
                        .collect::<Result<_, _>>()?,
                    status: ($status_from)(m.status)?,
                    created: m.created,
                    shipping_address: std::sync::Arc::new(
                        ($take)(
                            m.shipping_address,
                            concat!(stringify!($order), ".shipping_address"),
                        )?
                        .into(),
                    ),
                    attributes: crate::model::Attributes(
                        m.attributes.into_iter().map($attr_from).collect(),
                    ),
                    notes: m.notes,
                })
            }
        }

        impl From<&crate::model::Customer> for $customer {
            fn from(c: &crate::model::Customer) -> $customer {
                $customer {
                    id: c.id,
                    first_name: c.first_name.clone(),
                    last_name: c.last_name.clone(),
                    email: c.email.clone(),
                    date_of_birth: c.date_of_birth,
                    vip: c.vip,
                    addresses: c.addresses.iter().map(|a| $address::from(a.as_ref())).collect(),
                    $($rest)*
                }
            }
        }

        impl From<$customer> for crate::model::Customer {
            fn from(m: $customer) -> crate::model::Customer {
                crate::model::Customer {
                    id: m.id,
                    first_name: m.first_name,
                    last_name: m.last_name,
                    email: m.email,
                    date_of_birth: m.date_of_birth,
                    vip: m.vip,
                    addresses: m
                        .addresses
                        .into_iter()
                        .map(|a| std::sync::Arc::new(a.into()))
                        .collect(),
                }
            }
        }

        impl From<&crate::model::Address> for $address {
            fn from(a: &crate::model::Address) -> $address {
                $address {
                    street: a.street.clone(),
                    city: a.city.clone(),
                    zip: a.zip.clone(),
                    country: a.country.clone(),
                    $($rest)*
                }
            }
        }

        impl From<$address> for crate::model::Address {
            fn from(m: $address) -> crate::model::Address {
                crate::model::Address {
                    street: m.street,
                    city: m.city,
                    zip: m.zip,
                    country: m.country,
                }
            }
        }

        impl From<&crate::model::OrderLine> for $line {
            fn from(l: &crate::model::OrderLine) -> $line {
                $line {
                    product: ($some)($product::from(l.product.as_ref())),
                    quantity: l.quantity,
                    unit_price_cents: l.unit_price.cents,
                    discount: l.discount,
                    $($rest)*
                }
            }
        }

        impl TryFrom<$line> for crate::model::OrderLine {
            type Error = serprof_api::CodecError;

            fn try_from(m: $line) -> Result<crate::model::OrderLine, serprof_api::CodecError> {
                let product = ($take)(m.product, concat!(stringify!($line), ".product"))?;
                Ok(crate::model::OrderLine {
                    product: std::sync::Arc::new(product.try_into()?),
                    quantity: m.quantity,
                    unit_price: crate::model::Decimal::from_cents(m.unit_price_cents),
                    discount: m.discount,
                })
            }
        }

        impl From<&crate::model::Product> for $product {
            fn from(p: &crate::model::Product) -> $product {
                $product {
                    sku: p.sku.clone(),
                    name: p.name.clone(),
                    description: p.description.clone(),
                    category: ($some)($category::from(p.category.as_ref())),
                    price_cents: p.price.cents,
                    weight_grams: p.weight_grams,
                    tags: p.tags.0.iter().cloned().collect(),
                    thumbnail: p.thumbnail.0.clone(),
                    $($rest)*
                }
            }
        }

        impl TryFrom<$product> for crate::model::Product {
            type Error = serprof_api::CodecError;

            fn try_from(m: $product) -> Result<crate::model::Product, serprof_api::CodecError> {
                let category = ($take)(m.category, concat!(stringify!($product), ".category"))?;
                Ok(crate::model::Product {
                    sku: m.sku,
                    name: m.name,
                    description: m.description,
                    category: std::sync::Arc::new(category.into()),
                    price: crate::model::Decimal::from_cents(m.price_cents),
                    weight_grams: m.weight_grams,
                    tags: crate::model::Tags(m.tags.into_iter().collect()),
                    thumbnail: crate::model::ByteArray(m.thumbnail),
                })
            }
        }

        impl From<&crate::model::Category> for $category {
            fn from(c: &crate::model::Category) -> $category {
                $category {
                    id: c.id,
                    name: c.name.clone(),
                    parent: ($parent_to)(c.parent.as_deref().map($category::from)),
                    $($rest)*
                }
            }
        }

        impl From<$category> for crate::model::Category {
            fn from(m: $category) -> crate::model::Category {
                let parent: Option<$category> = ($parent_from)(m.parent);
                crate::model::Category {
                    id: m.id,
                    name: m.name,
                    parent: parent.map(|p| std::sync::Arc::new(p.into())),
                }
            }
        }
    };
}

/// The status numbered in the model's declaration order (the mirrors' numbering; prost's and
/// rust-protobuf's enum).
#[cfg(any(feature = "prost", feature = "protobuf"))]
pub(crate) fn status_number(status: crate::model::OrderStatus) -> i32 {
    status as i32
}

/// The status of a number in the model's declaration order; any other number is an error.
#[cfg(any(feature = "prost", feature = "protobuf"))]
pub(crate) fn status_of_number(
    n: i32,
) -> Result<crate::model::OrderStatus, serprof_api::CodecError> {
    usize::try_from(n)
        .ok()
        .and_then(|i| crate::model::OrderStatus::ALL.get(i).copied())
        .ok_or_else(|| serprof_api::CodecError::decode(format_args!("unknown order status {n}")))
}
