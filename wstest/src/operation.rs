//! The five WSTest operations: their names and SOAPActions, the messages they carry, and what the
//! service answers.

use crate::envelope::NS_WSTEST;
use std::borrow::Cow;

use crate::fault::Fault;
use crate::model::{
    Address, Customer, DateTime, GetOrder, LineItem, Order, Synthetic, TestNodes, TestStruct,
};

/// The operations of the `TestServiceSoap` port type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    EchoVoid,
    EchoStruct,
    EchoList,
    EchoSynthetic,
    GetOrder,
}

/// The largest `messageSize` GetOrder accepts.
///
/// A GetOrder response grows by about 200 bytes per line item, so this caps one response at about
/// 20 MB; larger values are answered with a Client fault instead of exhausting memory.
pub const MAX_MESSAGE_SIZE: i32 = 100_000;

impl Operation {
    /// Every operation, in the order of the WSDL's port type.
    pub const ALL: [Operation; 5] = [
        Operation::EchoVoid,
        Operation::EchoStruct,
        Operation::EchoList,
        Operation::EchoSynthetic,
        Operation::GetOrder,
    ];

    /// The operation's name, which is also its request element's local name.
    pub fn name(self) -> &'static str {
        match self {
            Operation::EchoVoid => "EchoVoid",
            Operation::EchoStruct => "EchoStruct",
            Operation::EchoList => "EchoList",
            Operation::EchoSynthetic => "EchoSynthetic",
            Operation::GetOrder => "GetOrder",
        }
    }

    /// The response element's local name.
    pub fn response_element(self) -> &'static str {
        match self {
            Operation::EchoVoid => "EchoVoidResponse",
            Operation::EchoStruct => "EchoStructResponse",
            Operation::EchoList => "EchoListResponse",
            Operation::EchoSynthetic => "EchoSyntheticResponse",
            Operation::GetOrder => "GetOrderResponse",
        }
    }

    /// The SOAPAction of the WSDL binding, unquoted: `uri:WSTestWeb-TestService/<Operation>`.
    pub fn soap_action(self) -> &'static str {
        match self {
            Operation::EchoVoid => "uri:WSTestWeb-TestService/EchoVoid",
            Operation::EchoStruct => "uri:WSTestWeb-TestService/EchoStruct",
            Operation::EchoList => "uri:WSTestWeb-TestService/EchoList",
            Operation::EchoSynthetic => "uri:WSTestWeb-TestService/EchoSynthetic",
            Operation::GetOrder => "uri:WSTestWeb-TestService/GetOrder",
        }
    }

    /// Looks an operation up by its request element's local name.
    pub fn from_name(name: &str) -> Option<Operation> {
        Operation::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Looks an operation up by its response element's local name.
    pub fn from_response_element(name: &str) -> Option<Operation> {
        Operation::ALL
            .into_iter()
            .find(|op| op.response_element() == name)
    }

    /// Reads a SOAPAction header value.
    ///
    /// Returns `Ok(None)` for an empty action (`""`, which SOAP 1.1 allows to mean "the body says"),
    /// and a Client fault for an action that names no WSTest operation.
    pub fn from_soap_action(value: &[u8]) -> Result<Option<Operation>, Fault> {
        let trimmed = value.trim_ascii();
        let unquoted = trimmed
            .strip_prefix(b"\"")
            .and_then(|v| v.strip_suffix(b"\""))
            .unwrap_or(trimmed)
            .trim_ascii();
        if unquoted.is_empty() {
            return Ok(None);
        }
        let op = unquoted
            .strip_prefix(NS_WSTEST.as_bytes())
            .and_then(|rest| rest.strip_prefix(b"/"))
            .and_then(|name| std::str::from_utf8(name).ok())
            .and_then(Operation::from_name);
        match op {
            Some(op) => Ok(Some(op)),
            None => Err(Fault::client(format!(
                "unknown SOAPAction {:?}: expected \"{NS_WSTEST}/<Operation>\" with one of EchoVoid, EchoStruct, EchoList, EchoSynthetic, GetOrder",
                String::from_utf8_lossy(value)
            ))),
        }
    }
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The content of a request's `Body`.
#[derive(Debug, Clone, PartialEq)]
pub enum Request<'a> {
    EchoVoid,
    /// `EchoStruct/array`: one or more `l`.
    EchoStruct(Vec<TestStruct<'a>>),
    /// `EchoList/list`: the node chain, empty when `list` is absent.
    EchoList(TestNodes<'a>),
    /// `EchoSynthetic/synth`, `None` when absent.
    EchoSynthetic(Option<Synthetic<'a>>),
    GetOrder(GetOrder),
}

/// The content of a response's `Body`.
// A response is built once per request and never stored in bulk, so boxing the large GetOrder
// variant would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Response<'a> {
    EchoVoid,
    /// `EchoStructResponse/EchoStructResult`.
    EchoStruct(Vec<TestStruct<'a>>),
    /// `EchoListResponse/EchoListResult`, empty when absent.
    EchoList(TestNodes<'a>),
    /// `EchoSyntheticResponse/EchoSyntheticResult`, `None` when absent.
    EchoSynthetic(Option<Synthetic<'a>>),
    /// `GetOrderResponse/GetOrderResult`.
    GetOrder(Order<'a>),
}

impl Request<'_> {
    /// Which operation this request calls.
    pub fn operation(&self) -> Operation {
        match self {
            Request::EchoVoid => Operation::EchoVoid,
            Request::EchoStruct(_) => Operation::EchoStruct,
            Request::EchoList(_) => Operation::EchoList,
            Request::EchoSynthetic(_) => Operation::EchoSynthetic,
            Request::GetOrder(_) => Operation::GetOrder,
        }
    }
}

impl Response<'_> {
    /// Which operation this response answers.
    pub fn operation(&self) -> Operation {
        match self {
            Response::EchoVoid => Operation::EchoVoid,
            Response::EchoStruct(_) => Operation::EchoStruct,
            Response::EchoList(_) => Operation::EchoList,
            Response::EchoSynthetic(_) => Operation::EchoSynthetic,
            Response::GetOrder(_) => Operation::GetOrder,
        }
    }
}

/// The constant parts of a generated order, shared by [`GetOrder::generate`] and the encoder's
/// direct GetOrder writer, which a test holds to the same bytes.
pub(crate) mod order_data {
    pub(crate) const ORDER_STATUS: i32 = 1;
    pub(crate) const ORDER_TOTAL_AMOUNT: f32 = 50.0;
    pub(crate) const CONTACT_PHONE: &str = "425-882-8080";
    pub(crate) const CREDIT_CARD_NUMBER: &str = "892374389740";
    pub(crate) const CREDIT_CARD_EXPIRATION_DATE: &str = "12/12/2012";
    pub(crate) const ZIP: &str = "12345";
    pub(crate) const ORDER_QUANTITY: i32 = 1;
    pub(crate) const UNIT_PRICE: f32 = 5.0;
    /// Prefixes of the texts that end with the customer id, in Customer's schema order.
    pub(crate) const CONTACT_FIRST_NAME: &str = "FirstName ";
    pub(crate) const CONTACT_LAST_NAME: &str = "LastName ";
    pub(crate) const PRODUCT_DESCRIPTION: &str = "Test Product ";
    /// Address prefixes: FirstName, LastName, Address1, Address2, City, State.
    /// "Bil1" is the original generator's typo, kept so responses match other WSTest servers.
    pub(crate) const BILLING: [&str; 6] = [
        "Bill FirstName ",
        "Bil1 LastName ",
        "Bill StreetAddress ",
        "Street Address Line 2 ",
        "City ",
        "State ",
    ];
    pub(crate) const SHIPPING: [&str; 6] = [
        "Ship FirstName ",
        "Ship LastName ",
        "Ship StreetAddress ",
        "Street Address Line 2 ",
        "City ",
        "State ",
    ];
}

impl GetOrder {
    /// Checks `messageSize` against the documented bounds.
    pub fn validate(&self) -> Result<(), Fault> {
        if !(0..=MAX_MESSAGE_SIZE).contains(&self.message_size) {
            return Err(Fault::client(format!(
                "GetOrder/messageSize is {}: it must be between 0 and {MAX_MESSAGE_SIZE}",
                self.message_size
            )));
        }
        Ok(())
    }

    /// The text every line item carries: `Test Product {customerId}`.
    pub fn product_description(&self) -> String {
        format!("{}{}", order_data::PRODUCT_DESCRIPTION, self.customer_id)
    }

    /// Builds the order WSTest's `OrderBL.getOrder` builds: `messageSize` line items, constant
    /// customer data derived from `customerId` (the original's "Bil1" typo included), and `now` as
    /// both the order date and the customer's last activity.
    ///
    /// The line items borrow `product_description` (see [`GetOrder::product_description`]), so a
    /// large order costs one string, not one per item.
    /// The server does not build this value: the encoder writes the same bytes directly from
    /// the request.
    pub fn generate<'a>(&self, now: DateTime, product_description: &'a str) -> Order<'a> {
        use order_data::*;
        let id = self.customer_id;
        let address = |prefixes: [&str; 6]| {
            let [first_name, last_name, address1, address2, city, state] =
                prefixes.map(|prefix| Cow::Owned(format!("{prefix}{id}")));
            Address {
                first_name,
                last_name,
                address1,
                address2,
                city,
                state,
                zip: ZIP.into(),
            }
        };
        let line_items = (0..self.message_size.max(0))
            .map(|idx| {
                Some(LineItem {
                    order_id: self.order_id,
                    item_id: idx + 1,
                    product_id: idx + 1,
                    product_description: product_description.into(),
                    order_quantity: ORDER_QUANTITY,
                    unit_price: UNIT_PRICE,
                })
            })
            .collect();
        Order {
            order_id: self.order_id,
            order_status: ORDER_STATUS,
            order_date: now,
            order_total_amount: ORDER_TOTAL_AMOUNT,
            customer: Customer {
                customer_id: id,
                contact_first_name: format!("{CONTACT_FIRST_NAME}{id}").into(),
                contact_last_name: format!("{CONTACT_LAST_NAME}{id}").into(),
                contact_phone: CONTACT_PHONE.into(),
                last_activity_date: now,
                credit_card_number: CREDIT_CARD_NUMBER.into(),
                credit_card_expiration_date: CREDIT_CARD_EXPIRATION_DATE.into(),
                billing_address: address(BILLING),
                shipping_address: address(SHIPPING),
            },
            line_items,
        }
    }
}
