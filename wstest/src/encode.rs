//! The encoder: writes requests and responses straight into one `Vec<u8>`.
//!
//! Element names are byte literals and values are formatted in place (itoa, ryu, base64), so a
//! response costs a handful of `memcpy`s per element and no intermediate strings.

use crate::envelope::{ENVELOPE_CLOSE, ENVELOPE_OPEN, XMLNS_WSTEST};
use crate::escape::{ESCAPED_MAX, write_text};
use crate::model::{Address, Customer, DateTime, GetOrder, LineItem, Order, Synthetic, TestStruct};
use crate::operation::{Operation, Request, Response};
use crate::sink::{Sink, fill, finish};
use crate::xsd::{
    format_float, push_base64, push_date_time, push_float, push_int, put_float, put_int,
};

/// Appends the SOAP 1.1 envelope of a request to `out`.
pub fn encode_request(request: &Request<'_>, out: &mut Vec<u8>) {
    let op = request.operation();
    open_payload(out, op.name());
    match request {
        Request::EchoVoid => {}
        Request::EchoStruct(items) => write_structs(out, b"array", items),
        Request::EchoList(nodes) => write_nodes(out, b"list", nodes),
        Request::EchoSynthetic(synth) => write_synthetic(out, b"synth", synth.as_ref()),
        Request::GetOrder(params) => {
            write_int(out, b"orderId", params.order_id);
            write_int(out, b"customerId", params.customer_id);
            write_int(out, b"messageSize", params.message_size);
        }
    }
    close_payload(out, op.name());
}

/// Appends the SOAP 1.1 envelope of a response to `out`.
pub fn encode_response(response: &Response<'_>, out: &mut Vec<u8>) {
    out.reserve(estimated_len(response));
    let op = response.operation();
    open_payload(out, op.response_element());
    match response {
        Response::EchoVoid => {}
        Response::EchoStruct(items) => write_structs(out, b"EchoStructResult", items),
        Response::EchoList(nodes) => write_nodes(out, b"EchoListResult", nodes),
        Response::EchoSynthetic(synth) => {
            write_synthetic(out, b"EchoSyntheticResult", synth.as_ref());
        }
        Response::GetOrder(order) => write_order(out, b"GetOrderResult", order),
    }
    close_payload(out, op.response_element());
}

/// Writes the GetOrder response for `params` at `now` straight from the generator's data, without
/// building the [`crate::model::Order`] value: the same bytes as
/// `encode_response(&Response::GetOrder(params.generate(now, ..)))`, which a test checks, at a
/// fraction of the cost.
/// Every value is still computed from the request: the ids are formatted and every line item is
/// written anew on each call.
pub fn encode_get_order_response(params: &GetOrder, now: DateTime, out: &mut Vec<u8>) {
    use crate::operation::order_data::*;
    let n_items = params.message_size.max(0) as usize;
    out.reserve(1_500 + n_items * 240);
    open_payload(out, Operation::GetOrder.response_element());
    let mut order_id_buf = itoa::Buffer::new();
    let order_id = order_id_buf.format(params.order_id).as_bytes();
    let mut customer_id_buf = itoa::Buffer::new();
    let id = customer_id_buf.format(params.customer_id).as_bytes();
    let mut date = Vec::with_capacity(32);
    push_date_time(&mut date, now);
    let id_text = |out: &mut Vec<u8>, open: &[u8], prefix: &str, close: &[u8]| {
        out.extend_from_slice(open);
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(id);
        out.extend_from_slice(close);
    };

    out.extend_from_slice(b"<GetOrderResult><OrderId>");
    out.extend_from_slice(order_id);
    out.extend_from_slice(b"</OrderId>");
    write_int(out, b"OrderStatus", ORDER_STATUS);
    out.extend_from_slice(b"<OrderDate>");
    out.extend_from_slice(&date);
    out.extend_from_slice(b"</OrderDate>");
    write_float(out, b"OrderTotalAmount", ORDER_TOTAL_AMOUNT);
    out.extend_from_slice(b"<Customer><CustomerId>");
    out.extend_from_slice(id);
    out.extend_from_slice(b"</CustomerId>");
    id_text(
        out,
        b"<ContactFirstName>",
        CONTACT_FIRST_NAME,
        b"</ContactFirstName>",
    );
    id_text(
        out,
        b"<ContactLastName>",
        CONTACT_LAST_NAME,
        b"</ContactLastName>",
    );
    write_str(out, b"ContactPhone", CONTACT_PHONE);
    out.extend_from_slice(b"<LastActivityDate>");
    out.extend_from_slice(&date);
    out.extend_from_slice(b"</LastActivityDate>");
    write_str(out, b"CreditCardNumber", CREDIT_CARD_NUMBER);
    write_str(
        out,
        b"CreditCardExpirationDate",
        CREDIT_CARD_EXPIRATION_DATE,
    );
    for (name, prefixes) in [
        (&b"BillingAddress"[..], BILLING),
        (&b"ShippingAddress"[..], SHIPPING),
    ] {
        start(out, name);
        for (element, prefix) in ADDRESS_ELEMENTS.iter().zip(prefixes) {
            id_text(out, element.0, prefix, element.1);
        }
        write_str(out, b"Zip", ZIP);
        end(out, name);
    }
    out.extend_from_slice(b"</Customer><LineItems>");
    let mut quantity_buf = itoa::Buffer::new();
    let quantity = quantity_buf.format(ORDER_QUANTITY).as_bytes();
    let mut price_buf = ryu::Buffer::new();
    let price = format_float(&mut price_buf, UNIT_PRICE).as_bytes();
    let mut item_id_buf = itoa::Buffer::new();
    for idx in 0..n_items {
        let item_id = item_id_buf.format(idx + 1).as_bytes();
        out.extend_from_slice(b"<LineItem><OrderId>");
        out.extend_from_slice(order_id);
        out.extend_from_slice(b"</OrderId><ItemId>");
        out.extend_from_slice(item_id);
        out.extend_from_slice(b"</ItemId><ProductId>");
        out.extend_from_slice(item_id);
        out.extend_from_slice(b"</ProductId><ProductDescription>");
        out.extend_from_slice(PRODUCT_DESCRIPTION.as_bytes());
        out.extend_from_slice(id);
        out.extend_from_slice(b"</ProductDescription><OrderQuantity>");
        out.extend_from_slice(quantity);
        out.extend_from_slice(b"</OrderQuantity><UnitPrice>");
        out.extend_from_slice(price);
        out.extend_from_slice(b"</UnitPrice></LineItem>");
    }
    out.extend_from_slice(b"</LineItems></GetOrderResult>");
    close_payload(out, Operation::GetOrder.response_element());
}

/// The open and close tags of an Address's first six elements.
const ADDRESS_ELEMENTS: [(&[u8], &[u8]); 6] = [
    (b"<FirstName>", b"</FirstName>"),
    (b"<LastName>", b"</LastName>"),
    (b"<Address1>", b"</Address1>"),
    (b"<Address2>", b"</Address2>"),
    (b"<City>", b"</City>"),
    (b"<State>", b"</State>"),
];

/// About how many bytes a response will take, so that it is written without regrowing.
fn estimated_len(response: &Response<'_>) -> usize {
    let text = |s: &Option<std::borrow::Cow<'_, str>>| s.as_ref().map_or(0, |s| s.len());
    let structs = |items: &[TestStruct<'_>]| -> usize { items.iter().map(struct_room).sum() };
    ENVELOPE_OPEN.len()
        + ENVELOPE_CLOSE.len()
        + 128
        + match response {
            Response::EchoVoid => 0,
            Response::EchoStruct(items) | Response::EchoList(items) => structs(items),
            Response::EchoSynthetic(synth) => synth.as_ref().map_or(0, |synth| {
                128 + text(&synth.strng) + synth.barray.as_ref().map_or(0, |b| b.len() / 3 * 4 + 4)
            }),
            Response::GetOrder(order) => 1_500 + order.line_items.len() * 240,
        }
}

fn open_payload(out: &mut Vec<u8>, name: &str) {
    out.extend_from_slice(ENVELOPE_OPEN);
    out.push(b'<');
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(XMLNS_WSTEST);
    out.push(b'>');
}

fn close_payload(out: &mut Vec<u8>, name: &str) {
    end(out, name.as_bytes());
    out.extend_from_slice(ENVELOPE_CLOSE);
}

/// The most bytes one TestStruct of an echo takes beside its text's: every literal the writers
/// below may put for it, the longest xsd:int (11) and the longest float text (ryu's buffer, 24).
const STRUCT_MARKUP_MAX: usize = b"<l></l><Next>".len()
    + b"<i></i><f xsi:nil=\"true\"/><f></f><s xsi:nil=\"true\"/><s></s>".len()
    + 11
    + 24;

/// The room a TestStruct of an echo may take, text escaped at its longest included.
fn struct_room(item: &TestStruct<'_>) -> usize {
    STRUCT_MARKUP_MAX + item.s.as_ref().map_or(0, |s| s.len() * ESCAPED_MAX)
}

/// The echoes' items, each written into room made for it once ([`fill`]): measured with
/// callgrind on EchoStruct-100's answer (wsperf's encode), appending each piece to the `Vec`
/// took 296 instructions an item.
fn write_structs(out: &mut Vec<u8>, name: &[u8], items: &[TestStruct<'_>]) {
    start(out, name);
    let mut at = out.len();
    for item in items {
        fill(out, &mut at, struct_room(item), |slots| {
            write_struct_fields(slots, b"<l><i>", item, b"</l>");
        });
    }
    finish(out, at);
    end(out, name);
}

/// Writes a `TestNode` chain: every node opens, then nests the next one in `Next`, and all close
/// together at the end. A loop, not recursion, whatever the depth.
fn write_nodes(out: &mut Vec<u8>, name: &[u8], nodes: &[TestStruct<'_>]) {
    if nodes.is_empty() {
        return;
    }
    start(out, name);
    let mut at = out.len();
    for (idx, node) in nodes.iter().enumerate() {
        fill(out, &mut at, struct_room(node), |slots| {
            if idx == 0 {
                write_struct_fields(slots, b"<i>", node, b"");
            } else {
                write_struct_fields(slots, b"<Next><i>", node, b"");
            }
        });
    }
    finish(out, at);
    // All the nodes close together: in runs of up to sixteen end tags per copy.
    const CLOSE_16: &[u8] = b"</Next></Next></Next></Next></Next></Next></Next></Next></Next></Next></Next></Next></Next></Next></Next></Next>";
    let mut n_open = nodes.len() - 1;
    while n_open > 0 {
        let n_closed = n_open.min(16);
        out.extend_from_slice(&CLOSE_16[..n_closed * b"</Next>".len()]);
        n_open -= n_closed;
    }
    end(out, name);
}

fn write_struct(out: &mut Vec<u8>, name: &[u8], item: &TestStruct<'_>) {
    start(out, name);
    write_struct_fields(out, b"<i>", item, b"");
    end(out, name);
}

/// The hottest writer of the echoes: a TestStruct's fields after `open` (a literal that ends
/// with `<i>`) and before `close`, adjacent tags written as one literal.
#[inline(always)]
fn write_struct_fields(out: &mut impl Sink, open: &[u8], item: &TestStruct<'_>, close: &[u8]) {
    out.put_slice(open);
    put_int(out, item.i);
    match item.f {
        Some(f) => {
            out.put(*b"</i><f>");
            put_float(out, f);
            out.put(*b"</f>");
        }
        None => out.put(*b"</i><f xsi:nil=\"true\"/>"),
    }
    match &item.s {
        Some(s) => {
            out.put(*b"<s>");
            write_text(out, s);
            out.put(*b"</s>");
        }
        None => out.put(*b"<s xsi:nil=\"true\"/>"),
    }
    out.put_slice(close);
}

fn write_synthetic(out: &mut Vec<u8>, name: &[u8], synth: Option<&Synthetic<'_>>) {
    let Some(synth) = synth else {
        return;
    };
    start(out, name);
    if let Some(strng) = &synth.strng {
        write_str(out, b"Strng", strng);
    }
    if let Some(strct) = &synth.strct {
        write_struct(out, b"Strct", strct);
    }
    if let Some(barray) = &synth.barray {
        start(out, b"Barray");
        push_base64(out, barray);
        end(out, b"Barray");
    }
    end(out, name);
}

fn write_order(out: &mut Vec<u8>, name: &[u8], order: &Order<'_>) {
    start(out, name);
    write_int(out, b"OrderId", order.order_id);
    write_int(out, b"OrderStatus", order.order_status);
    write_date_time(out, b"OrderDate", order.order_date);
    write_float(out, b"OrderTotalAmount", order.order_total_amount);
    write_customer(out, &order.customer);
    start(out, b"LineItems");
    for item in &order.line_items {
        match item {
            Some(item) => write_line_item(out, item),
            None => write_nil(out, b"LineItem"),
        }
    }
    end(out, b"LineItems");
    end(out, name);
}

fn write_customer(out: &mut Vec<u8>, customer: &Customer<'_>) {
    start(out, b"Customer");
    write_int(out, b"CustomerId", customer.customer_id);
    write_str(out, b"ContactFirstName", &customer.contact_first_name);
    write_str(out, b"ContactLastName", &customer.contact_last_name);
    write_str(out, b"ContactPhone", &customer.contact_phone);
    write_date_time(out, b"LastActivityDate", customer.last_activity_date);
    write_str(out, b"CreditCardNumber", &customer.credit_card_number);
    write_str(
        out,
        b"CreditCardExpirationDate",
        &customer.credit_card_expiration_date,
    );
    write_address(out, b"BillingAddress", &customer.billing_address);
    write_address(out, b"ShippingAddress", &customer.shipping_address);
    end(out, b"Customer");
}

fn write_address(out: &mut Vec<u8>, name: &[u8], address: &Address<'_>) {
    start(out, name);
    write_str(out, b"FirstName", &address.first_name);
    write_str(out, b"LastName", &address.last_name);
    write_str(out, b"Address1", &address.address1);
    write_str(out, b"Address2", &address.address2);
    write_str(out, b"City", &address.city);
    write_str(out, b"State", &address.state);
    write_str(out, b"Zip", &address.zip);
    end(out, name);
}

fn write_line_item(out: &mut Vec<u8>, item: &LineItem<'_>) {
    start(out, b"LineItem");
    write_int(out, b"OrderId", item.order_id);
    write_int(out, b"ItemId", item.item_id);
    write_int(out, b"ProductId", item.product_id);
    write_str(out, b"ProductDescription", &item.product_description);
    write_int(out, b"OrderQuantity", item.order_quantity);
    write_float(out, b"UnitPrice", item.unit_price);
    end(out, b"LineItem");
}

#[inline]
fn start(out: &mut Vec<u8>, name: &[u8]) {
    out.push(b'<');
    out.extend_from_slice(name);
    out.push(b'>');
}

#[inline]
fn end(out: &mut Vec<u8>, name: &[u8]) {
    out.extend_from_slice(b"</");
    out.extend_from_slice(name);
    out.push(b'>');
}

fn write_nil(out: &mut Vec<u8>, name: &[u8]) {
    out.push(b'<');
    out.extend_from_slice(name);
    out.extend_from_slice(b" xsi:nil=\"true\"/>");
}

fn write_int(out: &mut Vec<u8>, name: &[u8], value: i32) {
    start(out, name);
    push_int(out, value);
    end(out, name);
}

fn write_float(out: &mut Vec<u8>, name: &[u8], value: f32) {
    start(out, name);
    push_float(out, value);
    end(out, name);
}

fn write_str(out: &mut Vec<u8>, name: &[u8], value: &str) {
    start(out, name);
    write_text(out, value);
    end(out, name);
}

fn write_date_time(out: &mut Vec<u8>, name: &[u8], value: DateTime) {
    start(out, name);
    push_date_time(out, value);
    end(out, name);
}
