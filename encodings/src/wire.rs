//! The WSTest data as a Rust team would derive serde on it for JSON, MessagePack and Avro: one
//! payload per operation (what the SOAP Body holds), field names as the schema writes them,
//! strings and bytes borrowed from the input wherever the format allows.
//!
//! The operation travels out of band, as SOAPAction does for XML, so each payload shape has its
//! own Avro schema. A `TestNode` chain is a flat array here: the natural shape of a list in these
//! formats, where XML must nest it.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use wstest::model::{self, DateTime};
use wstest::operation::{Operation, Request, Response};

use crate::message::{Kind, Message};

/// Which payload a message carries, and so which schema reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Void,
    /// EchoStruct's array or EchoList's chain.
    Structs,
    Synthetic,
    GetOrder,
    Order,
}

impl Shape {
    pub const ALL: [Shape; 5] = [
        Shape::Void,
        Shape::Structs,
        Shape::Synthetic,
        Shape::GetOrder,
        Shape::Order,
    ];

    pub fn of(kind: Kind) -> Shape {
        match (kind.operation, kind.response) {
            (Operation::EchoVoid, _) => Shape::Void,
            (Operation::EchoStruct | Operation::EchoList, _) => Shape::Structs,
            (Operation::EchoSynthetic, _) => Shape::Synthetic,
            (Operation::GetOrder, false) => Shape::GetOrder,
            (Operation::GetOrder, true) => Shape::Order,
        }
    }

    /// The Avro schema of this payload. Each record is written out in full where it is used
    /// (the shipping address is a record of its own name rather than a reference to
    /// `Address`): apache-avro's direct serializer, its fast path, does not resolve references.
    pub fn avro_schema(self) -> String {
        const TEST_STRUCT: &str = r#"{"type": "record", "name": "TestStruct", "fields": [
            {"name": "i", "type": "int"},
            {"name": "f", "type": ["null", "float"]},
            {"name": "s", "type": ["null", "string"]}]}"#;
        match self {
            Shape::Void => r#""null""#.to_owned(),
            Shape::Structs => format!(r#"{{"type": "array", "items": {TEST_STRUCT}}}"#),
            Shape::Synthetic => format!(
                r#"["null", {{"type": "record", "name": "Synthetic", "fields": [
                    {{"name": "Strng", "type": ["null", "string"]}},
                    {{"name": "Strct", "type": ["null", {TEST_STRUCT}]}},
                    {{"name": "Barray", "type": ["null", "bytes"]}}]}}]"#
            ),
            Shape::GetOrder => r#"{"type": "record", "name": "GetOrder", "fields": [
                {"name": "orderId", "type": "int"},
                {"name": "customerId", "type": "int"},
                {"name": "messageSize", "type": "int"}]}"#
                .to_owned(),
            Shape::Order => {
                let address = [
                    "FirstName",
                    "LastName",
                    "Address1",
                    "Address2",
                    "City",
                    "State",
                    "Zip",
                ]
                .map(|name| format!(r#"{{"name": "{name}", "type": "string"}}"#))
                .join(", ");
                format!(
                    r#"{{"type": "record", "name": "Order", "fields": [
                    {{"name": "OrderId", "type": "int"}},
                    {{"name": "OrderStatus", "type": "int"}},
                    {{"name": "OrderDate", "type": "long"}},
                    {{"name": "OrderTotalAmount", "type": "float"}},
                    {{"name": "Customer", "type": {{"type": "record", "name": "Customer", "fields": [
                        {{"name": "CustomerId", "type": "int"}},
                        {{"name": "ContactFirstName", "type": "string"}},
                        {{"name": "ContactLastName", "type": "string"}},
                        {{"name": "ContactPhone", "type": "string"}},
                        {{"name": "LastActivityDate", "type": "long"}},
                        {{"name": "CreditCardNumber", "type": "string"}},
                        {{"name": "CreditCardExpirationDate", "type": "string"}},
                        {{"name": "BillingAddress", "type": {{"type": "record", "name": "Address",
                            "fields": [{address}]}}}},
                        {{"name": "ShippingAddress", "type": {{"type": "record",
                            "name": "ShippingAddress", "fields": [{address}]}}}}]}}}},
                    {{"name": "LineItems", "type": {{"type": "array", "items": ["null",
                        {{"type": "record", "name": "LineItem", "fields": [
                        {{"name": "OrderId", "type": "int"}},
                        {{"name": "ItemId", "type": "int"}},
                        {{"name": "ProductId", "type": "int"}},
                        {{"name": "ProductDescription", "type": "string"}},
                        {{"name": "OrderQuantity", "type": "int"}},
                        {{"name": "UnitPrice", "type": "float"}}]}}]}}}}]}}"#
                )
            }
        }
    }
}

/// A string that borrows from the input when the format hands it over unescaped (serde's own
/// `Cow<str>` always copies).
#[derive(Debug, Clone, PartialEq)]
pub struct Text<'a>(pub Cow<'a, str>);

impl Serialize for Text<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Text<'de>;
            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(text)))
            }
            fn visit_str<E>(self, text: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E>(self, text: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(text)))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

fn text(text: &str) -> Text<'_> {
    Text(Cow::Borrowed(text))
}

#[derive(Debug, Serialize, Deserialize)]
pub struct TestStruct<'a> {
    i: i32,
    f: Option<f32>,
    #[serde(borrow)]
    s: Option<Text<'a>>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Synthetic<'a> {
    #[serde(rename = "Strng", borrow)]
    strng: Option<Text<'a>>,
    #[serde(rename = "Strct", borrow)]
    strct: Option<TestStruct<'a>>,
    #[serde(rename = "Barray", with = "serde_bytes", borrow)]
    barray: Option<Cow<'a, [u8]>>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetOrder {
    order_id: i32,
    customer_id: i32,
    message_size: i32,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Address<'a> {
    #[serde(borrow)]
    first_name: Text<'a>,
    #[serde(borrow)]
    last_name: Text<'a>,
    #[serde(rename = "Address1", borrow)]
    address1: Text<'a>,
    #[serde(rename = "Address2", borrow)]
    address2: Text<'a>,
    #[serde(borrow)]
    city: Text<'a>,
    #[serde(borrow)]
    state: Text<'a>,
    #[serde(borrow)]
    zip: Text<'a>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Customer<'a> {
    customer_id: i32,
    #[serde(borrow)]
    contact_first_name: Text<'a>,
    #[serde(borrow)]
    contact_last_name: Text<'a>,
    #[serde(borrow)]
    contact_phone: Text<'a>,
    /// Milliseconds since the Unix epoch.
    last_activity_date: i64,
    #[serde(borrow)]
    credit_card_number: Text<'a>,
    #[serde(borrow)]
    credit_card_expiration_date: Text<'a>,
    #[serde(borrow)]
    billing_address: Address<'a>,
    #[serde(borrow)]
    shipping_address: Address<'a>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct LineItem<'a> {
    order_id: i32,
    item_id: i32,
    product_id: i32,
    #[serde(borrow)]
    product_description: Text<'a>,
    order_quantity: i32,
    unit_price: f32,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Order<'a> {
    order_id: i32,
    order_status: i32,
    /// Milliseconds since the Unix epoch.
    order_date: i64,
    order_total_amount: f32,
    #[serde(borrow)]
    customer: Customer<'a>,
    #[serde(borrow)]
    line_items: Vec<Option<LineItem<'a>>>,
}

/// One message's payload, borrowing from the model it was made from or the bytes it was read
/// from.
#[derive(Debug)]
pub enum Payload<'a> {
    Void,
    Structs(Vec<TestStruct<'a>>),
    Synthetic(Option<Synthetic<'a>>),
    GetOrder(GetOrder),
    Order(Box<Order<'a>>),
}

/// A format's serializer, for any payload type.
pub trait Ser {
    type Error;
    fn ser<T: Serialize>(&mut self, value: &T) -> Result<(), Self::Error>;
}

/// A format's deserializer over one input, for any payload type.
pub trait De<'a> {
    type Error;
    fn de<T: Deserialize<'a>>(self) -> Result<T, Self::Error>;
}

impl<'a> Payload<'a> {
    /// Reads a payload of `shape`.
    pub fn read<D: De<'a>>(shape: Shape, de: D) -> Result<Payload<'a>, D::Error> {
        Ok(match shape {
            Shape::Void => {
                de.de::<()>()?;
                Payload::Void
            }
            Shape::Structs => Payload::Structs(de.de()?),
            Shape::Synthetic => Payload::Synthetic(de.de()?),
            Shape::GetOrder => Payload::GetOrder(de.de()?),
            Shape::Order => Payload::Order(de.de()?),
        })
    }

    /// The shape this payload has, and so the schema that writes it.
    pub fn shape(&self) -> Shape {
        match self {
            Payload::Void => Shape::Void,
            Payload::Structs(_) => Shape::Structs,
            Payload::Synthetic(_) => Shape::Synthetic,
            Payload::GetOrder(_) => Shape::GetOrder,
            Payload::Order(_) => Shape::Order,
        }
    }

    pub fn write<S: Ser>(&self, ser: &mut S) -> Result<(), S::Error> {
        match self {
            Payload::Void => ser.ser(&()),
            Payload::Structs(items) => ser.ser(items),
            Payload::Synthetic(synth) => ser.ser(synth),
            Payload::GetOrder(params) => ser.ser(params),
            Payload::Order(order) => ser.ser(order),
        }
    }

    /// The payload of `message`, borrowing its strings and bytes.
    pub fn of<'m>(message: &'a Message<'m>) -> Payload<'a> {
        match message {
            Message::Request(Request::EchoVoid) | Message::Response(Response::EchoVoid) => {
                Payload::Void
            }
            Message::Request(Request::EchoStruct(items) | Request::EchoList(items))
            | Message::Response(Response::EchoStruct(items) | Response::EchoList(items)) => {
                Payload::Structs(items.iter().map(TestStruct::of).collect())
            }
            Message::Request(Request::EchoSynthetic(synth))
            | Message::Response(Response::EchoSynthetic(synth)) => {
                Payload::Synthetic(synth.as_ref().map(|synth| Synthetic {
                    strng: synth.strng.as_deref().map(text),
                    strct: synth.strct.as_ref().map(TestStruct::of),
                    barray: synth.barray.as_deref().map(Cow::Borrowed),
                }))
            }
            Message::Request(Request::GetOrder(params)) => Payload::GetOrder(GetOrder {
                order_id: params.order_id,
                customer_id: params.customer_id,
                message_size: params.message_size,
            }),
            Message::Response(Response::GetOrder(order)) => Payload::Order(Box::new(Order {
                order_id: order.order_id,
                order_status: order.order_status,
                order_date: order.order_date.unix_millis,
                order_total_amount: order.order_total_amount,
                customer: Customer::of(&order.customer),
                line_items: order
                    .line_items
                    .iter()
                    .map(|item| item.as_ref().map(LineItem::of))
                    .collect(),
            })),
        }
    }

    /// The model this payload stands for, as the message of `kind`.
    pub fn into_message(self, kind: Kind) -> Message<'a> {
        let op = kind.operation;
        match (self, kind.response) {
            (Payload::Void, false) => Message::Request(Request::EchoVoid),
            (Payload::Void, true) => Message::Response(Response::EchoVoid),
            (Payload::Structs(items), response) => {
                let items: Vec<_> = items.into_iter().map(TestStruct::into_model).collect();
                match (op, response) {
                    (Operation::EchoList, false) => Message::Request(Request::EchoList(items)),
                    (Operation::EchoList, true) => Message::Response(Response::EchoList(items)),
                    (_, false) => Message::Request(Request::EchoStruct(items)),
                    (_, true) => Message::Response(Response::EchoStruct(items)),
                }
            }
            (Payload::Synthetic(synth), response) => {
                let synth = synth.map(|synth| model::Synthetic {
                    strng: synth.strng.map(|text| text.0),
                    strct: synth.strct.map(TestStruct::into_model),
                    barray: synth.barray.map(Cow::into_owned),
                });
                if response {
                    Message::Response(Response::EchoSynthetic(synth))
                } else {
                    Message::Request(Request::EchoSynthetic(synth))
                }
            }
            (Payload::GetOrder(params), _) => {
                Message::Request(Request::GetOrder(model::GetOrder {
                    order_id: params.order_id,
                    customer_id: params.customer_id,
                    message_size: params.message_size,
                }))
            }
            (Payload::Order(order), _) => Message::Response(Response::GetOrder(order.into_model())),
        }
    }
}

impl<'a> TestStruct<'a> {
    fn of(item: &'a model::TestStruct<'_>) -> TestStruct<'a> {
        TestStruct {
            i: item.i,
            f: item.f,
            s: item.s.as_deref().map(text),
        }
    }

    fn into_model(self) -> model::TestStruct<'a> {
        model::TestStruct {
            i: self.i,
            f: self.f,
            s: self.s.map(|text| text.0),
        }
    }
}

impl<'a> Address<'a> {
    fn of(address: &'a model::Address<'_>) -> Address<'a> {
        Address {
            first_name: text(&address.first_name),
            last_name: text(&address.last_name),
            address1: text(&address.address1),
            address2: text(&address.address2),
            city: text(&address.city),
            state: text(&address.state),
            zip: text(&address.zip),
        }
    }

    fn into_model(self) -> model::Address<'a> {
        model::Address {
            first_name: self.first_name.0,
            last_name: self.last_name.0,
            address1: self.address1.0,
            address2: self.address2.0,
            city: self.city.0,
            state: self.state.0,
            zip: self.zip.0,
        }
    }
}

impl<'a> Customer<'a> {
    fn of(customer: &'a model::Customer<'_>) -> Customer<'a> {
        Customer {
            customer_id: customer.customer_id,
            contact_first_name: text(&customer.contact_first_name),
            contact_last_name: text(&customer.contact_last_name),
            contact_phone: text(&customer.contact_phone),
            last_activity_date: customer.last_activity_date.unix_millis,
            credit_card_number: text(&customer.credit_card_number),
            credit_card_expiration_date: text(&customer.credit_card_expiration_date),
            billing_address: Address::of(&customer.billing_address),
            shipping_address: Address::of(&customer.shipping_address),
        }
    }

    fn into_model(self) -> model::Customer<'a> {
        model::Customer {
            customer_id: self.customer_id,
            contact_first_name: self.contact_first_name.0,
            contact_last_name: self.contact_last_name.0,
            contact_phone: self.contact_phone.0,
            last_activity_date: DateTime {
                unix_millis: self.last_activity_date,
            },
            credit_card_number: self.credit_card_number.0,
            credit_card_expiration_date: self.credit_card_expiration_date.0,
            billing_address: self.billing_address.into_model(),
            shipping_address: self.shipping_address.into_model(),
        }
    }
}

impl<'a> LineItem<'a> {
    fn of(item: &'a model::LineItem<'_>) -> LineItem<'a> {
        LineItem {
            order_id: item.order_id,
            item_id: item.item_id,
            product_id: item.product_id,
            product_description: text(&item.product_description),
            order_quantity: item.order_quantity,
            unit_price: item.unit_price,
        }
    }

    fn into_model(self) -> model::LineItem<'a> {
        model::LineItem {
            order_id: self.order_id,
            item_id: self.item_id,
            product_id: self.product_id,
            product_description: self.product_description.0,
            order_quantity: self.order_quantity,
            unit_price: self.unit_price,
        }
    }
}

impl<'a> Order<'a> {
    fn into_model(self) -> model::Order<'a> {
        model::Order {
            order_id: self.order_id,
            order_status: self.order_status,
            order_date: DateTime {
                unix_millis: self.order_date,
            },
            order_total_amount: self.order_total_amount,
            customer: self.customer.into_model(),
            line_items: self
                .line_items
                .into_iter()
                .map(|item| item.map(LineItem::into_model))
                .collect(),
        }
    }
}
