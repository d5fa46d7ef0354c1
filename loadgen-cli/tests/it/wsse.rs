//! An independent check of loadgen's WS-Security headers (`{{wsse-username-token}}`), for
//! the template tests.

use std::collections::BTreeSet;

use crate::templates::Received;

/// A verifier of UsernameToken headers written from the OASIS Web Services Security
/// UsernameToken Profile 1.1 (sections 3.1 and 4) and the SOAP Message Security Timestamp,
/// apart from loadgen's code: each request's Security header parsed as XML; the password
/// `Base64(SHA-1(nonce + created + password))` recomputed (by sha1_smol, not the sha1 crate
/// loadgen uses) or compared as text; Created within a minute of now and Expires after it;
/// no nonce seen twice. The users' passwords are the cases' (`alice`, `bob`, `al&ce`).
/// Returns the users seen.
pub(crate) fn verify_username_tokens(
    received: &[Received],
    digest: bool,
) -> Result<BTreeSet<String>, String> {
    use base64::Engine as _;
    const WSSE: &str =
        "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd";
    const WSU: &str =
        "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd";
    const TYPES: &str =
        "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0";
    let password_of = |user: &str| match user {
        "alice" => Some("pa55word"),
        "bob" => Some("p&ss <x>"),
        "al&ce" => Some("s3cr<t"),
        _ => None,
    };
    let (mut nonces, mut users) = (BTreeSet::new(), BTreeSet::new());
    let now = jiff::Timestamp::now();
    for (index, request) in received.iter().enumerate() {
        let fail = |what: &str| format!("request {index}: {what}\n{}", request.body);
        let document =
            roxmltree::Document::parse(&request.body).map_err(|e| fail(&e.to_string()))?;
        fn find<'a, 'i>(
            ns: &str,
            name: &str,
            within: roxmltree::Node<'a, 'i>,
        ) -> Option<roxmltree::Node<'a, 'i>> {
            within
                .descendants()
                .find(|node| node.has_tag_name((ns, name)))
        }
        let root = document.root_element();
        let security = find(WSSE, "Security", root).ok_or_else(|| fail("no wsse:Security"))?;
        let timestamp = find(WSU, "Timestamp", security).ok_or_else(|| fail("no wsu:Timestamp"))?;
        let token =
            find(WSSE, "UsernameToken", security).ok_or_else(|| fail("no UsernameToken"))?;
        let text = |node: Option<roxmltree::Node<'_, '_>>, what: &str| {
            node.and_then(|node| node.text())
                .map(str::to_owned)
                .ok_or_else(|| fail(what))
        };
        let user = text(find(WSSE, "Username", token), "no Username")?;
        let password_node = find(WSSE, "Password", token).ok_or_else(|| fail("no Password"))?;
        let password = text(Some(password_node), "an empty Password")?;
        let nonce_node = find(WSSE, "Nonce", token).ok_or_else(|| fail("no Nonce"))?;
        let created = text(find(WSU, "Created", token), "no Created in the token")?;
        let stamp_created = text(
            find(WSU, "Created", timestamp),
            "no Created in the Timestamp",
        )?;
        let expires = text(find(WSU, "Expires", timestamp), "no Expires")?;
        let parse = |text: &str| {
            text.parse::<jiff::Timestamp>()
                .map_err(|e| fail(&e.to_string()))
        };
        let (created_at, expires_at) = (parse(&created)?, parse(&expires)?);
        if created_at.duration_since(now).as_secs_f64().abs() > 60.0
            || expires_at <= created_at
            || stamp_created != created
        {
            return Err(fail("times out of order"));
        }
        if nonce_node
            .attribute("EncodingType")
            .is_none_or(|t| !t.ends_with("#Base64Binary"))
        {
            return Err(fail("the nonce's EncodingType"));
        }
        let nonce = base64::engine::general_purpose::STANDARD
            .decode(text(Some(nonce_node), "an empty Nonce")?)
            .map_err(|e| fail(&e.to_string()))?;
        if nonce.len() < 16 || !nonces.insert(nonce.clone()) {
            return Err(fail("a nonce short or seen before"));
        }
        let secret = password_of(&user).ok_or_else(|| fail("an unknown user"))?;
        let kind = password_node.attribute("Type").unwrap_or_default();
        let expected = if digest {
            let mut sha1 = sha1_smol::Sha1::new();
            sha1.update(&nonce);
            sha1.update(created.as_bytes());
            sha1.update(secret.as_bytes());
            (
                format!("{TYPES}#PasswordDigest"),
                base64::engine::general_purpose::STANDARD.encode(sha1.digest().bytes()),
            )
        } else {
            (format!("{TYPES}#PasswordText"), secret.to_owned())
        };
        if (kind, password.as_str()) != (expected.0.as_str(), expected.1.as_str()) {
            return Err(fail("the password does not verify"));
        }
        users.insert(user);
    }
    Ok(users)
}
