// The shapes of the WSTest messages as serde reads them, written once and included twice: in
// `crate::decode::quick` with `Nillable<T> = NilOption<T>` (quick-xml reads `xsi:nil` itself) and
// in `crate::decode::xml_rs` with `Nillable<T> = NilElement<T>`. Each name is given as quick-xml
// matches it (local names; `$value`, `$text`) and as serde-xml-rs does (names as written, with
// the prefixes that `crate::envelope` makes canonical; `#content`, `#text`).

#[derive(Deserialize)]
pub(crate) struct Envelope<'a> {
    #[serde(rename = "soap:Body", alias = "Body", borrow)]
    body: Body<'a>,
}

#[derive(Deserialize)]
struct Body<'a> {
    #[serde(rename = "$value", alias = "#content", borrow)]
    message: Message<'a>,
}

// Built once per message and moved out at once, as wstest's `Response`.
#[allow(clippy::large_enum_variant)]
#[derive(Deserialize)]
enum Message<'a> {
    EchoVoid {},
    EchoStruct {
        #[serde(borrow)]
        array: Structs<'a>,
    },
    EchoList {
        #[serde(borrow, default)]
        list: Option<Node<'a>>,
    },
    EchoSynthetic {
        #[serde(borrow, default)]
        synth: Option<Synth<'a>>,
    },
    GetOrder {
        #[serde(rename = "orderId")]
        order_id: Int,
        #[serde(rename = "customerId")]
        customer_id: Int,
        #[serde(rename = "messageSize")]
        message_size: Int,
    },
    EchoVoidResponse {},
    EchoStructResponse {
        #[serde(rename = "EchoStructResult", borrow)]
        result: Structs<'a>,
    },
    EchoListResponse {
        #[serde(rename = "EchoListResult", borrow, default)]
        result: Option<Node<'a>>,
    },
    EchoSyntheticResponse {
        #[serde(rename = "EchoSyntheticResult", borrow, default)]
        result: Option<Synth<'a>>,
    },
    GetOrderResponse {
        #[serde(rename = "GetOrderResult", borrow)]
        result: Order<'a>,
    },
    #[serde(rename = "soap:Fault", alias = "Fault")]
    Fault {
        faultcode: String,
        faultstring: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Structs<'a> {
    #[serde(borrow, default)]
    l: Vec<Struct<'a>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Struct<'a> {
    i: Int,
    #[serde(default = "NilValue::missing")]
    f: Nillable<Float>,
    #[serde(borrow, default = "NilValue::missing")]
    s: Nillable<Str<'a>>,
}

/// A `TestNode`: the struct's fields and the next node inside it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Node<'a> {
    i: Int,
    #[serde(default = "NilValue::missing")]
    f: Nillable<Float>,
    #[serde(borrow, default = "NilValue::missing")]
    s: Nillable<Str<'a>>,
    #[serde(rename = "Next", borrow, default)]
    next: Option<Box<Node<'a>>>,
}

impl Drop for Node<'_> {
    /// Unlinks the chain node by node: the default drop recurses once per node, and a long
    /// chain would overflow the stack.
    fn drop(&mut self) {
        let mut next = self.next.take();
        while let Some(mut node) = next {
            next = node.next.take();
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Synth<'a> {
    #[serde(rename = "Strng", borrow, default)]
    strng: Option<Str<'a>>,
    #[serde(rename = "Strct", borrow, default)]
    strct: Option<Struct<'a>>,
    #[serde(rename = "Barray", default)]
    barray: Option<Base64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Order<'a> {
    #[serde(rename = "OrderId")]
    order_id: Int,
    #[serde(rename = "OrderStatus")]
    order_status: Int,
    #[serde(rename = "OrderDate")]
    order_date: Instant,
    #[serde(rename = "OrderTotalAmount")]
    order_total_amount: Float,
    #[serde(rename = "Customer", borrow)]
    customer: Customer<'a>,
    #[serde(rename = "LineItems", borrow)]
    line_items: LineItems<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Customer<'a> {
    #[serde(rename = "CustomerId")]
    customer_id: Int,
    #[serde(rename = "ContactFirstName", borrow)]
    contact_first_name: Str<'a>,
    #[serde(rename = "ContactLastName", borrow)]
    contact_last_name: Str<'a>,
    #[serde(rename = "ContactPhone", borrow)]
    contact_phone: Str<'a>,
    #[serde(rename = "LastActivityDate")]
    last_activity_date: Instant,
    #[serde(rename = "CreditCardNumber", borrow)]
    credit_card_number: Str<'a>,
    #[serde(rename = "CreditCardExpirationDate", borrow)]
    credit_card_expiration_date: Str<'a>,
    #[serde(rename = "BillingAddress", borrow)]
    billing_address: Address<'a>,
    #[serde(rename = "ShippingAddress", borrow)]
    shipping_address: Address<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Address<'a> {
    #[serde(rename = "FirstName", borrow)]
    first_name: Str<'a>,
    #[serde(rename = "LastName", borrow)]
    last_name: Str<'a>,
    #[serde(rename = "Address1", borrow)]
    address1: Str<'a>,
    #[serde(rename = "Address2", borrow)]
    address2: Str<'a>,
    #[serde(rename = "City", borrow)]
    city: Str<'a>,
    #[serde(rename = "State", borrow)]
    state: Str<'a>,
    #[serde(rename = "Zip", borrow)]
    zip: Str<'a>,
}

#[derive(Deserialize)]
struct LineItems<'a> {
    #[serde(rename = "$value", alias = "#content", borrow, default)]
    items: Vec<LineItem<'a>>,
}

/// A `LineItem`, which may be nil: its nil attribute and its fields side by side, since neither
/// library reads a nil complex element into an `Option` inside a sequence alike.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineItem<'a> {
    #[serde(rename = "@xsi:nil", alias = "@nil", default)]
    nil: Option<String>,
    #[serde(rename = "OrderId", default)]
    order_id: Option<Int>,
    #[serde(rename = "ItemId", default)]
    item_id: Option<Int>,
    #[serde(rename = "ProductId", default)]
    product_id: Option<Int>,
    #[serde(rename = "ProductDescription", borrow, default)]
    product_description: Option<Str<'a>>,
    #[serde(rename = "OrderQuantity", default)]
    order_quantity: Option<Int>,
    #[serde(rename = "UnitPrice", default)]
    unit_price: Option<Float>,
}

impl<'a> Envelope<'a> {
    /// The model of the message, as ours decodes it.
    pub(crate) fn into_model(self) -> Result<Decoded<'a>, String> {
        Ok(match self.body.message {
            Message::EchoVoid {} => Decoded::Request(Request::EchoVoid),
            Message::EchoStruct { array } => Decoded::Request(Request::EchoStruct(structs(array)?)),
            Message::EchoList { list } => Decoded::Request(Request::EchoList(nodes(list)?)),
            Message::EchoSynthetic { synth } => {
                Decoded::Request(Request::EchoSynthetic(synth.map(synthetic).transpose()?))
            }
            Message::GetOrder {
                order_id,
                customer_id,
                message_size,
            } => {
                let params = model::GetOrder {
                    order_id: order_id.0,
                    customer_id: customer_id.0,
                    message_size: message_size.0,
                };
                // The same bounds as ours: an order is built from this size.
                params.validate().map_err(|fault| fault.reason)?;
                Decoded::Request(Request::GetOrder(params))
            }
            Message::EchoVoidResponse {} => Decoded::Response(Reply::Response(Response::EchoVoid)),
            Message::EchoStructResponse { result } => {
                Decoded::Response(Reply::Response(Response::EchoStruct(structs(result)?)))
            }
            Message::EchoListResponse { result } => {
                Decoded::Response(Reply::Response(Response::EchoList(nodes(result)?)))
            }
            Message::EchoSyntheticResponse { result } => Decoded::Response(Reply::Response(
                Response::EchoSynthetic(result.map(synthetic).transpose()?),
            )),
            Message::GetOrderResponse { result } => {
                Decoded::Response(Reply::Response(Response::GetOrder(order(result)?)))
            }
            Message::Fault {
                faultcode,
                faultstring,
            } => {
                let local = faultcode.rsplit(':').next().unwrap_or_default();
                let code = FaultCode::from_local_name(local)
                    .ok_or_else(|| format!("unknown faultcode {faultcode:?}"))?;
                Decoded::Response(Reply::Fault(Fault {
                    code,
                    reason: faultstring,
                }))
            }
        })
    }
}

fn structs(array: Structs<'_>) -> Result<Vec<TestStruct<'_>>, String> {
    if array.l.is_empty() {
        return Err("an array must hold at least one l".to_owned());
    }
    array.l.into_iter().map(test_struct).collect()
}

fn test_struct(item: Struct<'_>) -> Result<TestStruct<'_>, String> {
    Ok(TestStruct {
        i: item.i.0,
        f: item.f.into_value().map_err(|e| format!("f: {e}"))?.map(|f| f.0),
        s: item.s.into_value().map_err(|e| format!("s: {e}"))?.map(|s| s.0),
    })
}

/// The chain, flattened node by node.
fn nodes(list: Option<Node<'_>>) -> Result<TestNodes<'_>, String> {
    let mut flat = Vec::new();
    let mut next = list.map(Box::new);
    while let Some(mut node) = next {
        if flat.len() == MAX_LIST_NODES {
            return Err(format!("more than {MAX_LIST_NODES} list nodes"));
        }
        next = node.next.take();
        // The fields move out; the emptied node drops at once, with nothing after it.
        let i = node.i.0;
        let f = std::mem::replace(&mut node.f, NilValue::none());
        let s = std::mem::replace(&mut node.s, NilValue::none());
        flat.push(TestStruct {
            i,
            f: f.into_value().map_err(|e| format!("f: {e}"))?.map(|f| f.0),
            s: s.into_value().map_err(|e| format!("s: {e}"))?.map(|s| s.0),
        });
    }
    Ok(flat)
}

fn synthetic(synth: Synth<'_>) -> Result<Synthetic<'_>, String> {
    Ok(Synthetic {
        strng: synth.strng.map(|s| s.0),
        strct: synth.strct.map(test_struct).transpose()?,
        barray: synth.barray.map(|b| b.0),
    })
}

fn order(order: Order<'_>) -> Result<model::Order<'_>, String> {
    let line_items = order
        .line_items
        .items
        .into_iter()
        .map(line_item)
        .collect::<Result<_, _>>()?;
    Ok(model::Order {
        order_id: order.order_id.0,
        order_status: order.order_status.0,
        order_date: order.order_date.0,
        order_total_amount: order.order_total_amount.0,
        customer: customer(order.customer),
        line_items,
    })
}

fn customer(c: Customer<'_>) -> model::Customer<'_> {
    model::Customer {
        customer_id: c.customer_id.0,
        contact_first_name: c.contact_first_name.0,
        contact_last_name: c.contact_last_name.0,
        contact_phone: c.contact_phone.0,
        last_activity_date: c.last_activity_date.0,
        credit_card_number: c.credit_card_number.0,
        credit_card_expiration_date: c.credit_card_expiration_date.0,
        billing_address: address(c.billing_address),
        shipping_address: address(c.shipping_address),
    }
}

fn address(a: Address<'_>) -> model::Address<'_> {
    model::Address {
        first_name: a.first_name.0,
        last_name: a.last_name.0,
        address1: a.address1.0,
        address2: a.address2.0,
        city: a.city.0,
        state: a.state.0,
        zip: a.zip.0,
    }
}

fn line_item(item: LineItem<'_>) -> Result<Option<model::LineItem<'_>>, String> {
    if item.nil.as_deref().and_then(xsd::parse_boolean) == Some(true) {
        return Ok(None);
    }
    let missing = |name: &str| format!("LineItem without {name}");
    Ok(Some(model::LineItem {
        order_id: item.order_id.ok_or_else(|| missing("OrderId"))?.0,
        item_id: item.item_id.ok_or_else(|| missing("ItemId"))?.0,
        product_id: item.product_id.ok_or_else(|| missing("ProductId"))?.0,
        product_description: item
            .product_description
            .ok_or_else(|| missing("ProductDescription"))?
            .0,
        order_quantity: item.order_quantity.ok_or_else(|| missing("OrderQuantity"))?.0,
        unit_price: item.unit_price.ok_or_else(|| missing("UnitPrice"))?.0,
    }))
}
