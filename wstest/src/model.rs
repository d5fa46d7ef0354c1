//! The WSTest data model, named after the elements of `wstest.xsd`.
//!
//! Strings are `Cow<'a, str>` so that a decoded request borrows its text from the request body
//! and allocates only where an entity reference had to be resolved.

use std::borrow::Cow;

/// `TestStruct`: an int, a nillable float and a nillable string.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TestStruct<'a> {
    /// `i`: xsd:int.
    pub i: i32,
    /// `f`: xsd:float, `None` when sent as `xsi:nil="true"`.
    pub f: Option<f32>,
    /// `s`: xsd:string, `None` when sent as `xsi:nil="true"`.
    pub s: Option<Cow<'a, str>>,
}

/// A chain of `TestNode`s, stored flat.
///
/// On the wire each `TestNode` nests the next one inside its `Next` element, so a list of N nodes
/// is N levels deep.
/// Storing the chain as a vector (`nodes[k + 1]` is the `Next` of `nodes[k]`) keeps decoding,
/// encoding and dropping free of recursion, whatever the depth.
/// An empty chain is an absent `list` (the element is optional and not nillable).
pub type TestNodes<'a> = Vec<TestStruct<'a>>;

/// `Synthetic`: three optional members; an absent member stays absent on the echo.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Synthetic<'a> {
    /// `Strng`.
    pub strng: Option<Cow<'a, str>>,
    /// `Strct`.
    pub strct: Option<TestStruct<'a>>,
    /// `Barray`: xsd:base64Binary, decoded.
    pub barray: Option<Vec<u8>>,
}

/// The parameters of a `GetOrder` request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GetOrder {
    /// `orderId`.
    pub order_id: i32,
    /// `customerId`.
    pub customer_id: i32,
    /// `messageSize`: how many line items the order holds.
    pub message_size: i32,
}

/// `Address`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Address<'a> {
    pub first_name: Cow<'a, str>,
    pub last_name: Cow<'a, str>,
    pub address1: Cow<'a, str>,
    pub address2: Cow<'a, str>,
    pub city: Cow<'a, str>,
    pub state: Cow<'a, str>,
    pub zip: Cow<'a, str>,
}

/// `Customer`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Customer<'a> {
    pub customer_id: i32,
    pub contact_first_name: Cow<'a, str>,
    pub contact_last_name: Cow<'a, str>,
    pub contact_phone: Cow<'a, str>,
    pub last_activity_date: DateTime,
    pub credit_card_number: Cow<'a, str>,
    /// Not a date in the schema: an xsd:string such as `12/12/2012`.
    pub credit_card_expiration_date: Cow<'a, str>,
    pub billing_address: Address<'a>,
    pub shipping_address: Address<'a>,
}

/// `LineItem`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LineItem<'a> {
    pub order_id: i32,
    pub item_id: i32,
    pub product_id: i32,
    pub product_description: Cow<'a, str>,
    pub order_quantity: i32,
    pub unit_price: f32,
}

/// `Order`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Order<'a> {
    pub order_id: i32,
    pub order_status: i32,
    pub order_date: DateTime,
    pub order_total_amount: f32,
    pub customer: Customer<'a>,
    /// `LineItems`: a `LineItem` may be sent as `xsi:nil="true"`, kept here as `None`.
    pub line_items: Vec<Option<LineItem<'a>>>,
}

/// An instant as milliseconds since the Unix epoch, in UTC.
///
/// xsd:dateTime values are written in UTC with a `Z`; values read with an offset are converted to
/// UTC, and digits past the millisecond are dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
pub struct DateTime {
    pub unix_millis: i64,
}
