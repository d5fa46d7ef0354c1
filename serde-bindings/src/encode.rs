//! Encoding through serde: the model, borrowed, in the shapes the WSTest messages have on the
//! wire, written by quick-xml's or serde-xml-rs's serializer. Element names that depend on the
//! message (the operation, its parameter) are keys given at run time, which serde allows for
//! `&'static str`s.

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};
use wstest::envelope::{NS_SOAP11, NS_WSTEST, NS_XSI};
use wstest::fault::Fault;
use wstest::model::{Address, Customer, LineItem, Order, Synthetic, TestStruct};
use wstest::operation::{Request, Response};

use crate::decode::Library;
use crate::values::{Base64Out, Float, Instant, Int, NilOut, StrOut};

/// A message to write.
#[derive(Clone, Copy)]
pub(crate) enum Message<'r, 'a> {
    Request(&'r Request<'a>),
    Response(&'r Response<'a>),
}

/// Appends the envelope of `message` to `out`, written by `library`.
pub(crate) fn encode(library: Library, message: Message<'_, '_>, out: &mut Vec<u8>) {
    let at = out.len();
    let envelope = Envelope(message);
    let written = match library {
        Library::QuickXml => quick_xml::se::to_utf8_io_writer(&mut *out, &envelope)
            .map(drop)
            .map_err(|error| error.to_string()),
        Library::XmlRs => serde_xml_rs::SerdeXml::new()
            .emitter(xml::EmitterConfig::new().write_document_declaration(false))
            .to_writer(&mut *out, &envelope)
            .map_err(|error| error.to_string()),
    };
    if let Err(error) = written {
        // The shapes are fixed and every name is valid, so this does not happen; were it to,
        // the client gets a Server fault rather than half a message.
        out.truncate(at);
        Fault::server(format!("the serializer failed: {error}")).encode(out);
    }
}

struct Envelope<'r, 'a>(Message<'r, 'a>);

impl Serialize for Envelope<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut envelope = serializer.serialize_struct("soap:Envelope", 3)?;
        envelope.serialize_field("@xmlns:soap", NS_SOAP11)?;
        envelope.serialize_field("@xmlns:xsi", NS_XSI)?;
        envelope.serialize_field("soap:Body", &Body(self.0))?;
        envelope.end()
    }
}

struct Body<'r, 'a>(Message<'r, 'a>);

impl Serialize for Body<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let element = match self.0 {
            Message::Request(request) => request.operation().name(),
            Message::Response(response) => response.operation().response_element(),
        };
        let mut body = serializer.serialize_struct("soap:Body", 1)?;
        body.serialize_field(element, &Payload(self.0))?;
        body.end()
    }
}

/// The operation's element: its namespace and its parameter.
struct Payload<'r, 'a>(Message<'r, 'a>);

impl Serialize for Payload<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut payload = serializer.serialize_struct("payload", 4)?;
        payload.serialize_field("@xmlns", NS_WSTEST)?;
        match self.0 {
            Message::Request(request) => match request {
                Request::EchoVoid => {}
                Request::EchoStruct(items) => payload.serialize_field("array", &Structs(items))?,
                Request::EchoList(nodes) => nodes_field(&mut payload, "list", nodes)?,
                Request::EchoSynthetic(synth) => {
                    synthetic_field(&mut payload, "synth", synth.as_ref())?;
                }
                Request::GetOrder(params) => {
                    payload.serialize_field("orderId", &Int(params.order_id))?;
                    payload.serialize_field("customerId", &Int(params.customer_id))?;
                    payload.serialize_field("messageSize", &Int(params.message_size))?;
                }
            },
            Message::Response(response) => match response {
                Response::EchoVoid => {}
                Response::EchoStruct(items) => {
                    payload.serialize_field("EchoStructResult", &Structs(items))?;
                }
                Response::EchoList(nodes) => nodes_field(&mut payload, "EchoListResult", nodes)?,
                Response::EchoSynthetic(synth) => {
                    synthetic_field(&mut payload, "EchoSyntheticResult", synth.as_ref())?;
                }
                Response::GetOrder(order) => {
                    payload.serialize_field("GetOrderResult", &OrderOut(order))?;
                }
            },
        }
        payload.end()
    }
}

fn nodes_field<S: SerializeStruct>(
    payload: &mut S,
    name: &'static str,
    nodes: &[TestStruct<'_>],
) -> Result<(), S::Error> {
    if nodes.is_empty() {
        return Ok(());
    }
    payload.serialize_field(name, &Nodes(nodes))
}

fn synthetic_field<S: SerializeStruct>(
    payload: &mut S,
    name: &'static str,
    synth: Option<&Synthetic<'_>>,
) -> Result<(), S::Error> {
    match synth {
        Some(synth) => payload.serialize_field(name, &SynthOut(synth)),
        None => Ok(()),
    }
}

/// An `ArrayOfTestStruct`: one `l` per item.
struct Structs<'r, 'a>(&'r [TestStruct<'a>]);

impl Serialize for Structs<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut array = serializer.serialize_struct("array", 1)?;
        let items: Vec<Struct<'_, '_>> = self.0.iter().map(Struct).collect();
        array.serialize_field("l", &items)?;
        array.end()
    }
}

struct Struct<'r, 'a>(&'r TestStruct<'a>);

impl Serialize for Struct<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut item = serializer.serialize_struct("TestStruct", 3)?;
        struct_fields(&mut item, self.0)?;
        item.end()
    }
}

fn struct_fields<S: SerializeStruct>(item: &mut S, value: &TestStruct<'_>) -> Result<(), S::Error> {
    item.serialize_field("i", &Int(value.i))?;
    item.serialize_field("f", &NilOut(value.f.map(Float)))?;
    item.serialize_field("s", &NilOut(value.s.as_deref().map(StrOut)))
}

/// A `TestNode` chain: each node holds the next in `Next`. serde recurses once per node, so
/// the stack grows on demand.
struct Nodes<'r, 'a>(&'r [TestStruct<'a>]);

impl Serialize for Nodes<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            let Some((first, rest)) = self.0.split_first() else {
                return serializer.serialize_unit();
            };
            let mut node = serializer.serialize_struct("TestNode", 4)?;
            struct_fields(&mut node, first)?;
            if !rest.is_empty() {
                node.serialize_field("Next", &Nodes(rest))?;
            }
            node.end()
        })
    }
}

struct SynthOut<'r, 'a>(&'r Synthetic<'a>);

impl Serialize for SynthOut<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let synth = self.0;
        let mut out = serializer.serialize_struct("Synthetic", 3)?;
        if let Some(strng) = &synth.strng {
            out.serialize_field("Strng", &StrOut(strng))?;
        }
        if let Some(strct) = &synth.strct {
            out.serialize_field("Strct", &Struct(strct))?;
        }
        if let Some(barray) = &synth.barray {
            out.serialize_field("Barray", &Base64Out(barray))?;
        }
        out.end()
    }
}

struct OrderOut<'r, 'a>(&'r Order<'a>);

impl Serialize for OrderOut<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let order = self.0;
        let mut out = serializer.serialize_struct("Order", 6)?;
        out.serialize_field("OrderId", &Int(order.order_id))?;
        out.serialize_field("OrderStatus", &Int(order.order_status))?;
        out.serialize_field("OrderDate", &Instant(order.order_date))?;
        out.serialize_field("OrderTotalAmount", &Float(order.order_total_amount))?;
        out.serialize_field("Customer", &CustomerOut(&order.customer))?;
        out.serialize_field("LineItems", &LineItems(&order.line_items))?;
        out.end()
    }
}

struct CustomerOut<'r, 'a>(&'r Customer<'a>);

impl Serialize for CustomerOut<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let c = self.0;
        let mut out = serializer.serialize_struct("Customer", 9)?;
        out.serialize_field("CustomerId", &Int(c.customer_id))?;
        out.serialize_field("ContactFirstName", &StrOut(&c.contact_first_name))?;
        out.serialize_field("ContactLastName", &StrOut(&c.contact_last_name))?;
        out.serialize_field("ContactPhone", &StrOut(&c.contact_phone))?;
        out.serialize_field("LastActivityDate", &Instant(c.last_activity_date))?;
        out.serialize_field("CreditCardNumber", &StrOut(&c.credit_card_number))?;
        out.serialize_field(
            "CreditCardExpirationDate",
            &StrOut(&c.credit_card_expiration_date),
        )?;
        out.serialize_field("BillingAddress", &AddressOut(&c.billing_address))?;
        out.serialize_field("ShippingAddress", &AddressOut(&c.shipping_address))?;
        out.end()
    }
}

struct AddressOut<'r, 'a>(&'r Address<'a>);

impl Serialize for AddressOut<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let mut out = serializer.serialize_struct("Address", 7)?;
        out.serialize_field("FirstName", &StrOut(&a.first_name))?;
        out.serialize_field("LastName", &StrOut(&a.last_name))?;
        out.serialize_field("Address1", &StrOut(&a.address1))?;
        out.serialize_field("Address2", &StrOut(&a.address2))?;
        out.serialize_field("City", &StrOut(&a.city))?;
        out.serialize_field("State", &StrOut(&a.state))?;
        out.serialize_field("Zip", &StrOut(&a.zip))?;
        out.end()
    }
}

struct LineItems<'r, 'a>(&'r [Option<LineItem<'a>>]);

impl Serialize for LineItems<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let items: Vec<NilOut<LineItemOut<'_, '_>>> = self
            .0
            .iter()
            .map(|item| NilOut(item.as_ref().map(LineItemOut)))
            .collect();
        let mut out = serializer.serialize_struct("LineItems", 1)?;
        out.serialize_field("LineItem", &items)?;
        out.end()
    }
}

struct LineItemOut<'r, 'a>(&'r LineItem<'a>);

impl Serialize for LineItemOut<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let item = self.0;
        let mut out = serializer.serialize_struct("LineItem", 6)?;
        out.serialize_field("OrderId", &Int(item.order_id))?;
        out.serialize_field("ItemId", &Int(item.item_id))?;
        out.serialize_field("ProductId", &Int(item.product_id))?;
        out.serialize_field("ProductDescription", &StrOut(&item.product_description))?;
        out.serialize_field("OrderQuantity", &Int(item.order_quantity))?;
        out.serialize_field("UnitPrice", &Float(item.unit_price))?;
        out.end()
    }
}
