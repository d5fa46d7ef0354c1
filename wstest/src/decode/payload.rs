//! The payloads of the five operations on the [`Decoder`]: TestStruct fields and arrays, the
//! TestNode chain (flat, under [`MAX_LIST_NODES`]), Synthetic, GetOrder's request and its Order
//! with Customer, Address and LineItems, and a Fault's body.

use std::borrow::Cow;

use super::{Decoded, Decoder, Item, MAX_LIST_NODES};
use crate::fault::{Fault, FaultCode};
use crate::lexer::{Lexer, Ns, PlainFields, Tag};
use crate::model::{
    Address, Customer, GetOrder, LineItem, Order, Synthetic, TestNodes, TestStruct,
};
use crate::xsd::{parse_base64, parse_float, parse_int};

impl<'i, L: Lexer<'i>> Decoder<'i, L> {
    /// Reads the children of a TestStruct (or TestNode) into `item`, up to the element's end or
    /// its `Next` child, which is returned.
    fn struct_fields(
        &mut self,
        element: &Tag<'i>,
        item: &mut TestStruct<'i>,
    ) -> Decoded<Option<Tag<'i>>> {
        let mut seen = [false; 3];
        let mut next = None;
        // The shortcut for `<i>…</i><f>…</f><s>…</s>` in order, which is nearly every struct;
        // anything else is read below, token by token.
        if !element.empty
            && let Some(fields) = self.lexer.plain_fields()
        {
            *item = Self::plain_struct(fields);
            if self.lexer.leave_element() {
                return Ok(None);
            }
            if self.lexer.enter_wstest_element("Next") {
                return Ok(Some(wstest_tag("Next")));
            }
            seen = [true; 3];
        } else if !element.empty
            && let Some(i) = self.lexer.simple_wstest_element("i")
        {
            item.i = parse_int(&i).ok_or_else(|| self.bad_value("i", &i, "xsd:int"))?;
            seen[0] = true;
            if let Some(f) = self.lexer.simple_wstest_element("f") {
                item.f = Some(parse_float(&f).ok_or_else(|| self.bad_value("f", &f, "xsd:float"))?);
                seen[1] = true;
                if let Some(s) = self.lexer.simple_wstest_element("s") {
                    item.s = Some(s);
                    seen[2] = true;
                    if self.lexer.leave_element() {
                        return Ok(None);
                    }
                    if self.lexer.enter_wstest_element("Next") {
                        return Ok(Some(wstest_tag("Next")));
                    }
                }
            }
        }
        while let Some(child) = self.wstest_child(element)? {
            let slot = match &*child.local {
                "i" => 0,
                "f" => 1,
                "s" => 2,
                "Next" => {
                    next = Some(child);
                    break;
                }
                other => {
                    return Err(self.fault(format!(
                        "{} holds an unexpected element {other}: a TestStruct holds i, f and s",
                        element.local
                    )));
                }
            };
            if std::mem::replace(&mut seen[slot], true) {
                return Err(self.fault(format!("{} holds {} twice", element.local, child.local)));
            }
            match slot {
                0 => item.i = self.int(&child)?,
                1 if child.nil => {
                    self.skip(&child)?;
                    item.f = None;
                }
                1 => item.f = Some(self.float(&child)?),
                _ if child.nil => {
                    self.skip(&child)?;
                    item.s = None;
                }
                _ => item.s = Some(self.text(&child)?),
            }
        }
        if let Some((name, _)) = ["i", "f", "s"].iter().zip(seen).find(|(_, seen)| !seen) {
            return Err(self.fault(format!(
                "{} is missing its required element {name}",
                element.local
            )));
        }
        Ok(next)
    }

    /// At most how many TestStructs the rest of the message can hold, to size their vector
    /// once: growing it by doubling from 32 copied 7 KB on EchoStruct-100 and cost 4% of its
    /// decode (callgrind). Capped, so a long message of something else costs no large vector.
    fn items_left(&self) -> usize {
        /// The fewest bytes a TestStruct takes, `<l><i>0</i><f>0</f><s/></l>`.
        const MIN_ITEM_BYTES: usize = 26;
        let position = usize::try_from(self.lexer.position()).unwrap_or(usize::MAX);
        (self.input_len.saturating_sub(position) / MIN_ITEM_BYTES).clamp(1, 1024)
    }

    /// A TestStruct from the fields a shortcut read.
    #[inline]
    fn plain_struct(fields: PlainFields<'i>) -> TestStruct<'i> {
        TestStruct {
            i: fields.i,
            f: Some(fields.f),
            s: Some(Cow::Borrowed(fields.s)),
        }
    }

    fn test_struct(&mut self, element: &Tag<'i>) -> Decoded<TestStruct<'i>> {
        if element.nil {
            return Err(self.fault(format!("{} is not nillable", element.local)));
        }
        let mut item = TestStruct::default();
        if let Some(next) = self.struct_fields(element, &mut item)? {
            return Err(self.fault(format!(
                "{} holds {}: only a TestNode has Next",
                element.local,
                next.describe()
            )));
        }
        Ok(item)
    }

    /// The single child `name` of an operation element, which must be there.
    pub(super) fn expect_param(&mut self, payload: &Tag<'i>, name: &str) -> Decoded<Tag<'i>> {
        match self.wstest_child(payload)? {
            Some(child) if child.local == name => Ok(child),
            Some(child) => Err(self.fault(format!(
                "{} holds {}, expected {name}",
                payload.local,
                child.describe()
            ))),
            None => Err(self.fault(format!("{} is missing {name}", payload.local))),
        }
    }

    /// The optional single child `name` of an operation element.
    fn optional_param(&mut self, payload: &Tag<'i>, name: &str) -> Decoded<Option<Tag<'i>>> {
        match self.wstest_child(payload)? {
            None => Ok(None),
            Some(child) if child.local == name => Ok(Some(child)),
            Some(child) => Err(self.fault(format!(
                "{} holds {}, expected {name}",
                payload.local,
                child.describe()
            ))),
        }
    }

    /// `EchoStruct/array` or `EchoStructResponse/EchoStructResult`: one or more `l`.
    pub(super) fn struct_array(
        &mut self,
        payload: &Tag<'i>,
        name: &str,
    ) -> Decoded<Vec<TestStruct<'i>>> {
        let array = self.expect_param(payload, name)?;
        if array.nil {
            return Err(self.fault(format!("{name} is not nillable")));
        }
        let mut items = Vec::with_capacity(self.items_left());
        loop {
            // The shortcuts for a plain `<l>`, whole or its start; anything else comes as a
            // token.
            if !array.empty {
                let n_read = self.lexer.plain_structs("l", |fields| {
                    items.push(Self::plain_struct(fields));
                });
                if n_read > 0 {
                    continue;
                }
                if self.lexer.enter_wstest_element("l") {
                    items.push(self.test_struct(&wstest_tag("l"))?);
                    continue;
                }
            }
            let Some(child) = self.wstest_child(&array)? else {
                break;
            };
            if child.local != "l" {
                return Err(self.fault(format!("{name} holds {}, expected l", child.describe())));
            }
            items.push(self.test_struct(&child)?);
        }
        if items.is_empty() {
            return Err(self.fault(format!("{name} must hold at least one l")));
        }
        self.expect_end(payload)?;
        Ok(items)
    }

    /// `EchoList/list` or `EchoListResponse/EchoListResult`: an optional TestNode chain.
    ///
    /// Read with a loop: descend into every `Next` (which must be its node's last child), then
    /// expect one end tag per level.
    pub(super) fn list(&mut self, payload: &Tag<'i>, name: &str) -> Decoded<TestNodes<'i>> {
        let Some(mut node) = self.optional_param(payload, name)? else {
            return Ok(Vec::new());
        };
        let mut nodes = Vec::with_capacity(self.items_left());
        if !node.empty && !node.nil {
            let read = self.lexer.plain_chain(MAX_LIST_NODES, |fields| {
                nodes.push(Self::plain_struct(fields));
            });
            if read {
                self.expect_end(payload)?;
                return Ok(nodes);
            }
            nodes.clear();
        }
        loop {
            if node.nil {
                return Err(self.fault(format!("{} is not nillable", node.local)));
            }
            let mut item = TestStruct::default();
            let next = self.struct_fields(&node, &mut item)?;
            nodes.push(item);
            let Some(next) = next else {
                break;
            };
            if nodes.len() >= MAX_LIST_NODES {
                return Err(self.fault(format!(
                    "the list is longer than {MAX_LIST_NODES} nodes, this service's limit"
                )));
            }
            node = next;
        }
        // The innermost node has closed; each enclosing node must close right after its Next.
        for _ in 1..nodes.len() {
            if self.lexer.leave_element() {
                continue;
            }
            if let Item::Child(child) = self.next_item("TestNode")? {
                return Err(self.fault(format!(
                    "{} follows Next: Next must be the last child of a TestNode",
                    child.describe()
                )));
            }
        }
        self.expect_end(payload)?;
        Ok(nodes)
    }

    /// `EchoSynthetic/synth` or `EchoSyntheticResponse/EchoSyntheticResult`.
    pub(super) fn synthetic(
        &mut self,
        payload: &Tag<'i>,
        name: &str,
    ) -> Decoded<Option<Synthetic<'i>>> {
        let Some(element) = self.optional_param(payload, name)? else {
            return Ok(None);
        };
        if element.nil {
            return Err(self.fault(format!("{name} is not nillable")));
        }
        let mut synth = Synthetic::default();
        let mut rank = 0;
        while let Some(child) = self.wstest_child(&element)? {
            let child_rank = match &*child.local {
                "Strng" => 1,
                "Strct" => 2,
                "Barray" => 3,
                other => {
                    return Err(self.fault(format!(
                        "{name} holds an unexpected element {other}: a Synthetic holds Strng, Strct and Barray"
                    )));
                }
            };
            if child_rank <= rank {
                return Err(self.fault(format!(
                    "{name} holds {} out of order or twice: the order is Strng, Strct, Barray",
                    child.local
                )));
            }
            rank = child_rank;
            match child_rank {
                1 => synth.strng = Some(self.value(&child)?),
                2 => synth.strct = Some(self.test_struct(&child)?),
                _ => {
                    let text = self.value(&child)?;
                    if text.trim_start().starts_with("cid:") {
                        return Err(self.fault(
                            "Barray holds an attachment reference (cid:…), but SOAP with Attachments is not supported: send the bytes inline as base64",
                        ));
                    }
                    let bytes = parse_base64(&text)
                        .ok_or_else(|| self.fault("Barray is not valid xsd:base64Binary"))?;
                    synth.barray = Some(bytes);
                }
            }
        }
        self.expect_end(payload)?;
        Ok(Some(synth))
    }

    pub(super) fn get_order(&mut self, payload: &Tag<'i>) -> Decoded<GetOrder> {
        const NAMES: [&str; 3] = ["orderId", "customerId", "messageSize"];
        let mut params = GetOrder::default();
        let mut seen = [false; 3];
        // The shortcut for the three parameters in schema order, as every client sends them.
        if !payload.empty {
            for (slot, name) in NAMES.iter().enumerate() {
                let Some(text) = self.lexer.simple_wstest_element(name) else {
                    break;
                };
                let value =
                    parse_int(&text).ok_or_else(|| self.bad_value(name, &text, "xsd:int"))?;
                match slot {
                    0 => params.order_id = value,
                    1 => params.customer_id = value,
                    _ => params.message_size = value,
                }
                seen[slot] = true;
            }
        }
        while let Some(child) = self.wstest_child(payload)? {
            let Some(slot) = NAMES.iter().position(|name| *name == child.local) else {
                return Err(self.fault(format!(
                    "GetOrder holds an unexpected element {}: it takes orderId, customerId and messageSize",
                    child.local
                )));
            };
            if std::mem::replace(&mut seen[slot], true) {
                return Err(self.fault(format!("GetOrder holds {} twice", NAMES[slot])));
            }
            let value = self.int(&child)?;
            match slot {
                0 => params.order_id = value,
                1 => params.customer_id = value,
                _ => params.message_size = value,
            }
        }
        if let Some((name, _)) = NAMES.iter().zip(seen).find(|(_, seen)| !seen) {
            return Err(self.fault(format!("GetOrder is missing its required element {name}")));
        }
        params.validate()?;
        Ok(params)
    }

    pub(super) fn fault_body(&mut self, element: &Tag<'i>) -> Decoded<Fault> {
        let mut code = None;
        let mut reason = String::new();
        if !element.empty {
            while let Item::Child(child) = self.next_item("Fault")? {
                match &*child.local {
                    "faultcode" => {
                        let text = self.text(&child)?;
                        let local = text.trim().rsplit(':').next().unwrap_or_default();
                        code = FaultCode::from_local_name(local.split('.').next().unwrap_or(""));
                    }
                    "faultstring" => reason = self.text(&child)?.into_owned(),
                    _ => self.skip(&child)?,
                }
            }
        }
        let code = code.ok_or_else(|| self.fault("the Fault has no known faultcode"))?;
        Ok(Fault { code, reason })
    }

    /// Reads the children of `element` in schema order, calling `read` with each one's index in
    /// `names`: every name exactly once, in order, and nothing else.
    fn sequence(
        &mut self,
        element: &Tag<'i>,
        names: &[&'static str],
        mut read: impl FnMut(&mut Self, usize, &Tag<'i>) -> Decoded<()>,
    ) -> Decoded<()> {
        if element.nil {
            return Err(self.fault(format!("{} is not nillable", element.local)));
        }
        for (idx, name) in names.iter().enumerate() {
            // Shortcuts for plain XML, as our encoder and the SOAP clients write it: a field of
            // text read whole, or a complex one entered without tokenizing its tag. They cut
            // the GetOrder responses' decoding time by half or more (wsperf, decode, interleaved
            // before/after runs on 2026-12-03: getorder20-response 17.6 -> 8.5 µs,
            // getorder100-response 70 -> 31 µs).
            if !element.empty {
                if let Some(text) = self.lexer.simple_wstest_element(name) {
                    let mut field = wstest_tag(name);
                    field.empty = true;
                    field.text = Some(text);
                    read(self, idx, &field)?;
                    continue;
                }
                if self.lexer.enter_wstest_element(name) {
                    read(self, idx, &wstest_tag(name))?;
                    continue;
                }
            }
            match self.wstest_child(element)? {
                Some(child) if child.local == *name => read(self, idx, &child)?,
                Some(child) => {
                    return Err(self.fault(format!(
                        "{} holds {} where {name} was expected",
                        element.local,
                        child.describe()
                    )));
                }
                None => return Err(self.fault(format!("{} is missing {name}", element.local))),
            }
        }
        if !element.empty && self.lexer.leave_element() {
            return Ok(());
        }
        self.expect_end(element)
    }

    pub(super) fn order(&mut self, element: &Tag<'i>) -> Decoded<Order<'i>> {
        const NAMES: [&str; 6] = [
            "OrderId",
            "OrderStatus",
            "OrderDate",
            "OrderTotalAmount",
            "Customer",
            "LineItems",
        ];
        let mut order = Order::default();
        self.sequence(element, &NAMES, |this, idx, child| {
            match idx {
                0 => order.order_id = this.int(child)?,
                1 => order.order_status = this.int(child)?,
                2 => order.order_date = this.date_time(child)?,
                3 => order.order_total_amount = this.float(child)?,
                4 => order.customer = this.customer(child)?,
                _ => order.line_items = this.line_items(child)?,
            }
            Ok(())
        })?;
        Ok(order)
    }

    fn customer(&mut self, element: &Tag<'i>) -> Decoded<Customer<'i>> {
        const NAMES: [&str; 9] = [
            "CustomerId",
            "ContactFirstName",
            "ContactLastName",
            "ContactPhone",
            "LastActivityDate",
            "CreditCardNumber",
            "CreditCardExpirationDate",
            "BillingAddress",
            "ShippingAddress",
        ];
        let mut customer = Customer::default();
        self.sequence(element, &NAMES, |this, idx, child| {
            match idx {
                0 => customer.customer_id = this.int(child)?,
                1 => customer.contact_first_name = this.value(child)?,
                2 => customer.contact_last_name = this.value(child)?,
                3 => customer.contact_phone = this.value(child)?,
                4 => customer.last_activity_date = this.date_time(child)?,
                5 => customer.credit_card_number = this.value(child)?,
                6 => customer.credit_card_expiration_date = this.value(child)?,
                7 => customer.billing_address = this.address(child)?,
                _ => customer.shipping_address = this.address(child)?,
            }
            Ok(())
        })?;
        Ok(customer)
    }

    fn address(&mut self, element: &Tag<'i>) -> Decoded<Address<'i>> {
        const NAMES: [&str; 7] = [
            "FirstName",
            "LastName",
            "Address1",
            "Address2",
            "City",
            "State",
            "Zip",
        ];
        let mut address = Address::default();
        self.sequence(element, &NAMES, |this, idx, child| {
            let value = this.value(child)?;
            match idx {
                0 => address.first_name = value,
                1 => address.last_name = value,
                2 => address.address1 = value,
                3 => address.address2 = value,
                4 => address.city = value,
                5 => address.state = value,
                _ => address.zip = value,
            }
            Ok(())
        })?;
        Ok(address)
    }

    fn line_items(&mut self, element: &Tag<'i>) -> Decoded<Vec<Option<LineItem<'i>>>> {
        const NAMES: [&str; 6] = [
            "OrderId",
            "ItemId",
            "ProductId",
            "ProductDescription",
            "OrderQuantity",
            "UnitPrice",
        ];
        if element.nil {
            return Err(self.fault("LineItems is not nillable"));
        }
        let mut items = Vec::new();
        loop {
            let child = if !element.empty && self.lexer.enter_wstest_element("LineItem") {
                wstest_tag("LineItem")
            } else {
                match self.wstest_child(element)? {
                    Some(child) => child,
                    None => break,
                }
            };
            if child.local != "LineItem" {
                return Err(self.fault(format!(
                    "LineItems holds {}, expected LineItem",
                    child.describe()
                )));
            }
            if child.nil {
                self.skip(&child)?;
                items.push(None);
                continue;
            }
            let mut item = LineItem::default();
            self.sequence(&child, &NAMES, |this, idx, field| {
                match idx {
                    0 => item.order_id = this.int(field)?,
                    1 => item.item_id = this.int(field)?,
                    2 => item.product_id = this.int(field)?,
                    3 => item.product_description = this.value(field)?,
                    4 => item.order_quantity = this.int(field)?,
                    _ => item.unit_price = this.float(field)?,
                }
                Ok(())
            })?;
            items.push(Some(item));
        }
        Ok(items)
    }
}

/// The tag of a plain WSTest element the lexer entered by a shortcut.
fn wstest_tag(local: &'static str) -> Tag<'static> {
    Tag {
        local: Cow::Borrowed(local),
        ns: Ns::WsTest,
        empty: false,
        nil: false,
        must_understand: false,
        text: None,
    }
}
