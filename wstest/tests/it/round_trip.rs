//! decode(encode(x)) == x over generated values: nils, empty and white-space strings, markup
//! characters, non-ASCII text, carriage returns, extreme floats and integers.

use std::borrow::Cow;

use testkit::Rng;
use wstest::decode::{LexerChoice, decode_request_with};
use wstest::model::{Address, Customer, GetOrder, LineItem, Order, Synthetic, TestStruct};
use wstest::{DateTime, Reply, Request, Response};

/// Generated WSTest values over a deterministic generator, so failures reproduce.
struct Gen(Rng);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.below(n)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        self.0.pick(items)
    }

    fn int(&mut self) -> i32 {
        match self.below(4) {
            0 => self.pick(&[0, 1, -1, i32::MIN, i32::MAX]),
            _ => self.next() as i32,
        }
    }

    fn float(&mut self) -> f32 {
        match self.below(3) {
            0 => self.pick(&[
                0.0,
                -0.0,
                1.0,
                0.1,
                f32::MAX,
                f32::MIN,
                f32::MIN_POSITIVE,
                1e-45,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
            ]),
            _ => {
                let value = f32::from_bits(self.next() as u32);
                if value.is_nan() { 2.5 } else { value }
            }
        }
    }

    fn text(&mut self) -> Cow<'static, str> {
        const PIECES: &[&str] = &[
            "",
            " ",
            "wstest",
            "<&>",
            "\"'",
            "]]>",
            "é",
            "中文",
            "🎉",
            "\r\n",
            "\r",
            "\t",
            "a\nb",
            "  padded  ",
            "&amp;",
            "<!-- -->",
            "x:y",
            "\u{FFFD}",
        ];
        let n = self.below(4);
        Cow::Owned((0..n).map(|_| self.pick(PIECES)).collect())
    }

    fn test_struct(&mut self) -> TestStruct<'static> {
        TestStruct {
            i: self.int(),
            f: (self.below(4) != 0).then(|| self.float()),
            s: (self.below(4) != 0).then(|| self.text()),
        }
    }

    fn structs(&mut self, at_least: usize) -> Vec<TestStruct<'static>> {
        let n = at_least + self.below(5);
        (0..n).map(|_| self.test_struct()).collect()
    }

    fn date_time(&mut self) -> DateTime {
        // From 0001-01-01 to 9999-12-31, in milliseconds.
        let span = 315_537_897_599_999u64;
        DateTime {
            unix_millis: -62_135_596_800_000 + (self.next() % span) as i64,
        }
    }

    fn address(&mut self) -> Address<'static> {
        Address {
            first_name: self.text(),
            last_name: self.text(),
            address1: self.text(),
            address2: self.text(),
            city: self.text(),
            state: self.text(),
            zip: self.text(),
        }
    }

    fn order(&mut self) -> Order<'static> {
        Order {
            order_id: self.int(),
            order_status: self.int(),
            order_date: self.date_time(),
            order_total_amount: self.float(),
            customer: Customer {
                customer_id: self.int(),
                contact_first_name: self.text(),
                contact_last_name: self.text(),
                contact_phone: self.text(),
                last_activity_date: self.date_time(),
                credit_card_number: self.text(),
                credit_card_expiration_date: self.text(),
                billing_address: self.address(),
                shipping_address: self.address(),
            },
            line_items: (0..self.below(4))
                .map(|_| {
                    (self.below(3) != 0).then(|| LineItem {
                        order_id: self.int(),
                        item_id: self.int(),
                        product_id: self.int(),
                        product_description: self.text(),
                        order_quantity: self.int(),
                        unit_price: self.float(),
                    })
                })
                .collect(),
        }
    }

    fn synthetic(&mut self) -> Option<Synthetic<'static>> {
        (self.below(5) != 0).then(|| Synthetic {
            strng: (self.below(3) != 0).then(|| self.text()),
            strct: (self.below(3) != 0).then(|| self.test_struct()),
            barray: (self.below(3) != 0)
                .then(|| (0..self.below(70)).map(|_| self.next() as u8).collect()),
        })
    }
}

#[track_caller]
fn check(request: Request<'_>, response: Response<'_>) {
    check_with(
        &[LexerChoice::Fast, LexerChoice::QuickXml],
        request,
        response,
    );
}

#[track_caller]
fn check_with(lexers: &[LexerChoice], request: Request<'_>, response: Response<'_>) {
    let mut bytes = Vec::new();
    wstest::encode_request(&request, &mut bytes);
    let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(2000)]).into_owned();
    for &lexer in lexers {
        let decoded = decode_request_with(lexer, &bytes, None)
            .unwrap_or_else(|fault| panic!("{lexer:?}: {fault}\n{shown}"));
        // Debug text compares floats bit for bit, NaN and -0.0 included.
        assert_eq!(format!("{decoded:?}"), format!("{request:?}"), "{lexer:?}");
    }
    bytes.clear();
    wstest::encode_response(&response, &mut bytes);
    match wstest::decode_response(&bytes) {
        Ok(Reply::Response(decoded)) => assert_eq!(format!("{decoded:?}"), format!("{response:?}")),
        other => panic!("{other:?}\n{shown}"),
    }
}

#[test]
fn generated_values_round_trip() {
    let mut generator = Gen(Rng(0x5EED_CAFE_F00D_1234));
    for _ in 0..300 {
        let structs = generator.structs(1);
        check(
            Request::EchoStruct(structs.clone()),
            Response::EchoStruct(structs),
        );
        let nodes = generator.structs(0);
        check(Request::EchoList(nodes.clone()), Response::EchoList(nodes));
        let synth = generator.synthetic();
        check(
            Request::EchoSynthetic(synth.clone()),
            Response::EchoSynthetic(synth),
        );
        let params = GetOrder {
            order_id: generator.int(),
            customer_id: generator.int(),
            message_size: generator.below(50) as i32,
        };
        check(
            Request::GetOrder(params),
            Response::GetOrder(generator.order()),
        );
    }
    check(Request::EchoVoid, Response::EchoVoid);
}

/// A list as deep as the cap allows decodes, encodes and drops without recursion; quick-xml
/// takes lists up to its own nesting limit.
#[test]
fn the_deepest_allowed_list_round_trips() {
    let list = |n: usize| -> Vec<TestStruct<'static>> {
        (0..n)
            .map(|idx| TestStruct {
                i: idx as i32,
                f: None,
                s: Some(Cow::Borrowed("x")),
            })
            .collect()
    };
    let nodes = list(wstest::decode::MAX_LIST_NODES);
    check_with(
        &[LexerChoice::Fast],
        Request::EchoList(nodes.clone()),
        Response::EchoList(nodes),
    );
    let nodes = list(65_000);
    check_with(
        &[LexerChoice::QuickXml],
        Request::EchoList(nodes.clone()),
        Response::EchoList(nodes),
    );
}

#[test]
fn generated_orders_match_the_reference_shape() {
    let params = GetOrder {
        order_id: 1,
        customer_id: 2,
        message_size: 2,
    };
    let description = params.product_description();
    let order = params.generate(
        DateTime {
            unix_millis: 1_243_857_600_000,
        },
        &description,
    );
    let mut out = Vec::new();
    wstest::encode_response(&Response::GetOrder(order), &mut out);
    let text = String::from_utf8(out).unwrap();
    for expected in [
        "<OrderDate>2009-06-01T12:00:00.000Z</OrderDate>",
        "<LastName>Bil1 LastName 2</LastName>",
        "<ContactPhone>425-882-8080</ContactPhone>",
        "<CreditCardExpirationDate>12/12/2012</CreditCardExpirationDate>",
        "<ProductDescription>Test Product 2</ProductDescription>",
        "<ItemId>2</ItemId>",
        "<UnitPrice>5.0</UnitPrice>",
        "<OrderTotalAmount>50.0</OrderTotalAmount>",
    ] {
        assert!(text.contains(expected), "{expected} missing from {text}");
    }
}

/// The server's direct GetOrder writer makes the same bytes as encoding the generated order.
#[test]
fn direct_get_order_writer_matches_the_generator() {
    let mut generator = Gen(Rng(42));
    for message_size in [0, 1, 2, 20, 100, 1000] {
        let params = GetOrder {
            order_id: generator.int(),
            customer_id: generator.int(),
            message_size,
        };
        let now = generator.date_time();
        let description = params.product_description();
        let mut expected = Vec::new();
        wstest::encode_response(
            &Response::GetOrder(params.generate(now, &description)),
            &mut expected,
        );
        let mut direct = Vec::new();
        wstest::encode::encode_get_order_response(&params, now, &mut direct);
        assert_eq!(
            String::from_utf8(direct).unwrap(),
            String::from_utf8(expected).unwrap()
        );
    }
}

/// Floats are written as ryu's shortest text, whichever path writes them.
#[test]
fn floats_are_written_in_shortest_form() {
    let mut generator = Gen(Rng(7));
    let mut values: Vec<f32> = vec![
        2.0,
        2.5,
        -2.5,
        0.5,
        -0.5,
        12_345_678.0,
        99_999_999.9,
        1e8,
        0.1,
        -0.0,
    ];
    values.extend((0..2000).map(|idx| idx as f32 * 0.5 - 300.0));
    values.extend(
        (0..2000)
            .map(|_| f32::from_bits(generator.next() as u32))
            .filter(|v| v.is_finite()),
    );
    for value in values {
        let item = TestStruct {
            i: 0,
            f: Some(value),
            s: None,
        };
        let mut out = Vec::new();
        wstest::encode_response(&Response::EchoStruct(vec![item]), &mut out);
        let text = String::from_utf8(out).unwrap();
        let expected = format!("<f>{}</f>", ryu::Buffer::new().format_finite(value));
        assert!(
            text.contains(&expected),
            "{value:?}: {expected} not in {text}"
        );
    }
}
